// The Run form's pace (web/static/assets/pace-model.js) without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PACES, PACE_LABELS, stepSeconds } from '../../web/static/assets/pace-model.js';

test('a class step lasts 20 to 40 s and slow motion longer, with seconds in the lock; the herd waits for its opening', () => {
  assert.ok(stepSeconds(PACES.normal) < 5, `normal ${stepSeconds(PACES.normal)} s`);
  const cls = stepSeconds(PACES.class);
  assert.ok(cls >= 20 && cls <= 40, `class ${cls} s`);
  assert.ok(stepSeconds(PACES.slow) > 40, `slow ${stepSeconds(PACES.slow)} s`);
  for (const p of [PACES.class, PACES.slow]) {
    assert.ok(p.opens_in_s >= 3, 'the herd gathers for several seconds');
    assert.ok(p.buyers > p.stock, 'more buyers than units: the sale sells out');
    // Seconds of work, so that unsafe holders overlap for seconds, not milliseconds.
    assert.ok(p.work_ms >= 1000, `work ${p.work_ms} ms`);
    // Closed model: with up to 3 agents' buyers in flight, the last in a
    // safe lock's queue is served inside the shop's 10 s lock wait.
    assert.equal(p.model, 'concurrency');
    assert.ok((3 * p.load - 1) * p.work_ms < 10_000, `${3 * p.load} in flight × ${p.work_ms} ms`);
  }
});

test('a step bounded by the lock lasts its hand-overs', () => {
  assert.equal(stepSeconds({ stock: 10, buyers: 100, model: 'concurrency', load: 50, work_ms: 1000, opens_in_s: 0 }), 10);
  assert.equal(stepSeconds({ stock: 10, buyers: 100, model: 'rate', load: 2, work_ms: 0, opens_in_s: 5 }), 55);
});

test('every pace has its label in both languages', () => {
  for (const [en, zh] of Object.values(PACE_LABELS)) assert.ok(en && zh && en !== zh);
});
