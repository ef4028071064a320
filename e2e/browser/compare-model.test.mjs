// The comparison's "linearizable?" cell (web/static/assets/compare-model.js)
// without a browser, on history members shaped as GET /api/sales/{id}
// answers them (internal/history Result).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  differingSettings, faultsText, historyCell, isFinal, lessonFor, limitCell, newestRows, parsePins, pinnedRows, settingValue, togglePin,
} from '../../web/static/assets/compare-model.js';
import { verdictOf } from '../../web/static/assets/dom.js';

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

test('a sale that is not linearizable reads no (否), and its hover names the witness in the page\'s language', () => {
  const en = historyCell(notLinearizable, false);
  assert.equal(en.text, 'no');
  assert.equal(en.cls, 'bad');
  assert.deepEqual(en.title.split('\n'), [notLinearizable.message.en, 'witness: order 55 (replica-1, ok); request 4 (replica-2, unknown)',
    '12 order requests checked with porcupine']);
  const c = historyCell(notLinearizable, true);
  assert.equal(c.text, '否');
  const lines = c.title.split('\n');
  assert.equal(lines[0], notLinearizable.message.zh);
  assert.equal(lines[1], '证据：订单 55（replica-1，ok）；请求 4（replica-2，unknown）');
  assert.equal(lines[2], 'porcupine 检查了 12 个下单请求');
  assert.equal(historyCell({ verdict: 'linearizable', operations: 1, message: {} }, true).text, '是');
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

// ---- pinned comparisons and the three verdicts -------------------------------

const run = (id, config, steps) => ({ id, status: 'done', config, targets: ['a', 'b'], steps });
const step = (n, strategy, sale, extra = {}) => ({ step: n, strategy, status: 'done', sale, client: {}, ...extra });
const base = { fencing: false, watchdog: true, work_ms: 20, ttl_ms: 300, sold_out_cache: true, stock: 10, buyers: 40, concurrency: 8, per_user_limit: 1 };

test('pins parse from the URL or storage, each once, and toggle', () => {
  assert.deepEqual(parsePins('12.1,x,14.2,12.1,3'), ['12.1', '14.2']);
  assert.deepEqual(parsePins(''), []);
  assert.deepEqual(togglePin(['1.1'], '2.1'), ['1.1', '2.1']);
  assert.deepEqual(togglePin(['1.1', '2.1'], '1.1'), ['2.1']);
});

test('pinned rows keep the pins order; without pins, the newest step of each strategy', () => {
  const runs = [
    run(3, { ...base, fencing: true }, [step(1, 'redis', { id: 30 })]),
    run(2, base, [step(1, 'redis', { id: 20 }), step(2, 'mutex', { id: 21 })]),
  ];
  assert.deepEqual(pinnedRows(runs, ['2.1', '3.1', '9.9']).map((r) => r.step.sale.id), [20, 30]);
  assert.deepEqual(newestRows(runs, ['mutex', 'redis']).map((r) => r.step.sale.id), [21, 30]);
  // Only fencing differs between run 3 and run 2.
  assert.deepEqual(differingSettings(pinnedRows(runs, ['2.1', '3.1'])), ['cmpFencing']);
  assert.equal(settingValue(pinnedRows(runs, ['3.1'])[0], 'cmpFencing'), 'on');
  assert.deepEqual(differingSettings(pinnedRows(runs, ['2.1'])), []);
});

test('the physical-limit ratio is n/a where sections overlapped or no lock was taken', () => {
  assert.equal(limitCell({ limit: null, sale: {} }).key, 'cmpNoLock');
  assert.equal(limitCell({ limit: { ratio: 2.9 }, sale: { violations: 4 } }).key, 'cmpOverlapNA');
  assert.deepEqual(limitCell({ limit: { ratio: 0.93 }, sale: { violations: 0 } }), { ratio: 0.93, titleKey: 'cmpRatioTip', units: null });
  // A combining step's ratio stays per hold; the cell carries the units each hold sold.
  assert.equal(limitCell({ limit: { ratio: 0.9 }, sale: { violations: 0, lock_cycle: { units_per_hold: 12.5 } } }).units, 12.5);
});

test('an unsafe strategy that held points to the lesson that breaks it', () => {
  const lessons = [{ name: 'mutex-across-replicas', strategies: ['mutex', 'db-pessimistic'] }, { name: 'del-without-owner', strategies: ['redis-no-owner', 'redis'] }];
  assert.equal(lessonFor('redis-no-owner', false, 'holds', lessons), 'del-without-owner');
  assert.equal(lessonFor('redis-no-owner', false, 'broken', lessons), '');
  assert.equal(lessonFor('redis', true, 'holds', lessons), '');
  assert.equal(lessonFor('none', false, 'holds', lessons), '');
});

test('faults are listed by kind with a count', () => {
  assert.equal(faultsText([{ kind: 'pause_holder' }, { kind: 'restart_redis' }, { kind: 'pause_holder' }]), 'pause_holder ×2, restart_redis');
  assert.equal(faultsText([]), '');
});

test('verdictOf uses the server verdict, in both languages, and falls back on the figures', () => {
  const fenced = { violations: 2, fenced_writes: 1, oversold: 0, lost_updates: 0,
    verdict: { kind: 'overlapped_safe', reason_en: '2 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0', reason_zh: '2 处临界区重叠；防护令牌拒绝了 1 次过期写入；超卖 0，丢失更新 0' } };
  const v = verdictOf(fenced);
  assert.equal(v.kind, 'overlapped_safe');
  assert.equal(v.word, 'OVERLAPPED, DATA SAFE: 2 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0');
  assert.ok(v.warn && !v.bad);
  assert.match(verdictOf(fenced, true).word, /重叠但数据安全.*防护令牌拒绝了 1 次过期写入/);
  assert.equal(verdictOf({ verdict: { kind: 'broken', reason_en: 'oversold 3', reason_zh: '超卖 3' } }).bad, true);
  assert.equal(verdictOf({ verdict: { kind: 'holds', reason_en: 'x', reason_zh: 'y' } }).word, 'holds');
  // An older sale view without a verdict: the figures decide.
  assert.equal(verdictOf({ violations: 1, fenced_writes: 1, oversold: 0, lost_updates: 0 }).kind, 'overlapped_safe');
  assert.equal(verdictOf({ oversold: 1 }).kind, 'broken');
});
