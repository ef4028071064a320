// The Timeline section in Debian's chromium against fixtures
// (fixture-server.mjs: the dashboard's files and a timeline that follows
// the JSON contract), no demo: the canvas draws the lanes, the red
// overlap, the crossed-out fenced write, the fault band; the count lists
// its pairs and a pair jumps; the replay moves at the speed picked, kept
// across sales and reloads; hover shows a section; tokens read #1, #2, ...
// (their rank in the sale), never their 16 digits.
// Screenshots at 1366x768 (a projector) and 390x844 (a phone) go to
// e2e/browser/test-results/.
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
const PHONE = { width: 390, height: 844 };

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer();
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-tl-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // The fixture server has no history check: its 404 is expected.
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await page.goto(`${server.url}/#/timeline`, { waitUntil: 'load' });
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas').dataset.drawn || 0) > 0);
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

/** colourCount counts the canvas pixels near rgb (within tol per channel). */
const colourCount = (rgb, tol = 40) => page.evaluate(([[r, g, b], t]) => {
  const c = document.querySelector('#tl-canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - r) <= t && Math.abs(d[i + 1] - g) <= t && Math.abs(d[i + 2] - b) <= t) n++;
  return n;
}, [rgb, tol]);

/** LONG is a raw token's run of digits (five or more): never on a bar, in a pair or the narration. */
const LONG = /\d{5,}/;

/** labels are the texts the canvas wrote on the holds last (canvas.dataset.labels). */
const labels = async () => (await page.evaluate(() => document.querySelector('#tl-canvas').dataset.labels || '')).split(' ').filter(Boolean);

/** saleTime reads the replay's position (#tl-now, "512.345 ms" or "1.234 s") in ms. */
const saleTime = async () => {
  const m = /^(-?[\d.]+) (ms|s)$/.exec(await page.locator('#tl-now').innerText());
  assert.ok(m, 'the replay shows its time');
  return Number(m[1]) * (m[2] === 's' ? 1000 : 1);
};

/**
 * replayed plays for about wallMs of wall time and says how far the
 * replay moved in sale time, and the wall time it took.
 */
async function replayed(wallMs) {
  await page.click('#tl-play');
  await page.waitForFunction(() => document.querySelector('#tl-play').getAttribute('aria-pressed') === 'true');
  const t0 = await saleTime(), w0 = Date.now();
  await page.waitForTimeout(wallMs);
  const t1 = await saleTime(), w1 = Date.now();
  await page.click('#tl-play');
  return { sale: t1 - t0, wall: w1 - w0 };
}

const RED = [209, 36, 47], BLUE = [31, 111, 235], GREEN = [45, 164, 78], FAULT = [246, 235, 204];

test('it opens on the decisive moment with lanes, the red overlap, the lease and the fault band drawn', async () => {
  assert.equal(await page.locator('#tl-sale').inputValue(), '7');
  // The first overlap starts 511.7 ms after the window's start: the view is around it.
  const shown = await page.locator('#tl-window').innerText();
  assert.match(shown, /^50\d\.\d{3} ms – 5[23]\d\.\d{3} ms$/, shown);
  assert.ok(await colourCount(RED, 30) > 200, 'the overlap is red');
  assert.ok(await colourCount(BLUE, 30) > 200, 'the holds are drawn');
  assert.ok(await colourCount(GREEN, 30) > 50, 'the lease strip is drawn');
  assert.ok(await colourCount(FAULT, 12) > 200, 'the fault window is shaded');
  assert.match(await page.locator('#tl-facts').innerText(), /#7 redis .*Fencing tokens: on .*Watchdog: off .*TTL 500 ms/);
  assert.equal(await page.locator('#tl-narration li').count(), 6);
  assert.match(await page.locator('#tl-narration li button.now').innerText(), /replica-1 gets token #3/);
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-decisive.png') });
});

test('the holds say their token\'s rank, #1 to #9, never a raw token; the narration too', async () => {
  await page.click('#tl-fit');
  await page.waitForFunction(() => document.querySelector('#tl-window').textContent.startsWith('0.000 ms'));
  await page.click('#tl-decisive');
  await page.waitForFunction(() => /#3/.test(document.querySelector('#tl-canvas').dataset.labels || ''));
  const drawn = await labels();
  assert.ok(drawn.length >= 3, `the holds in view are labelled: ${drawn}`);
  for (const l of drawn) assert.match(l, /^#[1-9]$/, `a hold says ${l}`);
  assert.ok(drawn.includes('#3') && drawn.includes('#4'), `the newer holders' tokens: ${drawn}`);
  assert.doesNotMatch(await page.locator('#tl-narration').innerText(), LONG, 'the narration says ranks');
  assert.match(await page.locator('#tl-narration').innerText(), /replica-2 writes with token #2: refused \(fenced\), the newer #6 had written before it/);
});

test('the count says what it counts and lists its pairs; a pair jumps to its window', async () => {
  assert.equal(await page.locator('#tl-viol-n').innerText(), '5');
  // What it counts is one click away (open, it would push the canvas down).
  assert.equal(await page.locator('#tl-viol-what').isVisible(), false);
  await page.click('.tl-viol-explain summary');
  assert.match(await page.locator('#tl-viol-what').innerText(), /pairs of critical sections/);
  await page.click('.tl-viol-explain summary');
  await page.click('#tl-viol-n');
  assert.equal(await page.locator('#tl-pairs tbody tr').count(), 5);
  assert.match(await page.locator('#tl-pairs tbody tr').nth(4).innerText(), /replica-2 #2.*replica-2 #7.*order 55/s);
  assert.doesNotMatch(await page.locator('#tl-pairs tbody').innerText(), LONG, 'the pairs say ranks, not raw tokens');
  const before = await page.locator('#tl-window').innerText();
  await page.click('#tl-pairs tbody tr >> nth=4');
  await page.waitForFunction((b) => document.querySelector('#tl-window').textContent !== b, before);
  const shown = await page.locator('#tl-window').innerText();
  assert.ok(/^-\d+\.\d{3} ms – 3\.\d+ s$/.test(shown), `the window shows the pair whole (11.48 ms to 3.019 s): ${shown}`);
  await page.click('#tl-viol-n');
});

test('the whole sale shows the crossed-out fenced write and the fault named; hover tells a section', async () => {
  await page.click('#tl-fit');
  await page.waitForFunction(() => document.querySelector('#tl-window').textContent.startsWith('0.000 ms'));
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'end' }));
  const box = await page.locator('#tl-canvas').boundingBox();
  // replica-2's first lane, in the middle of the paused hold.
  await page.mouse.move(box.x + box.width * 0.5, box.y + 26 + 46 + 25);
  await page.waitForSelector('#tl-tip:not([hidden])');
  const tip = await page.locator('#tl-tip').innerText();
  assert.match(tip, /replica-2/);
  assert.match(tip, /#2 \(raw 1795827359907589\)/, 'the rank, with the raw token');
  assert.match(tip, /fenced/);
  assert.match(tip, /Pause the lock holder/);
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-whole.png') });
  await page.mouse.move(0, 0);
});

test('the replay moves at the speed picked, and the scrubber follows', async () => {
  await page.click('#tl-decisive');
  await page.check('input[name=tl-speed][value="0.1"]');
  await page.click('#tl-play');
  await page.waitForFunction(() => document.querySelector('#tl-now').textContent !== '');
  const t1 = await page.locator('#tl-now').innerText();
  await page.waitForFunction((t) => document.querySelector('#tl-now').textContent !== t, t1);
  await page.click('#tl-play');
  assert.equal(await page.getAttribute('#tl-play', 'aria-pressed'), 'false');
  // A scrub to the middle moves the cursor there.
  await page.locator('#tl-scrub').fill('500');
  assert.match(await page.locator('#tl-now').innerText(), /^1\.5\d{2} s$/);
});

test('a replay captions the canvas with the line of the moment, lit in the list too, and the caption advances', async () => {
  const caption = () => page.evaluate(() => JSON.parse(document.querySelector('#tl-canvas').dataset.boxes).caption);
  const lit = () => page.evaluate(() => document.querySelector('#tl-narration button.now span:last-of-type')?.textContent || '');
  await page.click('#tl-fit');
  await page.locator('#tl-scrub').fill('0');
  // Drawn on the next frame: waited for, not read at once.
  await page.waitForFunction(() => !JSON.parse(document.querySelector('#tl-canvas').dataset.boxes).caption, null, { timeout: 10_000 });
  await page.locator('#tl-scrub').fill('300');
  await page.waitForFunction(() => JSON.parse(document.querySelector('#tl-canvas').dataset.boxes).caption);
  const first = await caption();
  assert.equal(first.text, await lit(), 'the caption is the narration line lit in the list');
  assert.ok(first.size >= 13 && first.w > 0 && first.h >= first.size, JSON.stringify(first));
  const plot = await page.evaluate(() => document.querySelector('#tl-canvas').getBoundingClientRect().width);
  assert.ok(first.x + first.w <= plot, 'the caption is whole inside the canvas');
  await page.locator('#tl-scrub').fill('999');
  await page.waitForFunction((t) => JSON.parse(document.querySelector('#tl-canvas').dataset.boxes).caption?.text !== t, first.text);
  assert.equal((await caption()).text, await lit());
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-caption.png') });
});

test('Chinese labels and narration, and a phone: the lanes scroll sideways, the legend wraps', async () => {
  await page.click('#lang');
  assert.match(await page.locator('#tl-narration li').first().innerText(), /replica-2 获得令牌 #2/);
  assert.match(await page.locator('#tl-legend').innerText(), /等锁/);
  // Every swatch has its colour (the CSP drops a style attribute).
  const blank = await page.$$eval('#tl-legend .sw', (sws) => sws.filter((s) => getComputedStyle(s).backgroundColor === 'rgba(0, 0, 0, 0)').length);
  assert.equal(blank, 0, `${blank} legend swatches have no colour`);
  await page.click('#tl-decisive');
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-zh.png') });
  await page.click('#lang');
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  const sizes = await page.evaluate(() => {
    const s = document.querySelector('.tl-scroll');
    return { scroll: s.scrollWidth, client: s.clientWidth, body: document.documentElement.scrollWidth };
  });
  assert.ok(sizes.scroll > sizes.client, 'the lanes scroll sideways inside their box');
  assert.ok(sizes.body <= PHONE.width + 1, `the page itself does not: ${sizes.body}`);
  await page.locator('#tl-legend').scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(SHOTS, 'timeline-390-phone.png') });
  await page.setViewportSize(PROJECTOR);
  assert.deepEqual(pageErrors, []);
});

test('a summarised sale shows its buckets; zoomed in, its window is fetched again and real sections drawn', async () => {
  const detail = () => page.evaluate(() => document.querySelector('#tl-canvas').dataset.detail || '');
  const asked = server.timelineAsks.length;
  await page.selectOption('#tl-sale', '8');
  await page.waitForFunction(() => /#8 redis/.test(document.querySelector('#tl-facts').textContent));
  await page.click('#tl-fit');
  await page.waitForFunction(() => document.querySelector('#tl-window').textContent.startsWith('0.000 ms'));
  assert.equal(await detail(), '', 'the whole sale is drawn from its buckets');
  assert.match(await page.locator('#tl-facts').innerText(), /summarised|buckets/i);
  // Zoom in until the view holds fewer sections than the bound: the view asks for its window.
  for (let i = 0; i < 4; i++) await page.click('#tl-zoom-in');
  await page.waitForFunction(() => (document.querySelector('#tl-canvas').dataset.detail || '') !== '', null, { timeout: 10_000 });
  const windowed = server.timelineAsks.slice(asked).filter((q) => /from=.*&to=/.test(q));
  assert.ok(windowed.length >= 1, `a ?from=&to= request: ${server.timelineAsks.slice(asked)}`);
  assert.ok(await colourCount(BLUE, 30) > 200, 'the real holds are drawn');
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-zoomed-summarised.png') });
  // Back to the whole sale: the buckets again, no new request needed for them.
  await page.click('#tl-fit');
  await page.waitForFunction(() => (document.querySelector('#tl-canvas').dataset.detail || '') === '');
  await page.selectOption('#tl-sale', '7');
  await page.waitForFunction(() => /#7 redis/.test(document.querySelector('#tl-facts').textContent));
  assert.deepEqual(pageErrors, []);
});

test('the replay runs at the speed picked after another sale is chosen, and after a reload', async () => {
  // 0.25x on sale 7, then sale 8: before, its new replay ran at 1x while 0.25x stayed selected.
  await page.check('input[name=tl-speed][value="0.25"]');
  await page.selectOption('#tl-sale', '8');
  await page.waitForFunction(() => /#8 redis/.test(document.querySelector('#tl-facts').textContent));
  assert.equal(await page.isChecked('input[name=tl-speed][value="0.25"]'), true);
  // Wall time against sale time: 0.25x is a quarter, 1x would be four times that.
  // The bounds are wide (a slow machine draws fewer frames, never more time).
  const a = await replayed(2000);
  assert.ok(a.sale > a.wall * 0.25 * 0.3 && a.sale < a.wall * 0.25 * 2,
    `${a.sale.toFixed(0)} ms of the sale in ${a.wall} ms of wall time: want about ${(a.wall * 0.25).toFixed(0)} (0.25x)`);
  // A reload keeps the speed.
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas').dataset.drawn || 0) > 0);
  assert.equal(await page.isChecked('input[name=tl-speed][value="0.25"]'), true, 'the speed survives a reload');
  const b = await replayed(2000);
  assert.ok(b.sale > b.wall * 0.25 * 0.3 && b.sale < b.wall * 0.25 * 2,
    `after a reload: ${b.sale.toFixed(0)} ms of the sale in ${b.wall} ms of wall time, want about ${(b.wall * 0.25).toFixed(0)}`);
  // Back to 1x: four times faster, and kept.
  await page.check('input[name=tl-speed][value="1"]');
  const c = await replayed(1000);
  assert.ok(c.sale > c.wall * 0.3 && c.sale < c.wall * 2, `1x: ${c.sale.toFixed(0)} ms of the sale in ${c.wall} ms`);
  assert.deepEqual(pageErrors, []);
});
