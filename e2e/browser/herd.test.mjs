// Browser test of the Run section's Herd panel against the fixture server
// (no demo): a finished herd step of sale 7 on the stream, its figures from
// GET /api/sales/7/herd. At 1366x768 (a projector) and 390x844 (a phone),
// in English and in Chinese: the figures and bars show, every text of the
// panel is at least 18 px, nothing overflows the panel. Screenshots go to
// test-results/herd-*.png.
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

const client = { requests: 2000, orders: 20, requests_per_s: 1900, orders_per_s: 19, latency_ms: { p50: 1.2, p95: 20, p99: 48.5 } };
const sale = { id: 7, strategy: 'redis', initial_stock: 20, stock: 0, sold: 20, oversold: 0, lost_updates: 0, violations: 0, fenced_writes: 0, duplicates: 0 };
const RUNS = [{ id: 3, status: 'done', steps: [{ step: 0, strategy: 'redis', status: 'done', sale_id: 7, sale, client, server: null, agents: [] }] }];

let server, ctx, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, undefined, { runs: RUNS });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-herd-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: SIZES[1366] });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

/** open shows the Run section at size in the language asked, once the panel has its figures. */
async function open(size, zh) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.setViewportSize(SIZES[size]);
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
  await page.evaluate((z) => localStorage.setItem('seckill.zhLabels', z ? '1' : '0'), zh);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#herd .herd-bars li');
  return page;
}

/** smallest is the smallest font size (px) of the panel's texts, with the element that has it. */
const smallest = (page) => page.evaluate(() => {
  let min = { px: Infinity, text: '' };
  for (const e of document.querySelectorAll('#herd *')) {
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (own && px < min.px) min = { px, text: e.textContent.trim().slice(0, 40) };
  }
  return min;
});

/** overflow lists the panel's elements wider than the panel or than their own box. */
const overflow = (page) => page.evaluate(() => {
  const panel = document.querySelector('#herd').getBoundingClientRect();
  const out = [];
  for (const e of document.querySelectorAll('#herd, #herd *')) {
    const r = e.getBoundingClientRect();
    if (r.right > panel.right + 1 || e.scrollWidth > e.clientWidth + 1) out.push(`${e.className || e.tagName}: ${e.textContent.trim().slice(0, 30)}`);
  }
  if (panel.right > window.innerWidth) out.push('the panel is wider than the screen');
  return out;
});

for (const size of [1366, 390]) {
  for (const zh of [false, true]) {
    test(`the herd panel at ${size} px, ${zh ? 'Chinese' : 'English'}: figures, bars, 18 px and up, nothing overflows`, async () => {
      const page = await open(size, zh);
      const text = await page.locator('#herd').innerText();
      assert.match(text, /#7/);
      assert.match(text, /435 ms/, 'the time to sell out');
      assert.match(text, /423 ms/, 'first to last unit');
      assert.match(text, /600/, 'the first second\'s answers');
      assert.match(text, /1\.2 ms \/ 49 ms/, 'p50 / p99 of the first second');
      assert.match(text, zh ? /售罄用时/ : /Sold out in/);
      assert.match(text, zh ? /售罄缓存/ : /sold-out cache/);
      const bars = await page.locator('#herd .herd-bars li').allInnerTexts();
      assert.equal(bars.length, 3);
      assert.match(bars[1], /1,921 · 96%/);
      const widths = await page.locator('#herd .herd-bar').evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().width));
      assert.ok(widths[1] > widths[2] * 10 && widths[2] > 0, `bars in proportion: ${widths}`);
      const min = await smallest(page);
      assert.ok(min.px >= 18, `a text under 18 px: ${min.px} px "${min.text}"`);
      assert.deepEqual(await overflow(page), []);
      // The sticky band would cover the panel in an element screenshot: clip the full page instead.
      const clip = await page.evaluate(() => {
        const r = document.querySelector('#herd').getBoundingClientRect();
        return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
      });
      await page.screenshot({ path: path.join(SHOTS, `herd-${size}-${zh ? 'zh' : 'en'}.png`), fullPage: true, clip });
      await page.close();
    });
  }
}
