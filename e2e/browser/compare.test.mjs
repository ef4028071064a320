// The Compare section in Debian's chromium against fixtures
// (fixtures/compare-runs.mjs through fixture-server.mjs), no demo: a fenced
// redis run pinned beside the same run unfenced reads "overlapped, data
// safe" against "broken", names the one setting that differs (fencing) and
// the pause injected; orders/s (201s) stand apart from answers/s; the
// physical-limit ratio is "n/a" where sections overlapped; the unsafe
// redis-no-owner that held points to the lesson that breaks it; the pins
// survive a reload; Chinese. Screenshots at 1366x768 and 390x844, in
// English and Chinese, go to e2e/browser/test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';
import { API } from './fixtures/compare-runs.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = path.join(HERE, 'test-results');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, undefined, { extra: API });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-cmp-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // The fixture answers only what the comparison reads: its 404s are expected.
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/compare?pins=12.0,11.0`, { waitUntil: 'load' });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

const row = (pin) => page.locator(`#t-compare tbody tr[data-pin="${pin}"]`);
const cell = (pin, cls) => row(pin).locator(`td.${cls}`);

/** shoot takes the comparison at viewport size, scrolled to it. */
async function shoot(name, size) {
  await page.setViewportSize(size);
  await page.locator('#compare-h').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, name) });
  // And the table's own box whole, below the sticky band.
  await page.locator('#compare .compare-scroll').first().screenshot({ path: path.join(SHOTS, name.replace('.png', '-table.png')) });
}

test('a fenced run pinned beside the unfenced one: the three verdicts, what differs, the fault, n/a ratio', async () => {
  await row('11.0').locator('td.faults-cell', { hasText: 'pause_holder' }).waitFor({ timeout: 15_000 });
  assert.deepEqual(await page.locator('#t-compare tbody tr').evaluateAll((rs) => rs.map((r) => r.dataset.pin)), ['12.0', '11.0']);
  assert.match(await page.locator('#compare-mode').innerText(), /Pinned \(2\)/);
  const fenced = row('12.0').locator('td.verdict-cell');
  assert.match(await fenced.getAttribute('class'), /\bwarn\b/);
  assert.match(await fenced.innerText(), /^OVERLAPPED, DATA SAFE\n2 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0$/);
  const broken = row('11.0').locator('td.verdict-cell');
  assert.match(await broken.getAttribute('class'), /\bbad\b/);
  assert.match(await broken.innerText(), /^BROKEN\n2 sections overlapped; lost 1$/);
  assert.equal(await cell('12.0', 'fenced-cell').innerText(), '1');
  assert.equal(await cell('12.0', 'differs-cell').innerText(), 'fencing on');
  assert.equal(await cell('11.0', 'differs-cell').innerText(), 'fencing off');
  assert.equal(await cell('12.0', 'faults-cell').innerText(), 'pause_holder');
  // Sections overlapped: no physical-limit ratio, and the hover says why.
  assert.equal(await cell('12.0', 'limit-cell').innerText(), 'n/a: sections overlapped');
  assert.match(await cell('12.0', 'limit-cell').getAttribute('title'), /assumes one holder at a time/);
  assert.equal(await cell('12.0', 'orders-cell').innerText(), '4.5');
  assert.equal(await cell('12.0', 'answers-cell').innerText(), '20');
  await shoot('compare-pinned-1366.png', PROJECTOR);
});

test('pinning from the recent runs: mutex orders/s apart from answers/s, the lesson pointer, the URL', async () => {
  for (const pin of ['10.0', '10.1']) {
    const b = page.locator(`#t-recent tr[data-pin="${pin}"] button.pin-btn`);
    assert.equal(await b.getAttribute('aria-pressed'), 'false');
    await b.click();
    await row(pin).waitFor();
  }
  assert.match(new URL(page.url()).hash, /^#\/compare\?(run=\d+&)?pins=12\.0,11\.0,10\.0,10\.1$/);
  assert.equal(await page.locator('#t-recent tr[data-pin="10.0"] button.pin-btn').getAttribute('aria-pressed'), 'true');
  // mutex answered 2,217/s, mostly "sold out": its orders were 310/s.
  assert.equal(await cell('10.0', 'orders-cell').innerText(), '310');
  assert.equal(await cell('10.0', 'answers-cell').innerText(), '2,217');
  assert.equal(await cell('10.0', 'limit-cell').innerText(), 'n/a: sections overlapped');
  assert.match(await cell('10.1', 'limit-cell').innerText(), /^0\.97$/);
  assert.match(await cell('10.1', 'limit-cell').getAttribute('title'), /never sat free while a buyer waited/);
  const pointer = row('10.1').locator('.lesson-pointer');
  assert.match(await pointer.innerText(), /holds here; breaks in lesson del-without-owner/);
  assert.equal(await pointer.locator('a').getAttribute('href'), '#/lessons');
  // What differs among four rows: fencing, watchdog and work (not the stock).
  assert.match(await cell('10.0', 'differs-cell').innerText(), /^fencing off, watchdog on, work 20 ms$/);
  await shoot('compare-pinned-four-1366.png', PROJECTOR);
});

test('the lesson pointer opens the lesson that breaks the strategy, and back keeps the pins', async () => {
  await row('10.1').locator('.lesson-pointer a').click();
  await page.locator('#lesson-del-without-owner').waitFor();
  assert.equal(await page.locator('#lessons').isVisible(), true);
  await page.waitForFunction(() => {
    const r = document.querySelector('#lesson-del-without-owner').getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight + r.height; // scrolled to it
  });
  await page.goBack();
  await row('10.1').waitFor();
  assert.match(new URL(page.url()).hash, /pins=12\.0,11\.0,10\.0,10\.1$/);
});

test('the pins survive a reload; a pin is taken back', async () => {
  await page.reload({ waitUntil: 'load' });
  await row('10.1').waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#t-compare tbody tr').count(), 4);
  await row('10.1').locator('button.pin-btn').click();
  await row('10.1').waitFor({ state: 'detached' });
  assert.match(new URL(page.url()).hash, /pins=12\.0,11\.0,10\.0$/);
});

for (const zh of [false, true]) {
  test(`1366x768 Large type ${zh ? 'zh' : 'en'}: the safety columns in view beside the verdict, no header split inside a word`, async () => {
    await page.setViewportSize(PROJECTOR);
    await page.click('#large');
    if (zh) await page.click('#lang');
    try {
      await row('12.0').waitFor();
      const m = await page.evaluate(() => {
        const ths = [...document.querySelectorAll('#t-compare thead th')];
        const right = Object.fromEntries(['oversold', 'lostUpdates', 'violations', 'linearizable'].map((k) =>
          [k, document.querySelector(`#t-compare thead th[data-l="${k}"]`).getBoundingClientRect().right]));
        const box = document.querySelector('#compare .compare-scroll').getBoundingClientRect().right;
        // A header split inside a word has a line of one character (it was one per line in Chinese).
        const split = ths.filter((th) => {
          const r = document.createRange();
          r.selectNodeContents(th);
          const lines = [...r.getClientRects()].filter((b) => b.width > 0);
          const size = parseFloat(getComputedStyle(th).fontSize);
          return lines.length > 1 && lines.some((b) => b.width < 1.3 * size);
        }).map((th) => th.textContent);
        return { right, box, split };
      });
      for (const [k, r] of Object.entries(m.right)) assert.ok(r <= m.box, `${k} ends at ${r}, past the table's box (${m.box}): a sideways scroll to see it`);
      assert.deepEqual(m.split, [], 'headers split inside a word');
      await shoot(`compare-1366-large-${zh ? 'zh' : 'en'}.png`, PROJECTOR);
    } finally {
      if (zh) await page.click('#lang');
      await page.click('#large');
    }
  });
}

test('on a phone the table scrolls in its own box, not the page; Chinese at both sizes', async () => {
  await page.setViewportSize(PHONE);
  const box = await page.locator('#t-compare').evaluate((t) => {
    const s = t.closest('.compare-scroll');
    return { scroll: s.scrollWidth, client: s.clientWidth, right: s.getBoundingClientRect().right };
  });
  assert.ok(box.scroll > box.client, `the table should scroll in its box: ${JSON.stringify(box)}`);
  assert.ok(box.right <= PHONE.width, `the box should fit the phone: ${JSON.stringify(box)}`);
  await shoot('compare-pinned-390.png', PHONE);
  await page.locator('#lang').click();
  await row('12.0').locator('td.verdict-cell', { hasText: '重叠但数据安全' }).waitFor();
  assert.match(await row('12.0').locator('td.verdict-cell').innerText(), /防护令牌拒绝了 1 次过期写入/);
  assert.match(await row('11.0').locator('td.verdict-cell').innerText(), /数据已损坏/);
  assert.match(await cell('12.0', 'limit-cell').innerText(), /不适用：临界区重叠/);
  assert.match(await cell('12.0', 'differs-cell').innerText(), /防护令牌.*开/);
  await shoot('compare-pinned-390-zh.png', PHONE);
  await shoot('compare-pinned-1366-zh.png', PROJECTOR);
  await page.locator('#lang').click();
  assert.deepEqual(pageErrors, []);
});
