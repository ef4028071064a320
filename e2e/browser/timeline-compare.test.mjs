// Two sales on one time axis: the Timeline's "Compare with"
// (#/timeline?sale=12&vs=13). Two fixture sales of the same shop, redis
// without combining (4.50 s from its first event to its last) and with
// combining (0.57 s), about 8:1: the second is drawn under the first at
// the same milliseconds per pixel, so its bars end 7.9 times sooner; the
// caption says both lengths and the ratio, in English and Chinese; the URL
// carries the comparison and a reload keeps it; ✕ and the picker's "—"
// end it; a `vs` that is not a sale id, or names no sale, says so and the
// one sale's view goes on. Canvas text 16 px or more with Large type at
// 1366x768, a phone at 390x844 scrolls the lanes, not the page. The
// canvases say what they drew (dataset.boxes: the scale and the bars'
// extent); no pixel is read. The pure part (timeline-compare.js) is tested
// first, without a browser. Screenshots go to $SHOTS, else
// <tmp>/seckill-timeline-compare.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';
import {
  compareCaption, durationText, sharedViews, saleHeading, verdictWord,
} from '../../web/static/assets/timeline-compare.js';
import { hashOf, parseHash, vsInHash } from '../../web/static/assets/nav.js';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = process.env.SHOTS || path.join(os.tmpdir(), 'seckill-timeline-compare');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };

// ---- the fixture: two sales of about 8:1 ----------------------------------------

const T12 = 1795720340000.25, T13 = 1795720350000.5;
const REPLICAS = ['shop-1', 'shop-2', 'shop-3'];
const COUNTS = { en: 'critical sections that began while another held the lock', zh: '在另一个持锁者仍持有锁时开始的临界区' };

/** timeline is a sale's GET /api/sales/{id}/timeline: n holds back to back of hold ms from t0, buyers per hold. */
function timeline(id, t0, { n, hold, buyers = 1, combine = false }) {
  const sections = [], stock = [{ at: t0, stock: 300 }], leases = [];
  let left = 300;
  for (let i = 0; i < n; i++) {
    const enter = t0 + i * hold;
    const s = {
      id: i + 1, replica: REPLICAS[i % 3], lane: 0, token: 1000 + i, token_rank: i + 1,
      wait_at: i === 0 ? t0 : enter - hold * 0.8, enter_at: enter, exit_at: enter + hold,
      order_id: i * buyers + 1, outcome: 'committed', buyers, orders: buyers,
    };
    sections.push(s);
    leases.push({ replica: s.replica, token: s.token, token_rank: s.token_rank, event: 'granted', at: enter, ttl_ms: 2000 });
    leases.push({ replica: s.replica, token: s.token, token_rank: s.token_rank, event: 'released', at: s.exit_at });
    left -= buyers;
    stock.push({ at: s.exit_at - hold * 0.1, stock: left });
  }
  return {
    sale_id: id, strategy: 'redis', fencing: true, watchdog: true, ttl_ms: 2000, work_ms: 100, initial_stock: 300,
    from: t0, to: t0 + n * hold, summarised: false, bucket_ms: 0, replicas: REPLICAS, sections, overlaps: [], leases,
    faults: [], fault_effects: [], stock, buckets: [], violations: { count: 0, pairs: 0, counts: COUNTS }, narration: [],
    ...(combine ? { combine: true, combine_max_batch: 100 } : {}),
  };
}

// 12: 30 holds of 150 ms, 4.50 s; 13: 6 batches of 50 buyers, 95 ms each, 0.57 s.
const TIMELINES = {
  12: timeline(12, T12, { n: 30, hold: 150 }),
  13: timeline(13, T13, { n: 6, hold: 95, buyers: 50, combine: true }),
};
const DURATION = { 12: 4500, 13: 570 };
const HOLDS = { kind: 'holds', reason_en: 'no oversell, no lost update', reason_zh: '没有超卖，没有丢失更新' };
const sale = (id, extra = {}) => ({ id, name: 'fixture', strategy: 'redis', initial_stock: 300, stock: 0, sold: 300, oversold: 0,
  lost_updates: 0, violations: 0, fenced_writes: 0, duplicates: 0, verdict: HOLDS, ...extra });
// The list has 13 and 12 (and 7, the pause sale's fixture, OVERLAPPED); 14 is older than the list.
const LIST = [sale(13, { combine: true }), sale(12),
  { id: 7, name: 'fixture', strategy: 'redis', initial_stock: 10, stock: 3, sold: 7, oversold: 0, lost_updates: 0, violations: 5, fenced_writes: 1, duplicates: 0 }];

// ---- the pure part ------------------------------------------------------------

test('vsInHash reads a sale id, says when it is not one; the nav keeps the comparison on the Timeline with the run, drops it without vs', () => {
  assert.deepEqual(vsInHash('#/timeline?sale=12&vs=13'), { raw: '13', id: 13 });
  assert.deepEqual(vsInHash('#/timeline?vs=13&run=4'), { raw: '13', id: 13 });
  assert.deepEqual(vsInHash('#/timeline?sale=12&vs=abc'), { raw: 'abc', id: 0 });
  assert.deepEqual(vsInHash('#/timeline?sale=12&vs=-3'), { raw: '-3', id: 0 });
  assert.deepEqual(vsInHash('#/timeline?sale=12&vs=%3Cb%3E'), { raw: '<b>', id: 0 });
  assert.equal(vsInHash('#/timeline?sale=12'), null);
  assert.equal(vsInHash('#/timeline?sale=12&vs='), null);
  assert.equal(vsInHash('#/run?vs=13'), null, 'only a timeline link compares');
  const canonical = (hash) => { const p = parseHash(hash); return hashOf(p.section, p.run, p.pins, p.compare); };
  assert.equal(canonical('#/timeline?sale=12&vs=13&run=3'), '#/timeline?sale=12&vs=13&run=3');
  assert.equal(canonical('#/timeline?run=3&vs=13&sale=12'), '#/timeline?sale=12&vs=13&run=3');
  assert.equal(canonical('#/timeline?sale=12&vs=abc&run=3'), '#/timeline?run=3', 'not a sale id: no comparison');
  assert.equal(canonical('#/timeline?sale=12'), '#/timeline', 'one sale: the section keeps it, the hash does not');
  assert.equal(hashOf('run', 3, '', 'sale=12&vs=13'), '#/run?run=3', 'the comparison stays on the Timeline');
});

test('sharedViews: one length of window for both, each from its own start', () => {
  const a = { from: 1000, to: 5500 }, b = { from: 90000, to: 90570 };
  const v = sharedViews(a, b);
  assert.equal(v.span, 4500);
  assert.equal(v.a.to - v.a.from, v.b.to - v.b.from, 'one scale');
  assert.ok(v.a.from < a.from && v.b.from < b.from && a.from - v.a.from === b.from - v.b.from, 'each from its start, one margin');
  assert.ok(v.a.to >= a.to && v.b.to >= b.from + 4500, 'as long as the longer sale');
  assert.deepEqual(sharedViews(b, a).span, 4500, 'whichever is first');
});

test('the caption says both lengths and the ratio of the second sale, in English and Chinese', () => {
  assert.equal(compareCaption({ id: 12, ms: 4500 }, { id: 13, ms: 570 }).text, '#12 took 4.50 s, #13 took 0.57 s: 7.9× shorter');
  assert.equal(compareCaption({ id: 13, ms: 570 }, { id: 12, ms: 4500 }).text, '#13 took 0.57 s, #12 took 4.50 s: 7.9× longer');
  assert.equal(compareCaption({ id: 1, ms: 1000 }, { id: 2, ms: 1020 }).text, '#1 took 1.00 s, #2 took 1.02 s: about as long');
  assert.equal(compareCaption({ id: 12, ms: 4500 }, { id: 13, ms: 570 }, true).text, '#12 用时 4.50 秒，#13 用时 0.57 秒：#13 只用了 1/7.9 的时间');
  assert.equal(compareCaption({ id: 13, ms: 570 }, { id: 12, ms: 4500 }, true).text, '#13 用时 0.57 秒，#12 用时 4.50 秒：#12 用时是 #13 的 7.9 倍');
  assert.equal(durationText(12.34), '12.3 ms');
  assert.equal(durationText(12.34, true), '12.3 毫秒');
  assert.equal(saleHeading(TIMELINES[13]), '#13 · redis · combining ≤100');
  assert.equal(saleHeading(TIMELINES[12], true), '#12 · redis');
  assert.deepEqual(verdictWord(sale(12)), { word: 'holds', tone: 'ok' });
  assert.deepEqual(verdictWord(sale(12, { verdict: { kind: 'broken', reason_en: 'oversold by 3' } })), { word: 'BROKEN', tone: 'bad' });
  assert.deepEqual(verdictWord(LIST[2], true), { word: '重叠但数据安全', tone: 'warn' });
});

// ---- the page -----------------------------------------------------------------

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0, undefined, {
    extra: { '/api/sales': () => LIST, '/api/sales/12': () => LIST[1], '/api/sales/13': () => LIST[0] },
    handle: (req, res, url) => {
      const m = /^\/api\/sales\/(\d+)\/timeline$/.exec(url.pathname);
      if (!m || !TIMELINES[m[1]]) return false;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(TIMELINES[m[1]]));
      return true;
    },
  });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-tlc-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // No history check and no sale 999 on the fixture: their 404s are expected.
  page.on('console', (m) => { if (m.type() === 'error' && !/404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  // Every font either timeline canvas is given, recorded: window.tlFonts.
  await ctx.addInitScript(() => {
    window.tlFonts = [];
    const d = Object.getOwnPropertyDescriptor(CanvasRenderingContext2D.prototype, 'font');
    Object.defineProperty(CanvasRenderingContext2D.prototype, 'font', {
      get() { return d.get.call(this); },
      set(v) { if (this.canvas && /^tl-canvas/.test(this.canvas.id)) window.tlFonts.push(v); d.set.call(this, v); },
      configurable: true,
    });
  });
  await page.goto(`${server.url}/#/timeline?sale=12&vs=13`, { waitUntil: 'load' });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
});

/** compared waits for both canvases drawn as a comparison of a and b, and returns what they drew. */
async function compared(a, b) {
  await page.waitForFunction(([x, y]) => {
    const c = document.querySelector('#tl-canvas').dataset.compare;
    return c && JSON.parse(c).a.id === x && JSON.parse(c).b.id === y && !document.querySelector('#tl-canvas-vs').hidden
      && Number(document.querySelector('#tl-canvas-vs').dataset.drawn || 0) > 0;
  }, [a, b], { timeout: 15_000 });
  return page.evaluate(() => ({
    a: JSON.parse(document.querySelector('#tl-canvas').dataset.boxes),
    b: JSON.parse(document.querySelector('#tl-canvas-vs').dataset.boxes),
    compare: JSON.parse(document.querySelector('#tl-canvas').dataset.compare),
    fonts: window.tlFonts,
  }));
}

/** repainted waits for both canvases' next paint after act(), with the fonts set since. */
async function repainted(act, a = 12, b = 13) {
  const n = await page.evaluate(() => { window.tlFonts = []; return Number(document.querySelector('#tl-canvas-vs').dataset.drawn || 0); });
  await act();
  await page.waitForFunction((k) => Number(document.querySelector('#tl-canvas-vs').dataset.drawn || 0) > k, n);
  return compared(a, b);
}

/** single waits for the one sale's view of sale id: no second canvas, the zoom bar back. */
async function single(id) {
  await page.waitForFunction((x) => document.querySelector('#tl-canvas-vs').hidden && !document.querySelector('#tl-canvas').dataset.compare
    && !document.querySelector('#timeline .tl-bar').hidden && new RegExp(`^#${x} `).test(document.querySelector('#tl-facts').textContent), id, { timeout: 15_000 });
}

/** toCompare scrolls the page so that the first heading sits right under the sticky band: what a room sees. */
const toCompare = () => page.evaluate(() => {
  const under = document.querySelector('.stage').getBoundingClientRect().bottom;
  window.scrollBy(0, document.querySelector('#tl-cmp-a').getBoundingClientRect().top - under - 4);
});

const sizes = (fonts) => fonts.map((f) => Number(/(\d+(?:\.\d+)?)px/.exec(f)?.[1]));
const hashNow = () => page.evaluate(() => location.hash);
const text = (sel) => page.locator(sel).innerText();

/** oneScale asserts that the two drawings share their milliseconds per pixel and their bars' widths follow the durations. */
function oneScale({ a, b, compare }, what) {
  assert.ok(a.scale && b.scale, `${what}: both canvases say their scale`);
  assert.ok(Math.abs(a.scale.msPerPx / b.scale.msPerPx - 1) < 0.001, `${what}: one scale, ${a.scale.msPerPx} and ${b.scale.msPerPx} ms/px`);
  assert.ok(Math.abs(a.scale.x0 - b.scale.x0) < 0.5 && Math.abs(a.scale.plotW - b.scale.plotW) < 0.5, `${what}: one plot ${JSON.stringify([a.scale, b.scale])}`);
  const wa = a.extent.x1 - a.extent.x0, wb = b.extent.x1 - b.extent.x0;
  const want = DURATION[compare.a.id] / DURATION[compare.b.id];
  assert.ok(Math.abs(wa / wb / want - 1) < 0.03, `${what}: the widths drawn, ${wa.toFixed(1)} and ${wb.toFixed(1)} px, are ${(wa / wb).toFixed(2)}:1, want ${want.toFixed(2)}:1`);
  assert.ok(Math.abs(a.extent.x0 - b.extent.x0) < 1, `${what}: both start at the same x: ${a.extent.x0} ${b.extent.x0}`);
  assert.equal(compare.a.ms, DURATION[compare.a.id]);
  assert.equal(compare.b.ms, DURATION[compare.b.id]);
}

test('#/timeline?sale=12&vs=13: the two sales drawn at one scale, headed, the caption says both lengths and the ratio', async () => {
  const shot = await compared(12, 13);
  oneScale(shot, '12 vs 13');
  const wa = shot.a.extent.x1 - shot.a.extent.x0;
  assert.ok(wa > 0.8 * shot.a.scale.plotW, `the longer sale spans the axis: ${wa} of ${shot.a.scale.plotW}`);
  assert.equal(await text('#tl-cmp-caption'), '#12 took 4.50 s, #13 took 0.57 s: 7.9× shorter');
  assert.match(await text('#tl-cmp-a'), /^#12 · redis\s+holds$/);
  assert.match(await text('#tl-cmp-b'), /^#13 · redis · combining ≤100\s+holds$/);
  assert.equal(shot.b.end?.text, 'done in 0.57 s', `the shorter sale's end is marked: ${JSON.stringify(shot.b.end)}`);
  assert.ok(Math.abs(shot.b.end.at - shot.b.extent.x1) < 2, 'at its last bar');
  assert.equal(shot.a.end, null, 'the longer one needs no mark');
  assert.equal(await page.locator('#tl-sale').inputValue(), '12');
  assert.equal(await page.locator('#tl-vs').inputValue(), '13');
  await page.waitForFunction(() => location.hash === '#/timeline?sale=12&vs=13', null, { timeout: 5000 });
  // Zoom and replay stay with one sale: their bar goes, one line says so.
  assert.equal(await page.locator('#timeline .tl-bar').isHidden(), true);
  assert.match(await text('#tl-vs-off'), /zoom, replay and hover are off/);
  assert.equal(await page.locator('#tl-vs-clear').isVisible(), true);
  await page.evaluate(() => document.querySelector('#tl-cmp-caption').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'compare-1366.png') });
});

test('a reload keeps the comparison (the URL round-trips)', async () => {
  await page.reload({ waitUntil: 'load' });
  oneScale(await compared(12, 13), 'after a reload');
  await page.waitForFunction(() => location.hash === '#/timeline?sale=12&vs=13', null, { timeout: 5000 });
  assert.equal(await text('#tl-cmp-caption'), '#12 took 4.50 s, #13 took 0.57 s: 7.9× shorter');
  // Another section and back by the nav: still compared, the URL says so again.
  await page.click('#nav a[data-section=run]');
  await page.waitForFunction(() => document.body.dataset.section === 'run');
  await page.click('#nav a[data-section=timeline]');
  await compared(12, 13);
  await page.waitForFunction(() => location.hash === '#/timeline?sale=12&vs=13');
});

test('Large type at 1366x768, English and Chinese: every canvas text 16 px or more, the caption in Chinese', async () => {
  const large = await repainted(() => page.click('#large'));
  assert.equal(await page.locator('html').getAttribute('class'), 'large');
  const small = sizes(large.fonts).filter((s) => !(s >= 16));
  assert.deepEqual(small, [], `canvas text under 16 px with Large type: ${[...new Set(large.fonts)]}`);
  assert.ok(large.a.font >= 16 && large.b.font >= 16 && large.b.end.size >= 16, JSON.stringify([large.a.font, large.b.font, large.b.end]));
  oneScale(large, 'Large type');
  const plotRight = large.b.scale.x0 + large.b.scale.plotW;
  assert.ok(large.b.end.x + large.b.end.w <= plotRight, `the end's words are whole: ${JSON.stringify(large.b.end)}`);
  await toCompare();
  await page.screenshot({ path: path.join(SHOTS, 'compare-1366-large.png') });
  const zh = await repainted(() => page.click('#lang'));
  assert.deepEqual(sizes(zh.fonts).filter((s) => !(s >= 16)), [], `中文: ${[...new Set(zh.fonts)]}`);
  assert.equal(await text('#tl-cmp-caption'), '#12 用时 4.50 秒，#13 用时 0.57 秒：#13 只用了 1/7.9 的时间');
  assert.match(await text('#tl-cmp-b'), /#13 · redis · 合并 ≤100\s+守住/);
  assert.equal(zh.b.end.text, '0.57 秒 结束');
  assert.match(await text('#tl-vs-off'), /缩放、回放和悬停已关闭/);
  await page.evaluate(() => document.querySelector('#tl-cmp-caption').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'compare-1366-large-zh.png') });
  await repainted(() => page.setViewportSize(PHONE));
  await page.evaluate(() => document.querySelector('#tl-cmp-caption').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'compare-390-large-zh.png') });
  await repainted(() => page.setViewportSize(PROJECTOR));
  await repainted(() => page.click('#lang'));
  await repainted(() => page.click('#large'));
  assert.equal(await page.locator('html').getAttribute('class'), '');
  await toCompare();
  await page.screenshot({ path: path.join(SHOTS, 'compare-1366-zh-off.png') });
});

test('a phone at 390x844: the lanes scroll sideways in their box, the page does not; headings and caption in view', async () => {
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(200);
  const shot = await compared(12, 13);
  oneScale(shot, 'phone');
  const sizes = await page.evaluate(() => {
    const s = document.querySelector('.tl-scroll');
    const box = (sel) => document.querySelector(sel).getBoundingClientRect();
    s.scrollLeft = s.scrollWidth; // scrolled to the far right: the headings stay
    const head = box('#tl-cmp-b');
    return { scroll: s.scrollWidth, client: s.clientWidth, body: document.documentElement.scrollWidth, head: [head.left, head.right], caption: box('#tl-cmp-caption').right };
  });
  assert.ok(sizes.scroll > sizes.client, 'the lanes scroll sideways inside their box');
  assert.ok(sizes.body <= PHONE.width + 1, `the page itself does not: ${sizes.body}`);
  assert.ok(sizes.head[0] >= 0 && sizes.head[1] <= PHONE.width + 1, `the heading stays in view: ${sizes.head}`);
  assert.ok(sizes.caption <= PHONE.width, `the caption wraps inside the screen: ${sizes.caption}`);
  await page.evaluate(() => document.querySelector('#tl-cmp-b').scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: path.join(SHOTS, 'compare-390-scrolled.png') });
  await page.evaluate(() => { document.querySelector('.tl-scroll').scrollLeft = 0; });
  await page.evaluate(() => document.querySelector('#tl-cmp-caption').scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: path.join(SHOTS, 'compare-390-caption.png') });
  await page.setViewportSize(PROJECTOR);
});

test('✕ ends the comparison: the one sale\'s view, zoom and replay back, vs gone from the URL', async () => {
  await page.click('#tl-vs-clear');
  await single(12);
  assert.equal(await hashNow(), '#/timeline');
  assert.equal(await page.locator('#tl-vs').inputValue(), '');
  assert.equal(await page.locator('#tl-cmp-caption').isHidden(), true);
  assert.equal(await page.locator('#tl-vs-clear').isHidden(), true);
  // The one sale's view works: zoom changes its window.
  const before = await text('#tl-window');
  await page.click('#tl-zoom-in');
  await page.waitForFunction((b) => document.querySelector('#tl-window').textContent !== b, before);
  const boxes = await page.evaluate(() => JSON.parse(document.querySelector('#tl-canvas').dataset.boxes));
  assert.equal(boxes.end, null, 'no end mark on one sale');
});

test('the picker compares and its "—" ends it; a link to one sale (sale=, no vs) shows it alone', async () => {
  await page.selectOption('#tl-vs', '13');
  oneScale(await compared(12, 13), 'picked');
  await page.waitForFunction(() => location.hash === '#/timeline?sale=12&vs=13');
  // The other way round: the longer sale second, the shorter one first.
  await page.selectOption('#tl-sale', '13');
  await page.selectOption('#tl-vs', '12');
  const flip = await compared(13, 12);
  oneScale(flip, '13 vs 12');
  assert.equal(flip.a.end?.text, 'done in 0.57 s');
  assert.equal(await text('#tl-cmp-caption'), '#13 took 0.57 s, #12 took 4.50 s: 7.9× longer');
  await page.waitForFunction(() => location.hash === '#/timeline?sale=13&vs=12');
  await page.selectOption('#tl-vs', '');
  await single(13);
  assert.equal(await hashNow(), '#/timeline');
  // Compared again, then a lesson card's link to one sale.
  await page.selectOption('#tl-vs', '12');
  await compared(13, 12);
  await page.evaluate(() => { location.hash = '#/timeline?sale=7'; });
  await single(7);
  assert.equal(await page.locator('#tl-vs').inputValue(), '');
});

test('a vs that is not a sale id, or names no sale, says so in the section; the one sale\'s view goes on', async () => {
  await page.evaluate(() => { location.hash = '#/timeline?sale=12&vs=abc'; });
  await page.waitForFunction(() => !document.querySelector('#tl-vs-msg').hidden);
  assert.equal(await text('#tl-vs-msg'), 'Cannot compare with “abc”: not a sale number. Showing one sale.');
  await single(12);
  assert.doesNotMatch(await hashNow(), /vs=/);
  await page.click('#tl-zoom-out'); // the view still answers
  // A sale that does not exist (404), from a fresh page.
  await page.goto('about:blank');
  await page.goto(`${server.url}/#/timeline?sale=12&vs=999`, { waitUntil: 'load' });
  await page.waitForFunction(() => !document.querySelector('#tl-vs-msg').hidden, null, { timeout: 15_000 });
  assert.equal(await text('#tl-vs-msg'), 'Cannot compare with sale 999: there is no such sale. Showing one sale.');
  await single(12);
  assert.equal(await page.locator('#tl-canvas-vs').isHidden(), true);
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas').dataset.drawn || 0) > 0); // sale 12 is drawn
  assert.doesNotMatch(await hashNow(), /vs=/);
  await page.click('#lang');
  await page.waitForFunction(() => /没有这一场/.test(document.querySelector('#tl-vs-msg').textContent));
  await page.screenshot({ path: path.join(SHOTS, 'compare-bad-vs-zh.png') });
  await page.click('#lang');
  // A good comparison after it clears the message.
  await page.selectOption('#tl-vs', '13');
  await compared(12, 13);
  assert.equal(await page.locator('#tl-vs-msg').isHidden(), true);
  await toCompare();
  await page.screenshot({ path: path.join(SHOTS, 'compare-1366-after-bad.png') });
  await page.evaluate(() => document.querySelector('#timeline-h').scrollIntoView({ block: 'start' }));
  await page.evaluate(() => window.scrollBy(0, -document.querySelector('.stage').getBoundingClientRect().bottom));
  await page.screenshot({ path: path.join(SHOTS, 'compare-1366-controls.png') });
});

test('no page error', () => {
  assert.deepEqual(pageErrors, []);
});
