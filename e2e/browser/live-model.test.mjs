// The live band's view model (web/static/assets/live-model.js) without a
// browser: what the band shows for a run as the API sends it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentStep, liveView, queueBoxes } from '../../web/static/assets/live-model.js';

const client = (over = {}) => ({ requests: 0, orders: 0, requests_per_s: 0, orders_per_s: 0,
  latency_ms: { p50: 0, p95: 0, p99: 0 }, ...over });
const sale = (over = {}) => ({ id: 7, stock: 10, sold: 10, oversold: 0, lost_updates: 0, violations: 0, fenced_writes: 0, duplicates: 0, ...over });
const step = (over = {}) => ({ step: 0, strategy: 'redis', status: 'running', sale_id: 7, sale: sale(), client: client(), server: null, agents: [], ...over });
const run = (steps, status = 'running') => ({ id: 3, status, steps });

test('the current step is the running one, else the last with a sale', () => {
  const a = step({ step: 0, status: 'done' }), b = step({ step: 1, status: 'running' }), c = step({ step: 2, status: 'queued', sale: null });
  assert.equal(currentStep(run([a, b, c])), b);
  assert.equal(currentStep(run([a, step({ step: 1, status: 'done' }), c])).step, 1);
  assert.equal(liveView(run([]), null, 0), null);
});

test('an oversold sale is bad, in red and in words', () => {
  const v = liveView(run([step({ strategy: 'none', sale: sale({ stock: 0, sold: 25, oversold: 5, lost_updates: 7, violations: 9 }) })]), null, 100);
  assert.equal(v.title, 'run 3: none (running)');
  assert.deepEqual(v.data, { run: '3', strategy: 'none', status: 'running' });
  assert.deepEqual(v.numbers.oversold, { text: '5', bad: true, word: 'OVERSOLD' });
  assert.deepEqual(v.numbers.lost, { text: '7', bad: true });
  assert.deepEqual(v.numbers.viol, { text: '9', bad: true });
  assert.deepEqual(v.numbers.stock, { text: '0', bad: false });
  assert.deepEqual(v.verdict, { text: 'none: so far, OVERSOLD', head: 'none: so far, OVERSOLD', why: '', bad: true });
  assert.equal(v.saleId, 7);
});

test('a finished step that holds says so; one not started yet waits', () => {
  const done = liveView(run([step({ status: 'done', sale: sale({ stock: 0, sold: 20 }) })], 'done'), null, 0);
  assert.deepEqual(done.verdict, { text: 'redis: the sale holds', head: 'redis: the sale holds', why: '', bad: false });
  assert.deepEqual(done.numbers.oversold, { text: '0', bad: false, word: '' });
  const waiting = liveView(run([step({ status: 'queued', sale: null }), step({ step: 1, status: 'queued', sale: null })], 'queued'), null, 0);
  assert.equal(waiting.title, 'run 3 step 1/2: redis (queued)');
  assert.deepEqual(waiting.verdict, { text: 'waiting for the step to start', head: 'waiting for the step to start', why: '', bad: false });
  assert.equal(waiting.numbers.sold.text, '–');
  assert.equal(waiting.point, null);
});

test('throughput and latency appear once the agents reported', () => {
  const before = liveView(run([step()]), null, 0);
  assert.equal(before.numbers.rps.text, '–');
  assert.equal(before.numbers.latency.text, '–');
  const c = client({ requests: 500, requests_per_s: 123.45, latency_ms: { p50: 4.321, p95: 80, p99: 1234.5 } });
  const after = liveView(run([step({ client: c })]), null, 0);
  assert.equal(after.numbers.rps.text, '123.5');
  assert.equal(after.numbers.latency.text, '4.32 / 1,235');
});

test('orders per second come from the sold count between two samples', () => {
  const first = liveView(run([step({ sale: sale({ sold: 10 }) })]), null, 100);
  assert.equal(first.point.orders[0], 0); // first sight of a running step: no rate yet
  assert.deepEqual(first.sample, { key: '3/0', t: 100, sold: 10, confirmed: -1, running: true });
  const next = liveView(run([step({ sale: sale({ sold: 30 }) })]), first.sample, 102);
  assert.equal(next.point.orders[0], 10);
  // A sample with no latency yet is a gap, not a dive to zero.
  assert.deepEqual(next.point.latency, [null, null, null, null, null, null]);
  // The end of the step leaves a last point; after that, none.
  const end = liveView(run([step({ status: 'done', sale: sale({ sold: 40 }) })], 'done'), next.sample, 103);
  assert.equal(end.point.orders[0], 10);
  assert.equal(liveView(run([step({ status: 'done', sale: sale({ sold: 40 }) })], 'done'), end.sample, 104).point, null);
  // A step first seen finished gets its average.
  const late = liveView(run([step({ status: 'done', client: client({ orders_per_s: 42 }) })], 'done'), null, 0);
  assert.equal(late.point.orders[0], 42);
});

test('a sale not open yet shows its countdown in the server time; the layers come in guard order', () => {
  const at = '2026-01-01T12:00:10Z';
  const st = step({ sale: sale({ opens_at: at }), server: { layers: { database: 20, sold_out_cache: 60, opening: 20, lock: 0 } } });
  const v = liveView(run([st]), null, 0, Date.parse('2026-01-01T12:00:00Z'));
  assert.deepEqual(v.opening, { text: 'Opens in 0:10', msLeft: 10_000 });
  assert.equal(v.shopUrl, '/shop/7');
  assert.deepEqual(v.layers.map((l) => [l.layer, l.word, l.text, l.share]),
    [['opening', 'not open', '20', 0.2], ['sold_out_cache', 'sold-out cache', '60', 0.6], ['database', 'database', '20', 0.2]]);
  assert.equal(liveView(run([st]), null, 0, Date.parse(at)).opening, null, 'open: no countdown');
  assert.equal(liveView(run([st]), null, 0).opening, null, 'no server time yet: no countdown');
  assert.deepEqual(liveView(run([step({ server: null })]), null, 0).layers, []);
});

// An async sale as GET /api/sales/:id shows it, and the queue as GET /api/queue does.
const asyncSale = (over = {}) => sale({ order_mode: 'async', pay_within_ms: 2000, healthy: true,
  queue: { accepted: 40, in_flight: 5, confirmed: 30, failed: 5, confirm_p50_ms: 3.2, confirm_p99_ms: 150 },
  reservations: { reserved: 10, paid: 15, expired: 5, returned: 5 },
  reconcile: { db_stock: 60, store_stock: 55, in_flight: 5, expired_unreturned: 0, drift: 0 }, ...over });
const queue = { stream: 'orders', group: 'orders', length: 3, lag: 2, pending: 2, durability: 'always',
  consumers: [{ name: 'shop-1', pending: 2, idle_ms: 10 }, { name: 'shop-2', pending: 0, idle_ms: 900 }] };
// The runs stream sends the step's sale without those figures, and with a
// healthy it does not compute (false); the page reads them from the sale.
const streamed = (sv) => {
  const { queue: _q, reservations: _r, reconcile: _c, ...plain } = sv;
  return { ...plain, healthy: false };
};
const live = (sv, { status = 'running', prev = null, now = 0, q = queue } = {}) =>
  liveView(run([step({ status, sale: streamed(sv) })], status), prev, now, undefined, { queue: q, sale: sv });
const boxes = (v) => Object.fromEntries(v.queue.map((b) => [b.key, [b.text, b.bad]]));

test('an async sale shows its queue, reservations, drift and health', () => {
  const first = live(asyncSale(), { now: 100 });
  assert.equal(first.async, true);
  assert.deepEqual(boxes(first), {
    qLength: ['3', false], qLag: ['2', false], qPending: ['shop-1: 2 · shop-2: 0', false], qInFlight: ['5', false],
    qConfirmedPerS: ['–', false], qConfirmedFailed: ['30 / 5', false], qConfirmMs: ['3.2 / 150', false],
    qDurability: ['always', false], resReservedPaid: ['10 / 15', false], resExpiredReturned: ['5 / 5', false],
    drift: ['0', false], health: ['healthy', false],
  });
  assert.deepEqual(first.verdict, { text: 'redis: so far, the sale holds', head: 'redis: so far, the sale holds', why: '', bad: false });
  assert.equal(first.sample.confirmed, 30);
  // confirmed/s from queue.confirmed over time.
  const next = live(asyncSale({ queue: { ...asyncSale().queue, confirmed: 50 } }), { prev: first.sample, now: 102 });
  assert.deepEqual(boxes(next).qConfirmedPerS, ['10', false]);
  // Before GET /api/queue answered: dashes, not zeros.
  assert.deepEqual(boxes(live(asyncSale(), { q: null })).qLength, ['–', false]);
  // Without consumers listed, the total pending; the persistence mode as it is.
  const bare = live(asyncSale(), { q: { ...queue, consumers: [], durability: 'none' } });
  assert.deepEqual(boxes(bare).qPending, ['2', false]);
  assert.deepEqual(boxes(bare).qDurability, ['none', false]);
});

test('drift and an unhealthy sale are bad, in words; returned units short of the expired ones are flagged at the end', () => {
  const drifted = asyncSale({ healthy: false, reconcile: { ...asyncSale().reconcile, drift: 3 } });
  const v = live(drifted, { status: 'done' });
  assert.deepEqual(boxes(v).drift, ['3', true]);
  assert.deepEqual(boxes(v).health, ['NOT HEALTHY: drift 3', true]);
  assert.deepEqual(v.verdict, { text: 'redis: NOT HEALTHY (drift 3)', head: 'redis: NOT HEALTHY (drift 3)', why: '', bad: true });
  const lost = live(asyncSale({ healthy: false, reconcile: { ...asyncSale().reconcile, store_stock: -1 } }));
  assert.deepEqual(boxes(lost).health, ['NOT HEALTHY: Redis lost its stock', true]);
  const oversold = live(sale({ oversold: 2, healthy: false, reconcile: { ...asyncSale().reconcile } }));
  assert.deepEqual(boxes(oversold).health, ['NOT HEALTHY: oversold', true]);
  assert.deepEqual(oversold.verdict, { text: 'redis: so far, OVERSOLD', head: 'redis: so far, OVERSOLD', why: '', bad: true });
  const short = asyncSale({ reservations: { reserved: 0, paid: 1, expired: 4, returned: 3 } });
  assert.deepEqual(boxes(live(short)).resExpiredReturned, ['4 / 3', false], 'running: still returning');
  assert.deepEqual(boxes(live(short, { status: 'done' })).resExpiredReturned, ['4 / 3', true]);
});

test('a sync sale shows only what it has: its drift with a Redis stock, nothing for a plain one', () => {
  const luaSync = sale({ order_mode: 'sync', pay_within_ms: 0, healthy: true,
    reconcile: { db_stock: 5, store_stock: 5, in_flight: 0, expired_unreturned: 0, drift: 0 } });
  assert.deepEqual(live(luaSync).queue.map((b) => b.key), ['drift', 'health']);
  assert.deepEqual(liveView(run([step()]), null, 0).queue, [], 'an older server: no box');
  assert.deepEqual(live(sale({ order_mode: 'sync', healthy: true })).queue, [], 'a plain sale: its health is the verdict, no box');
  assert.deepEqual(queueBoxes(step({ sale: null }), null, 0, true, null), []);
});

test('the stream alone never calls a sale unhealthy: its figures come from the sale view of the same sale', () => {
  const plain = liveView(run([step({ sale: sale({ healthy: false, reconcile: { drift: 5 } }) })]), null, 0);
  assert.deepEqual(plain.verdict, { text: 'redis: so far, the sale holds', head: 'redis: so far, the sale holds', why: '', bad: false });
  assert.deepEqual(plain.queue, []);
  const other = liveView(run([step({ sale: streamed(asyncSale()) })]), null, 0, undefined, { queue, sale: asyncSale({ id: 8, healthy: false }) });
  assert.equal(other.verdict.bad, false, 'the view of another sale is not this one\'s');
  assert.equal(other.queue.some((b) => b.key === 'health' || b.key === 'drift'), false);
});

test('a lock that overlapped but whose stale write was fenced is told apart from a broken one', () => {
  const fenced = liveView(run([step({ status: 'done', sale: sale({ stock: 7, sold: 3, violations: 42, fenced_writes: 1 }) })], 'done'), null, 0);
  assert.deepEqual(fenced.verdict, { text: 'redis: FENCED: the lock overlapped, fencing refused the stale write', head: 'redis: FENCED', why: 'the lock overlapped, fencing refused the stale write', bad: false, warn: true });
  assert.deepEqual(fenced.numbers.viol, { text: '42', bad: false, warn: true });
  const overlapped = liveView(run([step({ status: 'done', sale: sale({ stock: 7, sold: 3, violations: 1 }) })], 'done'), null, 0);
  assert.equal(overlapped.verdict.text, 'redis: OVERLAPPED: two holders at once, no write lost this time');
  assert.equal(overlapped.verdict.bad, false);
  const broken = liveView(run([step({ status: 'done', sale: sale({ stock: 8, sold: 3, violations: 1, lost_updates: 1 }) })], 'done'), null, 0);
  assert.deepEqual(broken.verdict, { text: 'redis: BROKEN', head: 'redis: BROKEN', why: '', bad: true });
  // The server's verdict: its word in the band's heading, its reason (the figures) under it, never cut.
  const judged = live(sale({ violations: 2, fenced_writes: 1,
    verdict: { kind: 'overlapped_safe', reason_en: '2 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0', reason_zh: '' } }));
  assert.equal(judged.verdict.head, 'redis: so far, OVERLAPPED, DATA SAFE');
  assert.equal(judged.verdict.why, '2 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0');
  assert.equal(judged.verdict.text, `${judged.verdict.head}: ${judged.verdict.why}`);
  assert.deepEqual(broken.numbers.viol, { text: '1', bad: true });
});

test('the band says "Run in progress" only while one is, "Last run" after', () => {
  assert.equal(liveView(run([step({ sale: sale({}) })]), null, 0).heading, 'live');
  assert.equal(liveView(run([step({ status: 'done', sale: sale({}) })], 'done'), null, 0).heading, 'liveLast');
});
