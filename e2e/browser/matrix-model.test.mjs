// The Matrix section's model: words, the summary, the run's line, the
// filters, the grid's bands and a cell's detail, from internal/matrix's
// fixture report (fixtures/matrix-report.json: every row against every
// fault, 6 findings, the Sentinel rows skipped, the rows of no lock not run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  KINDS, MX_LABELS, L, cellLabel, cellView, detail, faultOptions, kindClass, moveIn, rowLabel, rowOptions, runLine, summary, summaryParts, table, word,
} from '../../web/static/assets/matrix-model.js';

process.env.TZ = 'UTC';
const REPORT = JSON.parse(readFileSync(new URL('./fixtures/matrix-report.json', import.meta.url), 'utf8'));
/** predictedOnly is REPORT as GET /api/matrix serves it before any run: every cell's kind "". */
const predictedOnly = () => ({ ...REPORT, started_at: '0001-01-01T00:00:00Z', cells: REPORT.cells.map((c) => ({ ...c, kind: '', finding: false, sale_id: 0 })) });
const cellOf = (row, fault) => REPORT.cells.find((c) => c.row === row && c.fault === fault);

test('every word has a label in both languages, each five narrow letters at most in English, and a class', () => {
  for (const k of KINDS) {
    const en = word(k, false), zh = word(k, true);
    assert.ok(en && en.length <= 5, `${k}: ${en}`);
    assert.match(zh, /[\u4e00-\u9fff]/, `${k} in Chinese: ${zh}`);
    assert.match(kindClass(k), /^k-[a-z_]+$/);
  }
  assert.equal(word('overlapped_safe', false), 'fence');
  assert.equal(word('broken', true), '损坏');
  assert.equal(word('n/a', false), 'n/a');
  assert.equal(kindClass('n/a'), 'k-na');
  assert.equal(word('new_kind', false), 'new_kind', 'a kind the page does not know is shown as it is');
  for (const [key, [en, zh]] of Object.entries(MX_LABELS)) assert.ok(en && zh, `${key} has both texts`);
});

test('a cell shows what was observed; one not run shows its prediction, marked', () => {
  const seen = cellView(cellOf('db-lock-table', 'cut_db'), false);
  assert.deepEqual(seen, { kind: 'stuck', word: 'stuck', cls: 'k-stuck', run: true, finding: true });
  const notRun = cellView(cellOf('none', 'pause_holder'), true);
  assert.equal(notRun.run, false);
  assert.equal(notRun.kind, cellOf('none', 'pause_holder').predicted.kind);
  assert.match(cellLabel(cellOf('none', 'pause_holder'), { n: 1, title_en: 'Pause the lock holder', name: 'pause_holder' }, false),
    /^none × 1 Pause the lock holder: broke \(oversold, .*\), predicted, not run$/);
});

test('the summary counts the observed cells and the findings', () => {
  const s = summary(REPORT);
  assert.equal(s.total, 49 * 21);
  assert.equal(s.findings, 6);
  assert.equal(s.observed + s.na + s.skip + s.notRun, s.total);
  assert.ok(s.skip > 0 && s.notRun > 0 && s.na > 0);
  const text = summaryParts(REPORT, false).map((p) => p.text).join(', ');
  assert.match(text, new RegExp(`^${s.observed} observed, 6 differ from the prediction, ${s.na} n/a, ${s.skip} skipped \\(backend down\\), ${s.notRun} predicted only$`));
  assert.match(summaryParts(REPORT, true).map((p) => p.text).join('，'), /^已观测 \d+ 格，其中 6 格与预测不符/);
  assert.equal(summaryParts(REPORT, false).find((p) => p.finding).text, '6 differ from the prediction');
  assert.deepEqual(summaryParts(predictedOnly(), false), [{ text: `${49 * 21} cells predicted, none observed yet`, strong: true }]);
});

test('the run line says when and where, quick or full, complete or interrupted; a predicted report says how to run it', () => {
  const r = runLine(REPORT, true, false);
  assert.equal(r.text, 'Observed 2026-05-02, 14:03–14:41 (38 min) on');
  assert.equal(r.machine, 'lab-box (8 cores)');
  assert.equal(r.commit, '6508bc7');
  assert.equal(r.quick, 'full: every configuration');
  assert.equal(r.complete, 'interrupted: the cells that ran are kept');
  assert.equal(runLine({ ...REPORT, quick: true, complete: true }, true, true).complete, '全部完成');
  const p = runLine(predictedOnly(), false, false);
  assert.equal(p.predicted, true);
  assert.equal(p.command, 'loadtest matrix --targets http://127.0.0.1:8080,http://127.0.0.1:8081');
  assert.match(runLine({ ...predictedOnly(), targets: [] }, false, true).text, /^仅有预测/);
});

test('the grid: bands in the report\'s order with their titles, every row and column; variants named by their switches', () => {
  const t = table(REPORT, {}, false);
  assert.equal(t.columns.length, 21);
  assert.deepEqual(t.columns.slice(0, 2).map((c) => [c.n, c.name]), [[1, 'pause_holder'], [2, 'nested_lock']]);
  assert.deepEqual(t.bands.map((b) => b.group), ['database', 'redis', 'zookeeper', 'beyond', 'nolock']);
  assert.equal(t.bands[0].title, 'Database (the articles\' first lock)');
  assert.equal(table(REPORT, {}, true).bands[3].title, '文章之外：etcd、一致性哈希');
  assert.equal(t.bands.reduce((n, b) => n + b.rows.length, 0), 49);
  for (const b of t.bands) for (const r of b.rows) assert.equal(r.cells.length, 21);
  const names = t.bands.flatMap((b) => b.rows.map((r) => r.ref.name));
  const ref = REPORT.rows.find((r) => r.name === 'redis-lua-stock/async');
  assert.deepEqual(rowLabel(ref, names), { text: '/async', variant: true });
  assert.deepEqual(rowLabel(ref, ['redis-lua-stock/async']), { text: 'redis-lua-stock/async', variant: false }, 'alone, a row keeps its name');
  assert.deepEqual(rowLabel(REPORT.rows.find((r) => r.name === 'redis'), names), { text: 'redis', variant: false });
});

test('the filters: a strategy, a row, a fault, findings only', () => {
  const redis = table(REPORT, { row: 's:redis' });
  assert.deepEqual(redis.bands.flatMap((b) => b.rows.map((r) => r.ref.name)), ['redis', 'redis+fencing', 'redis+no-watchdog', 'redis+fencing+combine']);
  const one = table(REPORT, { row: 'r:redis+fencing', fault: 'stop_process' });
  assert.equal(one.columns.length, 1);
  assert.equal(one.columns[0].n, 12);
  assert.equal(one.bands[0].rows[0].cells[0].kind, 'overlapped_safe');
  const findings = table(REPORT, { findings: true });
  const cells = findings.bands.flatMap((b) => b.rows.flatMap((r) => r.cells));
  assert.equal(cells.filter((c) => c.finding).length, 6);
  for (const b of findings.bands) for (const r of b.rows) assert.ok(r.cells.some((c) => c.finding), `${r.ref.name} has a finding`);
  assert.deepEqual(table(REPORT, { findings: true, fault: 'nested_lock' }).bands, [], 'no finding in that column');
  const ro = rowOptions(REPORT, false);
  assert.equal(ro.all.text, 'all 49 rows');
  const redisBand = ro.bands.find((b) => b.title === 'Redis');
  assert.deepEqual(redisBand.options.slice(0, 3), [
    { value: 's:redis', text: 'redis: its 4 rows' }, { value: 'r:redis', text: 'redis', row: true }, { value: 'r:redis+fencing', text: 'redis+fencing', row: true }]);
  const fo = faultOptions(REPORT, true);
  assert.equal(fo.length, 22);
  assert.equal(fo[0].text, '全部 21 种故障');
  assert.equal(fo[1].text, '1 · 暂停持锁者');
});

test('a cell\'s detail: both verdicts with their reasons, figures, unavailable seconds, history in words, seed, replay, sale', () => {
  const d = detail(REPORT, 'zookeeper', 'kill_zk_server', false);
  assert.equal(d.n, 19);
  assert.equal(d.title, 'Kill a ZooKeeper server (ensemble of three)');
  assert.equal(d.finding, true);
  assert.equal(d.observed.word, 'pause');
  assert.equal(d.predicted.word, 'holds');
  assert.ok(d.predicted.why.length > 10);
  const c = cellOf('zookeeper', 'kill_zk_server');
  assert.equal(d.unavailable, `${(c.unavailable_ms / 1000).toFixed(1)} s`);
  assert.equal(d.history, 'linearizable: every answer fits one order of events');
  assert.equal(d.seed, c.seed);
  assert.match(d.replay, /^loadtest matrix --targets http:\/\/127\.0\.0\.1:8080,http:\/\/127\.0\.0\.1:8081 --only zookeeper\/kill_zk_server --seed \d+$/);
  assert.equal(d.saleId, c.sale_id);
  assert.deepEqual(d.figures.map((f) => f.key), ['stock', 'sold', 'left', 'oversold', 'lost_updates', 'duplicates', 'violations', 'fenced_writes']);
  const broke = detail(REPORT, 'redis', 'pause_holder', true);
  assert.equal(broke.observed.word, '损坏');
  assert.equal(broke.history, '不可线性化：这些应答不符合任何单一的事件顺序');
  assert.equal(broke.historyBad, true);
  assert.deepEqual(broke.figures.filter((f) => f.bad).map((f) => f.key), ['oversold', 'lost_updates']);
  assert.match(broke.observed.why, /[\u4e00-\u9fff]/, 'the reason in Chinese');
  assert.equal(detail(REPORT, 'redis', 'kill_process', false).history, 'unknown: the check ran out of time');
  const notRun = detail(REPORT, 'none', 'pause_holder', false);
  assert.equal(notRun.observed, null);
  assert.equal(notRun.notRun, 'not run: predicted only');
  assert.deepEqual(notRun.figures, []);
  assert.equal(notRun.history, '');
  const skip = detail(REPORT, 'redis-sentinel', 'pause_holder', false);
  assert.equal(skip.observed.word, 'skip');
  assert.match(skip.observed.why, /Sentinel/);
  assert.equal(detail(REPORT, 'nope', 'pause_holder', false), null);
});

test('the arrow keys move in the grid and stop at its edges', () => {
  assert.deepEqual(moveIn('ArrowRight', 0, 0, 49, 21), [0, 1]);
  assert.deepEqual(moveIn('ArrowLeft', 0, 0, 49, 21), [0, 0]);
  assert.deepEqual(moveIn('ArrowDown', 48, 3, 49, 21), [48, 3]);
  assert.deepEqual(moveIn('End', 5, 3, 49, 21), [5, 20]);
  assert.deepEqual(moveIn('End', 5, 3, 49, 21, true), [48, 20]);
  assert.deepEqual(moveIn('PageDown', 45, 3, 49, 21), [48, 3]);
  assert.equal(moveIn('a', 0, 0, 49, 21), null);
  assert.equal(L('nope', true), 'nope');
});
