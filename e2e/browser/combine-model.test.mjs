// Combining's pure logic (web/static/assets/combine-model.js): what the run
// form offers and sends, the band's tag, a batch hold's words and the
// comparison's units per hold. `node --test combine-model.test.mjs`.
import assert from 'node:assert/strict';
import test from 'node:test';

import {
  batchBarTexts, batchFacts, combineBody, combineOffer, combineTag, limitFigures, unitsPerHold,
} from '../../web/static/assets/combine-model.js';
import { SETTINGS, differingSettings } from '../../web/static/assets/compare-model.js';

const STRATEGIES = [{ name: 'redis', kind: 'lock' }, { name: 'db-conditional', kind: 'lock-free' }, { name: 'redis-lua-stock', kind: 'reserver' }];

test('combining is offered for a lock strategy and "all", not for a lock-free one nor async orders', () => {
  assert.deepEqual(combineOffer('redis', STRATEGIES, 'sync'), { ok: true, reason: 'cbHint' });
  assert.deepEqual(combineOffer('all', STRATEGIES, 'sync'), { ok: true, reason: 'cbAllHint' });
  assert.deepEqual(combineOffer('db-conditional', STRATEGIES, 'sync'), { ok: false, reason: 'cbNoLock' });
  assert.deepEqual(combineOffer('redis-lua-stock', STRATEGIES, 'sync'), { ok: false, reason: 'cbNoLock' });
  assert.deepEqual(combineOffer('all', STRATEGIES, 'async'), { ok: false, reason: 'cbNoAsync' });
  assert.deepEqual(combineOffer('redis', [], 'sync'), { ok: false, reason: 'cbUnknown' }, 'before the strategies are listed');
});

test('the body gets combine with its batch and wait only when on, inside the API bounds', () => {
  assert.deepEqual(combineBody(false, '100', '500'), { body: {}, errors: [] });
  assert.deepEqual(combineBody(true, '100', '500'), { body: { combine: true, combine_max_batch: 100, combine_max_wait_us: 500 }, errors: [] });
  assert.deepEqual(combineBody(true, '0', '500').errors, [['combine_max_batch', 1, 1000]]);
  assert.deepEqual(combineBody(true, '1001', '').errors, [['combine_max_batch', 1, 1000], ['combine_max_wait_us', 0, 100000]]);
  assert.deepEqual(combineBody(true, '2.5', '100001').errors.map(([f]) => f), ['combine_max_batch', 'combine_max_wait_us']);
  assert.deepEqual(combineBody(true, '1000', '0').errors, []);
});

test('the band tags a combining sale with its batch bound', () => {
  assert.equal(combineTag({ combine: true, combine_max_batch: 100 }), '≤100');
  assert.equal(combineTag({ combine: true }), '≤100', 'the default bound');
  assert.equal(combineTag({ combine: false, combine_max_batch: 100 }), '');
  assert.equal(combineTag(null), '');
});

test('a batch hold is labelled by its size, longest label first; one order has none', () => {
  const words = { buyers: 'buyers', orders: 'orders' };
  // #12: the token's rank in the sale, never the raw token.
  assert.deepEqual(batchBarTexts({ buyers: 37, orders: 30, token: 1795827359907586, token_rank: 12 }, words), ['37 buyers · 30 orders · #12', '×37 · #12', '×37']);
  assert.deepEqual(batchBarTexts({ buyers: 5, orders: 5, token: 0, token_rank: 0 }, words), ['5 buyers · 5 orders', '×5', '×5']);
  assert.deepEqual(batchBarTexts({ token: 4, order_id: 9 }, words), []);
});

test("a batch's tooltip says what the buyers without an order got", () => {
  const s = { buyers: 37, orders: 30, outcome: 'committed' };
  assert.deepEqual(batchFacts(s, 0), { buyers: 37, orders: 30, others: 7, othersGot: 'cbOthersSoldOut' });
  assert.equal(batchFacts(s, 12).othersGot, 'cbOthersRefused', 'units were left: the limit or a repeated key');
  assert.equal(batchFacts(s, null).othersGot, 'cbOthersNoOrder', 'no stock line: not said why');
  assert.equal(batchFacts({ buyers: 8, orders: 8, outcome: 'committed' }, 0).othersGot, '', 'everyone served');
  assert.deepEqual(batchFacts({ buyers: 25, outcome: 'fenced' }, 40), { buyers: 25, orders: 0, others: 25, othersGot: 'cbRefusedWhole' });
  assert.equal(batchFacts({ buyers: 25, outcome: 'lock_lost' }, 40).othersGot, 'cbRefusedWhole');
  assert.equal(batchFacts({ order_id: 3, outcome: 'committed' }, 0), null);
});

test('the physical limit counts holds; units per hold turn them into orders per second', () => {
  const step = { limit: { sections_per_s: 40, limit_per_s: 50, ratio: 0.8 }, sale: { lock_cycle: { units_per_hold: 25 } } };
  assert.deepEqual(limitFigures(step), { holdsPerS: 40, limitPerS: 50, ratio: 0.8, units: 25, ordersPerS: 1000 });
  assert.equal(limitFigures({ ...step, sale: {} }).ordersPerS, null, 'an older view without units per hold');
  assert.equal(limitFigures({ limit: null }), null);
  assert.equal(unitsPerHold({ sale: { lock_cycle: { units_per_hold: 0 } } }), null, 'no section yet');
});

test('combining on and off differ between pinned runs, with its batch and wait', () => {
  const run = (config) => ({ run: { config: { fencing: true, work_ms: 1, ttl_ms: 2000, stock: 200, buyers: 2000, concurrency: 256, per_user_limit: 1, ...config }, targets: ['a'] } });
  const off = run({}), on = run({ combine: true, combine_max_batch: 100, combine_max_wait_us: 500 });
  assert.deepEqual(differingSettings([off, on]), ['cmpCombine']);
  const of = SETTINGS.find(([k]) => k === 'cmpCombine')[1];
  assert.equal(of(on.run), '≤100 / 500 µs');
  assert.equal(of(off.run), 'off');
});

test('the limit hover multiplies by units per hold only for a sale that combined', async () => {
  const { limitWords } = await import('../../web/static/assets/combine-view.js');
  const step = { limit: { sections_per_s: 40, limit_per_s: 50, ratio: 0.8 }, sale: { combine: false, lock_cycle: { units_per_hold: 0.61 } } };
  assert.doesNotMatch(limitWords(step, false).title, /units per hold|0\.61/);
  assert.equal(limitWords(step, false).units, '');
  const combined = { ...step, sale: { combine: true, lock_cycle: { units_per_hold: 25 } } };
  assert.match(limitWords(combined, false).title, /25/);
});
