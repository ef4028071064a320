// The Faults page's model (web/static/assets/faults-model.js) without a
// browser: the labels and the inputs come from the fault table as GET
// /api/faults serves it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { faultLabels, paramControl } from '../../web/static/assets/faults-model.js';

const ms = { name: 'ms', type: 'duration_ms', required: true, min: 1, max: 30000, suggested: 3000, label: { en: 'Duration (ms)', zh: '时长（毫秒）' } };
const node = { name: 'node', type: 'choice', required: true, choices: ['redis', 'redlock-1'], label: { en: 'Redis node', zh: 'Redis 节点' } };
const sale = { name: 'sale_id', type: 'id', required: true, min: 1, label: { en: 'Sale id', zh: '秒杀活动 ID' } };
const kinds = [
  { kind: 'pause_holder', title: { en: 'Pause the lock holder', zh: '暂停持锁者' }, parameters: [ms] },
  { kind: 'restart_redis', title: { en: 'Restart a Redis node', zh: '重启 Redis 节点' }, parameters: [node] },
  { kind: 'slow_db', title: { en: 'Slow database row lock', zh: '长时间占用数据库行锁' }, parameters: [ms, sale] },
];

test('the labels are the table\'s titles and parameter labels, keyed as i18n.js keys them', () => {
  assert.deepEqual(faultLabels(kinds), {
    fpause_holder: ['Pause the lock holder', '暂停持锁者'],
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
