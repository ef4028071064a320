package timeline

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io"
)

// WriteHTML writes t as one self-contained HTML file (no network): the
// JSON inline, and a small script drawing one lane per replica and holder
// on a canvas, overlaps in red, fenced writes crossed out, faults shaded,
// and the narration under it; a hold is labelled with its token's rank
// (#4; the tooltip adds the raw token), a batch hold (combining) with its
// buyers. For slides and sharing a run.
func WriteHTML(w io.Writer, t Timeline) error {
	data, err := json.Marshal(t) // escapes <, > and &: safe inside a script element
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, struct {
		SaleID   uint64
		Strategy string
		JSON     template.JS
	}{t.SaleID, t.Strategy, template.JS(data)}); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// page is the exported file. Its script's top-level names must not be the
// window's unforgeable ones (top, window, document, location): a global
// "const top" is a SyntaxError and the page drew nothing.
var page = template.Must(template.New("timeline").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Sale {{.SaleID}} ({{.Strategy}}): lock timeline</title>
<style>
body{font:18px/1.45 system-ui,"Noto Sans CJK SC",sans-serif;margin:16px;color:#222}
h1{font-size:1.6rem;margin:.2rem 0 .5rem}
canvas{border:1px solid #ccc;width:100%}
#tip{position:fixed;background:#fff;border:1px solid #888;padding:4px 8px;font-size:16px;display:none;pointer-events:none}
ol{font-size:17px;padding-left:2.2rem}
ol li{margin:.25rem 0}
.zh{display:block;color:#555}
</style></head><body>
<h1>Sale {{.SaleID}} ({{.Strategy}}): lock timeline</h1>
<p id="facts"></p>
<ul id="effects"></ul>
<canvas id="c" height="400"></canvas>
<div id="tip"></div>
<h2>Narration</h2><ol id="story"></ol>
<script>
const T = {{.JSON}};
const cv = document.getElementById('c'), cx = cv.getContext('2d'), tip = document.getElementById('tip');
document.getElementById('facts').textContent = 'strategy ' + T.strategy + ', fencing ' + (T.fencing ? 'on' : 'off') +
  ', watchdog ' + (T.watchdog ? 'on' : 'off') + ', TTL ' + T.ttl_ms + ' ms; violations ' + T.violations.count +
  ' (' + T.violations.counts.en + ')' + (T.summarised ? '; summarised per ' + T.bucket_ms + ' ms' : '') +
  (T.combine ? '; combining: at most ' + T.combine_max_batch + ' buyers per hold' : '');
// Each line in English, its Chinese under it.
const line = (list, en, zh) => {
  const li = document.createElement('li'), z = document.createElement('span');
  li.textContent = en;
  z.className = 'zh'; z.lang = 'zh'; z.textContent = zh;
  li.appendChild(z);
  document.getElementById(list).appendChild(li);
};
for (const e of T.fault_effects || []) line('effects', e.kind + ': ' + e.en, e.zh);
for (const l of T.narration) line('story', l.en, l.zh);
// One row per (replica, lane), in the replicas' order.
const rows = [], rowOf = {};
for (const r of T.replicas) {
  const lanes = Math.max(1, ...T.sections.filter(s => s.replica === r).map(s => s.lane + 1));
  // A replica's second holder row is named as the dashboard names it (not '#2', which reads as a token).
  for (let l = 0; l < lanes; l++) { rowOf[r + '/' + l] = rows.length; rows.push(l ? '  ↳ row ' + (l + 1) : r); }
}
// Sized for a projector: 16 px text, lanes tall enough for it. Fault
// labels that start close together take a row each above the lanes.
const font = 16, left = 150, rowH = 36, stockH = 90, faultRowH = font + 8;
const faultRows = [];
for (const f of T.faults) {
  const at = (f.from - T.from) / Math.max(1e-3, T.to - T.from);
  let r = faultRows.findIndex(end => end < at);
  if (r < 0) { r = faultRows.length; faultRows.push(0); }
  faultRows[r] = at + 0.25; // a label takes about a quarter of the width
  f.row = r;
}
const plotTop = 6 + Math.max(1, faultRows.length) * faultRowH;
function draw() {
  cv.width = cv.clientWidth; cv.height = plotTop + rows.length * rowH + stockH + 30;
  const W = cv.width - left - 10, span = Math.max(1e-3, T.to - T.from);
  const x = t => left + (t - T.from) / span * W;
  cx.clearRect(0, 0, cv.width, cv.height);
  cx.font = font + 'px system-ui, "Noto Sans CJK SC", sans-serif';
  for (const f of T.faults) {
    cx.fillStyle = 'rgba(255,165,0,0.18)';
    const a = x(f.from), b = x(f.to ?? f.from);
    cx.fillRect(a, 0, Math.max(2, b - a), cv.height);
    cx.fillStyle = '#8a4b00'; cx.fillText(f.kind + ' (' + f.replica + ')', Math.min(a + 2, cv.width - 240), 4 + f.row * faultRowH + font);
  }
  rows.forEach((r, i) => { cx.fillStyle = '#222'; cx.fillText(r, 4, plotTop + i * rowH + rowH / 2 + font / 3); });
  for (const s of T.sections) {
    const y = plotTop + rowOf[s.replica + '/' + s.lane] * rowH;
    if (s.wait_at != null) { cx.fillStyle = '#ddd'; cx.fillRect(x(s.wait_at), y + rowH / 2 - 2, x(s.enter_at) - x(s.wait_at), 4); }
    cx.fillStyle = {committed: '#4a7', fenced: '#999', lock_lost: '#c80', sold_out: '#68a'}[s.outcome] || '#789';
    const a = x(s.enter_at), w = Math.max(1, x(s.exit_at) - a);
    cx.fillRect(a, y + 4, w, rowH - 8);
    if (s.outcome === 'fenced') {
      cx.strokeStyle = '#c00'; cx.lineWidth = 2; cx.beginPath(); cx.moveTo(a, y + 4); cx.lineTo(a + w, y + rowH - 4);
      cx.moveTo(a, y + rowH - 4); cx.lineTo(a + w, y + 4); cx.stroke(); cx.lineWidth = 1;
    }
    const text = s.buyers > 1 ? '×' + s.buyers : s.token_rank ? '#' + s.token_rank : '';
    if (text && w > cx.measureText(text).width + 6) { cx.fillStyle = '#fff'; cx.fillText(text, a + 4, y + rowH / 2 + font / 3); }
  }
  cx.fillStyle = 'rgba(220,0,0,0.45)';
  for (const o of T.overlaps) cx.fillRect(x(o.from), plotTop, Math.max(2, x(o.to) - x(o.from)), rows.length * rowH);
  for (const b of T.buckets) {
    const h = Math.min(rows.length * rowH, b.sections);
    cx.fillStyle = b.overlaps ? '#d33' : '#4a7'; cx.fillRect(x(b.from), plotTop + rows.length * rowH - h, Math.max(1, x(b.to) - x(b.from) - 1), h);
  }
  const sy = plotTop + rows.length * rowH + 10, max = Math.max(1, T.initial_stock);
  cx.strokeStyle = '#36c'; cx.beginPath();
  T.stock.forEach((p, i) => { const y = sy + stockH - Math.max(0, p.stock) / max * stockH; i ? cx.lineTo(x(p.at), y) : cx.moveTo(x(p.at), y); });
  cx.stroke(); cx.fillStyle = '#36c'; cx.fillText('stock 库存', 4, sy + font);
}
// A token as the class reads it, #4 (its place among the sale's), with the raw value.
const tokenText = s => s.token_rank ? 'token #' + s.token_rank + ' (raw ' + (s.token_raw || s.token) + ')' : 'no token';
cv.addEventListener('mousemove', e => {
  const r = cv.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
  const W = cv.width - left - 10, t = T.from + (px - left) / W * (T.to - T.from), row = Math.floor((py - plotTop) / rowH);
  const s = T.sections.find(s => rowOf[s.replica + '/' + s.lane] === row && s.enter_at <= t && t <= s.exit_at);
  tip.style.display = s ? 'block' : 'none';
  if (s) {
    tip.style.left = e.clientX + 12 + 'px'; tip.style.top = e.clientY + 12 + 'px';
    tip.textContent = 'section ' + s.id + ', ' + s.replica + ', ' + tokenText(s) + ', ' + s.outcome +
      ', held ' + (s.exit_at - s.enter_at).toFixed(3) + ' ms' + (s.order_id != null ? ', order ' + s.order_id : '') +
      (s.buyers ? ', one hold for ' + s.buyers + ' buyers: ' + (s.orders || 0) + ' orders' : '');
  }
});
addEventListener('resize', draw);
draw();
</script></body></html>
`))
