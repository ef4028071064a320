// The Timeline canvas on a 1366x768 projector, read from the back row:
// with Large type on, every text the canvas writes is 16 px or more (the
// sizes every ctx.font set on it, recorded as the page sets them), two
// faults starting at the same instant have names that do not touch, and
// the stock figures stay inside the stock band. The canvas says where it
// wrote (canvas.dataset.boxes): no pixel is read. Fixture: the pause sale
// with a second fault, "Stop the process" on replica-1, from the same
// instant (fixtures/timeline-redis-two-faults.json). Screenshots in English
// and Chinese go to e2e/browser/test-results/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = path.join(HERE, 'test-results');
const PROJECTOR = { width: 1366, height: 768 };
const FAULTS = {
  enabled: false, replica: 'fixture', kinds: [
    { kind: 'pause_holder', title: { en: 'Pause the lock holder', zh: '暂停持锁者' }, parameters: [] },
    { kind: 'stop_process', title: { en: 'Stop the process', zh: '暂停进程' }, parameters: [] },
  ],
};

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, path.join(HERE, 'fixtures/timeline-redis-two-faults.json'), { extra: { '/api/faults': () => FAULTS } });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-tll-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  // Large type on from the start, and every font the timeline's canvas is
  // given recorded (whoever sets it): window.tlFonts.
  await ctx.addInitScript(() => {
    localStorage.setItem('seckill.largeType', '1');
    window.tlFonts = [];
    const d = Object.getOwnPropertyDescriptor(CanvasRenderingContext2D.prototype, 'font');
    Object.defineProperty(CanvasRenderingContext2D.prototype, 'font', {
      get() { return d.get.call(this); },
      set(v) { if (this.canvas && this.canvas.id === 'tl-canvas') window.tlFonts.push(v); d.set.call(this, v); },
      configurable: true,
    });
  });
  await page.goto(`${server.url}/#/timeline`, { waitUntil: 'load' });
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas').dataset.drawn || 0) > 0);
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

/** painted waits for the canvas's next paint after act(), and returns its boxes and the fonts set since (no act: since the page loaded). */
async function painted(act) {
  if (!act) return page.evaluate(() => ({ boxes: JSON.parse(document.querySelector('#tl-canvas').dataset.boxes || 'null'), fonts: window.tlFonts }));
  const before = await page.evaluate(() => { window.tlFonts = []; return Number(document.querySelector('#tl-canvas').dataset.drawn); });
  await act();
  await page.waitForFunction((n) => Number(document.querySelector('#tl-canvas').dataset.drawn) > n, before);
  return page.evaluate(() => ({ boxes: JSON.parse(document.querySelector('#tl-canvas').dataset.boxes || 'null'), fonts: window.tlFonts }));
}

/** sizes are the px sizes of the fonts set ("bold 16px system-ui" -> 16). */
const sizes = (fonts) => fonts.map((f) => Number(/(\d+(?:\.\d+)?)px/.exec(f)?.[1]));

const intersect = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** checkLegible asserts the three rules on a paint: 16 px or more, fault names apart, stock figures in their band. */
function checkLegible({ boxes, fonts }, what) {
  assert.ok(fonts.length > 0, `${what}: the canvas set its fonts`);
  const small = sizes(fonts).filter((s) => !(s >= 16));
  assert.deepEqual(small, [], `${what}: every canvas text is 16 px or more with Large type (${[...new Set(fonts)].join(', ')})`);
  assert.ok(boxes, `${what}: the canvas exposes its boxes (canvas.dataset.boxes)`);
  assert.ok(boxes.fonts.every((s) => s >= 16), `${what}: boxes.fonts ${boxes.fonts}`);
  assert.equal(boxes.faults.length, 2, `${what}: both faults are named: ${JSON.stringify(boxes.faults)}`);
  for (const f of boxes.faults) assert.ok(f.size >= 16, `${what}: ${f.text} is ${f.size} px`);
  const [a, b] = boxes.faults;
  assert.ok(!intersect(a, b), `${what}: "${a.text}" and "${b.text}" do not touch: ${JSON.stringify(boxes.faults)}`);
  const [fTop, fH] = boxes.bands.faults;
  for (const f of boxes.faults) assert.ok(f.y >= fTop && f.y + f.h <= fTop + fH, `${what}: "${f.text}" inside the fault band ${fTop}+${fH}: ${JSON.stringify(f)}`);
  const [top, h] = boxes.bands.stock;
  assert.ok(boxes.stock.length >= 2, `${what}: stock figures are written: ${JSON.stringify(boxes.stock)}`);
  for (const s of boxes.stock) {
    assert.ok(s.size >= 16, `${what}: stock figure ${s.text} is ${s.size} px`);
    assert.ok(s.y >= top && s.y + s.h <= top + h, `${what}: stock figure ${s.text} at ${s.y}+${s.h} inside the stock band ${top}+${h}`);
  }
}

test('Large type at 1366x768: canvas text 16 px or more, fault names apart, stock figures in their band (decisive moment and whole sale)', async () => {
  assert.equal(await page.locator('html').getAttribute('class'), 'large');
  checkLegible(await painted(), 'decisive moment');
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-large-decisive.png') });
  checkLegible(await painted(() => page.click('#tl-fit')), 'whole sale');
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-large-whole.png') });
});

test('with Large type, hover finds the section under the pointer in the larger lanes', async () => {
  // The whole sale is shown (the test before): replica-2's first lane, the middle of the paused hold.
  const { boxes } = await painted();
  const [top, h] = boxes.bands.lanes;
  const rowH = h / 3; // replica-1, replica-2, replica-2's row 2
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'center' }));
  const box = await page.locator('#tl-canvas').boundingBox();
  await page.mouse.move(box.x + box.width * 0.5, box.y + top + rowH * 1.5);
  await page.waitForSelector('#tl-tip:not([hidden])');
  const tip = await page.locator('#tl-tip').innerText();
  assert.match(tip, /replica-2/);
  assert.match(tip, /#2 /);
  await page.mouse.move(0, 0);
  // The hover's repaint done before the next test counts paints.
  await page.waitForSelector('#tl-tip', { state: 'hidden' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
});

test('in Chinese too', async () => {
  const shot = await painted(() => page.click('#lang'));
  checkLegible(shot, '中文');
  assert.ok(shot.boxes.faults.some((f) => /暂停持锁者/.test(f.text)), JSON.stringify(shot.boxes.faults));
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-large-zh.png') });
  await painted(() => page.click('#lang'));
});

test('a sale of 20,000 sections zoomed in: its five-digit stock figures do not run into each other', async () => {
  const { boxes } = await painted(() => page.selectOption('#tl-sale', '8'));
  await page.waitForFunction(() => /#8 redis/.test(document.querySelector('#tl-facts').textContent));
  // It opens on its decisive moment, a window of real sections fetched for it.
  await page.waitForFunction(() => (document.querySelector('#tl-canvas').dataset.detail || '') !== '', null, { timeout: 10_000 });
  const shot = await painted();
  const figures = shot.boxes.stock;
  assert.ok(figures.length >= 2 && figures.every((f) => f.text.length === 5), JSON.stringify(figures));
  for (let i = 1; i < figures.length; i++) {
    assert.ok(!intersect(figures[i - 1], figures[i]), `stock figures ${figures[i - 1].text} and ${figures[i].text} touch: ${JSON.stringify(figures)}`);
  }
  const [top, h] = shot.boxes.bands.stock;
  assert.ok(figures.every((s) => s.y >= top && s.y + s.h <= top + h), JSON.stringify(shot.boxes));
  assert.ok(boxes, 'the first paint of sale 8 exposes its boxes too');
  await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'timeline-1366-large-zoomed-summarised.png') });
  await painted(() => page.selectOption('#tl-sale', '7'));
  await page.waitForFunction(() => /#7 redis/.test(document.querySelector('#tl-facts').textContent));
});

test('Large type off: the canvas follows at once, its text no smaller than 13 px, still apart and in its bands', async () => {
  const { boxes, fonts } = await painted(() => page.click('#large'));
  assert.equal(await page.locator('html').getAttribute('class'), '');
  assert.ok(sizes(fonts).every((s) => s >= 13 && s < 16), `normal type: ${[...new Set(fonts)]}`);
  const [a, b] = boxes.faults;
  assert.ok(!intersect(a, b), JSON.stringify(boxes.faults));
  const [top, h] = boxes.bands.stock;
  assert.ok(boxes.stock.every((s) => s.y >= top && s.y + s.h <= top + h), JSON.stringify(boxes));
  const back = await painted(() => page.click('#large'));
  assert.ok(sizes(back.fonts).every((s) => s >= 16), 'Large type on again: 16 px');
  assert.deepEqual(pageErrors, []);
});
