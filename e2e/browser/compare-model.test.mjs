// The comparison's "linearizable?" cell (web/static/assets/compare-model.js)
// without a browser, on history members shaped as GET /api/sales/{id}
// answers them (internal/history Result).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyCell, isFinal } from '../../web/static/assets/compare-model.js';

const notLinearizable = {
  verdict: 'not_linearizable', operations: 12,
  witness: [
    { id: 3, order_id: 55, replica: 'replica-1', outcome: 'ok', call: 1, return: 2 },
    { id: 4, order_id: null, replica: 'replica-2', outcome: 'unknown', call: 1, return: 3 },
  ],
  message: { en: 'these 3 orders cannot all have succeeded from a stock of 2', zh: '库存为 2 时这 3 个订单不可能都成功' },
  visualization: '/api/sales/9/history.html',
};

test('a linearizable sale reads yes, with the message on hover and porcupine\'s drawing linked', () => {
  const c = historyCell({ verdict: 'linearizable', operations: 40, witness: [], message: { en: 'every answer fits', zh: '每个应答都吻合' }, visualization: '/api/sales/8/history.html' }, false);
  assert.equal(c.text, 'yes');
  assert.equal(c.cls, 'ok');
  assert.match(c.title, /^every answer fits\n40 order requests/);
  assert.doesNotMatch(c.title, /每个/);
  assert.equal(c.href, '/api/sales/8/history.html');
});

test('a sale that is not linearizable reads no, and its hover names the witness', () => {
  const c = historyCell(notLinearizable, true);
  assert.equal(c.text, 'no');
  assert.equal(c.cls, 'bad');
  const lines = c.title.split('\n');
  assert.equal(lines[0], notLinearizable.message.en);
  assert.equal(lines[1], notLinearizable.message.zh);
  assert.equal(lines[2], 'witness: order 55 (replica-1, ok); request 4 (replica-2, unknown)');
});

test('an unknown verdict reads ?, and no verdict at all reads … and links nowhere', () => {
  assert.equal(historyCell({ verdict: 'unknown', operations: 2000, message: { en: 'the check ran out of time' } }).text, '?');
  const none = historyCell(null);
  assert.equal(none.text, '…');
  assert.equal(none.href, '');
  assert.match(none.title, /not checked/);
});

test('only a definite verdict is kept: unknown ones are asked for again', () => {
  assert.equal(isFinal(notLinearizable), true);
  assert.equal(isFinal({ verdict: 'linearizable' }), true);
  assert.equal(isFinal({ verdict: 'unknown' }), false);
  assert.equal(isFinal(null), false);
});
