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

/** BASE is the layout at scale 1 (the page's 16 px rem), in CSS pixels. */
const BASE = { font: 13, labelW: 112, axisH: 26, rowH: 46, stockH: 74, stripH: 70, pad: 8 };

/**
 * LAYOUT is the layout in CSS pixels at the scale last set (setScale); the
 * view reads it for hit tests. font is the one text size of the canvas.
 */
export const LAYOUT = { ...BASE, scale: 1, faultRowH: 0 };

/**
 * setScale sizes the canvas's text and lanes for a type scale, the page's
 * rem over 16 px (Large type: 1.25): the text is 13 px at 1, 16 px with
 * Large type, never smaller than 13; lanes, label column and tags follow.
 */
export function setScale(scale = 1) {
  const s = Math.max(1, Number(scale) || 1);
  const font = Math.max(BASE.font, Math.round(BASE.font * s));
  const k = font / BASE.font;
  for (const key of ['labelW', 'axisH', 'rowH', 'stockH', 'stripH', 'pad']) LAYOUT[key] = Math.round(BASE[key] * k);
  Object.assign(LAYOUT, { scale: s, font, faultRowH: font + 10 });
  return LAYOUT;
}
setScale(1);

/** Colours per outcome (the legend shows the same); words always come with them. */
export const COLOURS = {
  committed: '#1f6feb', fenced: '#6e7781', rolled_back: '#8c959f', lock_lost: '#bc4c00', gave_up: '#afb8c1',
  sold_out: '#4a9c5d', limit_reached: '#8250df', error: '#a40e26', unknown: '#953800',
  wait: '#c9d1d9', lease: '#2da44e', leaseLost: '#cf222e', overlap: '#d1242f', fault: 'rgba(212, 167, 44, 0.22)',
  faultText: '#7d4e00', stock: '#0a3069', grid: '#eaeef2', text: '#1b1f24', muted: '#57606a', witness: '#bf3989',
};

/** setFont sets the canvas's one text size, bold or not, and notes the size for the tests. */
function setFont(ctx, bold = false) {
  ctx.font = `${bold ? 'bold ' : ''}${LAYOUT.font}px system-ui, "Noto Sans CJK SC", sans-serif`;
  if (drawn) drawn.fonts.add(LAYOUT.font);
}

/** drawn collects what the current drawTimeline wrote: the fonts' sizes, the text boxes and the bars' extent. */
let drawn = null;

/** bands are the vertical bands of the canvas: axis, lanes (or the strip), fault labels, stock (stockH tall). */
function bands(model, faultRows, stockH = LAYOUT.stockH) {
  const { axisH, rowH, stripH, faultRowH } = LAYOUT;
  const lanesH = model.summarised ? stripH : model.lanes.length * rowH;
  const faultsTop = axisH + lanesH;
  const faultsH = faultRows * faultRowH;
  return { lanesTop: axisH, lanesH, faultsTop, faultsH, stockTop: faultsTop + faultsH, stockH };
}

/** canvasHeight is the height the model needs with faultRows rows of fault names (planTimeline counts them). */
export function canvasHeight(model, faultRows = model.faults?.length ? 1 : 0, stockH = LAYOUT.stockH) {
  const b = bands(model, faultRows, stockH);
  return b.stockTop + b.stockH + LAYOUT.pad;
}

/** faultName is a fault window's name as drawn: "⚡ Pause the lock holder · replica-2". */
function faultName(f, zh) {
  return `⚡ ${label(`f${f.kind}`, zh)}${f.replica ? ` · ${f.replica}` : ''}${f.target ? ` · ${f.target}` : ''}${f.open ? ' …' : ''}`;
}

/**
 * planTimeline sizes the drawing of model in view on a canvas w CSS pixels
 * wide at the scale opts.scale: each fault window in view gets a row of the
 * fault band where its name does not touch another's (the first free row,
 * left to right). opts.compact: a lower stock band (two sales compared,
 * one above the other). Returns {height, faults: [{f, text, row, x0, x1,
 * tx, tw}], rows, stockH}.
 */
export function planTimeline(ctx, w, model, view, opts = {}) {
  if (opts.scale !== undefined) setScale(opts.scale);
  const x = xScale(w, view);
  const { labelW } = LAYOUT;
  const right = w - 8;
  ctx.save();
  ctx.font = `bold ${LAYOUT.font}px system-ui, "Noto Sans CJK SC", sans-serif`;
  const ends = []; // per row: the right edge of its last name (or window)
  const faults = model.faults.filter((f) => f.to >= view.from && f.from <= view.to)
    .map((f) => {
      const x0 = Math.max(labelW, x(f.from)), x1 = Math.min(right, x(f.to)), text = faultName(f, opts.zh);
      const tw = ctx.measureText(text).width;
      const tx = Math.max(labelW + 4, Math.min(x0 + 4, right - tw - 4));
      return { f, text, x0, x1, tx, tw };
    })
    .sort((a, b) => a.tx - b.tx);
  for (const p of faults) {
    const left = Math.min(p.x0, p.tx);
    let row = ends.findIndex((end) => end + 8 <= left);
    if (row < 0) { row = ends.length; ends.push(0); }
    ends[row] = Math.max(p.x1, p.tx + p.tw);
    p.row = row;
  }
  ctx.restore();
  const rows = Math.max(ends.length, model.faults.length ? 1 : 0);
  const stockH = opts.compact ? Math.round(LAYOUT.stockH * 0.65) : LAYOUT.stockH;
  return { height: canvasHeight(model, rows, stockH), faults, rows, stockH };
}

/** xScale maps a time to the canvas's x in CSS pixels for view on a canvas w wide. */
function xScale(w, view) {
  const plotW = Math.max(10, w - LAYOUT.labelW - 8);
  const span = view.to - view.from;
  return (t) => LAYOUT.labelW + ((t - view.from) / span) * plotW;
}

/** tickLabel writes a tick's time since the start, with as many decimals as the step needs. */
function tickLabel(t, origin, step) {
  const d = t - origin;
  if (step >= 1000) return `${(d / 1000).toFixed(step >= 10000 ? 0 : Math.max(0, 3 - Math.floor(Math.log10(step))))} s`;
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  return `${d.toFixed(digits)} ms`;
}

/** clipTo restricts drawing to the plot's columns between y and y + h (every band keeps to its own). */
function clipTo(ctx, right, y, h) {
  ctx.save();
  ctx.beginPath(); ctx.rect(LAYOUT.labelW, y, right - LAYOUT.labelW, h); ctx.clip();
}

/**
 * drawTimeline paints model in window view on ctx (already scaled for the
 * device pixels) of width w CSS pixels. opts: zh, cursor (replay time or
 * null), hover (a section id or null), scale (the type scale, setScale),
 * plan (planTimeline's answer for the same arguments, else planned here),
 * origin (the time the axis counts from, the sale's start by default),
 * end ({at, text}: a sale that ended inside the window, the rest veiled
 * and the end marked with text: the shorter of two sales compared).
 * The time scale is view alone: two sales drawn with windows of one
 * length on canvases of one width share their milliseconds per pixel.
 * Returns {labels, boxes}: the texts written on the holds ("#4", "×37 ·
 * #12"), and the boxes of the fault names and stock figures with the
 * font sizes used, the scale (ms per pixel) and the x extent of the bars
 * drawn, for the page to expose to its tests.
 */
export function drawTimeline(ctx, w, model, view, opts = {}) {
  const plan = opts.plan || planTimeline(ctx, w, model, view, opts);
  const { labelW } = LAYOUT;
  const h = plan.height;
  const plotW = Math.max(10, w - labelW - 8);
  const right = labelW + plotW;
  const x = xScale(w, view);
  const b = bands(model, plan.rows, plan.stockH);
  const origin = opts.origin ?? model.from;
  drawn = { fonts: new Set(), faults: [], stock: [], witness: [], extent: null };

  ctx.clearRect(0, 0, w, h);
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, h);
  ctx.textBaseline = 'middle';
  drawAxis(ctx, origin, view, x, plotW, h);

  const labels = [];
  clipTo(ctx, right, b.lanesTop, b.lanesH);
  drawFaultShades(ctx, model, view, x, b, right);
  if (model.summarised) drawStrip(ctx, model, view, x, b.lanesTop, b.lanesH);
  else drawLanes(ctx, model, view, x, b.lanesTop, opts, labels);
  ctx.restore();
  clipTo(ctx, right, b.faultsTop, b.faultsH);
  drawFaultNames(ctx, plan, b.faultsTop);
  ctx.restore();
  clipTo(ctx, right, b.stockTop, b.stockH);
  drawStock(ctx, model, view, x, b.stockTop, b.stockH, right);
  ctx.restore();
  drawCursor(ctx, opts.cursor, view, x, right, h);
  const end = opts.end ? drawEnd(ctx, opts.end, view, x, right, h, b) : null;
  drawLaneLabels(ctx, model, w, h, b, opts.zh);
  const caption = opts.cursor !== null && opts.cursor !== undefined && opts.caption
    ? drawCaption(ctx, opts.caption, LAYOUT.labelW + LAYOUT.pad, b.lanesTop + LAYOUT.pad / 2, plotW - 2 * LAYOUT.pad) : null;
  const boxes = {
    font: LAYOUT.font, fonts: [...drawn.fonts].sort((p, q) => p - q), faults: drawn.faults, stock: drawn.stock, caption,
    witness: drawn.witness, end,
    scale: { from: view.from, to: view.to, origin, x0: x(view.from), plotW, msPerPx: (view.to - view.from) / plotW },
    extent: drawn.extent,
    bands: { lanes: [b.lanesTop, b.lanesH], faults: [b.faultsTop, b.faultsH], stock: [b.stockTop, b.stockH] },
  };
  drawn = null;
  return { labels, boxes };
}

/** extend widens the extent of the bars drawn to [x0, x1]. */
function extend(x0, x1) {
  if (!drawn) return;
  const e = drawn.extent;
  drawn.extent = e ? { x0: Math.min(e.x0, x0), x1: Math.max(e.x1, x1) } : { x0, x1 };
}

/** drawAxis paints the grid and the axis: round times since origin (the sale's start), not round epoch times. */
function drawAxis(ctx, origin, view, x, plotW, h) {
  const { labelW, axisH, pad } = LAYOUT;
  const rel = niceTicks(view.from - origin, view.to - origin, Math.max(2, Math.floor(plotW / (110 * LAYOUT.font / BASE.font))));
  const step = rel.step, ticks = rel.ticks.map((t) => t + origin);
  setFont(ctx);
  ctx.strokeStyle = COLOURS.grid;
  ctx.lineWidth = 1;
  ctx.fillStyle = COLOURS.muted;
  ctx.textAlign = 'center';
  for (const t of ticks) {
    const tx = Math.round(x(t)) + 0.5;
    if (tx < labelW || tx > labelW + plotW) continue;
    ctx.beginPath(); ctx.moveTo(tx, axisH - 4); ctx.lineTo(tx, h - pad); ctx.stroke();
    if (tx <= labelW + 2 * LAYOUT.font) continue; // not under the lane labels
    const text = tickLabel(t, origin, step);
    // The last tick's time is moved left rather than cut by the canvas's edge.
    ctx.fillText(text, Math.min(tx, labelW + plotW - ctx.measureText(text).width / 2), axisH / 2);
  }
}

/** drawFaultShades shades each fault window over its replica's lanes (the lanes band's clip keeps it there). */
function drawFaultShades(ctx, model, view, x, b, right) {
  const { rowH } = LAYOUT;
  ctx.fillStyle = COLOURS.fault;
  for (const f of model.faults) {
    if (f.to < view.from || f.from > view.to) continue;
    const x0 = Math.max(LAYOUT.labelW, x(f.from)), x1 = Math.min(right, x(f.to));
    const rows = model.summarised ? [[b.lanesTop, b.lanesH]] : f.lanes.map((i) => [b.lanesTop + i * rowH, rowH]);
    for (const [y, rh] of rows) ctx.fillRect(x0, y, Math.max(1, x1 - x0), rh);
  }
}

/** drawFaultNames writes each fault's name in its row of the fault band, over its window's shade; records the boxes. */
function drawFaultNames(ctx, plan, top) {
  const { faultRowH, font } = LAYOUT;
  setFont(ctx, true);
  ctx.textAlign = 'left';
  for (const p of plan.faults) {
    const y = top + p.row * faultRowH;
    ctx.fillStyle = COLOURS.fault;
    ctx.fillRect(p.x0, y + 1, Math.max(1, p.x1 - p.x0), faultRowH - 2);
    ctx.fillStyle = COLOURS.faultText;
    ctx.fillText(p.text, p.tx, y + faultRowH / 2);
    drawn.faults.push({ text: p.text, x: p.tx, y: y + (faultRowH - font) / 2, w: p.tw, h: font, size: font });
  }
}

/** drawCursor paints the replay cursor: the future is veiled, the present is a line. */
function drawCursor(ctx, cursor, view, x, right, h) {
  if (cursor === null || cursor === undefined || cursor >= view.to) return;
  const { labelW, axisH, pad } = LAYOUT;
  const cx = Math.max(labelW, x(cursor));
  ctx.fillStyle = 'rgba(255,255,255,0.72)';
  ctx.fillRect(cx, axisH, right - cx, h - axisH);
  ctx.strokeStyle = COLOURS.text;
  ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(cx, axisH - 6); ctx.lineTo(cx, h - pad); ctx.stroke();
}

/**
 * drawEnd marks where a sale ended inside the window: the time after it
 * veiled grey, a dark line at the end, and end.text ("done in 0.57 s") in
 * bold on a white card in the lanes, right of the line (left of it when
 * there is no room). Returns the text's box.
 */
function drawEnd(ctx, end, view, x, right, h, b) {
  if (end.at >= view.to) return null;
  const { labelW, axisH, pad, font } = LAYOUT;
  const ex = Math.max(labelW, x(end.at));
  ctx.fillStyle = 'rgba(87, 96, 106, 0.10)';
  ctx.fillRect(ex, axisH, right - ex, h - pad - axisH);
  ctx.strokeStyle = COLOURS.text;
  ctx.lineWidth = 2;
  ctx.beginPath(); ctx.moveTo(ex, axisH - 4); ctx.lineTo(ex, h - pad); ctx.stroke();
  if (!end.text) return null;
  setFont(ctx, true);
  // The card keeps clear of the end: a hold's "×50" is written just right of its bar.
  const tw = ctx.measureText(end.text).width, cw = tw + font, ch = font + Math.round(font * 0.6), gap = 4 * font;
  const onRight = ex + gap + cw <= right;
  const cx = onRight ? ex + gap : Math.max(labelW + 2, ex - gap - cw);
  const cy = b.lanesTop + Math.max(2, Math.round((Math.min(b.lanesH, 3 * LAYOUT.rowH) - ch) / 2));
  ctx.beginPath(); ctx.moveTo(ex, cy + ch / 2); ctx.lineTo(onRight ? cx : cx + cw, cy + ch / 2); ctx.stroke();
  card(ctx, cx, cy, cw, ch);
  ctx.fillText(end.text, cx + font / 2, cy + ch / 2);
  return { text: end.text, at: ex, x: cx + font / 2, y: cy + (ch - font) / 2, w: tw, h: font, size: font };
}

/** card draws a white card with a dark border (a caption, a sale's end) and leaves the pen ready for its text. */
function card(ctx, x, y, w, h) {
  ctx.fillStyle = 'rgba(255,255,255,0.94)';
  ctx.fillRect(x, y, w, h);
  ctx.strokeStyle = COLOURS.text;
  ctx.lineWidth = 1.5;
  ctx.strokeRect(x + 0.5, y + 0.5, w - 1, h - 1);
  ctx.fillStyle = COLOURS.text;
  ctx.textAlign = 'left';
}

/**
 * drawCaption writes the replay's caption (the narration line of the
 * moment) over the lanes, top left, in bold on a white card: whole, on as
 * many lines as its words need within maxW. Returns its box and lines.
 */
function drawCaption(ctx, text, x0, y0, maxW) {
  const { font } = LAYOUT;
  setFont(ctx, true);
  const lines = wrapWords(ctx, text, maxW - font);
  const lineH = Math.round(font * 1.35);
  const w = Math.min(maxW, Math.max(...lines.map((l) => ctx.measureText(l).width)) + font);
  const h = lines.length * lineH + Math.round(font * 0.6);
  card(ctx, x0, y0, w, h);
  lines.forEach((l, i) => ctx.fillText(l, x0 + font / 2, y0 + Math.round(font * 0.3) + lineH * i + lineH / 2));
  return { text, lines, x: x0, y: y0, w, h, size: font };
}

/** wrapWords splits text into lines no wider than maxW, at spaces (or between CJK characters). */
function wrapWords(ctx, text, maxW) {
  const words = text.match(/[\u3000-\u9fff\uff00-\uffef]|[^\s\u3000-\u9fff\uff00-\uffef]+\s*|\s+/g) || [text];
  const lines = [];
  let cur = '';
  for (const wd of words) {
    if (cur && ctx.measureText(cur + wd).width > maxW) { lines.push(cur.trimEnd()); cur = wd.trimStart(); } else cur += wd;
  }
  if (cur.trim()) lines.push(cur.trimEnd());
  return lines.length ? lines : [text];
}

/** drawLaneLabels writes the lanes' names over a white column, so that bars never run under them. */
function drawLaneLabels(ctx, model, w, h, b, zh) {
  const { labelW, rowH } = LAYOUT;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, labelW, h);
  ctx.textAlign = 'left';
  ctx.fillStyle = COLOURS.text;
  if (model.summarised) {
    setFont(ctx, true);
    ctx.fillText(label('tlDensity', zh), 6, b.lanesTop + b.lanesH / 2, labelW - 10);
  } else {
    let prev = '';
    model.lanes.forEach((lane, i) => {
      const y = b.lanesTop + i * rowH;
      const second = lane.replica === prev;
      ctx.strokeStyle = COLOURS.grid;
      ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(w, y + 0.5); ctx.stroke();
      setFont(ctx, !second);
      ctx.fillStyle = second ? COLOURS.muted : COLOURS.text;
      ctx.fillText(second ? `  ↳ ${zh ? `第 ${lane.row + 1} 行` : `row ${lane.row + 1}`}` : lane.replica, 6, y + rowH / 2, labelW - 10);
      prev = lane.replica;
    });
  }
  if (b.faultsH) {
    setFont(ctx, true);
    ctx.fillStyle = COLOURS.faultText;
    ctx.fillText(label('faults', zh), 6, b.faultsTop + LAYOUT.faultRowH / 2, labelW - 10);
  }
  ctx.strokeStyle = COLOURS.grid;
  for (const y of [b.faultsTop, b.stockTop]) { ctx.beginPath(); ctx.moveTo(0, y + 0.5); ctx.lineTo(w, y + 0.5); ctx.stroke(); }
  setFont(ctx, true);
  ctx.fillStyle = COLOURS.stock;
  ctx.fillText(label('tlStock', zh), 6, b.stockTop + b.stockH / 2, labelW - 10);
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
    const y = top + b.lane * rowH + Math.round(4 * rowH / BASE.rowH);
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
    const holdY = y + Math.round(13 * rowH / BASE.rowH), holdH = Math.round(24 * rowH / BASE.rowH), waitH = 6;
    const waitY = holdY + holdH / 2 - waitH / 2;
    const seen = visibleSections(lane, view.from, view.to, open);
    // Waits first, merged per pixel.
    ctx.fillStyle = COLOURS.wait;
    let lastX = -1;
    for (const s of seen) {
      if (s.wait_at === null || s.wait_at === undefined) continue;
      const x0 = x(s.wait_at), x1 = x(s.enter_at);
      if (x1 <= lastX && x1 - x0 < 1) continue;
      ctx.fillRect(x0, waitY, Math.max(1, x1 - x0), waitH);
      extend(x0, x1);
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
      extend(x0, x0 + Math.max(1, wpx));
      if (s.outcome === 'fenced') crossOut(ctx, x0, holdY, Math.max(6, wpx), holdH);
      if (opts.hover === s.id) {
        ctx.strokeStyle = COLOURS.text; ctx.lineWidth = 2;
        ctx.strokeRect(x0 - 1, holdY - 1, Math.max(1, wpx) + 2, holdH + 2);
      }
      // A witness of the history check (an order that left the same stock
      // as another): a thick violet frame, at least a tag wide.
      if (opts.witness?.size && s.order_id && isWitness(s, opts.witness)) {
        ctx.strokeStyle = COLOURS.witness; ctx.lineWidth = 3;
        const ww = Math.max(8, wpx);
        ctx.strokeRect(x0 - 2.5, holdY - 2.5, ww + 5, holdH + 5);
        if (drawn) drawn.witness.push({ order: s.order_id, x: x0 - 2.5, y: holdY - 2.5, w: ww + 5, h: holdH + 5 });
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

/** isWitness says whether section s made one of the witness orders (a batch covers consecutive ids). */
function isWitness(s, witness) {
  for (let id = s.order_id; id < s.order_id + Math.max(s.orders || 1, 1); id++) if (witness.has(id)) return true;
  return false;
}

/** tokenText writes a hold's token ("#4") in white inside its bar [x0, x1] when it fits; returns whether it did. */
function tokenText(ctx, text, x0, x1, y) {
  ctx.textAlign = 'left';
  setFont(ctx, true);
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
  setFont(ctx, true);
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
  const { rowH, font } = LAYOUT;
  setFont(ctx, true);
  ctx.textAlign = 'left';
  for (const o of model.overlaps) {
    if (o.to < view.from || o.from > view.to || o.laneA < 0 || o.laneB < 0) continue;
    const x0 = x(o.from), x1 = x(o.to);
    const y0 = top + o.top * rowH + 8, y1 = top + (o.bottom + 1) * rowH - 4;
    ctx.strokeStyle = COLOURS.overlap;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0, y0, Math.max(2, x1 - x0), y1 - y0);
    // The tag at its full size or not at all: squeezed to the overlap's
    // width it was unreadable. "orders 567, 568", else "567, 568".
    const room = x1 - x0 - 2;
    const text = [ordersLabel(o.orders, zh), (o.orders || []).join(', ')].find((t) => t && ctx.measureText(t).width + 6 <= room);
    if (!text) continue;
    const tw = ctx.measureText(text).width + 6;
    ctx.fillStyle = '#fff';
    ctx.fillRect(x0 + 2, y1 - font - 3, tw, font + 2);
    ctx.fillStyle = COLOURS.overlap;
    ctx.fillText(text, x0 + 5, y1 - font / 2 - 2);
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
    extend(x0, x1);
    if (b.fenced > 0) { ctx.fillStyle = COLOURS.fenced; ctx.fillRect(x0, top + 2, Math.max(1, x1 - x0 - 0.5), 5); }
  }
}

/** drawStock paints the database's stock as a step line, its value at each step where there is room. */
function drawStock(ctx, model, view, x, top, h, right) {
  if (!model.stock.length) return;
  const { min, max } = stockRange(model);
  const { font } = LAYOUT;
  // The figures sit above the line: the line keeps a figure's height and a margin from the band's top.
  const y = (v) => top + font + 8 + (1 - (v - min) / (max - min || 1)) * (h - font - 16);
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
    if (px - lastLabel > 2.2 * font) { labels.push([px, py, p.stock]); lastLabel = px; }
  }
  if (started) { ctx.lineTo(right, prevY); ctx.stroke(); }
  ctx.fillStyle = COLOURS.stock;
  ctx.textAlign = 'left';
  setFont(ctx);
  let lastRight = -Infinity; // a figure too close to the last one written is left out (19026 over 19023)
  for (const [px, py, v] of labels) {
    const text = String(v), tw = ctx.measureText(text).width;
    const tx = Math.max(LAYOUT.labelW + 2, Math.min(px + 3, right - tw - 2)); // whole, not cut at the right edge
    if (tx < lastRight + font / 2) continue;
    lastRight = tx + tw;
    ctx.fillText(text, tx, py - font / 2 - 3);
    drawn?.stock.push({ text, x: tx, y: py - font - 3, w: tw, h: font, size: font });
  }
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
