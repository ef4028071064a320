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
body{font:14px system-ui,sans-serif;margin:16px;color:#222}
canvas{border:1px solid #ccc;width:100%}
#tip{position:fixed;background:#fff;border:1px solid #888;padding:4px 6px;font-size:12px;display:none;pointer-events:none}
ol{font-size:13px}
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
for (const e of T.fault_effects || []) {
  const li = document.createElement('li');
  li.textContent = e.kind + ': ' + e.en + ' / ' + e.zh;
  document.getElementById('effects').appendChild(li);
}
for (const l of T.narration) {
  const li = document.createElement('li');
  li.textContent = l.en + ' / ' + l.zh;
  document.getElementById('story').appendChild(li);
}
// One row per (replica, lane), in the replicas' order.
const rows = [], rowOf = {};
for (const r of T.replicas) {
  const lanes = Math.max(1, ...T.sections.filter(s => s.replica === r).map(s => s.lane + 1));
  for (let l = 0; l < lanes; l++) { rowOf[r + '/' + l] = rows.length; rows.push(r + (l ? ' #' + (l + 1) : '')); }
}
const left = 120, rowH = 28, plotTop = 20, stockH = 80;
function draw() {
  cv.width = cv.clientWidth; cv.height = plotTop + rows.length * rowH + stockH + 30;
  const W = cv.width - left - 10, span = Math.max(1e-3, T.to - T.from);
  const x = t => left + (t - T.from) / span * W;
  cx.clearRect(0, 0, cv.width, cv.height);
  cx.font = '12px sans-serif';
  for (const f of T.faults) {
    cx.fillStyle = 'rgba(255,165,0,0.18)';
    const a = x(f.from), b = x(f.to ?? f.from);
    cx.fillRect(a, 0, Math.max(2, b - a), cv.height);
    cx.fillStyle = '#a60'; cx.fillText(f.kind + ' (' + f.replica + ')', a + 2, 12);
  }
  rows.forEach((r, i) => { cx.fillStyle = '#222'; cx.fillText(r, 4, plotTop + i * rowH + 17); });
  for (const s of T.sections) {
    const y = plotTop + rowOf[s.replica + '/' + s.lane] * rowH;
    if (s.wait_at != null) { cx.fillStyle = '#ddd'; cx.fillRect(x(s.wait_at), y + 11, x(s.enter_at) - x(s.wait_at), 4); }
    cx.fillStyle = {committed: '#4a7', fenced: '#999', lock_lost: '#c80', sold_out: '#68a'}[s.outcome] || '#789';
    const a = x(s.enter_at), w = Math.max(1, x(s.exit_at) - a);
    cx.fillRect(a, y + 4, w, 18);
    if (s.outcome === 'fenced') {
      cx.strokeStyle = '#c00'; cx.beginPath(); cx.moveTo(a, y + 4); cx.lineTo(a + w, y + 22);
      cx.moveTo(a, y + 22); cx.lineTo(a + w, y + 4); cx.stroke();
    }
    const text = s.buyers > 1 ? '×' + s.buyers : s.token_rank ? '#' + s.token_rank : '';
    if (text && w > cx.measureText(text).width + 6) { cx.fillStyle = '#fff'; cx.fillText(text, a + 3, y + 17); }
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
  cx.stroke(); cx.fillStyle = '#36c'; cx.fillText('stock', 4, sy + 12);
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
