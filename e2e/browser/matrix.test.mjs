// The Matrix section (#/matrix) in Debian's chromium against a real `shop
// demo` (2 replicas, its own database): before any report, GET /api/matrix
// serves the predicted table and the section says how to observe it; then
// the test saves internal/matrix's fixture report (fixtures/matrix-report.json)
// through POST /api/matrix and the section draws it: words in the cells,
// the findings marked and counted, the filters, a cell's detail (by click
// and by the keyboard) with its replay line, copy button and timeline link,
// the 中文 switch. Legible on a projector: 16 px text at 1366x768 at least,
// every column in view (Large type: the grid scrolls sideways under its
// sticky row names), no word cut; on a 390x844 phone the grid scrolls
// sideways. Screenshots in test-results/matrix-*.png.
//
// MATRIX_ON_FIXTURE=1 runs it on fixture-server.mjs instead (no demo, no
// database): for a shop without the endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, startDemo } from './demo.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { latinTexts } from './zh-texts.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = path.join(ROOT, 'e2e/browser/test-results');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const ON_FIXTURE = process.env.MATRIX_ON_FIXTURE === '1';
const REPORT = JSON.parse(await readFile(path.join(ROOT, 'e2e/browser/fixtures/matrix-report.json'), 'utf8'));
const ROWS = REPORT.rows.length, COLS = REPORT.faults.length;
const FINDINGS = REPORT.cells.filter((c) => c.finding);

let shop, ctx, page, userDir;
let fixtureAnswer = null; // on the fixture: GET /api/matrix's answer, predicted until seed()
const pageErrors = [];

before(async () => {
  if (ON_FIXTURE) {
    const predicted = { ...REPORT, id: 0, cells: REPORT.cells.map((c) => ({ ...c, kind: '', finding: false, why_en: 'not run: predicted only', why_zh: '未运行：仅有预测' })) };
    fixtureAnswer = { observed: false, report: predicted };
    const server = await startFixtureServer(0, undefined, { extra: { '/api/matrix': () => fixtureAnswer } });
    shop = { url: server.url, stop: () => server.close() };
  } else {
    const demo = await startDemo({ replicas: 2, agents: 0, db: 'seckill_test_matrix' });
    shop = { url: demo.url, stop: async () => { const code = await demo.stop(); if (code !== 0) console.error(`demo stopped with ${code}:\n${demo.output()}`); } };
  }
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-matrix-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: shop.url });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
}, { timeout: 150_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await shop?.stop();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

/** seed saves the fixture report as a matrix run (POST /api/matrix, 201 {id}). */
async function seed() {
  if (ON_FIXTURE) { fixtureAnswer = { observed: true, report: REPORT }; return; }
  const res = await fetch(`${shop.url}/api/matrix`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...REPORT, id: 0 }) });
  const body = await res.text();
  assert.equal(res.status, 201, `POST /api/matrix: ${res.status} ${body}`);
  assert.ok(JSON.parse(body).id > 0, body);
}

/** open shows #/matrix at size, in the language and type asked, once its grid is drawn. */
async function open(size, { zh = false, large = false } = {}) {
  await page.setViewportSize(size);
  await page.goto(`${shop.url}/#/matrix`, { waitUntil: 'load' });
  await page.evaluate(({ z, l }) => { localStorage.setItem('seckill.zhLabels', z ? '1' : '0'); localStorage.setItem('seckill.largeType', l ? '1' : '0'); }, { z: zh, l: large });
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#matrix .mx-cell');
}

/** legible measures the section: its smallest text (px), words cut in their cells, texts wider than their box, and the grid's fit. */
const legible = () => page.evaluate(() => {
  let min = { px: Infinity, text: '' };
  for (const e of document.querySelectorAll('#matrix *')) {
    if (!e.getClientRects().length || e.closest('dialog:not([open])')) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (own && px < min.px) min = { px, text: e.textContent.trim().slice(0, 40) };
  }
  const cut = [...document.querySelectorAll('#matrix .mx-cell, #matrix .mx-rowh, #matrix .mx-colh')]
    .filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => b.textContent);
  const s = document.querySelector('#matrix .mx-scroll');
  const sec = document.getElementById('matrix').getBoundingClientRect();
  const wide = [...document.querySelectorAll('#matrix .mx-run, #matrix .mx-summary, #matrix .mx-filters, #matrix .mx-legend, #matrix .mx-cols')]
    .filter((e) => e.getBoundingClientRect().right > sec.right + 1).map((e) => e.className);
  return { min, cut, wide, fits: s.scrollWidth <= s.clientWidth, rowHeadSticky: getComputedStyle(document.querySelector('#matrix .mx-rowh')).position };
});

const cell = (row, fault) => page.locator(`#matrix .mx-cell[data-row="${row}"][data-fault="${fault}"]`);
const shot = (name) => page.screenshot({ path: path.join(SHOTS, `matrix-${name}.png`) });

test('before any run the section shows the predicted table, faded, and how to observe it', { timeout: 60_000 }, async (t) => {
  if (!ON_FIXTURE) {
    const res = await fetch(`${shop.url}/api/matrix`);
    assert.equal(res.status, 200, `GET /api/matrix: ${res.status} (the shop has no matrix endpoint?)`);
    const body = await res.json();
    if (body.observed) { t.skip('a report was already saved in this database'); return; }
  }
  await open(PROJECTOR);
  assert.match(await page.locator('#matrix .mx-run').innerText(), /^Predicted only: .* run loadtest matrix --targets /);
  assert.match(await page.locator('#matrix .mx-run code').innerText(), /^loadtest matrix --targets \S+,\S+/);
  assert.match(await page.locator('#matrix .mx-summary').innerText(), /cells predicted, none observed yet/);
  assert.equal(await page.locator('#matrix .mx-cell').count(), await page.locator('#matrix .mx-cell.predicted').count());
  assert.equal(await page.locator('#matrix .mx-cell.finding').count(), 0);
  await shot('predicted-1366');
});

test('a saved run draws every row and fault, a word in every cell, the findings marked and counted', { timeout: 60_000 }, async () => {
  await seed();
  await open(PROJECTOR);
  assert.equal(await page.locator('#matrix .mx-table tbody tr:not(.mx-band-h)').count(), ROWS);
  assert.equal(await page.locator('#matrix .mx-colh').count(), COLS);
  assert.deepEqual(await page.locator('#matrix .mx-colh .mx-n').allInnerTexts(), REPORT.faults.map((_, i) => String(i + 1)));
  assert.match(await page.locator('#matrix .mx-colh').first().getAttribute('title'), /^1 · Pause the lock holder \(pause_holder\)$/);
  const words = await page.locator('#matrix .mx-cell').allInnerTexts();
  assert.equal(words.length, ROWS * COLS);
  assert.deepEqual([...new Set(words)].sort(), ['broke', 'fence', 'holds', 'n/a', 'pause', 'skip', 'stuck'].filter((w) => words.includes(w)).sort());
  assert.ok(words.every((w) => w.trim()), 'a cell without its word');
  assert.equal(await page.locator('#matrix .mx-cell.finding').count(), FINDINGS.length);
  for (const f of FINDINGS) assert.match(await cell(f.row, f.fault).getAttribute('class'), /\bfinding\b/, `${f.row}/${f.fault}`);
  assert.match(await page.locator('#matrix .mx-summary').innerText(), new RegExp(`^\\d+ observed, ${FINDINGS.length} differ from the prediction, \\d+ n/a`));
  assert.match(await page.locator('#matrix .mx-run').innerText(), /^Observed 2026-05-02, .* on lab-box \(8 cores\) · commit 6508bc7 · full: every configuration · interrupted/);
  // The rows of no lock did not run: their predictions, faded.
  assert.match(await cell('none', 'pause_holder').getAttribute('class'), /\bpredicted\b/);
  assert.match(await cell('none', 'pause_holder').getAttribute('aria-label'), /predicted, not run$/);
  assert.deepEqual(await page.locator('#matrix .mx-band-h th').allInnerTexts(),
    ['Database (the articles\' first lock)', 'Redis', 'ZooKeeper', 'Beyond the articles: etcd, a hash ring', 'No distributed lock']);
  const m = await legible();
  assert.ok(m.min.px >= 16, `smallest text ${m.min.px}px: ${m.min.text}`);
  assert.deepEqual(m.cut, [], 'cut in their cells');
  assert.deepEqual(m.wide, [], 'wider than the section');
  assert.ok(m.fits, 'every column in view at 1366x768');
  await shot('1366');
  await page.locator('#matrix .mx-scroll').evaluate((e) => { e.scrollTop = 560; });
  await shot('1366-scrolled');
});

test('the filters: one strategy, one fault, findings only', { timeout: 60_000 }, async () => {
  await open(PROJECTOR);
  await page.selectOption('#mx-f-row', 's:redis');
  assert.equal(await page.locator('#matrix .mx-rowh').count(), 4);
  assert.deepEqual(await page.locator('#matrix .mx-rowh').allInnerTexts(), ['redis', '+fencing', '+no-watchdog', '+fencing+combine']);
  await page.selectOption('#mx-f-fault', 'stop_process');
  assert.equal(await page.locator('#matrix .mx-colh').count(), 1);
  assert.match(await page.locator('#matrix .mx-colh').innerText(), /^12 Stop the process \(SIGSTOP\)$/, 'one column: its title in the header');
  assert.deepEqual(await page.locator('#matrix .mx-cell').allInnerTexts(), ['broke', 'fence', 'broke', 'fence']);
  await page.selectOption('#mx-f-row', 'r:redis+fencing');
  assert.deepEqual(await page.locator('#matrix .mx-rowh').allInnerTexts(), ['redis+fencing'], 'alone, a variant is named in full');
  await page.selectOption('#mx-f-row', '');
  await page.selectOption('#mx-f-fault', '');
  await page.check('#mx-f-findings');
  const shown = await page.locator('#matrix .mx-cell.finding').count();
  assert.equal(shown, FINDINGS.length);
  assert.equal(await page.locator('#matrix .mx-table tbody tr:not(.mx-band-h)').count(), new Set(FINDINGS.map((f) => f.row)).size);
  await shot('findings');
  await page.selectOption('#mx-f-fault', 'nested_lock');
  assert.match(await page.locator('#matrix .mx-grid-wrap').innerText(), /No cell matches the filters/);
  await page.uncheck('#mx-f-findings');
  await page.selectOption('#mx-f-fault', '');
  assert.equal(await page.locator('#matrix .mx-cell').count(), ROWS * COLS);
});

test('a click opens a cell\'s detail: both verdicts, figures, history, seed, replay with copy, the timeline link', { timeout: 60_000 }, async () => {
  await open(PROJECTOR);
  const c = REPORT.cells.find((x) => x.row === 'redis' && x.fault === 'pause_holder');
  await cell('redis', 'pause_holder').click();
  const d = page.locator('#matrix dialog.mx-detail');
  await d.waitFor();
  const text = await d.innerText();
  assert.match(text, /^redis × 1 Pause the lock holder pause_holder/);
  assert.match(text, /Finding: observed ≠ predicted/);
  assert.match(text, /Observed\s+broke oversold 1, lost 1/);
  assert.match(text, new RegExp(`Predicted\\s+holds ${c.predicted.why_en.slice(0, 30).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(text, /History check\s+not linearizable/);
  assert.match(text, new RegExp(`Seed\\s+${c.seed}`));
  assert.equal(await d.locator('.mx-replay-line').innerText(), c.replay);
  await d.locator('.mx-copy').click();
  await page.waitForFunction(() => document.querySelector('.mx-copied').textContent !== '');
  assert.equal(await d.locator('.mx-copied').innerText(), 'copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), c.replay);
  assert.equal(await d.locator('a.mx-sale-link').getAttribute('href'), `#/timeline?sale=${c.sale_id}`);
  assert.equal(await d.locator('a.mx-sale-link').innerText(), `Open sale ${c.sale_id} on the Timeline`);
  const m = await legible();
  assert.ok(m.min.px >= 16, `smallest text with the detail open ${m.min.px}px: ${m.min.text}`);
  await shot('detail-1366');
  // The link opens the Timeline on that sale: it asks for its sections.
  const asked = page.waitForRequest((r) => new URL(r.url()).pathname === `/api/sales/${c.sale_id}/timeline`, { timeout: 10_000 });
  await d.locator('a.mx-sale-link').click();
  await page.waitForFunction(() => document.body.dataset.section === 'timeline');
  await asked;
  assert.equal(await d.isVisible(), false);
});

test('the keyboard: one Tab stop in the grid, the arrows move, Enter opens, Escape closes and gives focus back', { timeout: 60_000 }, async () => {
  await open(PROJECTOR);
  assert.equal(await page.locator('#matrix .mx-cell[tabindex="0"]').count(), 1);
  await page.locator('#mx-f-findings').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.fault), REPORT.faults[0].name);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const at = await page.evaluate(() => ({ row: document.activeElement.dataset.row, fault: document.activeElement.dataset.fault }));
  assert.deepEqual(at, { row: REPORT.rows[1].name, fault: REPORT.faults[1].name });
  await page.keyboard.press('Enter');
  const d = page.locator('#matrix dialog.mx-detail');
  await d.waitFor();
  assert.match(await d.locator('h3').innerText(), new RegExp(`^${REPORT.rows[1].name.replace(/[+]/g, '\\+')} × 2 `));
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('dialog.mx-detail').open);
  assert.deepEqual(await page.evaluate(() => ({ row: document.activeElement.dataset.row, fault: document.activeElement.dataset.fault })), at);
});

test('in Chinese every text of the section is Chinese (names and commands in code), the detail too', { timeout: 60_000 }, async () => {
  await open(PROJECTOR, { zh: true });
  assert.equal(await cell('redis', 'pause_holder').innerText(), '损坏');
  assert.equal(await cell('db-lock-table', 'cut_db').innerText(), '卡住');
  assert.match(await page.locator('#matrix .mx-summary').innerText(), new RegExp(`^已观测 \\d+ 格，其中 ${FINDINGS.length} 格与预测不符`));
  assert.match(await page.locator('#matrix .mx-run').innerText(), /^观测于 2026-05-02/);
  assert.equal(await page.locator('#nav a[data-section="matrix"]').innerText(), '故障矩阵');
  const names = REPORT.rows.map((r) => r.strategy);
  assert.deepEqual(await latinTexts(page, names, ['.stage', 'main > section:not(#matrix)', 'footer']), [], 'texts without Chinese');
  const m = await legible();
  assert.ok(m.min.px >= 16, `smallest text ${m.min.px}px: ${m.min.text}`);
  assert.deepEqual(m.cut, []);
  assert.ok(m.fits, 'every column in view at 1366x768 in Chinese');
  await shot('1366-zh');
  await cell('zookeeper', 'kill_zk_server').click();
  const d = page.locator('#matrix dialog.mx-detail');
  await d.waitFor();
  const text = await d.innerText();
  assert.match(text, /与预测不符/);
  assert.match(text, /观测结果\s+停售/);
  assert.match(text, /停售时长\s+\d+\.\d 秒/);
  assert.match(text, /历史检查\s+可线性化/);
  assert.match(text, /在时间线中打开第 \d+ 场秒杀/);
  assert.deepEqual(await latinTexts(page, names, ['.stage', 'main > section:not(#matrix)', 'footer']), [], 'the detail\'s texts without Chinese');
  await shot('detail-1366-zh');
  await page.keyboard.press('Escape');
  // The switch relabels the section in place.
  await page.click('#lang');
  await page.waitForFunction(() => document.querySelector('#matrix .mx-cell[data-row="redis"][data-fault="pause_holder"]').textContent === 'broke');
});

test('Large type on a projector: 20 px text, the grid scrolls sideways under its sticky row names, nothing cut', { timeout: 60_000 }, async () => {
  for (const zh of [false, true]) {
    await open(PROJECTOR, { zh, large: true });
    const m = await legible();
    assert.ok(m.min.px >= 20, `smallest text ${m.min.px}px: ${m.min.text}`);
    assert.deepEqual(m.cut, []);
    assert.deepEqual(m.wide, []);
    assert.equal(m.rowHeadSticky, 'sticky');
    const band = await page.locator('.stage').boundingBox();
    assert.ok(band.height <= PROJECTOR.height * 0.2, `the band takes ${band.height} px`);
    await shot(`1366-large${zh ? '-zh' : ''}`);
  }
  await page.locator('#matrix .mx-scroll').evaluate((e) => { e.scrollLeft = e.scrollWidth; });
  const head = await page.locator('#matrix .mx-rowh').first().boundingBox();
  const box = await page.locator('#matrix .mx-scroll').boundingBox();
  assert.ok(Math.abs(head.x - box.x) < 3, 'the row names stay at the left while the grid scrolls');
  await shot('1366-large-zh-scrolled');
});

test('a phone: the grid scrolls sideways under its sticky row names, the detail fits the screen', { timeout: 60_000 }, async () => {
  try {
    for (const zh of [false, true]) {
      await open(PHONE, { zh });
      const m = await legible();
      assert.ok(m.min.px >= 16, `smallest text ${m.min.px}px: ${m.min.text}`);
      assert.deepEqual(m.cut, []);
      assert.deepEqual(m.wide, [], 'wider than the phone');
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'the page scrolls sideways');
      await shot(`390${zh ? '-zh' : ''}`);
      await cell('redis', 'pause_holder').scrollIntoViewIfNeeded();
      await cell('redis', 'pause_holder').click();
      const d = page.locator('#matrix dialog.mx-detail');
      await d.waitFor();
      const b = await d.boundingBox();
      assert.ok(b.x >= 0 && b.x + b.width <= PHONE.width, `the detail is ${b.width} px wide at x ${b.x}`);
      await shot(`detail-390${zh ? '-zh' : ''}`);
      await page.keyboard.press('Escape');
    }
  } finally {
    await page.setViewportSize(PROJECTOR);
  }
});
