// The interview page `loadtest interview --html` writes (internal/interview
// WriteHTML) opens with no network: Debian's chromium, offline and with
// every request aborted, loads the page written for a page filled on a demo
// (fixtures/interview-page.html, kept current by TestExportedPageIsCurrent)
// and draws every question with the dashboard's own renderer, each figure
// naming its run (no link: the page has no shop to open), then the 中文
// switch; nothing wider than 1366 px or a 390 px phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = path.join(HERE, 'test-results');
const PAGE = JSON.parse(await readFile(path.join(HERE, 'fixtures/interview-page.json'), 'utf8'));

test('the exported interview page draws offline, asks for nothing and switches to Chinese', { timeout: 60_000 }, async () => {
  const html = await readFile(path.join(HERE, 'fixtures/interview-page.html'), 'utf8');
  await mkdir(SHOTS, { recursive: true });
  const userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-ivexport-'));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM, headless: true, offline: true, viewport: { width: 1366, height: 768 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const requests = [], errors = [];
    await ctx.route('**/*', (route) => { requests.push(route.request().url()); return route.abort(); });
    const page = ctx.pages()[0] || await ctx.newPage();
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setContent(html, { waitUntil: 'load' });
    await page.waitForSelector('.iv-q');
    assert.equal(await page.locator('.iv-q').count(), PAGE.questions.length);
    assert.equal(await page.textContent('.iv-q .iv-ask'), `1. ${PAGE.questions[0].ask.en}`);
    const measured = PAGE.questions.flatMap((q) => q.figures).filter((f) => f.measured);
    assert.equal(await page.locator('.iv-fig:not(.iv-none) .iv-from').count(), measured.length);
    assert.match(await page.textContent('.iv-fig:not(.iv-none) .iv-from'), /^(lesson run|matrix run) #\d+ · /);
    assert.equal(await page.locator('.iv-q a').count(), 0, 'no link: the page has no shop to open');
    const wide = () => page.evaluate(() => document.documentElement.scrollWidth > innerWidth);
    assert.equal(await wide(), false);
    await page.click('#lang');
    assert.equal(await page.textContent('.iv-q .iv-ask'), `1. ${PAGE.questions[0].ask.zh}`);
    assert.equal(await page.textContent('#title'), '设计一个秒杀系统：面试路线');
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await wide(), false);
    await page.screenshot({ path: path.join(SHOTS, 'interview-export-phone-zh.png') });
    assert.deepEqual(requests, [], 'the page asked the network for something');
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    await rm(userDir, { recursive: true, force: true });
  }
});
