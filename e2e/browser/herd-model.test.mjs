// The Herd panel's model: texts and bar widths from GET /api/sales/:id/herd,
// the answer times apart, the lock's holds and the previous herd beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, fillParts, herdModel, lockFigure, previousModel, remember, segments, sellOutRatio } from '../../web/static/assets/herd-model.js';
import { label } from '../../web/static/assets/i18n.js';

const VIEW = {
  sale_id: 12, strategy: 'redis', order_mode: 'sync', combine: false, combine_max_batch: 0,
  sold_out: true, sell_out_ms: 435.287, sell_out_from_first_ms: 12.001,
  lock: true, holds: 20, hold_units: 20, units_per_hold: 1,
  first_second: { answers: 600, orders: 20, sold_out: 580, others: 0, p50_ms: 0.001, p99_ms: 48.5,
    orders_p50_ms: 12.4, orders_p99_ms: 48.5, sold_out_p50_ms: 0.001, sold_out_p99_ms: 0.004 },
  layers: [{ layer: 'sold_out_cache', count: 1740, percent: 87 }, { layer: 'lock', count: 260, percent: 13 }],
};

test('durations read in ms under a second, in seconds above', () => {
  assert.equal(duration(435.287), '435 ms');
  assert.equal(duration(1.25), '1.3 ms');
  assert.equal(duration(1240), '1.24 s');
  assert.equal(duration(null), '–');
  assert.equal(duration(undefined), '–');
});

test('under a millisecond: two decimals, and under 10 µs "< 0.01 ms", never "1 µs" (the histograms count whole µs from 1)', () => {
  assert.equal(duration(0.42), '0.42 ms');
  assert.equal(duration(0.05), '0.05 ms');
  assert.equal(duration(0.01), '0.01 ms');
  assert.equal(duration(0.004), '< 0.01 ms');
  assert.equal(duration(0.001), '< 0.01 ms');
  assert.equal(duration(0), '< 0.01 ms');
  assert.equal(duration(0.996), '1 ms', 'rounds up into the next form, not "1.00 ms"');
  for (const v of [0.001, 0.004, 0.009, 0.3]) assert.doesNotMatch(duration(v), /µs/);
});

test('a sold-out herd: sell-out time, the first second with its answer times apart, holds and bars', () => {
  const m = herdModel(VIEW);
  assert.equal(m.sellOut, '435 ms');
  assert.equal(m.fromFirst, '12 ms');
  assert.equal(m.strategy, 'redis');
  assert.equal(m.combine, 'herdCombineOff');
  assert.deepEqual(m.first, { answers: '600', orders: '20', soldOut: '580', latency: '< 0.01 ms / 49 ms',
    orderTime: '12 ms / 49 ms', soldOutTime: '< 0.01 ms / < 0.01 ms' });
  assert.deepEqual(m.lock, { key: 'herdHoldsLine', why: 'herdHoldsSold', values: { holds: '20', units: '1.0', sold: '20' } });
  assert.deepEqual(m.layers.map((l) => [l.key, l.text, l.width]),
    [['herdL_sold_out_cache', '1,740 · 87%', 100], ['herdL_lock', '260 · 13%', 15]]);
});

test('a split the shop does not have (no orders in the first second, or an older shop) reads "–"', () => {
  const fs = { answers: 10, sold_out: 10, p50_ms: 0.002, p99_ms: 0.01, orders_p50_ms: null, orders_p99_ms: null, sold_out_p50_ms: 0.002, sold_out_p99_ms: 0.01 };
  assert.equal(herdModel({ ...VIEW, first_second: fs }).first.orderTime, '–');
  assert.equal(herdModel({ ...VIEW, first_second: fs }).first.soldOutTime, '< 0.01 ms / 0.01 ms');
  assert.equal(herdModel({ ...VIEW, first_second: { answers: 3, p50_ms: 1, p99_ms: 2 } }).first.soldOutTime, '–');
});

test('a sale not sold out has no sell-out time; an unknown layer keeps its name', () => {
  const m = herdModel({ ...VIEW, sold_out: false, sell_out_ms: null, first_second: {}, layers: [{ layer: 'x', count: 1, percent: 100 }] });
  assert.equal(m.sellOut, null);
  assert.equal(m.first.latency, '–');
  assert.equal(m.layers[0].key, null);
  assert.equal(herdModel(null), null);
});

test('the lock\'s holds: N holds · M units per hold, "no lock" without one, nothing from an older shop', () => {
  const combined = lockFigure({ ...VIEW, combine: true, holds: 4, hold_units: 25, units_per_hold: 6.25 });
  assert.deepEqual(combined.values, { holds: '4', units: '6.3', sold: '25' });
  const text = (f, zh) => fillParts(label(f.key, zh), f.values).map((p) => p.text).join('');
  assert.equal(text(combined, false), '4 holds · 6.3 units per hold');
  assert.equal(text(combined, true), '持锁 4 次 · 每次 6.3 件');
  assert.equal(text(lockFigure({ ...VIEW, holds: 1, hold_units: 1, units_per_hold: 1 }), false), '1 hold · 1.0 units per hold');
  assert.equal(text(lockFigure({ ...VIEW, holds: 12345, hold_units: 12345 }), false), '12,345 holds · 1.0 units per hold');
  assert.deepEqual(lockFigure({ ...VIEW, holds: 0, hold_units: 0, units_per_hold: 0 }), { key: 'herdNoHolds', values: {}, why: '' });
  assert.deepEqual(lockFigure({ ...VIEW, strategy: 'redis-lua-stock', lock: false, holds: 0 }), { key: 'herdNoLock', values: {}, why: 'herdNoLockWhy' });
  assert.equal(lockFigure({ ...VIEW, strategy: 'redis-lua-stock', order_mode: 'async', lock: false }).why, 'herdNoLockQueue');
  assert.equal(label('herdNoLock', false), 'no lock');
  assert.equal(lockFigure({ sale_id: 1 }), null, 'a view without the lock field says nothing');
  assert.equal(herdModel({ ...VIEW, lock: false }).combine, '', 'no lock: combining is not a question');
  assert.equal(herdModel({ ...VIEW, combine: true }).combine, 'herdCombineOn');
});

test('fillParts: the values apart from the words, in the order of the template', () => {
  assert.deepEqual(fillParts('持锁 {holds} 次 · 每次 {units} 件', { holds: '3', units: '2.0' }),
    [{ text: '持锁 ', value: false }, { text: '3', value: true }, { text: ' 次 · 每次 ', value: false }, { text: '2.0', value: true }, { text: ' 件', value: false }]);
  assert.deepEqual(fillParts('no lock', {}), [{ text: 'no lock', value: false }]);
  const texts = (segs) => segs.map((s) => s.map((p) => (p.value ? `[${p.text}]` : p.text)).join(''));
  assert.deepEqual(texts(segments(fillParts(label('herdHoldsLine', false), { holds: '20', units: '1.0' }))), ['[20] holds', '[1.0] units per hold']);
  assert.deepEqual(texts(segments(fillParts(label('herdHoldsLine', true), { holds: '20', units: '1.0' }))), ['持锁 [20] 次', '每次 [1.0] 件']);
  assert.deepEqual(texts(segments(fillParts('no lock', {}))), ['no lock']);
});

test('the ratio of sell-out times: faster, slower, the same, and only when both are sold out', () => {
  const prev = { ...VIEW, sale_id: 11, sell_out_ms: 1828.2 };
  const cur = { ...VIEW, sale_id: 12, sell_out_ms: 435.287 };
  assert.deepEqual(sellOutRatio(cur, prev), { key: 'herdFaster', r: '4.2', rx: '4.2×' });
  assert.deepEqual(sellOutRatio(prev, cur), { key: 'herdSlower', r: '4.2', rx: '4.2×' });
  assert.deepEqual(sellOutRatio(cur, { ...prev, sell_out_ms: 440 }), { key: 'herdSame', r: '1.0', rx: '1.0×' });
  assert.deepEqual(sellOutRatio({ ...cur, sell_out_ms: 100 }, { ...prev, sell_out_ms: 1500 }), { key: 'herdFaster', r: '15.0', rx: '15.0×' });
  assert.equal(sellOutRatio(cur, { ...prev, sold_out: false, sell_out_ms: null }), null);
  assert.equal(sellOutRatio({ ...cur, sold_out: false, sell_out_ms: null }, prev), null);
  assert.equal(sellOutRatio(cur, null), null);
  const words = (r, zh) => fillParts(label(r.key, zh), r).map((p) => p.text).join('');
  assert.equal(words(sellOutRatio(cur, prev), false), 'This sale sold out 4.2× faster');
  assert.equal(words(sellOutRatio(prev, cur), false), 'This sale sold out 4.2× slower');
  assert.equal(words(sellOutRatio(cur, prev), true), '本场售罄速度是上一场的 4.2 倍');
  assert.equal(words(sellOutRatio(prev, cur), true), '本场售罄用时是上一场的 4.2 倍');
  assert.equal(words(sellOutRatio(cur, { ...prev, sell_out_ms: 440 }), false), 'Both sold out in the same time');
});

test('the previous herd: its key figures and the ratio; none for the same sale', () => {
  const prev = { ...VIEW, sale_id: 11, sell_out_ms: 1828.2, holds: 20 };
  const cur = { ...VIEW, combine: true, holds: 3, hold_units: 20, units_per_hold: 6.67 };
  const p = previousModel(prev, cur);
  assert.deepEqual(p, { saleId: 11, strategy: 'redis', combine: 'herdCombineOff', sellOut: '1.83 s',
    lock: { key: 'herdHoldsLine', why: 'herdHoldsSold', values: { holds: '20', units: '1.0', sold: '20' } }, ratio: { key: 'herdFaster', r: '4.2', rx: '4.2×' } });
  assert.equal(previousModel(prev, { ...cur, sale_id: 11 }), null);
  assert.equal(previousModel(null, cur), null);
  assert.equal(previousModel({ ...prev, sold_out: false, sell_out_ms: null }, cur).ratio, null);
  assert.equal(previousModel({ ...prev, sold_out: false, sell_out_ms: null }, cur).sellOut, null);
});

test('remember: the previous herd is the last different sale drawn, kept without its bars', () => {
  let m = remember(null, { ...VIEW, sale_id: 5 });
  assert.equal(m.previous, null);
  assert.equal(m.current.sale_id, 5);
  assert.deepEqual(m.current.layers, []);
  m = remember(m, { ...VIEW, sale_id: 5, sold: 3 }); // the same sale again: no previous yet, its latest figures kept
  assert.equal(m.previous, null);
  assert.equal(m.current.sold, 3);
  m = remember(m, { ...VIEW, sale_id: 6 });
  assert.equal(m.previous.sale_id, 5);
  assert.equal(m.previous.sold, 3);
  m = remember(m, { ...VIEW, sale_id: 6, sold: 9 });
  assert.equal(m.previous.sale_id, 5, 'the same sale again keeps the previous');
  m = remember(JSON.parse(JSON.stringify(m)), { ...VIEW, sale_id: 7 }); // through sessionStorage
  assert.deepEqual([m.previous.sale_id, m.current.sale_id], [6, 7]);
  assert.deepEqual(remember('garbage', null), { current: null, previous: null });
});
