// The Herd panel's figures, from GET /api/sales/:id/herd: the time to sell
// out, the first second after the opening (its answer times split: the
// orders, the sold-out answers), the lock's holds, the answers per layer
// and the previous herd beside it, as texts and bar widths. Pure: herd.js
// draws what this returns.
import { addLabels } from './i18n.js';
import { fmt } from './dom.js';

// The layers in the order a request meets them (internal/herd.Layers).
export const HERD_LAYERS = ['opening', 'ticket', 'rate_limit', 'idempotency', 'sold_out_cache', 'lock', 'database', 'store', 'queue'];

addLabels({
  herdTitle: ['The herd', '抢购洪峰'],
  herdSale: ['sale', '秒杀'],
  herdNone: ['No sale yet: start a run and the herd shows here.', '还没有秒杀：发起压测后抢购洪峰在这里显示。'],
  herdSellOut: ['Sold out in', '售罄用时'],
  herdNotSoldOut: ['not sold out', '尚未售罄'],
  herdFromOpening: ['from the opening', '从开售算起'],
  herdFromFirst: ['first to last unit', '首单到末单'],
  herdFirstSecond: ['First second', '开售第一秒'],
  herdAnswers: ['answers, of them', '次应答，其中'],
  herdOrders: ['orders (201/202)', '成交（201/202）'],
  herdSoldOutAnswers: ['sold out', '售罄应答'],
  herdLatency: ['Answer time p50 / p99', '响应耗时 p50 / p99'],
  herdLatOrders: ['orders (201/202)', '成交（201/202）'],
  herdLatSoldOut: ['sold-out answers', '售罄应答'],
  herdLatNote: ['Measured inside the shop, from request to answer, without the network.', '在服务端内测量：从收到请求到应答，不含网络。'],
  herdHolds: ['Lock holds', '持锁次数'],
  herdHoldsLine: ['{holds} holds · {units} units per hold', '持锁 {holds} 次 · 每次 {units} 件'],
  herdHoldsLine1: ['{holds} hold · {units} units per hold', '持锁 {holds} 次 · 每次 {units} 件'],
  herdHoldsSold: ['{sold} units sold under the lock', '持锁期间售出 {sold} 件'],
  herdNoHolds: ['not held yet', '尚未持锁'],
  herdNoLock: ['no lock', '无锁'],
  herdNoLockWhy: ['this strategy sells without a lock', '该策略不加锁'],
  herdNoLockQueue: ['orders queued: no lock', '订单排队：不加锁'],
  herdCombineOn: ['combining on', '合并：开'],
  herdCombineOff: ['combining off', '合并：关'],
  herdPrev: ['Previous herd', '上一场抢购洪峰'],
  herdFaster: ['This sale sold out {rx} faster', '本场售罄速度是上一场的 {r} 倍'],
  herdSlower: ['This sale sold out {rx} slower', '本场售罄用时是上一场的 {r} 倍'],
  herdSame: ['Both sold out in the same time', '两场售罄用时相同'],
  herdRatioWait: ['The ratio shows once both are sold out.', '两场都售罄后显示倍数。'],
  herdLayers: ['Who answered', '由哪一层应答'],
  herdLayersNone: ['No answers counted yet.', '尚未统计到应答。'],
  herdL_opening: ['not open yet', '未开售'],
  herdL_ticket: ['ticket', '购买凭证'],
  herdL_rate_limit: ['rate limit', '限流'],
  herdL_idempotency: ['idempotency', '幂等重放'],
  herdL_sold_out_cache: ['sold-out cache', '售罄缓存'],
  herdL_lock: ['lock', '锁'],
  herdL_database: ['database', '数据库'],
  herdL_store: ['Redis stock', 'Redis 库存'],
  herdL_queue: ['queue', '队列'],
});

const oneDecimal = (n) => Number(n).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * duration is ms for people: "< 0.01 ms" under 10 µs, "0.42 ms" under a
 * millisecond, "1.3 ms" under 10, "435 ms" under a second, "1.24 s" above.
 * The shop's histograms count whole microseconds from 1 µs up (a sold-out
 * cache answer of 400 ns reads 0.001 ms), so a time under 10 µs is shown
 * as what it honestly is: under 0.01 ms.
 */
export function duration(msValue) {
  if (msValue === null || msValue === undefined || Number.isNaN(msValue)) return '–';
  if (msValue < 0.01) return '< 0.01 ms';
  if (Math.round(msValue * 100) < 100) return `${fmt(msValue, 2)} ms`;
  if (msValue < 1000) return `${fmt(msValue, msValue < 10 ? 1 : 0)} ms`;
  return `${fmt(msValue / 1000, 2)} s`;
}

/** pair is "p50 / p99" as durations, '–' when either is unknown (no such answer). */
const pair = (p50, p99) => (p50 === null || p50 === undefined || p99 === null || p99 === undefined ? '–'
  : `${duration(p50)} / ${duration(p99)}`);

/**
 * fillParts cuts template ("{holds} holds · {units} units per hold") into
 * its words and its values: [{text, value}], value true for a filled-in
 * {name}, so that the view can set the numbers in large type.
 */
export function fillParts(template, values) {
  const out = [];
  let last = 0;
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    if (m.index > last) out.push({ text: template.slice(last, m.index), value: false });
    out.push({ text: String(values[m[1]] ?? m[0]), value: true });
    last = m.index + m[0].length;
  }
  if (last < template.length) out.push({ text: template.slice(last), value: false });
  return out;
}

/**
 * segments are fillParts cut at " · " into runs that the view keeps
 * whole ("20 holds" | "1.0 units per hold"): a narrow box breaks the line
 * between them, never inside one.
 */
export function segments(parts) {
  const out = [[]];
  for (const p of parts) {
    if (p.value) { out[out.length - 1].push(p); continue; }
    p.text.split(' · ').forEach((text, i) => {
      if (i) out.push([]);
      if (text) out[out.length - 1].push({ text, value: false });
    });
  }
  return out.filter((s) => s.length);
}

/**
 * lockFigure is the lock's holds of view: {key, values, why} where key is
 * the label of the line (a template filled with values), why a label key
 * for the line under it ('' for none); null when the view does not say
 * (a shop from before the holds were served).
 */
export function lockFigure(view) {
  if (!view || typeof view.lock !== 'boolean') return null;
  if (!view.lock) return { key: 'herdNoLock', values: {}, why: view.order_mode === 'async' ? 'herdNoLockQueue' : 'herdNoLockWhy' };
  const holds = view.holds || 0;
  if (!holds) return { key: 'herdNoHolds', values: {}, why: '' };
  return { key: holds === 1 ? 'herdHoldsLine1' : 'herdHoldsLine', why: 'herdHoldsSold',
    values: { holds: fmt(holds), units: oneDecimal(view.units_per_hold || 0), sold: fmt(view.hold_units || 0) } };
}

/** combineKey is the label of the view's combining ("combining on/off"); '' when the view does not say or has no lock. */
function combineKey(view) {
  if (typeof view.combine !== 'boolean' || view.lock === false) return '';
  return view.combine ? 'herdCombineOn' : 'herdCombineOff';
}

/** layerRows are bars: the label key, the count and percent as text, and the width in percent of the largest. */
function layerRows(layers) {
  const list = layers || [];
  const top = Math.max(1, ...list.map((l) => l.count));
  return list.map((l) => ({
    layer: l.layer,
    key: HERD_LAYERS.includes(l.layer) ? `herdL_${l.layer}` : null,
    text: `${fmt(l.count)} · ${fmt(l.percent, 1)}%`,
    width: Math.max(1, Math.round((l.count / top) * 100)),
  }));
}

const soldOutIn = (view) => (view.sold_out && typeof view.sell_out_ms === 'number' ? view.sell_out_ms : null);

/**
 * herdModel is what the panel shows of view (null: no sale yet): the
 * sale's strategy and combining, the sell-out time (null when not sold
 * out), the first second (its answer time split: orders, sold-out
 * answers; latency is every answer's, mixed), the lock's holds and the bars.
 */
export function herdModel(view) {
  if (!view) return null;
  const fs = view.first_second || {};
  return {
    saleId: view.sale_id,
    strategy: view.strategy || '',
    combine: combineKey(view),
    sellOut: soldOutIn(view) === null ? null : duration(view.sell_out_ms),
    fromFirst: view.sold_out && typeof view.sell_out_from_first_ms === 'number' ? duration(view.sell_out_from_first_ms) : null,
    first: {
      answers: fmt(fs.answers || 0),
      orders: fmt(fs.orders || 0),
      soldOut: fmt(fs.sold_out || 0),
      latency: fs.answers ? pair(fs.p50_ms, fs.p99_ms) : '–',
      orderTime: pair(fs.orders_p50_ms, fs.orders_p99_ms),
      soldOutTime: pair(fs.sold_out_p50_ms, fs.sold_out_p99_ms),
    },
    lock: lockFigure(view),
    layers: layerRows(view.layers),
  };
}

/**
 * sellOutRatio compares the current herd's time to sell out with the
 * previous one's: {key, r, rx} with key herdFaster ("This sale sold out
 * 4.2× faster"), herdSlower or herdSame (r rounds to 1.0), r the larger
 * time over the smaller to one decimal ("4.2", rx "4.2×"); null unless
 * both are sold out.
 */
export function sellOutRatio(current, previous) {
  const a = current && soldOutIn(current), b = previous && soldOutIn(previous);
  if (a === null || b === null || a === undefined || b === undefined || !(a > 0) || !(b > 0)) return null;
  const r = oneDecimal(Math.max(a, b) / Math.min(a, b));
  if (r === '1.0') return { key: 'herdSame', r, rx: `${r}×` };
  return { key: a < b ? 'herdFaster' : 'herdSlower', r, rx: `${r}×` };
}

/**
 * previousModel is the narrow column of the previous herd beside the
 * current one: its sale, strategy, combining, sell-out time, holds and
 * the ratio of the two sell-out times (null until both are sold out);
 * null when there is no previous herd or it is the current sale.
 */
export function previousModel(previous, current) {
  if (!previous || (current && previous.sale_id === current.sale_id)) return null;
  return {
    saleId: previous.sale_id,
    strategy: previous.strategy || '',
    combine: combineKey(previous),
    sellOut: soldOutIn(previous) === null ? null : duration(previous.sell_out_ms),
    lock: lockFigure(previous),
    ratio: sellOutRatio(current, previous),
  };
}

/**
 * remember is the panel's memory ({current, previous}: herd views) once
 * it has drawn view: the previous herd is the last different sale drawn.
 * The views are kept without their bars (the column does not draw them).
 */
export function remember(memory, view) {
  const m = memory && typeof memory === 'object' ? memory : {};
  if (!view) return { current: m.current || null, previous: m.previous || null };
  const keep = { ...view, layers: [], first_second: { ...(view.first_second || {}), layers: [] } };
  const moved = m.current && m.current.sale_id !== view.sale_id;
  return { current: keep, previous: moved ? m.current : (m.previous || null) };
}
