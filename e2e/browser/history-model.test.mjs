// The History check panel's model (web/static/assets/history-model.js)
// without a browser: every verdict reads as a sentence in English and
// Chinese, never the raw code; witness orders are named in words with the
// replica and the token's rank found among the timeline's sections.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WITNESS_SHOWN, historyView, sectionOfOrder } from '../../web/static/assets/history-model.js';

const sections = JSON.parse(readFileSync(new URL('./fixtures/timeline-redis-pause.json', import.meta.url))).sections;

test('an order is found in its section, a batch by its consecutive ids', () => {
  assert.equal(sectionOfOrder(sections, 55).token_rank, 7);
  assert.equal(sectionOfOrder([{ order_id: 40, orders: 3, token_rank: 2 }], 42).token_rank, 2);
  assert.equal(sectionOfOrder([{ order_id: 40, orders: 3, token_rank: 2 }], 43), null);
  assert.equal(sectionOfOrder(sections, null), null);
});

test('every verdict is a sentence, in both languages, never the code', () => {
  const unknown = { verdict: 'unknown', witness: [], message: { en: 'The check of 9 answers did not finish within 300ms.', zh: '对 9 个应答的检查未能在 300ms 内完成。' } };
  for (const zh of [false, true]) {
    for (const res of [{ verdict: 'linearizable', witness: [] }, { verdict: 'not_linearizable', witness: [] }, unknown, null]) {
      const v = historyView(res, sections, zh);
      assert.ok(v.sentence.length > 10, `${res?.verdict}: ${v.sentence}`);
      assert.doesNotMatch(v.sentence + v.meaning, /not_linearizable|\blinearizable\b|unknown/);
      assert.equal(/[\u4e00-\u9fff]/.test(v.sentence), zh, v.sentence);
    }
  }
  assert.match(historyView(unknown, sections).sentence, /^Not decided: The check of 9 answers did not finish/);
  assert.match(historyView(null, sections, false, true).sentence, /still running/);
});

test('the witness rows: order in words, replica, token rank; a request with no order; long lists cut', () => {
  const res = { verdict: 'not_linearizable', message: { en: 'x', zh: 'y' },
    witness: [{ id: 9, order_id: null, replica: 'replica-1', outcome: 'sold_out' }, { id: 3, order_id: 55, replica: 'replica-2', outcome: 'ok' }] };
  assert.deepEqual(historyView(res, sections).rows, [
    { order: 'request 9', replica: 'replica-1', token: '–', outcome: 'sold_out' },
    { order: 'order 55', replica: 'replica-2', token: '#7', outcome: 'ok' }]);
  assert.equal(historyView(res, sections, true).rows[1].order, '订单 55');
  const many = { ...res, witness: Array.from({ length: 30 }, (_, i) => ({ id: i, order_id: 100 + i, replica: 'r', outcome: 'ok' })) };
  const v = historyView(many, []);
  assert.equal(v.rows.length, WITNESS_SHOWN);
  assert.ok(WITNESS_SHOWN <= 6, "a few rows a class can read");
  assert.equal(v.more, 30 - WITNESS_SHOWN);
  assert.equal(v.orders.length, 30);
});
