// Browser test of the shop page's headline against the fixture server (no
// demo): the product as the headline (else "Flash sale #ID"), the strategy
// as a small tag, the units left in one phrase, in English and Chinese, at
// 1366x768 and 390x844, nothing overflowing. Screenshots go to
// test-results/shop-*.png.
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
const SIZES = { 1366: { width: 1366, height: 768 }, 390: { width: 390, height: 844 } };

let server, ctx, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer();
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-shophead-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: SIZES[390] });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

async function open(url, size) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`); });
  await page.setViewportSize(SIZES[size]);
  await page.goto(server.url + url, { waitUntil: 'load' });
  await page.waitForSelector('#card[aria-busy=false]');
  return page;
}

const overflow = (page) => page.evaluate(() => {
  const out = [];
  for (const e of document.querySelectorAll('#card, #card *, .bar, .bar *')) {
    if (e.offsetParent && !e.classList.contains('sr-only') && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'auto') out.push(`${e.id || e.tagName}: ${e.textContent.trim().slice(0, 30)}`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth) out.push('the page scrolls sideways');
  return out;
});

for (const size of [1366, 390]) {
  test(`the product is the headline, the strategy a tag, the units one phrase, at ${size} px in English and Chinese`, async () => {
    const page = await open('/shop/7?lang=en', size);
    assert.equal(await page.locator('#p-name').innerText(), 'Mechanical keyboard');
    assert.equal(await page.locator('#p-tag').innerText(), 'lock strategy: redis');
    assert.equal(await page.locator('.units').innerText(), '3 of 10 units left');
    assert.equal(await page.locator('#buy').innerText(), 'Buy');
    assert.match(await page.title(), /^Mechanical keyboard · Seckill Lab shop$/);
    assert.deepEqual(await overflow(page), []);
    await page.screenshot({ path: path.join(SHOTS, `shop-${size}-en.png`) });

    await page.click('#lang');
    assert.equal(await page.locator('.units').innerText(), '剩余 3 / 10 件');
    assert.equal(await page.locator('#buy').innerText(), '立即抢购');
    assert.equal(await page.locator('#p-tag').innerText(), '并发控制策略: redis');
    assert.equal(await page.locator('label[for=user] span').innerText(), '你的用户 ID');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.deepEqual(await overflow(page), []);
    await page.screenshot({ path: path.join(SHOTS, `shop-${size}-zh.png`) });
    await page.close();
  });
}

test('a sale without a product is "Flash sale #ID", "秒杀商品 #ID" in Chinese', async () => {
  const page = await open('/shop/8?lang=en', 390);
  assert.equal(await page.locator('#p-name').innerText(), 'Flash sale #8');
  await page.close();
  const zh = await open('/shop/8?lang=zh', 390);
  assert.equal(await zh.locator('#p-name').innerText(), '秒杀商品 #8');
  assert.equal(await zh.locator('.units').innerText(), '已售罄');
  await zh.close();
});
