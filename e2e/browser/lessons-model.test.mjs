// The Lessons view's pure logic (web/static/assets/lessons-model.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bandRun, caseNames, decisiveLines, lessonText, nextCase, observedText, offersClassPace, runningLesson } from '../../web/static/assets/lessons-model.js';

const sale = (id, more) => ({ id, strategy: 'redis', initial_stock: 10, stock: 10, sold: 0, oversold: 0, lost_updates: 0,
  violations: 0, fenced_writes: 0, fencing: false, watchdog: true, work_ms: 0, ttl_ms: 500, ...more });

test('cases are named by strategy and what differs, as the result table names them', () => {
  const names = caseNames([sale(1), sale(2, { fencing: true }), sale(3)]);
  assert.deepEqual(names.map((n) => n.en), ['redis, fencing off', 'redis, fencing on', 'redis, fencing off (2)']);
  assert.deepEqual(names.map((n) => n.zh), ['redis，防护令牌 关', 'redis，防护令牌 开', 'redis，防护令牌 关（2）']);
  assert.deepEqual(caseNames([sale(1, { strategy: 'mutex' }), sale(2, { strategy: 'db-pessimistic' })]).map((n) => n.en), ['mutex', 'db-pessimistic']);
  // What a sale's name adds to the lesson's common name, in whole words.
  assert.deepEqual(caseNames([sale(1, { name: 'scenario p' }), sale(2, { name: 'scenario p, buyer-2 reads first' })]).map((n) => n.en),
    ['redis', 'redis, buyer-2 reads first']);
  assert.deepEqual(caseNames([sale(1, { name: 'herd cache on' }), sale(2, { name: 'herd cache off' })]).map((n) => n.en), ['redis, on', 'redis, off']);
});

test('the band names the running lesson and its newest case', () => {
  const lesson = { name: 'pause-past-ttl', last: { id: 4, status: 'running', sales: [1, 2] } };
  assert.equal(runningLesson([{ name: 'x', last: { status: 'done' } }, lesson]), lesson);
  assert.equal(bandRun(lesson, [], false), null);
  const b = bandRun(lesson, [sale(1), sale(2, { fencing: true, sold: 3, stock: 7 })], false);
  assert.equal(b.title, 'pause-past-ttl · case 2: redis, fencing on');
  assert.equal(b.heading, 'liveLesson');
  assert.equal(b.run.status, 'running');
  assert.deepEqual(b.run.steps.map((s) => s.status), ['done', 'running']);
  assert.equal(b.run.steps[1].sale.sold, 3);
  const done = bandRun({ ...lesson, last: { ...lesson.last, status: 'done' } }, [sale(1), sale(2, { fencing: true })], true);
  assert.equal(done.title, 'pause-past-ttl · 案例 2/2：redis，防护令牌 开');
  assert.equal(done.heading, 'liveLessonLast');
});

test('the decisive moment is the first overlap, else the first fenced write', () => {
  const narration = [
    { at: 5, en: 'shop-1 gets token 3', zh: 'shop-1 获得令牌 3', section: 11 },
    { at: 900, en: 'shop-2 gets token 4 while shop-1 still holds token 3: the first overlap (1 in all)', zh: '…', section: 12 },
    { at: 2100, en: 'shop-1 writes with token 3: refused (fenced)', zh: '…', section: 11 },
  ];
  assert.deepEqual(decisiveLines({ from: 0, narration, overlaps: [{ a: 11, b: 12 }] }).map((l) => l.since), ['+0.01 s', '+0.90 s']);
  assert.deepEqual(decisiveLines({ narration, overlaps: [] }).map((l) => l.at), [2100]);
  assert.deepEqual(decisiveLines({ narration: [], overlaps: [] }), []);
  assert.deepEqual(decisiveLines(null), []);
});

test('Chinese texts where the lesson has them', () => {
  const l = { title: 'T', title_zh: '标题', fix: 'F', seed: 'seed 000: 「必须要加事务」', seed_zh: '参考文章 000：「必须要加事务」' };
  assert.equal(lessonText(l, 'title', true), '标题');
  assert.equal(lessonText(l, 'title', false), 'T');
  assert.equal(lessonText(l, 'fix', true), 'F');
  assert.equal(lessonText(l, 'seed', true), '参考文章 000：「必须要加事务」');
  assert.equal(lessonText(l, 'seed', false), 'seed 000: 「必须要加事务」');
  assert.equal(lessonText({ seed: 'S' }, 'seed', true), 'S', 'an older shop without seed_zh keeps the English');
});

test('teaching pace is offered only where the lesson has one (class_pace true)', () => {
  assert.equal(offersClassPace({ name: 'mutex-across-replicas', class_pace: true }), true);
  assert.equal(offersClassPace({ name: 'pause-past-ttl', class_pace: false }), false);
  assert.equal(offersClassPace({ name: 'from-an-older-shop' }), false);
  assert.equal(offersClassPace(undefined), false);
});

test('a running lesson\'s cases are named as the agent\'s result table will name them (loadtest/lessons testdata)', async () => {
  const { readFile } = await import('node:fs/promises');
  const groups = JSON.parse(await readFile(new URL('../../loadtest/lessons/testdata/case-names.json', import.meta.url), 'utf8'));
  assert.ok(groups.length >= 5);
  for (const g of groups) assert.deepEqual(caseNames(g.views), g.names, `views ${g.views.map((v) => v.name).join(' | ')}`);
});

test('a run\'s result line in Chinese is said from its verdict and table, the agent\'s English kept for a run without one', () => {
  const run = { verdict: 'PASS', observed: 'mutex: sold 20 stock 3 ... | db-pessimistic: ...', cases: [
    { name: 'mutex', name_zh: 'mutex', verdict: 'broken', reason_zh: '超卖 3 件' },
    { name: 'db-pessimistic', name_zh: 'db-pessimistic', verdict: 'holds', reason_zh: '临界区没有重叠；超卖 0，丢失更新 0' }] };
  assert.equal(observedText(run, false), run.observed);
  assert.equal(observedText(run, true), '与预言一致。2 个案例：mutex：数据已损坏（超卖 3 件）；db-pessimistic：守住。各项数字见下表。');
  assert.match(observedText({ ...run, verdict: 'FAIL' }, true), /^与预言不符。/);
  const skip = { verdict: 'SKIP', observed: 'SKIPPED: etcd is not running; to run it: make services-up', cases: [] };
  assert.equal(observedText(skip, true), '跳过：SKIPPED: etcd is not running; to run it: make services-up');
  assert.equal(observedText({ status: 'running' }, true), '');
  assert.equal(observedText(null, true), '');
});

test('at the class pace the pause says what comes next, counting down, until the next case starts', () => {
  const at = Date.parse('2026-11-26T10:00:08Z');
  const next = { en: 'the same buyers on db-pessimistic, which locks the row: watch them wait in turn',
    zh: '同样的买家改用 db-pessimistic，它会锁住这一行：看他们排队等锁', at: '2026-11-26T10:00:08Z' };
  const run = { id: 4, status: 'running', sales: [1], next };
  const n = nextCase(run, at - 6000);
  assert.equal(n.secs, 6);
  assert.equal(n.line.en, 'Next (in 6 s): the same buyers on db-pessimistic, which locks the row: watch them wait in turn');
  assert.equal(n.line.zh, '接下来（6 秒后）：同样的买家改用 db-pessimistic，它会锁住这一行：看他们排队等锁');
  assert.deepEqual([n.band.en(2), n.band.zh(2)], ['· case 2 in 6 s', '· 6 秒后开始案例 2']);
  assert.equal(nextCase(run, at - 5200).secs, 6, 'whole seconds, rounded up: never "in 0 s" while it waits');
  assert.equal(nextCase(run, at - 5000).secs, 5);
  assert.equal(nextCase(run, at - 1).secs, 1);
  assert.equal(nextCase(run, at), null, 'gone once the next case starts');
  assert.equal(nextCase(run, at + 1000), null);
  assert.equal(nextCase({ ...run, status: 'done' }, at - 6000), null, 'gone once the run ends');
  assert.equal(nextCase({ ...run, next: null }, at - 6000), null);
  assert.equal(nextCase({ ...run, next: { ...next, at: 'soon' } }, at - 6000), null);
  assert.equal(nextCase(null, at), null);
  assert.equal(nextCase({ ...run, next: { ...next, zh: '' } }, at - 6000).line.zh, `接下来（6 秒后）：${next.en}`, 'the English where no Chinese came');

  // The band's title adds how soon after the lesson's name (the heading is cut at its end), while it waits, and nothing after.
  const lesson = { name: 'mutex-across-replicas', last: run };
  assert.equal(bandRun(lesson, [sale(1, { strategy: 'mutex' })], false, at - 6000).title, 'mutex-across-replicas · case 2 in 6 s · case 1: mutex');
  assert.equal(bandRun(lesson, [sale(1, { strategy: 'mutex' })], true, at - 6000).title, 'mutex-across-replicas · 6 秒后开始案例 2 · 案例 1：mutex');
  assert.equal(bandRun(lesson, [sale(1, { strategy: 'mutex' })], false, at + 1).title, 'mutex-across-replicas · case 1: mutex');
  const done = { ...lesson, last: { ...run, status: 'done' } };
  assert.equal(bandRun(done, [sale(1, { strategy: 'mutex' })], false, at - 6000).title, 'mutex-across-replicas · case 1/1: mutex');
});
