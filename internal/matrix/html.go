package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"

	"github.com/seckill-lab/seckill/web"
)

// WriteHTML writes r as one self-contained HTML page (no network), for
// slides and a project page: the dashboard's own Matrix renderer
// (assets/matrix-model.js and matrix-view.js, embedded by package web)
// inlined with its stylesheet and r's JSON, an EN | 中文 switch, a cell's
// detail a click (or Enter) away. The sale links of the dashboard are
// left out: the page has no shop to open them on.
func WriteHTML(w io.Writer, r Report) error {
	data, err := json.Marshal(r) // escapes <, > and &: safe inside a script element
	if err != nil {
		return err
	}
	script, css, err := renderer()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := exportPage.Execute(&buf, struct {
		Title  string
		CSS    template.CSS
		JSON   template.JS
		Script template.JS
	}{exportTitle(r), template.CSS(css), template.JS(data), template.JS(script)}); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// exportTitle names the page: when and where the report ran, or that it
// is predicted only.
func exportTitle(r Report) string {
	const what = "Seckill Lab: which lock survives which failure"
	for _, c := range r.Cells {
		if c.Kind != "" {
			return fmt.Sprintf("%s (%s, %s)", what, r.StartedAt.Format("2006-01-02"), r.Machine)
		}
	}
	return what + " (predicted)"
}

// rendererFiles are the modules inlined, each after the ones it imports.
var rendererFiles = []string{"assets/matrix-model.js", "assets/matrix-view.js"}

// renderer is the inlined script (the modules, then the start) and the
// stylesheet, read from the embedded dashboard (web.Inline).
func renderer() (script, css string, err error) {
	return web.Inline(rendererFiles, startScript, "assets/matrix.css")
}

// startScript draws the report in the language kept (or the browser's) and
// follows the switch; the report is the page's JSON.
const startScript = `// ---- start
const LANG_KEY = 'seckill.matrix.zh';
const data = JSON.parse(document.getElementById('report').textContent);
const observed = (data.cells || []).some((c) => c.kind);
let zhOn = false;
try { zhOn = localStorage.getItem(LANG_KEY) === '1'; } catch { /* a file with no storage */ }
const view = createMatrixView(document.getElementById('matrix-root'), { zh: () => zhOn });
const langBtn = document.getElementById('lang');
function applyLang() {
  document.documentElement.lang = zhOn ? 'zh-CN' : 'en';
  langBtn.setAttribute('aria-pressed', String(zhOn));
  document.getElementById('title').textContent = L('mxTitle', zhOn);
  document.getElementById('sub').textContent = L('mxSub', zhOn);
}
langBtn.addEventListener('click', () => {
  zhOn = !zhOn;
  try { localStorage.setItem(LANG_KEY, zhOn ? '1' : '0'); } catch { /* kept for this page only */ }
  applyLang();
  view.relabel();
});
applyLang();
view.render({ observed, report: data });
`

// exportPage is the page. The report is a JSON script element (not run),
// the renderer a classic script after it.
var exportPage = template.Must(template.New("matrix").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC",sans-serif;color:#1b1f24;background:#f6f8fa}
header{display:flex;align-items:center;gap:1rem;flex-wrap:wrap;padding:.5rem 1.2rem;background:#24292f;color:#fff}
header h1{font-size:1.3rem;margin:0}
header .sub{font-weight:400;color:#d0d7de;font-size:1rem;margin-left:.4rem}
#lang{margin-left:auto;font:inherit;padding:0;display:inline-flex;border:1px solid #57606a;border-radius:6px;overflow:hidden;background:#32383f;color:#e6edf3;cursor:pointer}
#lang span{padding:.2rem .6rem}
#lang[aria-pressed=false] .en,#lang[aria-pressed=true] .zh{background:#fff;color:#1b1f24;font-weight:700}
main{padding:.8rem 1.2rem 2rem;background:#fff}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
{{.CSS}}
.mx{--mx-stage-h:4rem}
</style></head><body>
<header><h1><span id="title">Which lock survives which failure</span><span id="sub" class="sub"></span></h1>
<button type="button" id="lang" aria-pressed="false" aria-label="中文 / English"><span class="en">EN</span><span class="zh" lang="zh-CN">中文</span></button></header>
<main><div id="matrix-root" class="mx"></div></main>
<script type="application/json" id="report">{{.JSON}}</script>
<script>
{{.Script}}
</script>
</body></html>
`))
