// The Faults page's model (web/static/assets/faults-model.js) without a
// browser: the labels and the inputs come from the fault table as GET
// /api/faults serves it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { armForm, armedFault, faultLabels, fireNow, needLabels, paramControl } from '../../web/static/assets/faults-model.js';

const ms = { name: 'ms', type: 'duration_ms', required: true, min: 1, max: 30000, suggested: 3000, label: { en: 'Duration (ms)', zh: '时长（毫秒）' } };
const node = { name: 'node', type: 'choice', required: true, choices: ['redis', 'redlock-1'], label: { en: 'Redis node', zh: 'Redis 节点' } };
const sale = { name: 'sale_id', type: 'id', required: true, min: 1, label: { en: 'Sale id', zh: '秒杀活动 ID' } };
const kinds = [
  { kind: 'pause_holder', title: { en: 'Pause the lock holder', zh: '暂停持锁者' }, parameters: [ms],
    descriptions: { en: 'the holder stalls ms after its lock check', zh: '持锁者停顿 ms 毫秒' } },
  { kind: 'restart_redis', title: { en: 'Restart a Redis node', zh: '重启 Redis 节点' }, parameters: [node] },
  { kind: 'slow_db', title: { en: 'Slow database row lock', zh: '长时间占用数据库行锁' }, parameters: [ms, sale] },
];

test('the labels are the table\'s titles, descriptions and parameter labels, keyed as i18n.js keys them', () => {
  assert.deepEqual(faultLabels(kinds), {
    fpause_holder: ['Pause the lock holder', '暂停持锁者'],
    // The table's "ms" placeholder is the value the card's input starts at.
    dpause_holder: ['the holder stalls 3000 ms after its lock check', '持锁者停顿 3000 毫秒'],
    frestart_redis: ['Restart a Redis node', '重启 Redis 节点'],
    fslow_db: ['Slow database row lock', '长时间占用数据库行锁'],
    pms: ['Duration (ms)', '时长（毫秒）'],
    pnode: ['Redis node', 'Redis 节点'],
    psale_id: ['Sale id', '秒杀活动 ID'],
  });
  assert.deepEqual(faultLabels(undefined), {});
});

test('a duration starts at the table\'s suggestion within its bounds; a sale id is empty; a choice is a select', () => {
  assert.deepEqual(paramControl(ms), { tag: 'input', type: 'number', min: '1', max: '30000', value: '3000' });
  assert.deepEqual(paramControl(sale), { tag: 'input', type: 'number', min: '1' });
  assert.deepEqual(paramControl(node), { tag: 'select', options: ['redis', 'redlock-1'] });
  assert.deepEqual(paramControl({ name: 'node', type: 'choice' }), { tag: 'select', options: [] });
});

const pause = {
  kind: 'pause_holder', parameters: [ms],
  needs: { strategies: ['redis', 'redlock'], settings: [{ en: 'watchdog off', zh: '关闭看门狗' }, { en: 'ms longer than the TTL', zh: 'ms 大于 TTL' }] },
  arm: { strategies: ['redis', 'redlock'], watchdog: false, work_ms: 200, ttl_ms: 1000, fencing: [false, true], params: { ms: 3000 } },
};
const slow = { kind: 'slow_db', parameters: [ms, sale], needs: { strategies: [], settings: [{ en: 'buyers', zh: '买家' }] },
  arm: { strategies: ['db-pessimistic', 'redis'], fencing: [], params: { ms: 3000 } } };

test('a kind\'s needs are labels in both languages: its strategies (any lock when none) and each setting', () => {
  assert.deepEqual(needLabels(pause), {
    needpause_holders: ['strategies: redis, redlock', '策略：redis、redlock'],
    needpause_holder0: ['watchdog off', '关闭看门狗'],
    needpause_holder1: ['ms longer than the TTL', 'ms 大于 TTL'],
  });
  assert.deepEqual(Object.keys(needLabels(slow)), ['needslow_dbs', 'needslow_db0']);
  assert.match(needLabels(slow).needslow_dbs[0], /any/);
});

test('arming fills only what the arm sets, with the first strategy the form offers and the first fencing setting', () => {
  assert.deepEqual(armForm(pause, ['mutex', 'redis']), { strategy: 'redis', watchdog: false, work_ms: 200, ttl_ms: 1000, fencing: false });
  assert.equal(armForm(pause, ['redlock']).strategy, 'redlock');
  assert.deepEqual(armForm(slow, ['redis']), { strategy: 'redis' });
  assert.deepEqual(armForm({ kind: 'x' }), {});
});

test('the armed fault is posted with its arguments, the run\'s sale where it takes one, and the replica', () => {
  assert.deepEqual(armedFault(pause, 42, 'r2'), { kind: 'pause_holder', ms: 3000, replica: 'r2' });
  assert.deepEqual(armedFault(slow, 42, ''), { kind: 'slow_db', ms: 3000, sale_id: 42 });
});

test('an armed fault fires once, in its own run, when the running step has sold', () => {
  const run = (id, sold, status = 'running') => ({ id, steps: [{ status: 'done', sale: { sold: 9 } }, { status, sale: { sold } }] });
  const armed = { runId: 5, fired: false };
  assert.equal(fireNow(armed, run(5, 0)), false, 'no buyer inside yet');
  assert.equal(fireNow(armed, run(4, 3)), false, 'another run');
  assert.equal(fireNow(armed, run(5, 3, 'done')), false, 'no step running');
  assert.equal(fireNow({ runId: 0, fired: false }, run(5, 3)), false, 'armed, no run started yet');
  assert.equal(fireNow(armed, run(5, 1)), true);
  assert.equal(fireNow({ ...armed, fired: true }, run(5, 3)), false, 'once');
  assert.equal(fireNow(null, run(5, 3)), false);
});
