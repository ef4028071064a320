// Browser test of the Run section's Herd panel against the fixture server
// (no demo): a finished herd step of sale 7 on the stream, its figures from
// GET /api/sales/7/herd (here with the answer times apart and the lock's
// holds, as internal/herd serves them); then the stream moves to sale 12,
// a combining herd, and the panel keeps sale 7 beside it with the ratio of
// the two sell-out times. At 1366x768 in Large type (a projector) and at
// 390x844 (a phone), in English and in Chinese: the figures and bars show,
// every text of the panel is at least 18 px, nothing overflows the panel
// or its boxes. Screenshots go to test-results/herd-*.png (or $HERD_SHOTS).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { HERD, startFixtureServer } from './fixture-server.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = process.env.HERD_SHOTS || path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-results');
const SIZES = { 1366: { width: 1366, height: 768 }, 390: { width: 390, height: 844 } };

const client = { requests: 2000, orders: 20, requests_per_s: 1900, orders_per_s: 19, latency_ms: { p50: 1.2, p95: 20, p99: 48.5 } };
const sale = { id: 7, strategy: 'redis', initial_stock: 20, stock: 0, sold: 20, oversold: 0, lost_updates: 0, violations: 0, fenced_writes: 0, duplicates: 0 };
const RUNS = [{ id: 3, status: 'done', steps: [{ step: 0, strategy: 'redis', status: 'done', sale_id: 7, sale, client, server: null, agents: [] }] }];
// The next run: the same herd with combining, on sale 12.
const sale12 = { ...sale, id: 12, combine: true, combine_max_batch: 100 };
const RUNS12 = [{ id: 4, status: 'done', steps: [{ step: 0, strategy: 'redis', status: 'done', sale_id: 12, sale: sale12, client, server: null, agents: [] }] }, ...RUNS];

// Sale 7 as the shop serves it now: the first second's answer times apart
// (the orders' milliseconds, the sold-out cache's microseconds) and the
// lock held 20 times for 20 units.
const HERD7 = {
  ...HERD, strategy: 'redis', order_mode: 'sync', combine: false, combine_max_batch: 0,
  lock: true, holds: 20, hold_units: 20, units_per_hold: 1,
  first_second: { ...HERD.first_second, p50_ms: 0.003, orders_p50_ms: 12.4, orders_p99_ms: 48.5, sold_out_p50_ms: 0.003, sold_out_p99_ms: 0.004 },
};
// Sale 12: combining, sold out in 104 ms (4.2× faster than 435 ms), 3 holds for 20 units.
const HERD12 = {
  ...HERD7, sale_id: 12, combine: true, combine_max_batch: 100, sell_out_ms: 104.02, sell_out_from_first_ms: 92.5,
  holds: 3, hold_units: 20, units_per_hold: 20 / 3,
  first_second: { ...HERD7.first_second, orders_p50_ms: 61.2, orders_p99_ms: 98.7 },
};

let server, ctx, userDir;
let current = RUNS; // what the stream sends: to a stream as it opens, and to every open one when it changes
const streams = new Set();
const pageErrors = [];

/** follow makes the stream's runs runs: the band (and the panel) moves to its sale. */
function follow(runs) {
  current = runs;
  for (const res of streams) res.write(`event: runs\ndata: ${JSON.stringify(runs)}\n\n`);
}

before(async () => {
  server = await startFixtureServer(0, undefined, {
    extra: { '/api/sales/7/herd': () => HERD7, '/api/sales/12/herd': () => HERD12 },
    handle: (req, res, url) => {
      if (url.pathname !== '/api/events') return false;
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
      res.write(': fixture\n\n');
      res.write(`event: runs\ndata: ${JSON.stringify(current)}\n\n`);
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return true;
    },
  });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-herd-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: SIZES[1366] });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  for (const res of streams) res.end();
  await server?.close();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

/**
 * open shows the Run section at size in the language asked (Large type on
 * at 1366: the projector), once the panel has its figures. A new tab: its
 * sessionStorage, the panel's memory, starts empty.
 */
async function open(size, zh) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.setViewportSize(SIZES[size]);
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
  await page.evaluate(({ z, large }) => {
    localStorage.setItem('seckill.zhLabels', z ? '1' : '0');
    localStorage.setItem('seckill.largeType', large ? '1' : '0');
  }, { z: zh, large: size === 1366 });
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

/** valueFonts are the font sizes (px) of the panel's values: the big figures, the answer times, the previous herd's. */
const valueFonts = (page) => page.evaluate(() => [...document.querySelectorAll('#herd .herd-v, #herd .herd-v strong, #herd .herd-lat-row dd, #herd .herd-pv, #herd .herd-ratio strong')]
  .map((e) => ({ px: parseFloat(getComputedStyle(e).fontSize), text: e.textContent.trim().slice(0, 30) })));

/**
 * overflow lists the panel's elements wider than the panel, than their
 * own box (scrolling) or than the figure or column they are in.
 */
const overflow = (page) => page.evaluate(() => {
  const panel = document.querySelector('#herd').getBoundingClientRect();
  const out = [];
  for (const e of document.querySelectorAll('#herd, #herd *')) {
    const r = e.getBoundingClientRect();
    const box = e.parentElement?.closest('.herd-fig, .herd-prev, .herd-now');
    const b = box?.getBoundingClientRect();
    if (r.right > panel.right + 1 || e.scrollWidth > e.clientWidth + 1 || (b && (r.right > b.right + 1 || r.left < b.left - 1))) {
      out.push(`${e.className || e.tagName}: ${e.textContent.trim().slice(0, 30)}`);
    }
  }
  if (panel.right > window.innerWidth) out.push('the panel is wider than the screen');
  return out;
});

/** legible asserts what every state of the panel must be: 18 px and up, values 16 px and up (they are far more), no overflow. */
async function legible(page) {
  const min = await smallest(page);
  assert.ok(min.px >= 18, `a text under 18 px: ${min.px} px "${min.text}"`);
  const values = await valueFonts(page);
  assert.ok(values.length >= 5, `values found: ${JSON.stringify(values)}`);
  for (const v of values) assert.ok(v.px >= 16, `a value under 16 px: ${v.px} px "${v.text}"`);
  assert.deepEqual(await overflow(page), []);
}

/** shot saves the panel (the sticky band would cover it in an element screenshot: clip the full page instead). */
async function shot(page, name) {
  const clip = await page.evaluate(() => {
    const r = document.querySelector('#herd').getBoundingClientRect();
    return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
  });
  await page.screenshot({ path: path.join(SHOTS, `herd-${name}.png`), fullPage: true, clip });
}

for (const size of [1366, 390]) {
  for (const zh of [false, true]) {
    const name = `${size}-${zh ? 'zh' : 'en'}`;
    test(`the herd panel at ${size} px${size === 1366 ? ' in Large type' : ''}, ${zh ? 'Chinese' : 'English'}: figures, answer times apart, holds, bars, the previous herd beside the next, legible`, async () => {
      follow(RUNS);
      const page = await open(size, zh);
      if (size === 1366) assert.ok(await page.evaluate(() => document.documentElement.classList.contains('large')), 'Large type is on');
      const text = await page.locator('#herd').innerText();
      assert.match(text, /#7 · redis · (combining off|合并：关)/);
      assert.match(text, /435 ms/, 'the time to sell out');
      assert.match(text, /423 ms/, 'first to last unit');
      assert.match(text, /600/, 'the first second\'s answers');
      assert.match(text, zh ? /售罄用时/ : /Sold out in/);
      assert.match(text, zh ? /售罄缓存/ : /sold-out cache/);
      assert.match(text, zh ? /由哪一层应答/ : /Who answered/);
      assert.doesNotMatch(text, /herd[A-Z]/, 'a label key shown instead of its text');
      // The answer times apart, each with its label, and where they are measured.
      const lat = await page.locator('#herd .herd-lat').innerText();
      assert.match(lat, zh ? /成交（201\/202）\s*12 ms \/ 49 ms/ : /orders \(201\/202\)\s*12 ms \/ 49 ms/);
      assert.match(lat, zh ? /售罄应答\s*< 0\.01 ms \/ < 0\.01 ms/ : /sold-out answers\s*< 0\.01 ms \/ < 0\.01 ms/);
      assert.match(lat, zh ? /在服务端内测量：从收到请求到应答，不含网络/ : /inside the shop, from request to answer, without the network/);
      assert.doesNotMatch(text, /µs/, 'no "1 µs": the histograms do not resolve it');
      // The lock's holds.
      const holds = await page.locator('#herd .herd-holds').innerText();
      assert.match(holds, zh ? /持锁次数\s*持锁 20 次 · 每次 1\.0 件/ : /Lock holds\s*20 holds · 1\.0 units per hold/);
      const bars = await page.locator('#herd .herd-bars li').allInnerTexts();
      assert.equal(bars.length, 3);
      assert.match(bars[1], /1,921 · 96%/);
      const widths = await page.locator('#herd .herd-bar').evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().width));
      assert.ok(widths[1] > widths[2] * 10 && widths[2] > 0, `bars in proportion: ${widths}`);
      assert.equal(await page.locator('#herd .herd-prev').count(), 0, 'no previous herd in a fresh tab');
      await legible(page);
      await shot(page, name);

      // The next herd: sale 12 with combining. Sale 7 moves to the narrow column beside it.
      follow(RUNS12);
      await page.waitForSelector('#herd .herd-prev');
      const now = await page.locator('#herd .herd-now').innerText();
      assert.match(await page.locator('#herd h3').innerText(), /#12 · redis · (combining on|合并：开)/);
      assert.match(now, /104 ms/);
      assert.match(now, zh ? /持锁 3 次 · 每次 6\.7 件/ : /3 holds · 6\.7 units per hold/);
      const prev = await page.locator('#herd .herd-prev').innerText();
      assert.match(prev, zh ? /上一场抢购洪峰/ : /Previous herd/);
      assert.match(prev, zh ? /秒杀 #7 · redis\s+合并：关/ : /sale #7 · redis\s+combining off/);
      assert.match(prev, /435 ms/);
      assert.match(prev, zh ? /持锁 20 次 · 每次 1\.0 件/ : /20 holds · 1\.0 units per hold/);
      assert.match(prev, zh ? /本场售罄速度是上一场的 4\.2 倍/ : /This sale sold out 4\.2× faster/);
      const [nowBox, prevBox] = await page.locator('#herd .herd-now, #herd .herd-prev').evaluateAll((es) => es.map((e) => e.getBoundingClientRect().toJSON()));
      if (size === 1366) assert.ok(prevBox.left >= nowBox.right && prevBox.width < nowBox.width / 2, `the previous herd beside, narrower: ${JSON.stringify([nowBox, prevBox])}`);
      else assert.ok(prevBox.top >= nowBox.bottom, 'on a phone the previous herd comes under the current one');
      await legible(page);
      await shot(page, `${name}-prev`);

      // A reload keeps the previous herd (sessionStorage).
      await page.reload({ waitUntil: 'load' });
      await page.waitForSelector('#herd .herd-prev');
      assert.match(await page.locator('#herd .herd-prev').innerText(), /#7/);
      assert.match(await page.locator('#herd h3').innerText(), /#12/);
      await page.close();
      follow(RUNS);
    });
  }
}

test('the ratio waits until both are sold out; a strategy without a lock says "no lock"', async () => {
  const open12 = { ...HERD12, sale_id: 13, sold_out: false, sell_out_ms: null, sell_out_from_first_ms: null, strategy: 'redis-lua-stock',
    lock: false, holds: 0, hold_units: 0, units_per_hold: 0, combine: false };
  const RUNS13 = [{ id: 5, status: 'done', steps: [{ step: 0, strategy: 'redis-lua-stock', status: 'done', sale_id: 13, sale: { ...sale, id: 13, strategy: 'redis-lua-stock' }, client, server: null, agents: [] }] }];
  follow(RUNS);
  const page = await open(1366, false);
  await page.route('**/api/sales/13/herd', (route) => route.fulfill({ json: open12 }));
  follow(RUNS13);
  await page.waitForSelector('#herd .herd-prev');
  const text = await page.locator('#herd').innerText();
  assert.match(await page.locator('#herd .herd-holds').innerText(), /Lock holds\s*no lock\s*this strategy sells without a lock/);
  assert.match(await page.locator('#herd h3').innerText(), /#13 · redis-lua-stock$/m, 'no combining said for a strategy without a lock');
  assert.match(text, /not sold out/);
  assert.doesNotMatch(text, /faster|slower/);
  assert.match(await page.locator('#herd .herd-prev').innerText(), /The ratio shows once both are sold out/);
  await legible(page);
  await shot(page, '1366-en-nolock');
  await page.close();
  follow(RUNS);
});
