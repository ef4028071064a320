package interview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/seckill-lab/seckill/web"
)

// WriteHTML writes page as one self-contained HTML page (no network) to
// study from: the dashboard's own Interview renderer
// (assets/interview-model.js and interview-view.js, embedded by package
// web) inlined with its stylesheet and page's JSON, an EN | 中文 switch.
// The dashboard's links (a run's section, a sale's timeline) are left out:
// the page has no shop to open them on; each figure still names its run.
// made and machine say when and where the figures were read.
func WriteHTML(w io.Writer, page Page, made time.Time, machine string) error {
	data, err := json.Marshal(page) // escapes <, > and &: safe inside a script element
	if err != nil {
		return err
	}
	script, css, err := renderer()
	if err != nil {
		return err
	}
	title := fmt.Sprintf("Seckill Lab: design a flash sale (%s, %s)", made.UTC().Format("2006-01-02"), machine)
	var buf bytes.Buffer
	if err := exportPage.Execute(&buf, struct {
		Title  string
		CSS    template.CSS
		JSON   template.JS
		Script template.JS
	}{title, template.CSS(css), template.JS(data), template.JS(script)}); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// rendererFiles are the modules inlined, each after the ones it imports.
var rendererFiles = []string{"assets/interview-model.js", "assets/interview-view.js"}

// renderer is the inlined script (the modules, then the start) and the
// stylesheet, read from the embedded dashboard (web.Inline).
func renderer() (script, css string, err error) {
	return web.Inline(rendererFiles, startScript, "assets/interview.css")
}

// startScript draws the page in the language kept (the dashboard's key) and
// follows the switch.
const startScript = `// ---- start
const LANG_KEY = 'seckill.zhLabels';
const data = JSON.parse(document.getElementById('page').textContent);
let zhOn = false;
try { zhOn = localStorage.getItem(LANG_KEY) === '1'; } catch { /* a file with no storage */ }
const view = createInterviewView(document.getElementById('interview-root'), { zh: () => zhOn, links: false });
const langBtn = document.getElementById('lang');
function applyLang() {
  document.documentElement.lang = zhOn ? 'zh-CN' : 'en';
  langBtn.setAttribute('aria-pressed', String(zhOn));
  document.getElementById('title').textContent = ivLabel('ivTitle', zhOn);
  document.getElementById('sub').textContent = ivLabel('ivSub', zhOn);
}
langBtn.addEventListener('click', () => {
  zhOn = !zhOn;
  try { localStorage.setItem(LANG_KEY, zhOn ? '1' : '0'); } catch { /* kept for this page only */ }
  applyLang();
  view.relabel();
});
applyLang();
view.render(data);
`

var exportPage = template.Must(template.New("interview").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{margin:0;font:18px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;color:#1b1f24;background:#f6f8fa}
header{display:flex;align-items:center;gap:1rem;flex-wrap:wrap;padding:.5rem 1.2rem;background:#24292f;color:#fff}
header h1{font-size:1.3rem;margin:0}
header .sub{display:block;font-weight:400;color:#d0d7de;font-size:1rem}
#lang{margin-left:auto;font:inherit;padding:0;display:inline-flex;border:1px solid #57606a;border-radius:6px;overflow:hidden;background:#32383f;color:#e6edf3;cursor:pointer}
#lang span{padding:.2rem .6rem}
#lang[aria-pressed=false] .en,#lang[aria-pressed=true] .zh{background:#fff;color:#1b1f24;font-weight:700}
main{padding:.8rem 1.2rem 2rem}
@media (max-width:600px){main{padding:.6rem .5rem 2rem}header{padding:.5rem .7rem}}
{{.CSS}}
</style></head><body>
<header><h1><span id="title">Design a flash sale: the interview path</span><span id="sub" class="sub"></span></h1>
<button type="button" id="lang" aria-pressed="false" aria-label="中文 / English"><span class="en">EN</span><span class="zh" lang="zh-CN">中文</span></button></header>
<main><div id="interview-root" class="iv"></div></main>
<script type="application/json" id="page">{{.JSON}}</script>
<script>
{{.Script}}
</script>
</body></html>
`))
