// Draws a timeline model (timeline-model.js) on a <canvas>: the time axis,
// one lane per replica and holder row (the lease strip above each hold,
// the wait as a thin bar, the hold as a thick one with its token's rank,
// "#4", a fenced write crossed out), fault windows shaded and named, overlaps in red with
// their orders, the stock line underneath and the replay cursor. Only what
// is in the window is drawn (two binary searches per lane), and sections
// narrower than a pixel are merged, so that 20,000 sections stay smooth.
import { batchBarLabels } from './combine-view.js';
import { label } from './i18n.js';
import { densityStrip, niceTicks, ordersLabel, sectionEnd, tokenLabel, visibleSections } from './timeline-model.js';

/** The layout in CSS pixels; the view reads it for hit tests. */
export const LAYOUT = { labelW: 112, axisH: 26, rowH: 46, stockH: 74, stripH: 70, pad: 8 };

/** Colours per outcome (the legend shows the same); words always come with them. */
export const COLOURS = {
  committed: '#1f6feb', fenced: '#6e7781', rolled_back: '#8c959f', lock_lost: '#bc4c00', gave_up: '#afb8c1',
  sold_out: '#4a9c5d', limit_reached: '#8250df', error: '#a40e26', unknown: '#953800',
  wait: '#c9d1d9', lease: '#2da44e', leaseLost: '#cf222e', overlap: '#d1242f', fault: 'rgba(212, 167, 44, 0.22)',
  faultText: '#7d4e00', stock: '#0a3069', grid: '#eaeef2', text: '#1b1f24', muted: '#57606a',
};

/** canvasHeight is the height the model needs. */
export function canvasHeight(model) {
  const lanes = model.summarised ? 0 : model.lanes.length * LAYOUT.rowH;
  const strip = model.summarised ? LAYOUT.stripH : 0;
  return LAYOUT.axisH + lanes + strip + LAYOUT.stockH + LAYOUT.pad;
}

/** tickLabel writes a tick's time since the start, with as many decimals as the step needs. */
function tickLabel(t, origin, step) {
  const d = t - origin;
  if (step >= 1000) return `${(d / 1000).toFixed(step >= 10000 ? 0 : Math.max(0, 3 - Math.floor(Math.log10(step))))} s`;
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return `${d.toFixed(digits)} ms`;
}

/**
 * drawTimeline paints model in window view on ctx (already scaled for the
 * device pixels) of width w CSS pixels. opts: zh, cursor (replay time or
 * null), hover (a section id or null). Returns {labels}: the texts written
 * on the holds ("#4", "×37 · #12"), for the page to expose to its tests.
 */
export function drawTimeline(ctx, w, model, view, opts = {}) {
  const { labelW, axisH, rowH, stockH, stripH } = LAYOUT;
  const h = canvasHeight(model);
  const plotW = Math.max(10, w - labelW - 8);
  const span = view.to - view.from;
  const x = (t) => labelW + ((t - view.from) / span) * plotW;
  const zh = !!opts.zh;
  const lanesTop = axisH;
  const lanesH = model.summarised ? stripH : model.lanes.length * rowH;
  const stockTop = lanesTop + lanesH;

  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  ctx.font = '12px system-ui, "Noto Sans CJK SC", sans-serif';
  ctx.textBaseline = 'middle';

  // The grid and the axis: times since the sale's start.
  // Round times since the sale's start, not round epoch times.
  const rel = niceTicks(view.from - model.from, view.to - model.from, Math.max(2, Math.floor(plotW / 110)));
  const step = rel.step, ticks = rel.ticks.map((t) => t + model.from);
  ctx.strokeStyle = COLOURS.grid;
  ctx.lineWidth = 1;
  ctx.fillStyle = COLOURS.muted;
  ctx.textAlign = 'center';
  for (const t of ticks) {
    const tx = Math.round(x(t)) + 0.5;
    ctx.beginPath(); ctx.moveTo(tx, axisH - 4); ctx.lineTo(tx, h - LAYOUT.pad); ctx.stroke();
    if (tx > labelW + 24) ctx.fillText(tickLabel(t, model.from, step), tx, axisH / 2); // not under the lane labels
  }

  ctx.save();
  ctx.beginPath(); ctx.rect(labelW, 0, plotW, h); ctx.clip();

  // Fault windows: shaded over their replica's lanes, named at the top.
  for (const f of model.faults) {
    if (f.to < view.from || f.from > view.to) continue;
    const x0 = Math.max(labelW, x(f.from)), x1 = Math.min(labelW + plotW, x(f.to));
    const rows = model.summarised ? [[lanesTop, stripH]] : f.lanes.map((i) => [lanesTop + i * rowH, rowH]);
    ctx.fillStyle = COLOURS.fault;
    for (const [y, rh] of rows) ctx.fillRect(x0, y, Math.max(1, x1 - x0), rh);
    const name = `${label(`f${f.kind}`, zh)}${f.replica ? ` · ${f.replica}` : ''}${f.target ? ` · ${f.target}` : ''}${f.open ? ' …' : ''}`;
    ctx.fillStyle = COLOURS.faultText;
    ctx.textAlign = 'left';
    ctx.font = 'bold 12px system-ui, "Noto Sans CJK SC", sans-serif';
    const y = rows.length ? rows[rows.length - 1][0] + rows[rows.length - 1][1] - 8 : lanesTop + 8;
    ctx.fillText(`⚡ ${name}`, Math.max(x0 + 4, labelW + 4), y);
    ctx.font = '12px system-ui, "Noto Sans CJK SC", sans-serif';
  }

  const labels = [];
  if (model.summarised) drawStrip(ctx, model, view, x, lanesTop, stripH);
  else drawLanes(ctx, model, view, x, lanesTop, opts, labels);

  drawStock(ctx, model, view, x, stockTop, stockH, labelW + plotW);

  // The replay cursor: the future is veiled, the present is a line.
  if (opts.cursor !== null && opts.cursor !== undefined && opts.cursor < view.to) {
    const cx = x(opts.cursor);
    ctx.fillStyle = 'rgba(255,255,255,0.72)';
    ctx.fillRect(Math.max(labelW, cx), axisH, labelW + plotW - Math.max(labelW, cx), h - axisH);
    ctx.strokeStyle = COLOURS.text;
    ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(cx, axisH - 6); ctx.lineTo(cx, h - LAYOUT.pad); ctx.stroke();
  }
  ctx.restore();

  // The lane labels, over a white column so that bars never run under them.
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, labelW, h);
  ctx.textAlign = 'left';
  ctx.fillStyle = COLOURS.text;
  if (model.summarised) {
    ctx.font = 'bold 12px system-ui, "Noto Sans CJK SC", sans-serif';
    ctx.fillText(label('tlDensity', zh), 6, lanesTop + stripH / 2);
  } else {
    let prev = '';
    model.lanes.forEach((lane, i) => {
      const y = lanesTop + i * rowH;
      ctx.strokeStyle = COLOURS.grid;
      ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(w, y + 0.5); ctx.stroke();
      ctx.font = lane.replica === prev ? '12px system-ui, sans-serif' : 'bold 13px system-ui, sans-serif';
      ctx.fillStyle = lane.replica === prev ? COLOURS.muted : COLOURS.text;
      ctx.fillText(lane.replica === prev ? `  ↳ ${zh ? `第 ${lane.row + 1} 行` : `row ${lane.row + 1}`}` : lane.replica, 6, y + rowH / 2, labelW - 10);
      prev = lane.replica;
    });
  }
  ctx.font = 'bold 12px system-ui, "Noto Sans CJK SC", sans-serif';
  ctx.fillStyle = COLOURS.stock;
  ctx.fillText(label('tlStock', zh), 6, stockTop + stockH / 2);
  return { labels };
}

/** drawLanes paints the leases, waits, holds, tokens and overlaps inside the window; labels gets the holds' texts. */
function drawLanes(ctx, model, view, x, top, opts, labels) {
  const { rowH } = LAYOUT;
  const open = model.to;
  // Leases: a strip above the hold, from the grant to the expiry the client
  // believed; those narrower than a pixel ending in a lane's last pixel
  // column are merged (thousands of them at a wide zoom).
  const leaseEnd = new Map(); // lane -> the pixel column its last lease drawn ended in
  ctx.fillStyle = COLOURS.lease;
  for (const b of model.leases) {
    if (b.lane < 0 || b.to < view.from || b.from > view.to) continue;
    const y = top + b.lane * rowH + 4;
    const x0 = x(b.from), x1 = x(b.to);
    const lost = b.ended === 'lost' || b.ended === 'expired';
    if (!lost && x1 - x0 < 1 && Math.floor(x1) === leaseEnd.get(b.lane)) continue;
    leaseEnd.set(b.lane, Math.floor(x1));
    ctx.fillRect(x0, y, Math.max(1, x1 - x0), 5);
    if (lost) {
      ctx.fillStyle = COLOURS.leaseLost;
      ctx.fillRect(x1 - 1, y - 3, 3, 11);
      ctx.fillStyle = COLOURS.lease;
    }
  }
  // The overlaps' red fill goes under the bars: the bars stay readable, the red shows between them.
  for (const o of model.overlaps) {
    if (o.to < view.from || o.from > view.to || o.laneA < 0 || o.laneB < 0) continue;
    ctx.fillStyle = 'rgba(209, 36, 47, 0.30)';
    ctx.fillRect(x(o.from), top + o.top * rowH + 8, Math.max(2, x(o.to) - x(o.from)), (o.bottom - o.top + 1) * rowH - 12);
  }
  for (const lane of model.lanes) {
    const y = top + lane.index * rowH;
    const holdY = y + 13, holdH = 24, waitY = y + 22, waitH = 6;
    const seen = visibleSections(lane, view.from, view.to, open);
    // Waits first, merged per pixel.
    ctx.fillStyle = COLOURS.wait;
    let lastX = -1;
    for (const s of seen) {
      if (s.wait_at === null || s.wait_at === undefined) continue;
      const x0 = x(s.wait_at), x1 = x(s.enter_at);
      if (x1 <= lastX && x1 - x0 < 1) continue;
      ctx.fillRect(x0, waitY, Math.max(1, x1 - x0), waitH);
      lastX = x1;
    }
    lastX = -1;
    seen.forEach((s, i) => {
      const x0 = x(s.enter_at), x1 = x(sectionEnd(s, open));
      const wpx = x1 - x0;
      if (wpx < 1 && Math.floor(x1) === lastX && s.outcome === 'committed') return;
      lastX = Math.floor(x1);
      ctx.fillStyle = COLOURS[s.outcome] || COLOURS.unknown;
      ctx.fillRect(x0, holdY, Math.max(1, wpx), holdH);
      if (s.outcome === 'fenced') crossOut(ctx, x0, holdY, Math.max(6, wpx), holdH);
      if (opts.hover === s.id) {
        ctx.strokeStyle = COLOURS.text; ctx.lineWidth = 2;
        ctx.strokeRect(x0 - 1, holdY - 1, Math.max(1, wpx) + 2, holdH + 2);
      }
      // A batch hold (combining) says its size, else the token.
      const batch = batchBarLabels(s, opts.zh);
      if (batch.length && s.buyers > 1) { // a batch of one says nothing more than a bar
        const text = batchLabel(ctx, batch, x0, x1, Math.min(x(view.to), seen[i + 1] ? x(seen[i + 1].enter_at) : Infinity), holdY + holdH / 2);
        if (text) labels.push(text);
      } else if (tokenLabel(s) && wpx > 12) {
        if (tokenText(ctx, tokenLabel(s), x0, x1, holdY + holdH / 2)) labels.push(tokenLabel(s));
      }
    });
  }
  drawOverlaps(ctx, model, view, x, top, opts.zh);
}

/** tokenText writes a hold's token ("#4") in white inside its bar [x0, x1] when it fits; returns whether it did. */
function tokenText(ctx, text, x0, x1, y) {
  ctx.textAlign = 'left';
  ctx.font = 'bold 13px system-ui, sans-serif';
  const tx = Math.max(x0 + 4, LAYOUT.labelW + 4);
  if (tx + ctx.measureText(text).width + 2 > x1) return false;
  ctx.fillStyle = '#fff';
  ctx.fillText(text, tx, y);
  return true;
}

/**
 * batchLabel writes a batch hold's size: the longest of texts that fits
 * inside its bar [x0, x1] in white, else the shortest ("×37") just right
 * of it in dark text when the lane is free up to next (the next hold's
 * x, or the plot's right edge). Returns the text written, '' for none.
 */
function batchLabel(ctx, texts, x0, x1, next, y) {
  ctx.textAlign = 'left';
  ctx.font = 'bold 12px system-ui, "Noto Sans CJK SC", sans-serif';
  const tx = Math.max(x0 + 2, LAYOUT.labelW + 4);
  const inside = texts.find((t) => tx + ctx.measureText(t).width + 1 <= x1);
  if (inside) {
    ctx.fillStyle = '#fff';
    ctx.fillText(inside, tx, y);
    return inside;
  }
  const short = texts[texts.length - 1];
  const ox = Math.max(x1 + 3, LAYOUT.labelW + 4);
  if (ox + ctx.measureText(short).width + 3 > next) return '';
  ctx.fillStyle = COLOURS.text;
  ctx.fillText(short, ox, y);
  return short;
}

/** drawOverlaps outlines each overlap in red over both lanes and writes the orders it touched on a white tag. */
function drawOverlaps(ctx, model, view, x, top, zh) {
  const { rowH } = LAYOUT;
  ctx.font = 'bold 12px system-ui, sans-serif';
  ctx.textAlign = 'left';
  for (const o of model.overlaps) {
    if (o.to < view.from || o.from > view.to || o.laneA < 0 || o.laneB < 0) continue;
    const x0 = x(o.from), x1 = x(o.to);
    const y0 = top + o.top * rowH + 8, y1 = top + (o.bottom + 1) * rowH - 4;
    ctx.strokeStyle = COLOURS.overlap;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0, y0, Math.max(2, x1 - x0), y1 - y0);
    const text = ordersLabel(o.orders, zh);
    if (!text || x1 - x0 < 24) continue;
    const tw = Math.min(ctx.measureText(text).width + 6, x1 - x0 - 2);
    ctx.fillStyle = '#fff';
    ctx.fillRect(x0 + 2, y1 - 15, tw, 14);
    ctx.fillStyle = COLOURS.overlap;
    ctx.fillText(text, x0 + 5, y1 - 8, tw - 4);
  }
}

/** crossOut strikes a fenced write through with an X and a bar: refused by the store. */
function crossOut(ctx, x0, y, w, h) {
  ctx.strokeStyle = COLOURS.overlap;
  ctx.lineWidth = 2.5;
  const right = x0 + w;
  const xs = Math.max(x0, right - Math.min(w, 26));
  ctx.beginPath();
  ctx.moveTo(xs, y); ctx.lineTo(right, y + h);
  ctx.moveTo(right, y); ctx.lineTo(xs, y + h);
  ctx.moveTo(x0, y + h / 2); ctx.lineTo(right, y + h / 2);
  ctx.stroke();
}

/** drawStrip paints a summarised sale's buckets: the height is the load, red where overlaps were. */
function drawStrip(ctx, model, view, x, top, h) {
  for (const b of densityStrip(model.buckets)) {
    if (b.to < view.from || b.from > view.to) continue;
    const x0 = x(b.from), x1 = x(b.to);
    const bh = Math.max(1, b.level * (h - 14));
    ctx.fillStyle = b.overlaps > 0 ? COLOURS.overlap : COLOURS.committed;
    ctx.fillRect(x0, top + h - 4 - bh, Math.max(1, x1 - x0 - 0.5), bh);
    if (b.fenced > 0) { ctx.fillStyle = COLOURS.fenced; ctx.fillRect(x0, top + 2, Math.max(1, x1 - x0 - 0.5), 5); }
  }
}

/** drawStock paints the database's stock as a step line, its value at each step where there is room. */
function drawStock(ctx, model, view, x, top, h, right) {
  if (!model.stock.length) return;
  const { min, max } = stockRange(model);
  const y = (v) => top + 8 + (1 - (v - min) / (max - min || 1)) * (h - 18);
  ctx.strokeStyle = COLOURS.grid;
  ctx.beginPath(); ctx.moveTo(LAYOUT.labelW, top + 0.5); ctx.lineTo(right, top + 0.5); ctx.stroke();
  if (min < 0) { // below zero is oversold: a red zero line
    ctx.strokeStyle = COLOURS.overlap;
    ctx.beginPath(); ctx.moveTo(LAYOUT.labelW, y(0)); ctx.lineTo(right, y(0)); ctx.stroke();
  }
  ctx.strokeStyle = COLOURS.stock;
  ctx.lineWidth = 2;
  ctx.beginPath();
  let started = false, prevY = 0, lastLabel = -Infinity;
  const labels = [];
  // From the last point before the window (a binary search) to the first
  // after it; points sharing a pixel column with the next one are skipped
  // (the step line's vertical runs through them).
  const stock = model.stock;
  let lo = 0, hi = stock.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (stock[mid].at < view.from) lo = mid + 1; else hi = mid; }
  for (let i = Math.max(0, lo - 1); i < stock.length; i++) {
    const p = stock[i];
    if (p.at > view.to) break;
    const px = Math.max(LAYOUT.labelW, x(p.at)), py = y(p.stock);
    const nextAt = stock[i + 1]?.at;
    if (started && nextAt !== undefined && nextAt <= view.to && Math.floor(x(nextAt)) === Math.floor(px)) continue;
    if (!started) { ctx.moveTo(px, py); started = true; } else { ctx.lineTo(px, prevY); ctx.lineTo(px, py); }
    prevY = py;
    if (px - lastLabel > 28) { labels.push([px, py, p.stock]); lastLabel = px; }
  }
  if (started) { ctx.lineTo(right, prevY); ctx.stroke(); }
  ctx.fillStyle = COLOURS.stock;
  ctx.textAlign = 'left';
  ctx.font = '11px system-ui, sans-serif';
  for (const [px, py, v] of labels) ctx.fillText(String(v), px + 3, py - 7);
}

/** stockRange is the stock axis's span (0 and the initial stock included), computed once per model. */
function stockRange(model) {
  if (!model.stockRange) {
    let max = Math.max(1, model.data.initial_stock || 0), min = 0;
    for (const p of model.stock) { if (p.stock > max) max = p.stock; if (p.stock < min) min = p.stock; }
    model.stockRange = { min, max };
  }
  return model.stockRange;
}
