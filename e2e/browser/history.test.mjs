// The Timeline's History check panel in Debian's chromium against fixtures
// (fixture-server.mjs, with a history check answered for sales 7 and 8):
// the verdict reads as a sentence a class can read, never the raw code
// `not_linearizable`, in English and in Chinese; the witness orders are
// named in words ("order 55", 订单 55) with the replica and the token's
// rank (#7) of each; porcupine's drawing stays one click further.
// A screenshot at 1366x768 (a projector) goes to e2e/browser/test-results/.
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

/**
 * Sale 7's check as GET /api/sales/7/history answers a lost update
 * (internal/history.Result): orders 55 (replica-2, token #7 in the
 * timeline fixture) and 54 (replica-1, token #6) both wrote 3.
 */
const NOT_LINEARIZABLE = {
  verdict: 'not_linearizable', operations: 12,
  witness: [
    { id: 31, order_id: 54, replica: 'replica-1', outcome: 'ok', call: 1764158400010.5, return: 1764158400030.2 },
    { id: 32, order_id: 55, replica: 'replica-2', outcome: 'ok', call: 1764158400012.1, return: 1764158400041.7 },
  ],
  message: {
    en: 'Orders 54 and 55 both left the stock at 3: each read 4 and wrote 3, so one write overwrote the other (a lost update); a stock handing out one unit at a time cannot give these answers.',
    zh: '订单 54、55 写入后库存都是 3：两者都读到 4、写入 3，一次写入覆盖了另一次（丢失更新）；一件一件卖出的库存不可能给出这样的应答。',
  },
  visualization: '/api/sales/7/history.html',
};
const LINEARIZABLE = {
  verdict: 'linearizable', operations: 20000, witness: [],
  message: { en: 'All 20000 answers fit one order of events on a stock of 20000: each unit handed out once.', zh: '全部 20000 个应答可以排成一个顺序，与库存 20000 相符：每件商品只卖出一次。' },
  visualization: '/api/sales/8/history.html',
};

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, undefined, { extra: { '/api/sales/7/history': () => NOT_LINEARIZABLE, '/api/sales/8/history': () => LINEARIZABLE } });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-hc-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/timeline`, { waitUntil: 'load' });
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas').dataset.drawn || 0) > 0);
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

const verdictShown = (v) => page.waitForFunction((want) => document.querySelector('#tl-hc').dataset.verdict === want, v);
const rows = () => page.$$eval('#tl-hc-orders tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));

test('not linearizable: the witness sentence, what it means for a buyer, the orders with replica and token', async () => {
  await verdictShown('not_linearizable');
  const panel = await page.locator('#tl-hc').innerText();
  assert.match(panel, /History check/);
  assert.doesNotMatch(panel, /not_linearizable/, 'the raw code is not what a class reads');
  assert.match(await page.locator('#tl-hc-sentence').innerText(), /^Orders 54 and 55 both left the stock at 3: each read 4 and wrote 3/);
  assert.match(await page.locator('#tl-hc-meaning').innerText(), /^For a buyer: /);
  assert.deepEqual(await rows(), [['order 54', 'replica-1', '#6', 'ok: got a unit'], ['order 55', 'replica-2', '#7', 'ok: got a unit']]);
  assert.doesNotMatch(await page.locator('#tl-hc-orders').innerText(), /#5[45]/, '"#" numbers tokens, never orders');
  assert.equal(await page.locator('#tl-hc').getAttribute('data-orders'), '54 55');
  assert.equal(await page.locator('#tl-hc-link').getAttribute('href'), '/api/sales/7/history.html');
  assert.ok(await page.locator('#tl-hc-link').isVisible(), "porcupine's drawing is one click further");
  await page.locator('#tl-hc').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'timeline-history-1366.png') });
  // The two witnesses framed on the canvas, over the whole sale, and named in the legend.
  await page.click('#tl-fit');
  await page.waitForFunction(() => {
    const b = JSON.parse(document.querySelector('#tl-canvas').dataset.boxes || '{}');
    return (b.witness || []).map((w) => w.order).sort().join() === '54,55';
  }, null, { timeout: 10_000 });
  assert.match(await page.locator('#tl-legend').innerText(), /framed: an order of the history check's witness/);
  await page.locator('#tl-canvas').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'timeline-history-witness-1366.png') });
});

test('in Chinese: the sentence, the buyer line and the orders in Chinese, the drawing asked in Chinese', async () => {
  await page.click('#lang');
  await page.waitForFunction(() => /历史检查/.test(document.querySelector('#tl-hc h3').textContent));
  const panel = await page.locator('#tl-hc').innerText();
  assert.doesNotMatch(panel, /not_linearizable|History check|Orders/);
  assert.match(await page.locator('#tl-hc-sentence').innerText(), /^订单 54、55 写入后库存都是 3/);
  assert.match(await page.locator('#tl-hc-meaning').innerText(), /^对买家来说：/);
  assert.deepEqual(await rows(), [['订单 54', 'replica-1', '#6', '成功：抢到一件'], ['订单 55', 'replica-2', '#7', '成功：抢到一件']]);
  assert.equal(await page.locator('#tl-hc-link').getAttribute('href'), '/api/sales/7/history.html?lang=zh');
  await page.locator('#tl-hc').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'timeline-history-1366-zh.png') });
  await page.click('#lang');
});

test('linearizable: the sentence says the stock went down one unit at a time, no orders listed', async () => {
  await page.selectOption('#tl-sale', '8');
  await verdictShown('linearizable');
  assert.equal(await page.locator('#tl-hc-sentence').innerText(), 'Every answer fits one order of events: the stock went down one unit at a time.');
  assert.ok(await page.locator('#tl-hc-orders').isHidden());
  assert.deepEqual(pageErrors, []);
});
