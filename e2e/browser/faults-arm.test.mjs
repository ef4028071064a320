// Faults that show something, in Debian's chromium against fixtures
// (fixture-server.mjs plus a stream this test drives), no demo: a fault
// card says what it needs and "Arm for the next run" fills the Run form; the
// next run fires the fault once it has sold, the charts mark it, the band
// says what it did (the timeline's fault_effects) and the charts keep
// their points and marks across a reload. Screenshots at 1366x768 and
// 390x844, English and Chinese, go to e2e/browser/test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const HERE = path.dirname(fileURLToPath(import.meta.url));
const SHOTS = path.join(HERE, 'test-results');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

// pause_holder as GET /api/faults serves it (internal/faults/table.go).
const PAUSE = {
  kind: 'pause_holder', params: ['ms'], description: 'the next locked critical section on this replica stalls ms after its lock check',
  title: { en: 'Pause the lock holder', zh: '暂停持锁者' },
  parameters: [{ name: 'ms', type: 'duration_ms', required: true, min: 1, max: 60000, suggested: 3000, label: { en: 'Duration (ms)', zh: '时长（毫秒）' } }],
  needs: { strategies: ['redis', 'redlock'], settings: [
    { en: 'watchdog off (a live process renews its lease through the pause)', zh: '关闭看门狗（存活的进程会在停顿期间一直续期租约）' },
    { en: "ms longer than the lock's TTL (ttl_ms)", zh: 'ms 大于锁的 TTL（ttl_ms）' }] },
  arm: { strategies: ['redis', 'redlock'], watchdog: false, work_ms: 200, ttl_ms: 1000, fencing: [false, true], params: { ms: 3000 } },
  chaos: { draw: true, owned_only: false },
};
const STRATEGIES = ['mutex', 'redis', 'redlock'].map((name) => ({ name, description: name, needs: [], safe: name !== 'mutex', available: true }));
const REPLICAS = [{ id: 'shop-a', kind: 'shop', alive: true, url: '' }, { id: 'shop-b', kind: 'shop', alive: true, url: 'http://127.0.0.1:1' }];

const t0 = Date.now();
const step = (sold, status, ms) => ({
  step: 0, strategy: 'redis', status, sale_id: 7,
  sale: { id: 7, initial_stock: 10, stock: 10 - sold, sold, oversold: 0, lost_updates: 0, violations: 1, fenced_writes: 1, duplicates: 0 },
  client: { requests: 10 * sold + 5, orders: sold, requests_per_s: 20, orders_per_s: sold, latency_ms: { p50: 3 + ms / 1000, p95: 8, p99: 12 } },
  server: { latency_ms: { p50: 2, p95: 6, p99: 9 }, lock_wait_ms: { p50: 1, p95: 3, p99: 5 } }, agents: [],
});
const run = (sold, status = 'running', ms = 0) => ({ id: 5, status, steps: [step(sold, status, ms)] });

let server, ctx, page, userDir;
let streams = [];
let lastRuns = [];
const posted = { faults: [], runs: [] };
const pageErrors = [];

function push(list) {
  lastRuns = list;
  for (const s of streams) s.write(`event: runs\ndata: ${JSON.stringify(list)}\n\n`);
}

async function handle(req, res, url) {
  const json = (status, body) => { res.writeHead(status, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
  const body = async () => { let b = ''; for await (const c of req) b += c; return JSON.parse(b || '{}'); };
  const p = url.pathname;
  if (p === '/api/events') {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    res.write(`event: replicas\ndata: ${JSON.stringify(REPLICAS)}\n\n`);
    if (lastRuns.length) res.write(`event: runs\ndata: ${JSON.stringify(lastRuns)}\n\n`);
    streams.push(res);
    req.on('close', () => { streams = streams.filter((s) => s !== res); });
    return true;
  }
  if (p === '/api/faults' && req.method === 'POST') { posted.faults.push(await body()); posted.firedAt = Date.now(); json(202, { kind: 'pause_holder' }); return true; }
  if (p === '/api/faults') { json(200, { enabled: true, replica: 'shop-a', kinds: [PAUSE] }); return true; }
  if (p === '/api/runs' && req.method === 'POST') {
    posted.runs.push(await body());
    json(201, { id: 5, status: 'queued', config: { strategies: ['redis'] }, targets: ['a', 'b'], steps: [{ step: 0, strategy: 'redis', status: 'queued', sale: null }] });
    return true;
  }
  if (p === '/api/strategies') { json(200, STRATEGIES); return true; }
  if (p === '/api/replicas') { json(200, REPLICAS); return true; }
  if (p === '/api/sales/7/timeline') {
    // The fixture's sale with the fault the run fired and what it did.
    const t = JSON.parse(await readFile(path.join(HERE, 'fixtures/timeline-redis-pause.json'), 'utf8'));
    const at = posted.firedAt || Date.now() - 3000;
    t.faults = [{ kind: 'pause_holder', replica: 'shop-a', target: '', from: at, to: at + 3000 }];
    t.fault_effects = [{ kind: 'pause_holder', replica: 'shop-a', from: at, damaged: false, reason: 'fenced',
      en: 'nothing was damaged: fencing refused 1 stale write', zh: '没有损失：防护令牌拒绝了 1 次过期写入' }];
    json(200, t);
    return true;
  }
  return false;
}

before(async () => {
  server = await startFixtureServer(0, undefined, { handle });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-faults-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/faults`, { waitUntil: 'load' });
  await page.locator('#fault-pause_holder .fault-needs li').first().waitFor();
}, { timeout: 60_000 });

after(async () => {
  for (const s of streams) s.end();
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

test('the card says what the fault needs, in both languages', async () => {
  const needs = await page.locator('#fault-pause_holder .fault-needs').innerText();
  assert.match(needs, /strategies: redis, redlock/);
  assert.match(needs, /watchdog off/);
  assert.match(needs, /longer than the lock's TTL/);
  await page.screenshot({ path: path.join(SHOTS, 'faults-card-1366.png') });
  await page.click('#lang');
  assert.match(await page.locator('#fault-pause_holder .fault-needs').innerText(), /关闭看门狗/);
  assert.match(await page.locator('#fault-pause_holder button.arm').innerText(), /为下一次压测设置/);
  await page.screenshot({ path: path.join(SHOTS, 'faults-card-1366-zh.png') });
  await page.click('#lang');
});

test('arming fills the Run form and says what is armed', async () => {
  await page.selectOption('#fault-replica', 'shop-b');
  await page.click('#fault-pause_holder button.arm');
  assert.equal(await page.locator('#f-strategy').inputValue(), 'redis');
  assert.equal(await page.locator('#f-watchdog').isChecked(), false);
  assert.equal(await page.locator('#f-fencing').isChecked(), false);
  assert.equal(await page.locator('#f-work').inputValue(), '200');
  assert.equal(await page.locator('#f-ttl').inputValue(), '1000');
  const armed = await page.locator('#armed').innerText();
  assert.match(armed, /armed: pause_holder on replica shop-b/);
  // The other side of the comparison is named from the form's fencing box.
  assert.match(armed, /then run it again with fencing on/);
  await page.locator('#f-fencing').check();
  assert.match(await page.locator('#armed').innerText(), /then run it again with fencing off/);
  await page.locator('#f-fencing').uncheck();
  assert.match(await page.locator('#fault-note').innerText(), /armed: pause_holder → shop-b/);
  await page.locator('#armed').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'faults-armed-1366.png') });
});

test('the next run fires the fault once it has sold, the charts mark it, the band says what it did', async () => {
  await page.click('#start');
  await page.waitForFunction(() => /Run 5 started/.test(document.querySelector('#form-msg').textContent));
  // Start brings the charts into view (the form is below them).
  const charts = await page.locator('#c-orders').boundingBox();
  assert.ok(charts.y >= 0 && charts.y + 40 <= PROJECTOR.height, `the orders chart is out of view after Start: ${JSON.stringify(charts)}`);
  assert.equal(posted.runs[0].watchdog, false);
  assert.equal(posted.runs[0].work_ms, 200);
  push([run(0, 'running', 0)]);
  await page.waitForTimeout(300);
  assert.equal(posted.faults.length, 0, 'no buyer inside yet: not fired');
  for (let i = 1; i <= 4; i++) { push([run(i, 'running', i)]); await page.waitForTimeout(250); }
  await page.waitForFunction(() => document.querySelectorAll('#c-orders .mark.fault').length === 1);
  assert.equal(await page.locator('#c-orders .mark.step span').innerText(), 'redis', 'the step is named');
  assert.equal(posted.faults.length, 1, 'fired once');
  assert.deepEqual(posted.faults[0], { kind: 'pause_holder', ms: 3000, replica: 'shop-b' });
  for (const c of ['#c-orders', '#c-latency', '#c-lockwait']) {
    assert.equal(await page.locator(`${c} .mark.fault span`).innerText(), 'pause_holder', c);
  }
  assert.match(await page.locator('#armed').innerText(), /fired at/);
  push([run(7, 'done', 5)]);
  await page.waitForFunction(() => /fencing refused 1 stale write/.test(document.querySelector('#fault-note').textContent));
  await page.screenshot({ path: path.join(SHOTS, 'faults-fired-1366.png') });
  await page.click('#lang');
  assert.match(await page.locator('#fault-note').innerText(), /防护令牌拒绝了 1 次过期写入/);
  await page.screenshot({ path: path.join(SHOTS, 'faults-fired-1366-zh.png') });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  await page.screenshot({ path: path.join(SHOTS, 'faults-fired-390-zh.png'), fullPage: false });
  await page.click('#lang');
  await page.screenshot({ path: path.join(SHOTS, 'faults-fired-390.png'), fullPage: false });
  await page.setViewportSize(PROJECTOR);
});

test('the charts keep their points and marks across a reload', async () => {
  const points = () => page.evaluate(() => JSON.parse(sessionStorage.getItem('seckill.charts') || 'null')?.data?.orders?.[0]?.length || 0);
  const before = await points();
  assert.ok(before >= 4, `${before} points before the reload`);
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelectorAll('#c-orders .mark.fault').length > 0);
  assert.ok(await points() >= before, 'the points are back');
  const drawn = await page.evaluate(() => document.querySelectorAll('#c-orders .u-over .mark.fault').length);
  assert.equal(drawn, 1);
  await page.screenshot({ path: path.join(SHOTS, 'faults-reloaded-1366.png') });
});

test('the timeline view says what the fault did', async () => {
  await page.goto(`${server.url}/#/timeline`, { waitUntil: 'load' });
  await page.waitForFunction(() => /fencing refused 1 stale write/.test(document.querySelector('#tl-effects')?.textContent || ''));
  assert.match(await page.locator('#tl-effects').innerText(), /^Pause the lock holder: nothing was damaged: fencing refused 1 stale write$/);
  await page.screenshot({ path: path.join(SHOTS, 'faults-timeline-1366.png') });
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
});

test('a run of several strategies keeps every step on the charts, each after a labelled divider', async () => {
  const two = (second) => ({ id: 6, status: 'running', steps: [
    { ...step(second ? 10 : 2, second ? 'done' : 'running', 1), sale_id: 8, sale: { ...step(2, 'running', 1).sale, id: 8 } },
    { ...step(second ? 3 : 0, second ? 'running' : 'queued', 1), step: 1, strategy: 'redlock', sale_id: second ? 9 : 0,
      sale: second ? { ...step(3, 'running', 1).sale, id: 9 } : null }] });
  const points = () => page.evaluate(() => JSON.parse(sessionStorage.getItem('seckill.charts')).data.orders[0].length);
  push([two(false)]);
  await page.waitForFunction(() => JSON.parse(sessionStorage.getItem('seckill.charts') || '{}').key === '6/0');
  push([two(false)]);
  await page.waitForTimeout(300);
  const first = await points();
  assert.deepEqual(await page.locator('#c-orders .mark span').allInnerTexts(), ['redis'], 'another run: the marks start again, from its first step');
  push([two(true)]);
  await page.waitForFunction(() => document.querySelectorAll('#c-orders .mark.step').length === 2);
  assert.deepEqual(await page.locator('#c-orders .mark.step span').allInnerTexts(), ['redis', 'redlock']);
  assert.ok(await points() > first, 'the first step\'s points stay');
  await page.screenshot({ path: path.join(SHOTS, 'faults-steps-1366.png') });
});

test('the class pace makes a run that lasts and a herd that gathers', async () => {
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
  await page.selectOption('#f-pace', 'class');
  assert.equal(await page.locator('#f-stock').inputValue(), '20');
  assert.equal(await page.locator('#f-buyers').inputValue(), '60');
  assert.equal(await page.locator('input[name=model][value=concurrency]').isChecked(), true);
  assert.equal(await page.locator('#f-load').inputValue(), '2');
  assert.equal(await page.locator('#f-work').inputValue(), '1500');
  assert.equal(await page.locator('#f-opens').inputValue(), '5');
  await page.locator('#f-pace').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'faults-pace-1366.png') });
  // The phone, in Chinese: the pace and the armed line fit the form's width.
  await page.goto(`${server.url}/#/faults`, { waitUntil: 'load' });
  await page.locator('#fault-pause_holder button.arm').waitFor();
  await page.click('#fault-pause_holder button.arm');
  await page.setViewportSize(PHONE);
  await page.click('#lang');
  for (const sel of ['#f-pace', '#armed']) {
    const box = await page.locator(sel).boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width + 1, `${sel} overflows the phone: ${JSON.stringify(box)}`);
  }
  await page.locator('#f-pace').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'faults-pace-390-zh.png') });
  await page.locator('#armed').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'faults-armed-390-zh.png') });
  await page.click('#lang');
  await page.setViewportSize(PROJECTOR);
});

test('no page error', () => {
  assert.deepEqual(pageErrors, []);
});
