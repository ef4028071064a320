// The Lessons section and the band during a lesson, in Debian's chromium
// against fixtures (fixture-server.mjs with canned GET /api/lessons), no
// demo: a finished lesson's card shows its result table beside the
// prediction, each case linked to its timeline, and the decisive moment's
// narration; a running lesson drives the band ("Lesson running NAME · case N:
// CASE" and that sale's figures); in Chinese the texts are the lesson's
// Chinese ones. At 1366x768 (a projector) and 390x844 (a phone), with
// screenshots in e2e/browser/test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-results');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

const row = (sale, name, nameZh, more) => ({ sale_id: sale, name, name_zh: nameZh, strategy: 'redis', initial_stock: 10, sold: 10,
  expected_stock: 0, stock_left: 0, oversold: 0, lost_updates: 0, duplicates: 0, violations: 0, fenced_writes: 0, verdict: 'holds', ...more });
const LESSONS = {
  agents: 2,
  lessons: [
    { name: 'pause-past-ttl', title: 'A process pause past the TTL oversells even with the watchdog', title_zh: '进程暂停超过 TTL：有看门狗也会出错',
      predict: 'the paused holder writes a stale stock; with fencing the stale write is rejected', predict_zh: '暂停的持有者写入过时的库存；开启防护令牌后过时的写入被拒绝',
      fix: 'fencing tokens', fix_zh: '防护令牌（fencing token）', seed: 'beyond the seeds', seed_zh: '超出参考文章的范围', strategies: ['redis'], min_replicas: 2, class_pace: false,
      last: { id: 9, lesson: 'pause-past-ttl', status: 'done', verdict: 'PASS', pace: 'normal', observed: 'fencing off: lost update; fencing on: fenced',
        output: '', agent: 'agent-1', created_at: '2026-11-26T10:00:00Z', started_at: '2026-11-26T10:00:01Z', finished_at: '2026-11-26T10:00:20Z',
        sales: [7, 30],
        cases: [row(7, 'redis, fencing off', 'redis，防护令牌 关', { sold: 7, expected_stock: 3, stock_left: 4, lost_updates: 1, violations: 5, verdict: 'broken' }),
          row(30, 'redis, fencing on', 'redis，防护令牌 开', { sold: 6, expected_stock: 4, stock_left: 4, violations: 1, fenced_writes: 1, verdict: 'overlapped_safe' })] } },
    { name: 'mutex-across-replicas', title: 'An in-process lock does not cross replicas', title_zh: '进程内的锁管不到其他实例',
      predict: 'overlapping critical sections and lost updates', predict_zh: '临界区重叠，出现丢失更新', fix: 'a shared lock', fix_zh: '所有实例共用的锁',
      strategies: ['mutex', 'db-pessimistic'], min_replicas: 2, class_pace: true,
      last: { id: 10, lesson: 'mutex-across-replicas', status: 'running', verdict: '', pace: 'class', observed: '', output: '', agent: 'agent-2',
        created_at: '2026-11-26T10:01:00Z', started_at: '2026-11-26T10:01:01Z', sales: [31, 32], cases: null } },
  ],
};
// The running lesson's next case (the class pace's pause), as its agent
// reports it: none until a test sets it.
let next = null;
const NEXT_EN = 'the same buyers on db-pessimistic, which locks the row: watch them wait in turn';
const NEXT_ZH = '同样的买家改用 db-pessimistic，它会锁住这一行：看他们排队等锁';
const withNext = (body) => ({ ...body, lessons: body.lessons.map((l) => (l.last?.status === 'running' ? { ...l, last: { ...l.last, next } } : l)) });
const SALE = (id, strategy, more) => ({ id, name: 'scenario', strategy, initial_stock: 10, stock: 10, sold: 0, oversold: 0, lost_updates: 0,
  duplicates: 0, violations: 0, fenced_writes: 0, fencing: false, watchdog: true, work_ms: 300, ttl_ms: 0, ...more });
const EXTRA = {
  '/api/lessons': () => withNext(LESSONS),
  '/api/sales/31': () => SALE(31, 'mutex', { sold: 12, stock: 2, oversold: 2, lost_updates: 4, violations: 9,
    verdict: { kind: 'broken', reason_en: 'oversold 2, lost 4', reason_zh: '超卖 2，丢失更新 4' } }),
  '/api/sales/32': () => SALE(32, 'db-pessimistic', { sold: 3, stock: 7, verdict: { kind: 'holds', reason_en: 'no overlap', reason_zh: '没有重叠' } }),
};

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, undefined, { extra: EXTRA });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-lessons-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/lessons`, { waitUntil: 'load' });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

const card = '#lesson-pause-past-ttl';

test('a finished lesson shows its result table beside the prediction, and the decisive moment', async () => {
  await page.waitForSelector(`${card} .l-table tbody tr`);
  const rows = await page.$$eval(`${card} .l-table tbody tr`, (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows, [
    ['redis, fencing off', 'BROKEN', '10', '7', '3', '4', '0', '1', '5', '0'],
    ['redis, fencing on', 'overlapped, data safe', '10', '6', '4', '4', '0', '0', '1', '1'],
  ]);
  const heads = await page.$$eval(`${card} .l-table thead th`, (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(heads, ['Case', 'Verdict', 'Initial stock', 'Sold', 'Expected stock', 'Stock left', 'Oversold', 'Lost updates', 'Overlaps', 'Fenced writes']);
  assert.equal(await page.getAttribute(`${card} .l-table tbody a`, 'href'), '#/timeline?sale=7');
  // Beside the prediction: the facts and the table side by side on a projector.
  const [facts, table] = await Promise.all([`${card} .l-facts`, `${card} .l-cases`].map((s) => page.locator(s).boundingBox()));
  assert.ok(table.x > facts.x + facts.width - 1 && Math.abs(table.y - facts.y) < 40, `table ${JSON.stringify(table)} beside facts ${JSON.stringify(facts)}`);
  // The first case that overlapped: its timeline's first overlap, in the narration's words.
  await page.waitForSelector(`${card} .l-moment:not([hidden]) li`);
  const moment = await page.textContent(`${card} .l-moment`);
  assert.match(moment, /Decisive moment/);
  assert.match(moment, /first overlap|gets token|enters/);
  assert.match(await page.textContent(`${card} .badge`), /PASS/);
  assert.equal(await page.textContent(`${card} .l-seed`), 'beyond the seeds');
  await page.locator(card).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'lessons-1366.png') });
});

test('a running lesson drives the band: its name, its newest case and that sale\'s figures', async () => {
  await page.waitForFunction(() => /mutex-across-replicas · case 2: db-pessimistic/.test(document.querySelector('#live-title').textContent));
  assert.equal(await page.textContent('#n-sold'), '3');
  assert.equal(await page.textContent('#n-stock'), '7');
  assert.match(await page.textContent('#live-h'), /^Lesson running/);
  // The running card's table is the sales read so far.
  const names = await page.$$eval('#lesson-mutex-across-replicas .l-table tbody th', (ths) => ths.map((t) => t.textContent));
  assert.deepEqual(names, ['mutex', 'db-pessimistic']);
  const band = await page.locator('.stage').boundingBox();
  assert.ok(band.height < PROJECTOR.height, 'the band fits');
});

test('in Chinese the lesson texts, case names, headers and verdicts are Chinese', async () => {
  await page.click('#lang');
  await page.waitForFunction((c) => document.querySelector(`${c} h3`).textContent === '进程暂停超过 TTL：有看门狗也会出错', card);
  assert.equal(await page.textContent(`${card} .l-predict`), '暂停的持有者写入过时的库存；开启防护令牌后过时的写入被拒绝');
  assert.equal(await page.textContent(`${card} .l-seed`), '超出参考文章的范围', 'the seed commentary in Chinese (seed_zh)');
  const first = await page.$$eval(`${card} .l-table tbody tr:first-child > *`, (cs) => cs.map((c) => c.textContent));
  assert.equal(first[0], 'redis，防护令牌 关');
  assert.equal(first[1], '数据已损坏');
  assert.equal(await page.textContent(`${card} .l-table thead th:first-child`), '案例');
  assert.match(await page.textContent(`${card} .badge`), /通过/);
  await page.waitForFunction(() => /mutex-across-replicas · 案例 2：db-pessimistic/.test(document.querySelector('#live-title').textContent));
  await page.locator(card).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'lessons-1366-zh.png') });
});

test('on a phone the table scrolls in its own box and the page does not', async () => {
  await page.setViewportSize(PHONE);
  await page.locator(`${card} .l-table`).scrollIntoViewIfNeeded();
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(pageWidth <= PHONE.width, `page ${pageWidth} px wide on a ${PHONE.width} px phone`);
  const box = await page.locator(`${card} .l-table-scroll`).boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width + 1, `table box ${JSON.stringify(box)}`);
  // The band still names the lesson's case (its title in full for a screen reader and a tooltip-free read).
  assert.match(await page.textContent('#live-title'), /mutex-across-replicas · 案例 2：db-pessimistic/);
  assert.ok(await page.isVisible('#live-title'), 'the band title shows on a phone');
  await page.screenshot({ path: path.join(SHOTS, 'lessons-390-zh.png') });
  await page.click('#lang');
  await page.waitForFunction((c) => document.querySelector(`${c} h3`).textContent.startsWith('A process pause'), card);
  assert.equal(await page.textContent(`${card} .l-seed`), 'beyond the seeds', 'the seed commentary back in English');
  await page.locator(`${card} .l-table`).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'lessons-390.png') });
  await page.setViewportSize(PROJECTOR);
});

// The teaching pace is offered only on a lesson that has one: pause-past-ttl
// (class_pace false) shows no such button, only a note; mutex-across-replicas does.
test('"Run at teaching pace" appears only on a lesson with class_pace', async () => {
  await page.waitForSelector('#lesson-mutex-across-replicas .l-run');
  assert.equal(await page.locator(`${card} .l-class`).count(), 0, 'pause-past-ttl has no class pace: no teaching-pace button');
  assert.equal(await page.locator(`${card} .l-pace-note`).count(), 1);
  assert.equal(await page.locator('#lesson-mutex-across-replicas .l-class').count(), 1);
  assert.equal(await page.locator('#lesson-mutex-across-replicas .l-pace-note').count(), 0);
});

// At the class pace, between two cases, the running lesson's card says
// what comes next in large type, counting down each poll, and the band's
// title how soon; in Chinese too; both go once the next case has started.
test('the pause between two cases says what comes next, until the next case starts', async () => {
  const running = '#lesson-mutex-across-replicas';
  next = { en: NEXT_EN, zh: NEXT_ZH, at: new Date(Date.now() + 12_000).toISOString() };
  const line = `${running} .l-next`;
  await page.waitForSelector(`${line}:not([hidden])`);
  const en = /^Next \(in (\d+) s\): the same buyers on db-pessimistic, which locks the row: watch them wait in turn$/;
  const first = await page.textContent(line);
  assert.match(first, en);
  await page.waitForFunction(({ sel, was }) => {
    const m = /^Next \(in (\d+) s\)/.exec(document.querySelector(sel).textContent);
    return m && Number(m[1]) < was;
  }, { sel: line, was: Number(en.exec(first)[1]) }, { timeout: 5000 });
  assert.match(await page.textContent('#live-title'), /^mutex-across-replicas · case 3 in \d+ s · case 2: db-pessimistic$/);
  // Large enough for a projector: at least the card's title, and in view with the card.
  const px = (sel) => page.$eval(sel, (e) => parseFloat(getComputedStyle(e).fontSize));
  const [size, title] = [await px(line), await px(`${running} h3`)];
  assert.ok(size >= title && size >= 20, `the next line is ${size} px, the card's title ${title} px`);
  // The band's heading is cut at its end on a projector: the countdown comes before the case's name, and shows.
  const cut = await page.$eval('#live-h', (h) => {
    const title = document.querySelector('#live-title');
    const r = document.createRange();
    const text = title.firstChild;
    const at = text.textContent.indexOf(' s · ');
    r.setStart(text, 0);
    r.setEnd(text, at + 2);
    return r.getBoundingClientRect().right - h.getBoundingClientRect().right;
  });
  assert.ok(cut <= 0, `the band's countdown ends ${cut} px past its heading`);
  await page.locator(running).scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'lessons-next-1366.png') });

  await page.click('#lang');
  await page.waitForFunction((sel) => /^接下来（\d+ 秒后）：同样的买家改用 db-pessimistic，它会锁住这一行：看他们排队等锁$/.test(document.querySelector(sel).textContent), line);
  await page.waitForFunction(() => /^mutex-across-replicas · \d+ 秒后开始案例 3 · 案例 2：db-pessimistic$/.test(document.querySelector('#live-title').textContent));
  await page.screenshot({ path: path.join(SHOTS, 'lessons-next-1366-zh.png') });
  await page.click('#lang');
  await page.waitForFunction((sel) => document.querySelector(sel).textContent.startsWith('Next (in'), line);

  // The next case starts: the line and the band's addition go, with the same run still reported.
  await page.waitForSelector(`${line}[hidden]`, { state: 'attached', timeout: 20_000 });
  await page.waitForFunction(() => document.querySelector('#live-title').textContent === 'mutex-across-replicas · case 2: db-pessimistic');
  assert.ok(Date.now() >= Date.parse(next.at), 'gone before the next case started');
  assert.equal(await page.textContent(line), '');
  next = null;
});

test('a case links to its sale\'s timeline', async () => {
  await page.click(`${card} .l-table tbody a[data-sale="7"]`);
  await page.waitForFunction(() => !document.querySelector('#timeline').hidden && document.querySelector('#tl-sale').value === '7');
  // The other lesson is still running: the timeline's live follow (every
  // second) must not move the reader off the case they opened. Waiting
  // past two ticks can only miss the bug on a stalled page, never invent it.
  await page.waitForTimeout(2500);
  assert.equal(await page.locator('#tl-sale').inputValue(), '7', 'the live follow moved the timeline off the opened case');
});
