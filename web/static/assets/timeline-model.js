// The timeline view's model: GET /api/sales/{id}/timeline (times in
// milliseconds since the epoch) turned into what the canvas draws and the
// panels list: one lane per replica and holder row, each lane's sections
// sorted with the running maximum of their ends (so that the visible ones
// are found by binary search, whatever the sale's size), the lease bars,
// the fault windows, the overlaps' geometry, the decisive moment, the
// replay clock and the viewport arithmetic. No DOM here, so it runs under
// node's test runner.

/** Every outcome a section can have, in the order the legend lists them. */
export const OUTCOMES = ['committed', 'fenced', 'rolled_back', 'lock_lost', 'gave_up', 'sold_out', 'limit_reached', 'error', 'unknown'];

/** The replay speeds offered. */
export const SPEEDS = [0.1, 0.25, 1];

/** parseSpeed reads a kept replay speed ("0.25"): one of SPEEDS, else 1. */
export function parseSpeed(raw) {
  const v = Number(raw);
  return raw !== null && raw !== undefined && raw !== '' && SPEEDS.includes(v) ? v : 1;
}

/**
 * tokenLabel is a hold's token as the class reads it: "#4", its place
 * among the sale's tokens in grant order (the API's token_rank); '' for a
 * hold without a token. The raw token (16-19 digits) is the tooltip's.
 */
export const tokenLabel = (s) => (s?.token_rank ? `#${s.token_rank}` : '');

/** orderLabel names an order by its id in words ("order 51", 订单 51): "#" is for tokens only, so that a class never reads an order id as a token. */
export const orderLabel = (id, zh = false) => (zh ? `订单 ${id}` : `order ${id}`);

/** ordersLabel names a list of orders: "orders 51, 52" (订单 51、52). */
export function ordersLabel(ids, zh = false) {
  if (!ids?.length) return '';
  if (ids.length === 1) return orderLabel(ids[0], zh);
  return zh ? `订单 ${ids.join('、')}` : `orders ${ids.join(', ')}`;
}

/**
 * tokenDetail is the tooltip's token: "#4 (raw 1795827359907586)", the
 * exact decimal (token_raw) where the JSON number lost digits; '–' for none.
 */
export function tokenDetail(s, zh = false) {
  if (!s.token_rank) return s.token ? String(s.token_raw || s.token) : '–';
  const raw = s.token_raw || String(s.token);
  return zh ? `#${s.token_rank}（原始值 ${raw}）` : `#${s.token_rank} (raw ${raw})`;
}

/**
 * tokenKey tells one token from another: its rank where the API gave one
 * (a 19-digit token is not exact as a JavaScript number: two neighbours
 * read the same), else its value.
 */
const tokenKey = (x) => (x.token_rank ? `#${x.token_rank}` : String(x.token));

/** sectionStart is when a section began: its wait if it waited, else its entry. */
export const sectionStart = (s) => (s.wait_at ?? s.enter_at);

/** sectionEnd is its exit; a section still open (a live sale) ends at `open`. */
export const sectionEnd = (s, open) => (s.exit_at ?? open);

/**
 * leaseBars pairs the lease events per replica and token into bars from the
 * grant to the expiry the client believed: a grant or renewal at t with its
 * TTL reaches t + ttl; a loss, an expiry or a release ends the bar there.
 * `ended` names what ended it ('' while it runs on).
 */
export function leaseBars(events) {
  const live = new Map(); // replica/token -> bar
  const bars = [];
  const sorted = [...(events || [])].sort((a, b) => a.at - b.at);
  for (const e of sorted) {
    const key = `${e.replica}/${tokenKey(e)}`;
    let bar = live.get(key);
    if (e.event === 'granted' || (e.event === 'renewed' && !bar)) {
      bar = { replica: e.replica, token: e.token, token_rank: e.token_rank || 0, from: e.at, to: e.at + (e.ttl_ms || 0), renewals: 0, ended: '' };
      live.set(key, bar);
      bars.push(bar);
    } else if (e.event === 'renewed') {
      bar.to = Math.max(bar.to, e.at + (e.ttl_ms || 0));
      bar.renewals++;
    } else if (bar) {
      // A lease ends when it is released or lost, but never after its TTL
      // ran out: a holder that learns of the loss after a pause lost it at
      // the expiry. endedAt keeps when the client learnt it.
      bar.to = Math.min(bar.to, e.at);
      bar.ended = e.event;
      bar.endedAt = e.at;
      live.delete(key);
    }
  }
  return bars;
}

/** lowerBound is the first index i of the sorted arr with arr[i] >= x. */
function lowerBound(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/** upperBound is the first index i of the sorted arr with arr[i] > x. */
function upperBound(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/**
 * buildTimeline turns the API's answer into the model: lanes (replica
 * order from `replicas`, then holder rows), sections by id, the lease bars
 * on the lane of the section that held their token, fault windows, the
 * overlaps with the lanes they span, the stock steps and the decisive
 * moment.
 */
export function buildTimeline(data) {
  const open = data.to;
  const byId = new Map();
  const laneMap = new Map(); // replica/lane -> lane
  const order = [...(data.replicas || [])];
  for (const s of data.sections || []) if (!order.includes(s.replica)) order.push(s.replica);
  const laneOf = (replica, row) => {
    const key = `${replica}/${row}`;
    let lane = laneMap.get(key);
    if (!lane) {
      lane = { key, replica, row, sections: [] };
      laneMap.set(key, lane);
    }
    return lane;
  };
  for (const r of order) laneOf(r, 0);
  for (const s of data.sections || []) {
    laneOf(s.replica, s.lane || 0).sections.push(s);
    byId.set(s.id, s);
  }
  const lanes = [...laneMap.values()].sort((a, b) => order.indexOf(a.replica) - order.indexOf(b.replica) || a.row - b.row);
  lanes.forEach((lane, i) => {
    lane.index = i;
    indexLane(lane, open);
  });
  const laneIndex = new Map();
  for (const lane of lanes) for (const s of lane.sections) laneIndex.set(s.id, lane.index);

  // A lease sits beside the hold that used its token, else on the replica's first lane.
  const tokenLane = new Map();
  for (const s of data.sections || []) tokenLane.set(`${s.replica}/${tokenKey(s)}`, laneIndex.get(s.id));
  const leases = leaseBars(data.leases).map((b) => ({
    ...b, lane: tokenLane.get(`${b.replica}/${tokenKey(b)}`) ?? laneMap.get(`${b.replica}/0`)?.index ?? -1,
  }));

  const faults = (data.faults || []).map((f) => ({
    ...f, open: f.to === null || f.to === undefined, to: f.to ?? open,
    lanes: f.replica ? lanes.filter((l) => l.replica === f.replica).map((l) => l.index) : lanes.map((l) => l.index),
  }));

  const overlaps = (data.overlaps || []).map((o) => {
    const la = laneIndex.get(o.a), lb = laneIndex.get(o.b);
    return { ...o, laneA: la ?? -1, laneB: lb ?? -1, top: Math.min(la ?? 0, lb ?? 0), bottom: Math.max(la ?? 0, lb ?? 0) };
  }).sort((a, b) => a.from - b.from);

  const stock = [...(data.stock || [])].sort((a, b) => a.at - b.at);
  const model = {
    data, from: data.from, to: data.to, summarised: !!data.summarised, lanes, byId, leases, faults, overlaps, stock,
    buckets: data.buckets || [], narration: [...(data.narration || [])].sort((a, b) => a.at - b.at),
  };
  model.decisive = decisiveMoment(model);
  return model;
}

// A section longer than this many times the lane's median is "long" (a
// paused holder, a waiter stuck for seconds): kept aside and tested one by
// one, so that it does not widen every search.
const LONG = 20;

/**
 * indexLane sorts a lane's sections by start and prepares the search for
 * the visible ones: their starts, and `reach`, the longest of the sections
 * that are not long, so that any section seen from `from` on starts after
 * from - reach; the long ones (few) are listed apart.
 */
function indexLane(lane, open) {
  lane.sections.sort((a, b) => sectionStart(a) - sectionStart(b));
  lane.starts = Float64Array.from(lane.sections, sectionStart);
  const length = (s) => sectionEnd(s, open) - sectionStart(s);
  const lengths = lane.sections.map(length).sort((a, b) => a - b);
  const limit = Math.max(1, LONG * (lengths[lengths.length >> 1] || 0));
  lane.long = lane.sections.filter((s) => length(s) > limit);
  lane.reach = Math.max(0, ...lengths.filter((d) => d <= limit).slice(-1));
  lane.limit = limit;
}

/**
 * visibleRange is the index range [lo, hi) of lane's sections (those not
 * long) that may be seen between from and to: those that start by `to`
 * and no earlier than from - reach. Two binary searches, whatever the size.
 */
export function visibleRange(lane, from, to) {
  return [lowerBound(lane.starts, from - lane.reach), upperBound(lane.starts, to)];
}

/** visibleSections lists lane's sections that touch [from, to]: the range's, then the long ones. */
export function visibleSections(lane, from, to, open = Infinity) {
  const [lo, hi] = visibleRange(lane, from, to);
  const out = [];
  for (let i = lo; i < hi; i++) {
    const s = lane.sections[i];
    if (sectionEnd(s, open) >= from && sectionEnd(s, open) - sectionStart(s) <= lane.limit) out.push(s);
  }
  for (const s of lane.long) if (sectionStart(s) <= to && sectionEnd(s, open) >= from) out.push(s);
  return out;
}

/**
 * decisiveMoment is where a trainer wants to start: the first overlap or
 * the first fenced write, whichever came first, with a window that shows
 * the sections involved whole. Null for a sale where neither happened.
 */
export function decisiveMoment(model) {
  const first = model.overlaps[0];
  let fenced = null;
  for (const lane of model.lanes) {
    for (const s of lane.sections) {
      if (s.outcome === 'fenced' && (!fenced || s.exit_at < fenced.exit_at)) fenced = s;
    }
  }
  const fencedAt = fenced ? (fenced.exit_at ?? fenced.enter_at) : Infinity;
  if (!first && !fenced) return null;
  const overlapFirst = first && first.from <= fencedAt;
  const kind = overlapFirst ? 'overlap' : 'fenced';
  const at = overlapFirst ? first.from : fencedAt;
  // Centred on the moment, wide enough to show the hand-over around it
  // (an overlap whole); the paused holder's whole section is a zoom out away.
  const len = kind === 'overlap' ? first.to - first.from : 0;
  const pad = Math.max(10, 1.5 * len);
  const from = at - pad, to = at + len + pad;
  return { kind, at, from, to, section: kind === 'fenced' ? fenced.id : first.b, overlap: kind === 'overlap' ? first : null };
}

/** clampView keeps a window inside the sale (with a margin) and at least minSpan wide. */
export function clampView(view, bounds, minSpan = 0.2) {
  const full = Math.max(bounds.to - bounds.from, minSpan);
  const margin = full * 0.05;
  const span = Math.min(Math.max(view.to - view.from, minSpan), full + 2 * margin);
  let from = Math.max(view.from, bounds.from - margin);
  if (from + span > bounds.to + margin) from = bounds.to + margin - span;
  from = Math.max(from, bounds.from - margin);
  return { from, to: from + span };
}

/** zoomAt scales the window by factor (< 1 zooms in) around the time anchor, which stays put. */
export function zoomAt(view, factor, anchor, bounds) {
  const from = anchor - (anchor - view.from) * factor;
  const to = anchor + (view.to - anchor) * factor;
  return clampView({ from, to }, bounds);
}

/** panBy moves the window by dt milliseconds. */
export function panBy(view, dt, bounds) {
  return clampView({ from: view.from + dt, to: view.to + dt }, bounds);
}

/** centreOn moves the window so that t is in its middle, keeping its width. */
export function centreOn(view, t, bounds) {
  const half = (view.to - view.from) / 2;
  return clampView({ from: t - half, to: t + half }, bounds);
}

/** niceTicks are round times (1, 2 or 5 times a power of ten, in ms) about every width/count. */
export function niceTicks(from, to, count = 8) {
  const raw = (to - from) / Math.max(count, 1);
  const pow = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return { step, ticks };
}

/** relTime writes t as a time since the sale's start, to the microsecond: "1.250 s", "12.500 ms". */
export function relTime(t, origin) {
  const d = t - origin;
  const a = Math.abs(d);
  if (a >= 1000) return `${(d / 1000).toFixed(a >= 10000 ? 2 : 3)} s`;
  return `${d.toFixed(3)} ms`;
}

/** clock writes an epoch time as the wall clock, UTC, to the microsecond. */
export function clock(t) {
  const d = new Date(Math.floor(t));
  const us = Math.round((t - Math.floor(t)) * 1000);
  return `${d.toISOString().slice(11, 23)}${String(us).padStart(3, '0')} UTC`;
}

/** holdMs and waitMs are a section's times in the lock and before it. */
export const holdMs = (s) => (s.exit_at ?? s.enter_at) - s.enter_at;
export const waitMs = (s) => (s.wait_at === null || s.wait_at === undefined ? 0 : s.enter_at - s.wait_at);

/**
 * sectionDetail is the tooltip of a section: label keys with their values
 * (the view translates the keys through i18n.js); zh: the Chinese values.
 */
export function sectionDetail(s, origin, zh = false) {
  const rows = [
    ['tlReplica', s.replica + (s.lane ? (zh ? `（第 ${s.lane + 1} 行）` : ` (row ${s.lane + 1})`) : '')],
    ['tlToken', tokenDetail(s, zh)],
    ['tlOutcome', s.outcome],
    // A batch's orders are one multi-row INSERT: consecutive ids from its first.
    ['tlOrder', !s.order_id ? '–' : s.orders > 1 ? `${s.order_id}–${s.order_id + s.orders - 1}` : String(s.order_id)],
  ];
  if (s.wait_at !== null && s.wait_at !== undefined) rows.push(['tlWaited', `${relTime(s.wait_at, origin)} → ${relTime(s.enter_at, origin)} (${waitMs(s).toFixed(3)} ms)`]);
  rows.push(['tlHeld', `${relTime(s.enter_at, origin)} → ${s.exit_at === null || s.exit_at === undefined ? '…' : relTime(s.exit_at, origin)} (${holdMs(s).toFixed(3)} ms)`]);
  rows.push(['tlEntered', clock(s.enter_at)]);
  return rows;
}

/**
 * violationPairs lists the overlapping pairs as a person counts them: each
 * side's replica, token (its label, "#4": tokenLabel) and interval, the
 * overlap and the orders it touched.
 */
export function violationPairs(model) {
  const side = (id) => {
    const s = model.byId.get(id);
    return s ? { id, replica: s.replica, token: tokenLabel(s), from: s.enter_at, to: sectionEnd(s, model.to), outcome: s.outcome } : { id, replica: '?', token: '' };
  };
  return model.overlaps.map((o) => ({ a: side(o.a), b: side(o.b), from: o.from, to: o.to, orders: o.orders || [] }));
}

/** pairWindow is the window that shows one pair whole, padded. */
export function pairWindow(pair) {
  const from = Math.min(pair.a.from ?? pair.from, pair.b.from ?? pair.from, pair.from);
  const to = Math.max(pair.a.to ?? pair.to, pair.b.to ?? pair.to, pair.to);
  const pad = Math.max((to - from) * 0.15, 2);
  return { from: from - pad, to: to + pad };
}

/** narrationText is a caption in the dashboard's language: the Chinese alone when zh and the line has it. */
export function narrationText(line, zh) {
  return zh && line.zh ? { main: line.zh, sub: '' } : { main: line.en, sub: '' };
}

/** currentLine is the index of the last narration line at or before t, -1 before the first. */
export function currentLine(narration, t) {
  let lo = 0, hi = narration.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (narration[mid].at <= t) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

/** stockAt is the stock the database held at t (the last step at or before it), null before the first. */
export function stockAt(stock, t) {
  let v = null;
  for (const p of stock) { if (p.at > t) break; v = p.stock; }
  return v;
}

/**
 * densityStrip turns the buckets of a summarised sale into bars: each
 * bucket's share of the busiest one, and whether it held an overlap or a
 * fenced write.
 */
export function densityStrip(buckets) {
  const max = Math.max(1, ...buckets.map((b) => b.sections));
  return buckets.map((b) => ({ from: b.from, to: b.to, level: b.sections / max, sections: b.sections, overlaps: b.overlaps, fenced: b.fenced }));
}

/**
 * Replay is the replay clock: a cursor time that moves at `speed` times
 * real time while playing (1 unless one of SPEEDS is given), from `from`
 * to `to`, where it stops.
 */
export class Replay {
  constructor(from, to, speed = 1) {
    this.from = from; this.to = to; this.t = from; this.speed = 1; this.playing = false;
    this.setSpeed(speed);
  }

  setSpeed(speed) { if (SPEEDS.includes(speed)) this.speed = speed; }

  play() {
    if (this.t >= this.to) this.t = this.from;
    this.playing = true;
  }

  pause() { this.playing = false; }

  seek(t) { this.t = Math.min(Math.max(t, this.from), this.to); }

  /** fraction is where the cursor is, 0 to 1, for the scrubber. */
  fraction() { return this.to > this.from ? (this.t - this.from) / (this.to - this.from) : 0; }

  /** tick advances the cursor by realMs of wall time; returns whether it moved. */
  tick(realMs) {
    if (!this.playing) return false;
    this.seek(this.t + realMs * this.speed);
    if (this.t >= this.to) this.playing = false;
    return true;
  }
}

/** DETAIL_BOUND is the API's bound (internal/timeline MaxSections): past it a window comes summarised. */
export const DETAIL_BOUND = 5000;

/**
 * sectionsIn estimates from a summarised answer's buckets how many
 * sections [from, to] holds: whole buckets inside, a share of those it cuts.
 */
export function sectionsIn(buckets, from, to) {
  let n = 0;
  for (const b of buckets) {
    const span = b.to - b.from;
    const cut = Math.min(b.to, to) - Math.max(b.from, from);
    if (cut <= 0 && span > 0) continue;
    n += span > 0 ? b.sections * Math.min(1, cut / span) : (b.from >= from && b.from <= to ? b.sections : 0);
  }
  return n;
}

/** covers says whether window w (null: none) holds all of view. */
export function covers(w, view) {
  return !!w && w.from <= view.from && w.to >= view.to;
}

/**
 * detailWindow is the window to ask the API for (`?from=&to=`) so that a
 * summarised sale shows its real sections once zoomed in: the view widened
 * by half its span each side (a small pan stays inside it), or the bare
 * view when the widened one would hold too many, clamped to the sale. Null
 * when the sale is not summarised, the view holds the bound or more by the
 * buckets' estimate, or `have` (the window fetched last) covers the view.
 */
export function detailWindow(model, view, have, bound = DETAIL_BOUND) {
  if (!model.summarised || covers(have, view)) return null;
  const clamp = (w) => ({ from: Math.max(model.from, w.from), to: Math.min(model.to, w.to) });
  const pad = (view.to - view.from) / 2;
  const wide = clamp({ from: view.from - pad, to: view.to + pad });
  // Within 80% of the bound: the buckets are an estimate.
  if (sectionsIn(model.buckets, wide.from, wide.to) < bound * 0.8) return wide;
  const bare = clamp(view);
  return sectionsIn(model.buckets, bare.from, bare.to) < bound * 0.8 ? bare : null;
}

/**
 * detailModel builds the model of a windowed answer drawn inside the
 * whole sale's: the times stay relative to the sale's start, and open
 * sections end where the sale's view does.
 */
export function detailModel(data, overview) {
  return buildTimeline({ ...data, from: overview.from, to: overview.to });
}
