// The Herd panel's model: texts and bar widths from GET /api/sales/:id/herd.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, herdModel } from '../../web/static/assets/herd-model.js';

const VIEW = {
  sale_id: 12, sold_out: true, sell_out_ms: 435.287, sell_out_from_first_ms: 12.001,
  first_second: { answers: 600, orders: 20, sold_out: 580, others: 0, p50_ms: 1.2, p99_ms: 48.5 },
  layers: [{ layer: 'sold_out_cache', count: 1740, percent: 87 }, { layer: 'lock', count: 260, percent: 13 }],
};

test('durations read in ms under a second, in seconds above', () => {
  assert.equal(duration(435.287), '435 ms');
  assert.equal(duration(1.25), '1.3 ms');
  assert.equal(duration(1240), '1.24 s');
  assert.equal(duration(null), '–');
  assert.equal(duration(0.001), '1 µs');
  assert.equal(duration(0.42), '420 µs');
});

test('a sold-out herd: sell-out time, the first second and bars scaled to the largest', () => {
  const m = herdModel(VIEW);
  assert.equal(m.sellOut, '435 ms');
  assert.equal(m.fromFirst, '12 ms');
  assert.deepEqual(m.first, { answers: '600', orders: '20', soldOut: '580', latency: '1.2 ms / 49 ms' });
  assert.deepEqual(m.layers.map((l) => [l.key, l.text, l.width]),
    [['herdL_sold_out_cache', '1,740 · 87%', 100], ['herdL_lock', '260 · 13%', 15]]);
});

test('a sale not sold out has no sell-out time; an unknown layer keeps its name', () => {
  const m = herdModel({ ...VIEW, sold_out: false, sell_out_ms: null, first_second: {}, layers: [{ layer: 'x', count: 1, percent: 100 }] });
  assert.equal(m.sellOut, null);
  assert.equal(m.first.latency, '–');
  assert.equal(m.layers[0].key, null);
  assert.equal(herdModel(null), null);
});
