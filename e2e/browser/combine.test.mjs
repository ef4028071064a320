// Combining (合并请求) on the dashboard, in Debian's chromium against
// fixtures (fixture-server.mjs), no demo: the run form offers "Combine
// orders" for a lock strategy only and posts combine with its batch and
// wait; the band tags the combining sale; the timeline of a combining sale
// (fixtures/timeline-redis-combine.json: a real redis herd of 2,000 buyers
// for 200 units, 12 holds) labels each batch hold with its size, its
// tooltip names buyers, orders and what the others got, in English and
// Chinese. Screenshots go to e2e/browser/test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = path.join(HERE, 'test-results');
const TIMELINE = path.join(HERE, 'fixtures/timeline-redis-combine.json');

let server, ctx, page, userDir;
const posted = []; // the bodies POST /api/runs got
const pageErrors = [];

before(async () => {
  const strategies = JSON.parse(await readFile(path.join(HERE, 'fixtures/strategies.json'), 'utf8'));
  const [run] = JSON.parse(await readFile(path.join(HERE, 'fixtures/run-redis.json'), 'utf8'));
  server = await startFixtureServer(0, TIMELINE, {
    extra: { '/api/strategies': () => strategies },
    // POST /api/runs: keep the body, answer with the fixture's run made combining as asked.
    handle: async (req, res, url) => {
      if (req.method !== 'POST' || url.pathname !== '/api/runs') return false;
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const body = JSON.parse(raw);
      posted.push(body);
      const answer = structuredClone(run);
      answer.id = 99;
      Object.assign(answer.config, { combine: !!body.combine, combine_max_batch: body.combine_max_batch, combine_max_wait_us: body.combine_max_wait_us });
      Object.assign(answer.steps[0].sale, { combine: !!body.combine, combine_max_batch: body.combine_max_batch });
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer));
      return true;
    },
  });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-combine-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1366, height: 768 } });
  // Every text the canvas draws, to read the timeline's bar labels.
  await ctx.addInitScript(() => {
    window.drawnTexts = [];
    const fill = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      window.drawnTexts.push(String(text));
      return fill.call(this, text, ...rest);
    };
  });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/run`, { waitUntil: 'load' });
  await page.waitForSelector('#f-strategy option[value="redis"]', { state: 'attached' });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

test('the combine switch is off with its reason for a strategy without a lock, and on for redis', async () => {
  await page.selectOption('#f-strategy', 'db-conditional');
  assert.equal(await page.isDisabled('#f-combine'), true);
  assert.match(await page.locator('#combine-hint').innerText(), /takes no lock/);
  await page.selectOption('#f-strategy', 'redis');
  assert.equal(await page.isDisabled('#f-combine'), false);
  assert.equal(await page.isVisible('#combine-opts'), false, 'the batch and wait show only when checked');
  await page.check('#f-combine');
  assert.equal(await page.isVisible('#combine-opts'), true);
  assert.equal(await page.inputValue('#f-combine-batch'), '100');
  assert.equal(await page.inputValue('#f-combine-wait'), '500');
});

test('a batch out of bounds is refused in the form; a good one posts combine:true', async () => {
  await page.fill('#f-combine-batch', '0');
  await page.click('#start');
  assert.match(await page.locator('#form-msg').innerText(), /combine_max_batch must be a whole number from 1 to 1000/);
  assert.equal(posted.length, 0);
  await page.fill('#f-combine-batch', '50');
  await page.click('#start');
  await page.waitForFunction(() => /99/.test(document.querySelector('#form-msg').textContent));
  assert.equal(posted.length, 1);
  assert.equal(posted[0].strategy, 'redis');
  assert.equal(posted[0].combine, true);
  assert.equal(posted[0].combine_max_batch, 50);
  assert.equal(posted[0].combine_max_wait_us, 500);
  // The band tags the running sale.
  await page.waitForSelector('#live-combine:not([hidden])');
  assert.equal(await page.locator('#live-combine').innerText(), 'combining ≤50');
  await page.screenshot({ path: path.join(SHOTS, 'combine-form-1366.png') });
  // On a phone the band's title is cut: the tag stays in view, on the verdict's line.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const tag = await page.locator('#live-combine').boundingBox();
  assert.ok(tag && tag.x >= 0 && tag.x + tag.width <= 390 && tag.y + tag.height <= 844 / 5, `the tag is in the band, in view: ${JSON.stringify(tag)}`);
  await page.screenshot({ path: path.join(SHOTS, 'combine-form-390.png') });
  await page.setViewportSize({ width: 1366, height: 768 });
});

test('unchecked, or a strategy without a lock, sends no combine', async () => {
  await page.uncheck('#f-combine');
  await page.click('#start');
  await page.waitForFunction(() => document.querySelector('#start').disabled === false);
  await page.waitForFunction((n) => document.querySelector('#form-msg').textContent.includes('99') && n, posted.length);
  assert.equal(posted.length, 2);
  assert.equal('combine' in posted[1], false);
  await page.check('#f-combine');
  await page.selectOption('#f-strategy', 'redis-lua-stock');
  assert.equal(await page.isChecked('#f-combine'), false, 'unchecked when the strategy cannot combine');
  await page.selectOption('#f-strategy', 'redis');
});

/** hoverSection moves the mouse over the middle of section s (the whole sale in view) and returns the tooltip. */
async function hoverSection(s, data, lanes) {
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'center' }));
  const box = await page.locator('#tl-canvas').boundingBox();
  const plotW = box.width - 112 - 8;
  const x = box.x + 112 + (((s.enter_at + s.exit_at) / 2 - data.from) / (data.to - data.from)) * plotW;
  const y = box.y + 26 + lanes.indexOf(s.replica) * 46 + 25;
  await page.mouse.move(x, y);
  await page.waitForSelector('#tl-tip:not([hidden])');
  return page.locator('#tl-tip').innerText();
}

test('the timeline labels a batch hold with its size; its tooltip names buyers, orders and the others', async () => {
  const data = JSON.parse(await readFile(TIMELINE, 'utf8'));
  await page.goto(`${server.url}/#/timeline?sale=7`);
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas')?.dataset.drawn || 0) > 0);
  await page.evaluate(() => { window.drawnTexts.length = 0; });
  await page.click('#tl-fit'); // the whole sale, drawn again
  await page.waitForFunction(() => document.querySelector('#tl-window').textContent.startsWith('0.000 ms'));
  await page.waitForFunction(() => window.drawnTexts.some((t) => /^×\d+|^\d+ buyers · \d+ orders/.test(t)));
  const texts = await page.evaluate(() => window.drawnTexts);
  assert.ok(texts.some((t) => /^(×85|85 buyers · 85 orders)/.test(t)), `the batch of 85 is labelled: ${texts.join(' | ')}`);
  assert.match(await page.locator('#tl-facts').innerText(), /combining ≤100/);
  assert.match(await page.locator('#tl-legend').innerText(), /×37\s+one hold of the lock for 37 buyers/);
  assert.match(await page.locator('#tl-narration').innerText(), /held the lock once for 85 buyers: 85 orders/);
  const lanes = data.replicas;
  // shop-3's batch of 82 buyers sold the last 24 units: the other 58 got "sold out".
  const last = data.sections.find((s) => s.buyers === 82);
  const tip = await hoverSection(last, data, lanes);
  assert.match(tip, /82 buyers, one hold: 24 orders/);
  assert.match(tip, /58: sold out/);
  await page.screenshot({ path: path.join(SHOTS, 'combine-timeline-1366.png') });
  // In Chinese.
  await page.click('#lang');
  const zhTip = await hoverSection(last, data, lanes);
  assert.match(zhTip, /82 位买家，一次持锁：24 单/);
  assert.match(zhTip, /58 位：售罄/);
  assert.match(await page.locator('#tl-facts').innerText(), /合并 ≤100/);
  assert.match(await page.locator('#tl-narration').innerText(), /持锁一次服务 85 位买家：85 个订单/);
  await page.screenshot({ path: path.join(SHOTS, 'combine-timeline-1366-zh.png') });
  await page.click('#lang');
  await page.mouse.move(0, 0);
  assert.deepEqual(pageErrors, []);
});
