// The band tells about the sale on the screen, in Debian's chromium against
// fixtures (fixture-server.mjs: a run selling sale 570, and sale 7 with
// its timeline): on the Timeline, a sale other than the run's puts that
// sale on the band (its figures, its verdict, its name), and leaving the
// Timeline gives the band back to the run; a fault note belongs to its
// sale; and at 1366x768 the band, with its longest verdict, a fault note
// and Chinese and Large type on, stays within a fifth of the screen with
// the verdict's word in its heading row and its reason, with the figures,
// on the row under it, neither cut.
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

// Sale 7 with the server's verdict of a fenced overlap, the longest the
// band shows; and its timeline's fault note.
const VERDICT = {
  kind: 'overlapped_safe',
  reason_en: '5 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0',
  reason_zh: '5 处临界区重叠；防护令牌拒绝了 1 次过期写入；超卖 0，丢失更新 0',
};

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, undefined, {
    live: true,
    extra: {
      '/api/sales/7': () => ({ id: 7, name: 'fixture', strategy: 'redis', initial_stock: 10, stock: 3, sold: 7, oversold: 0,
        lost_updates: 0, violations: 5, fenced_writes: 1, duplicates: 0, verdict: VERDICT }),
    },
  });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-band-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
  await page.waitForFunction(() => /570|run 1/.test(document.querySelector('#live-title').textContent)
    && document.querySelector('#n-sold').textContent !== '–');
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

const bandTitle = () => page.locator('#live-title').innerText();

test('on the Timeline, another sale is on the band; the run comes back on leaving it', async () => {
  await page.goto(`${server.url}/#/timeline?sale=7`);
  await page.waitForFunction(() => /sale 7/.test(document.querySelector('#live-title').textContent), null, { timeout: 15_000 });
  assert.equal(await bandTitle(), 'Timeline: sale 7, redis');
  assert.equal(await page.locator('#n-sold').innerText(), '7');
  assert.equal(await page.locator('#n-stock').innerText(), '3');
  assert.match(await page.locator('#verdict').innerText(), /OVERLAPPED, DATA SAFE$/);
  assert.equal(await page.locator('#verdict-why').innerText(), VERDICT.reason_en);
  // Its own fault note, not the run's.
  await page.waitForSelector('#fault-note li', { timeout: 15_000 });
  assert.match(await page.locator('#fault-note').innerText(), /./);
  await page.screenshot({ path: path.join(SHOTS, 'band-timeline-sale.png') });
  // The run's figures keep flowing meanwhile; back on Run they are the band's again.
  await page.goto(`${server.url}/#/run`);
  await page.waitForFunction(() => /^run 1/.test(document.querySelector('#live-title').textContent), null, { timeout: 15_000 });
  assert.equal(await page.locator('#fault-note').isVisible(), false, 'the Timeline sale\'s fault note stayed under the run');
});

test('in Chinese the pinned sale is named in Chinese', async () => {
  await page.click('#lang');
  try {
    await page.goto(`${server.url}/#/timeline?sale=7`);
    await page.waitForFunction(() => /第 7 场/.test(document.querySelector('#live-title').textContent), null, { timeout: 15_000 });
    assert.equal(await bandTitle(), '时间线：第 7 场，redis');
    assert.equal(await page.locator('#verdict-why').innerText(), VERDICT.reason_zh);
  } finally {
    await page.click('#lang');
  }
});

for (const [zh, large] of [[false, false], [true, false], [false, true], [true, true]]) {
  const name = `${zh ? 'zh' : 'en'}${large ? '-large' : ''}`;
  test(`1366x768 ${name}: the longest verdict and a fault note, the band within a fifth, the verdict whole`, async () => {
    await page.goto(`${server.url}/#/timeline?sale=7`);
    if ((await page.getAttribute('#lang', 'aria-pressed')) !== String(zh)) await page.click('#lang');
    if ((await page.getAttribute('#large', 'aria-pressed')) !== String(large)) await page.click('#large');
    await page.waitForFunction((zh) => (zh ? /第 7 场/ : /sale 7/).test(document.querySelector('#live-title').textContent), zh, { timeout: 15_000 });
    await page.waitForSelector('#fault-note li', { timeout: 15_000 });
    const m = await page.evaluate(() => {
      const cut = ['#verdict', '#verdict-why'].map((s) => document.querySelector(s))
        .filter((v) => v.scrollWidth > v.clientWidth + 1 || v.scrollHeight > v.clientHeight + 1).map((v) => v.textContent);
      return { stage: document.querySelector('.stage').getBoundingClientRect().height, cut: cut.join(' | ') };
    });
    await page.screenshot({ path: path.join(SHOTS, `band-1366-${name}.png`) });
    assert.ok(m.stage <= 0.2 * PROJECTOR.height, `${name}: the band takes ${m.stage} px of ${PROJECTOR.height}`);
    assert.equal(m.cut, '', `${name}: the verdict is cut`);
  });
}

test('no page error', () => {
  assert.deepEqual(pageErrors, []);
});
