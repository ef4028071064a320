// The Interview section's model (web/static/assets/interview-model.js) on
// a page GET /api/interview answered on a demo (fixtures/interview-page.json):
// the figures formatted by their unit, each measured one with the run it
// came from, each unmeasured one with the sentence that says so, in both
// languages. Pure: no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './demo.mjs';
import { IV_LABELS, figureView, formatValue, pageView, provenance } from '../../web/static/assets/interview-model.js';

const PAGE = JSON.parse(await readFile(path.join(ROOT, 'e2e/browser/fixtures/interview-page.json'), 'utf8'));
const CJK = /[\u4e00-\u9fff]/;

test('every label has its English and its Chinese', () => {
  for (const [key, [en, zh]] of Object.entries(IV_LABELS)) assert.ok(en && CJK.test(zh), key);
});

test('a figure is formatted by what it measures', () => {
  assert.equal(formatValue({ value: 1671.08, source: { field: 'orders_per_s' } }), '1,671');
  assert.equal(formatValue({ value: 2.951, source: { field: 'unavailable_s' } }), '3.0');
  assert.equal(formatValue({ value: 0.13, source: { field: 'sell_out_s' } }), '0.13');
  assert.equal(formatValue({ value: 7.69, source: { field: 'units_per_hold' } }), '7.7');
  assert.equal(formatValue({ value: 40, source: { field: 'lost_updates' } }), '40');
});

test('a measured figure names its run; an unmeasured one says so', () => {
  const from = { kind: 'lesson_run', id: 12, name: 'split-hot-row', case: { en: 'db-conditional, 1 stock shards', zh: 'db-conditional，库存分 1 段' }, at: '2026-11-29T05:35:10Z', link: '#/lessons', sale_link: '#/timeline?sale=5' };
  assert.equal(provenance(from, false), 'lesson run #12 · split-hot-row · db-conditional, 1 stock shards · 2026-11-29 05:35 UTC');
  assert.equal(provenance(from, true), '实验课运行 #12 · split-hot-row · db-conditional，库存分 1 段 · 2026-11-29 05:35 UTC');
  const m = figureView({ measured: true, value: 3, unit: { en: 's', zh: '秒' }, label: { en: 'stopped', zh: '停售' }, source: { field: 'unavailable_s' }, from: { ...from, kind: 'matrix_run', name: 'redis × freeze_redis' } }, false);
  assert.deepEqual([m.value, m.unit, m.from, m.link, m.saleLink], ['3.0', 's', 'matrix run #12 · redis × freeze_redis · 2026-11-29 05:35 UTC', '#/lessons', '#/timeline?sale=5']);
  const d = figureView({ measured: true, value: 500, unit: { en: 'orders/s', zh: '单/秒' }, label: { en: 'one row', zh: '一行' }, source: { field: 'orders_per_s' }, from, detail: { en: '200 units from the first sold to the last in 0.400 s', zh: '从第一件到最后一件卖出 200 件，用时 0.400 秒' } }, true);
  assert.deepEqual([d.value, d.detail], ['500', '从第一件到最后一件卖出 200 件，用时 0.400 秒']);
  const w = figureView({ measured: true, value: 0, word: { en: 'holds', zh: '守住' }, unit: { en: 's', zh: '秒' }, label: { en: 'stopped', zh: '停售' }, source: { field: 'unavailable_s' }, from, detail: { en: 'no sections overlapped', zh: '临界区没有重叠' } }, false);
  assert.deepEqual([w.value, w.unit, w.word, w.detail], ['holds', '', true, 'no sections overlapped'], 'a cell the matrix timed no stop of shows its word, never 0 s');
  const u = figureView({ measured: false, value: 0, unit: { en: 's', zh: '秒' }, label: { en: 'x', zh: '某' }, source: { field: 'unavailable_s' }, missing: { en: 'Never measured on this machine: run it.', zh: '本机从未测过：请运行。' } }, true);
  assert.deepEqual([u.value, u.from, u.missing], ['—', '', '本机从未测过：请运行。']);
});

test('the page: every question numbered, every figure either from a run or said unmeasured, in both languages', () => {
  for (const zh of [false, true]) {
    const v = pageView(PAGE, zh);
    assert.equal(v.questions.length, PAGE.questions.length);
    assert.ok(v.questions.length >= 15 && v.questions.length <= 20);
    assert.match(v.count, zh ? /本机已测 \d+ 个数字/ : /\d+ figures measured on this machine/);
    v.questions.forEach((q, i) => {
      assert.equal(q.n, i + 1);
      for (const t of [q.ask, q.answer, q.tradeOff, q.followUp]) assert.ok(t && (!zh || CJK.test(t)), `${q.id}: ${t}`);
      for (const f of q.figures) {
        if (f.measured) assert.match(f.from, zh ? /^(实验课运行|故障矩阵运行) #\d+ · / : /^(lesson run|matrix run) #\d+ · /, `${q.id}: ${f.label}`);
        else assert.ok(f.missing && f.value === '—' && (!zh || CJK.test(f.missing)), `${q.id}: ${f.label}`);
      }
    });
  }
  const never = { questions: [{ id: 'x', figures: [{ measured: false, rerun: true, missing: { en: 'Never measured', zh: '本机从未测过' } }] }], measured: 0, unmeasured: 1 };
  assert.match(pageView(never, false).how, /^loadtest interview/);
  const nothingToQuote = { questions: [{ id: 'x', figures: [{ measured: false, rerun: false, missing: { en: '0 units given back', zh: '退回 0 件' } }] }], measured: 0, unmeasured: 1 };
  assert.equal(pageView(nothingToQuote, false).how, '', 'no command offered for a figure no new run would measure');
  const figs = PAGE.questions.flatMap((q) => q.figures);
  assert.ok(figs.some((f) => f.measured) && figs.some((f) => !f.measured), 'the fixture has both kinds');
});
