// Browser test of the "Students: open on your phone" button against the
// fixture server (no demo): on a shared shop the dialog shows the QR code,
// the link in large type and that the admin token is set (never the
// token); on a shop listening on loopback only it says why there is no
// link. At 1366x768 and 390x844, in English and Chinese. Screenshots go to
// test-results/share-*.png.
import { test, after } from 'node:test';
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
const sale = { id: 7, strategy: 'redis', initial_stock: 20, stock: 0, sold: 20, oversold: 0, lost_updates: 0, violations: 0, fenced_writes: 0, duplicates: 0 };
const client = { requests: 10, orders: 2, requests_per_s: 1, orders_per_s: 1, latency_ms: { p50: 1, p95: 2, p99: 3 } };
const RUNS = [{ id: 3, status: 'done', steps: [{ step: 0, strategy: 'redis', status: 'done', sale_id: 7, sale, client, server: null, agents: [] }] }];
const LOOPBACK = { shared: false, url: '', listen: '127.0.0.1:8080', admin_token: false,
  message: { en: 'Only this computer can open it: the shop listens on 127.0.0.1:8080. To share it, start the demo with SECKILL_HTTP_ADDR=0.0.0.0:8080 and SECKILL_ADMIN_TOKEN=<secret>.',
    zh: '只有这台电脑能打开：商店只监听 127.0.0.1:8080。' } };

const servers = [];
let ctx, userDir;
const pageErrors = [];

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  for (const s of servers) await s.close();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

async function open(share, size, zh) {
  if (!ctx) {
    await mkdir(SHOTS, { recursive: true });
    userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-share-'));
    ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS });
  }
  const server = await startFixtureServer(0, undefined, { runs: RUNS, share });
  servers.push(server);
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.setViewportSize(SIZES[size]);
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
  await page.evaluate((z) => localStorage.setItem('seckill.zhLabels', z ? '1' : '0'), zh);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#herd .herd-bars li'); // the stream's run has arrived: the band has its sale
  await page.click('#share-btn');
  await page.waitForSelector('#share[open] #share-body > *');
  return page;
}

for (const size of [1366, 390]) {
  for (const zh of [false, true]) {
    test(`a shared shop: QR code, link and the admin token said to be set, at ${size} px, ${zh ? 'Chinese' : 'English'}`, async () => {
      const page = await open(undefined, size, zh);
      assert.match(await page.locator('#share-btn').innerText(), zh ? /学生用手机打开/ : /Students: open on your phone/);
      assert.equal(await page.locator('#share-url').innerText(), 'http://192.168.1.23:8080/shop/7');
      assert.equal(await page.getAttribute('#share-qr', 'src'), `/api/sales/7/qr.png?lang=${zh ? 'zh' : 'en'}`);
      await page.waitForFunction(() => document.querySelector('#share-qr').complete && document.querySelector('#share-qr').naturalWidth > 0);
      const qr = await page.locator('#share-qr').boundingBox();
      assert.ok(qr.width >= Math.min(300, SIZES[size].width * 0.7), `the QR code is large: ${qr.width} px`);
      assert.ok(qr.y + qr.height <= SIZES[size].height, 'the QR code fits the screen');
      assert.match(await page.locator('#share').innerText(), zh ? /已设置管理员令牌/ : /The admin token is set/);
      const fs = await page.locator('#share-url').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      assert.ok(fs >= 18, `the link is at least 18 px: ${fs}`);
      await page.screenshot({ path: path.join(SHOTS, `share-${size}-${zh ? 'zh' : 'en'}.png`) });
      await page.click('#share-close');
      assert.equal(await page.locator('#share[open]').count(), 0);
      await page.close();
    });
  }
}

test('a shop on loopback only: no link, the reason and how to share', async () => {
  const page = await open(LOOPBACK, 1366, false);
  const text = await page.locator('#share').innerText();
  assert.match(text, /Not shared: Only this computer can open it/);
  assert.match(text, /SECKILL_ADMIN_TOKEN/);
  assert.equal(await page.locator('#share-qr').count(), 0);
  assert.equal(await page.locator('#share-url').count(), 0);
  await page.screenshot({ path: path.join(SHOTS, 'share-1366-loopback.png') });
  await page.close();
});
