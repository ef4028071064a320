// The exported matrix (internal/matrix WriteHTML) opens with no network:
// Debian's chromium, offline and with every request aborted, loads the page
// written for the fixture report (fixtures/matrix-report.html, kept current
// by TestExportedPageIsSelfContainedAndCurrent) and draws the grid with the
// dashboard's own renderer: words in the cells, the findings marked, a
// cell's detail on Enter, the 中文 switch; at 1366x768 every column in view.
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

test('the exported matrix draws its grid offline, asks for nothing and switches to Chinese', { timeout: 60_000 }, async () => {
  const html = await readFile(path.join(HERE, 'fixtures/matrix-report.html'), 'utf8');
  await mkdir(SHOTS, { recursive: true });
  const userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-mxexport-'));
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
    await page.waitForSelector('.mx-cell');
    assert.equal(await page.locator('.mx-table tbody tr:not(.mx-band-h)').count(), 49);
    assert.equal(await page.locator('.mx-table thead th.mx-colh').count(), 21);
    assert.equal(await page.locator('.mx-cell').count(), 49 * 21);
    assert.deepEqual(await page.locator('.mx-band-h th').allInnerTexts(),
      ['Database (the articles\' first lock)', 'Redis', 'ZooKeeper', 'Beyond the articles: etcd, a hash ring', 'No distributed lock']);
    assert.equal(await page.locator('.mx-cell.finding').count(), 6);
    assert.equal(await page.locator('.mx-cell[data-row="redis"][data-fault="pause_holder"]').innerText(), 'broke');
    assert.match(await page.locator('.mx-summary').innerText(), /^\d+ observed, 6 differ from the prediction/);
    assert.match(await page.locator('.mx-run').innerText(), /^Observed 2026-05-02, \d\d:03–\d\d:41 \(38 min\) on lab-box \(8 cores\) · commit 6508bc7 · full/);
    // Every column in view at 1366 px, and every word whole in its cell.
    const fit = await page.evaluate(() => {
      const s = document.querySelector('.mx-scroll');
      return { scroll: s.scrollWidth, client: s.clientWidth, cut: [...document.querySelectorAll('.mx-cell')].filter((b) => b.scrollWidth > b.clientWidth + 1).length };
    });
    assert.ok(fit.scroll <= fit.client, `the grid scrolls sideways at 1366 px: ${fit.scroll} > ${fit.client}`);
    assert.equal(fit.cut, 0, 'words cut in their cells');
    // Enter on a cell opens its detail; the page has no shop: the sale is named, not linked.
    await page.locator('.mx-cell[data-row="zookeeper"][data-fault="kill_zk_server"]').focus();
    await page.keyboard.press('Enter');
    const dialog = page.locator('dialog.mx-detail');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /zookeeper × 19 Kill a ZooKeeper server/);
    assert.match(await dialog.innerText(), /--only zookeeper\/kill_zk_server --seed \d+/);
    assert.equal(await dialog.locator('a').count(), 0);
    await page.screenshot({ path: path.join(SHOTS, 'matrix-export-detail.png') });
    await page.keyboard.press('Escape');
    await page.click('#lang');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    assert.equal(await page.locator('.mx-cell[data-row="redis"][data-fault="pause_holder"]').innerText(), '损坏');
    assert.match(await page.locator('.mx-summary').innerText(), /^已观测 \d+ 格/);
    assert.equal(await page.locator('#title').innerText(), '哪种锁扛得住哪种故障');
    await page.screenshot({ path: path.join(SHOTS, 'matrix-export-zh.png') });
    assert.deepEqual(requests, [], 'the page asked for nothing');
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    await rm(userDir, { recursive: true, force: true });
  }
});
