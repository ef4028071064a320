// The live panel's view model: a pure function from a run as the API
// sends it (GET /api/runs, the `runs` event) to what the panel shows:
// numbers as text, which of them are bad, the verdict in words and the
// chart point to add. No DOM here, so it runs under node's test runner.
import { fmt, ms, verdictOf } from './dom.js';
import { addLabels, label } from './i18n.js';
import { openingState } from './shop-model.js';

// A step read from GET /api/sales/{id} alone has no load-test client.
const NO_CLIENT = { requests: 0, requests_per_s: 0, orders_per_s: 0, latency_ms: {} };

/**
 * saleStep is a sale (its GET /api/sales/{id}) as a run's step the band
 * reads: k its index, status 'running' or 'done'.
 */
export function saleStep(sale, k = 0, status = 'done') {
  return { step: k, strategy: sale.strategy, sale, sale_id: sale.id, client: NO_CLIENT, server: null, status };
}

/**
 * timelineBand is the band's {title, run} for the sale the Timeline shows
 * (its GET /api/sales/{id}), when that is not the sale the band follows:
 * the band then tells about the sale on the screen, not another run's.
 */
export function timelineBand(sale, zh = false) {
  return {
    title: zh ? `时间线：第 ${sale.id} 场，${sale.strategy}` : `Timeline: sale ${sale.id}, ${sale.strategy}`,
    run: { id: `sale-${sale.id}`, status: 'done', steps: [saleStep(sale)] },
  };
}

/** currentStep is the running step, else the last one that has a sale. */
export function currentStep(run) {
  return run.steps.find((s) => s.status === 'running') || [...run.steps].reverse().find((s) => s.sale) || run.steps[0];
}

// Milliseconds for the band: whole ones from 100 on, so two fit in a box.
const short = (n) => (n >= 100 ? fmt(n) : ms(n));

// 0 means "no sample yet" in the latency figures: a gap, not a dive to zero.
const gap = (v) => (v > 0 ? v : null);

/** ordersPerSecond from the database's sold count between two samples. */
function ordersPerSecond(step, prev, now, first) {
  const sale = step.sale;
  // A step first seen finished (it ran between two events) gets its average.
  if (first) return step.status === 'done' ? step.client.orders_per_s : 0;
  if (!sale) return 0;
  return Math.max(0, (sale.sold - prev.sold) / Math.max(0.2, now - prev.t));
}

/**
 * chartPoint is the point to add, or null: one while the step runs, plus
 * one when it ends (or when it is first seen already ended), so that even
 * a short step leaves a trace.
 */
function chartPoint(step, prev, now, first) {
  const done = step.status === 'done';
  const running = step.status === 'running';
  if (!step.sale || !(running || (!first && prev.running) || (first && done))) return null;
  const c = step.client.latency_ms, sv = step.server?.latency_ms || {}, lw = step.server?.lock_wait_ms || {};
  return {
    orders: [ordersPerSecond(step, prev, now, first)],
    latency: [c.p50, c.p95, c.p99, sv.p50, sv.p95, sv.p99].map(gap),
    lockwait: [lw.p50, lw.p95, lw.p99].map(gap),
  };
}

/**
 * unhealthyWhy says in words why the server calls a sale not healthy
 * (healthy: false), '' when it does not: what it counted, or the stock
 * drift between Redis and the database.
 */
export function unhealthyWhy(sale, zh = false, skipOverlaps = false) {
  if (!sale || sale.healthy !== false) return '';
  const why = [];
  const L = (k) => label(k, zh);
  if (sale.oversold > 0) why.push(L('whyOversold'));
  if (sale.lost_updates > 0) why.push(L('whyLost'));
  if (sale.duplicates > 0) why.push(L('whyDuplicates'));
  if (sale.violations > 0 && !skipOverlaps) why.push(L('whyOverlaps'));
  if (sale.reconcile?.drift) why.push(`${L('whyDrift')} ${sale.reconcile.drift}`);
  if (sale.reconcile?.store_stock < 0) why.push(L('whyRedisStock'));
  if (skipOverlaps) return why.join(', ');
  return why.join(', ') || L('whyServer');
}

addLabels({
  whyOversold: ['oversold', '超卖'], whyLost: ['lost updates', '丢失更新'], whyDuplicates: ['duplicates', '重复订单'],
  whyOverlaps: ['exclusion violations', '临界区重叠'], whyDrift: ['drift', '库存偏差'],
  whyRedisStock: ['Redis lost its stock', 'Redis 丢失了库存'], whyServer: ['the server says so', '服务端判定'],
  notHealthy: ['NOT HEALTHY', '不健康'], waitingStep: ['waiting for the step to start', '等待这一步开始'],
  soFar: ['so far, ', '目前：'], saleHolds: ['the sale holds', '本场守住了'],
});

/**
 * enrichedSale is the step's sale with what GET /api/sales/:id adds to it
 * (queue, reservations, reconcile, healthy) when view is that sale's
 * answer. The runs stream does not compute those: its own members of
 * those names are dropped, so a sale is never called unhealthy on them.
 */
export function enrichedSale(step, view) {
  if (!step?.sale) return null;
  const { healthy, queue, reservations, reconcile, ...plain } = step.sale;
  if (!view || view.id !== step.sale.id) return plain;
  return { ...plain, queue: view.queue, reservations: view.reservations, reconcile: view.reconcile, healthy: view.healthy };
}

/** verdictText says what the step did to the sale so far, in words; OVERSOLD and BROKEN before NOT HEALTHY. */
// An overlap that fencing or the database made harmless is amber, not
// "not healthy": only damage or drift beside it turns the band red.
export function verdictText(step, zh) {
  let v = verdictOf(step.sale, zh);
  if (!v.bad && step.sale?.healthy === false) {
    const why = unhealthyWhy(step.sale, zh, !!v.warn);
    if (why) v = { word: `${label('notHealthy', zh)} (${why})`, bad: true };
  }
  if (!step.sale) return { text: label('waitingStep', zh), head: label('waitingStep', zh), why: '', bad: v.bad };
  const soFar = step.status === 'done' ? '' : label('soFar', zh);
  const word = v.kind === 'holds' ? label('saleHolds', zh) : v.word;
  const out = { text: `${step.strategy}: ${soFar}${word}`, bad: v.bad };
  // The band's two parts: the verdict's word in its heading row, the
  // reason with its figures on the row under it, where it is never cut.
  // (The server's reason; else the local word's own "WORD: why".)
  const colon = /: |：/.exec(v.word);
  const cut = v.reason && v.word.endsWith(`: ${v.reason}`) ? v.word.length - v.reason.length - 2 : colon ? colon.index : -1;
  out.head = cut >= 0 ? `${step.strategy}: ${soFar}${v.word.slice(0, cut)}` : out.text;
  out.why = cut >= 0 ? v.word.slice(cut + (v.word[cut] === '：' ? 1 : 2)) : '';
  if (v.warn) out.warn = true;
  return out;
}

/** numbers are the big figures: text, and bad when a safety count is above 0. */
function numbers(step, zh) {
  const sale = step.sale;
  const c = step.client;
  const count = (n, flagged) => ({ text: fmt(n), bad: !!flagged && n > 0 });
  const reported = sale && c.requests > 0;
  return {
    stock: count(sale?.stock),
    sold: count(sale?.sold),
    // The word, not only the colour: "OVERSOLD" beside the number.
    oversold: { ...count(sale?.oversold, true), word: sale?.oversold > 0 ? label('vOversold', zh) : '' },
    lost: count(sale?.lost_updates, true),
    // Overlaps that damaged nothing (fenced, or no write collided) are
    // amber, not red: the verdict says which.
    viol: sale && sale.violations > 0 && !verdictOf(sale).bad ? { text: fmt(sale.violations), bad: false, warn: true }
      : count(sale?.violations, true),
    fenced: count(sale?.fenced_writes),
    rps: { text: reported ? fmt(c.requests_per_s, 1) : '–', bad: false },
    latency: { text: reported ? `${short(c.latency_ms.p50)} / ${short(c.latency_ms.p99)}` : '–', bad: false },
  };
}

// The guard layers in the order a request meets them, with their words.
export const LAYERS = [
  ['opening', 'not open'], ['ticket', 'ticket'], ['rate_limit', 'rate limited'], ['idempotency', 'idempotency'],
  ['sold_out_cache', 'sold-out cache'], ['lock', 'lock'], ['database', 'database'], ['store', 'store'],
];

/** layersOf lists the answers per layer the replicas counted, in guard order, the empty ones left out. */
export function layersOf(step) {
  const counts = step.server?.layers || {};
  const total = LAYERS.reduce((sum, [k]) => sum + (counts[k] || 0), 0);
  return LAYERS.filter(([k]) => counts[k] > 0)
    .map(([k, word]) => ({ layer: k, word, n: counts[k], text: fmt(counts[k]), share: counts[k] / total }));
}

/** openingOf is the countdown while the step's sale is not open yet at server time serverMs, else null. */
function openingOf(step, serverMs) {
  if (!step.sale?.opens_at || step.status === 'done' || serverMs === undefined) return null;
  const st = openingState(step.sale.opens_at, serverMs);
  return st.open ? null : { text: st.text, msLeft: st.msLeft };
}

/** isAsync says whether a step's sale takes its orders through the queue. */
export const isAsync = (step) => step?.sale?.order_mode === 'async';

/**
 * queueBoxes are the queue's figures for the band: one box each, with the
 * label key of i18n.js, its text and whether it is bad. Only what the
 * sale has: the queue's for an async sale (q: GET /api/queue, null until
 * read), the reservations' for a sale with a pay-by time, the drift for a
 * sale with a Redis stock, and the health beside any of them. confirmed/s is the change of
 * queue.confirmed since prev.
 */
export function queueBoxes(step, prev, now, first, q) {
  const sale = step?.sale;
  if (!sale) return [];
  const boxes = [];
  const box = (key, text, bad = false) => boxes.push({ key, text, bad });
  const qs = sale.queue;
  if (isAsync(step) && qs) {
    box('qLength', q ? fmt(q.length) : '–');
    box('qLag', q ? fmt(q.lag) : '–');
    const consumers = q?.consumers || [];
    box('qPending', !q ? '–' : consumers.length ? consumers.map((c) => `${c.name}: ${fmt(c.pending)}`).join(' · ') : fmt(q.pending));
    box('qInFlight', fmt(qs.in_flight));
    const rate = first || !(prev?.confirmed >= 0) ? null : Math.max(0, (qs.confirmed - prev.confirmed) / Math.max(0.2, now - prev.t));
    box('qConfirmedPerS', rate === null ? '–' : fmt(rate, 1));
    box('qConfirmedFailed', `${fmt(qs.confirmed)} / ${fmt(qs.failed)}`);
    box('qConfirmMs', qs.confirmed > 0 ? `${short(qs.confirm_p50_ms)} / ${short(qs.confirm_p99_ms)}` : '–');
    box('qDurability', q?.durability || '–'); // a setting, not a fault: what it risks is the persistence form's to say
  }
  const rs = sale.reservations;
  if (rs && sale.pay_within_ms > 0) {
    box('resReservedPaid', `${fmt(rs.reserved)} / ${fmt(rs.paid)}`);
    // Every expired unit goes back exactly once: one not returned (yet) is flagged.
    box('resExpiredReturned', `${fmt(rs.expired)} / ${fmt(rs.returned)}`, step.status === 'done' && rs.returned !== rs.expired);
  }
  if (sale.reconcile) box('drift', fmt(sale.reconcile.drift), sale.reconcile.drift !== 0);
  // A plain sale's health is its verdict: the box only beside the others.
  if (boxes.length && sale.healthy !== undefined) box('health', sale.healthy ? 'healthy' : `NOT HEALTHY: ${unhealthyWhy(sale)}`, !sale.healthy);
  return boxes;
}

/**
 * liveView turns a run into the panel's view model. prev is the sample the
 * previous call returned (null at first), now the time in seconds,
 * serverMs the server's time in milliseconds when known (for the countdown),
 * more what the page read besides the stream: {queue} (GET /api/queue) and
 * {sale} (GET /api/sales/:id of the step's sale). It returns null for a
 * run without steps; else the view and, in view.sample, what to pass as
 * prev next time.
 */
export function liveView(run, prev, now, serverMs, more = {}) {
  const streamed = currentStep(run);
  if (!streamed) return null;
  const step = streamed.sale ? { ...streamed, sale: enrichedSale(streamed, more.sale) } : streamed;
  const q = more.queue || null;
  const key = `${run.id}/${step.step}`;
  const first = prev?.key !== key;
  const steps = run.steps.length > 1 ? ` step ${step.step + 1}/${run.steps.length}` : '';
  return {
    key,
    step,
    title: `run ${run.id}${steps}: ${step.strategy} (${run.status})`,
    // The band's heading: "Run in progress" only while one is.
    heading: run.status === 'running' || run.status === 'queued' ? 'live' : 'liveLast',
    data: { run: String(run.id), strategy: step.strategy, status: run.status },
    numbers: numbers(step, !!more.zh),
    verdict: verdictText(step, !!more.zh),
    point: chartPoint(step, prev, now, first),
    saleId: step.sale_id || 0,
    shopUrl: step.sale_id ? `/shop/${step.sale_id}` : '',
    opening: openingOf(step, serverMs),
    layers: layersOf(step),
    queue: queueBoxes(step, prev, now, first, q),
    async: isAsync(step),
    sample: { key, t: now, sold: step.sale?.sold || 0, confirmed: step.sale?.queue?.confirmed ?? -1, running: step.status === 'running' },
  };
}
