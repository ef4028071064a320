// Browser test of the shopper page /shop/{sale}: Debian's chromium, driven
// by playwright-core, against a real `shop demo` (2 replicas, 1 agent, the
// real MariaDB and Redis). A person waits for the opening, buys against
// bots that fire at it too, and the database counts the order; a second
// click is refused by the per-user limit; a ticket_required sale buys
// through its ticket; a phone-sized screen buys by keyboard only; an
// unknown sale says so; the dashboard's run form starts a sale that opens
// later and links to its shop. Every wait is on what the page or the API
// shows, never on elapsed time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, startDemo } from './demo.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SHOTS = path.join(ROOT, 'e2e/browser/test-results');
const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 30_000 };

let demo, browser, userDir;
const pageErrors = [];

before(async () => {
  demo = await startDemo({ replicas: 2, agents: 1, db: 'seckill_test_shop' });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-shop-'));
  browser = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PHONE, isMobile: true, hasTouch: true,
  });
}, { timeout: 120_000 });

after(async () => {
  await browser?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  const code = await demo?.stop();
  if (demo && code !== 0) console.error(`demo stopped with ${code}; logs in ${demo.logDir}\n${demo.output()}`);
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

/** api calls the demo's API: {status, body}. */
async function api(method, p, body, headers = {}) {
  const res = await fetch(demo.url + p, { method, headers: { 'Content-Type': 'application/json', ...headers },
    body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function createSale(spec) {
  const r = await api('POST', '/api/sales', { strategy: 'redis', stock: 20, ...spec });
  assert.equal(r.status, 201, `POST /api/sales: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** openShop opens the sale's page in a fresh tab (its own sessionStorage: another buyer). */
async function openShop(id) {
  const page = await browser.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // 4xx answers the test provokes are logged by chromium as failed loads; anything else is a bug.
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) pageErrors.push(`console: ${m.text()}`);
  });
  await page.goto(`${demo.url}/shop/${id}`, { waitUntil: 'load' });
  return page;
}

/** answer waits for the answer region to say something and returns it. */
async function answer(page) {
  await page.waitForFunction(() => document.querySelector('#answer').textContent.trim() !== '', null, WAIT);
  return page.locator('#answer').innerText();
}

/** clearAnswer empties the answer region, so the next answer is a new one. */
const clearAnswer = (page) => page.evaluate(() => { document.querySelector('#answer').textContent = ''; });

test('before the opening: a countdown, a button that says it is unavailable, and a click buys nothing', async () => {
  // An hour away: nothing here races the opening.
  const sale = await createSale({ name: 'Opens in an hour', stock: 5, opens_in_ms: 3_600_000 });
  const page = await openShop(sale.id);
  await page.waitForFunction(() => /^Opens in 59:[0-5]\d$/.test(document.querySelector('#p-opening').textContent), null, WAIT);
  assert.equal(await page.getAttribute('#buy', 'aria-disabled'), 'true');
  assert.equal(await page.locator('#p-units').innerText(), '5 of 5 units left');
  assert.equal(await page.getAttribute('#answer', 'aria-live'), 'polite');
  await page.screenshot({ path: path.join(SHOTS, 'shop-countdown.png'), fullPage: true });
  // Playwright will not click an aria-disabled button; a keyboard user can press it.
  await page.focus('#buy');
  await page.keyboard.press('Enter');
  assert.match(await answer(page), /^Not open yet: Opens in 59:/);
  // The API agrees, and names its layer.
  const early = await fetch(`${demo.url}/api/sales/${sale.id}/orders`, { method: 'POST', body: JSON.stringify({ user_id: 'early' }),
    headers: { 'Content-Type': 'application/json' } });
  assert.equal(early.status, 409);
  assert.equal(early.headers.get('Seckill-Layer'), 'opening');
  assert.equal((await early.json()).error, 'not_open');
  assert.equal((await api('GET', `/api/sales/${sale.id}`)).body.sold, 0);
  await page.close();
});

test('a person buys at the opening against the bots; a second click is already bought', async () => {
  const sale = await createSale({ name: 'Lab phone', product: 'Lab phone', stock: 20, opens_in_ms: 10_000 });
  const page = await openShop(sale.id);
  // The countdown itself is the first test's (a sale an hour away): here
  // the page may load after the opening on a loaded machine.
  await page.waitForFunction(() => document.querySelector('#p-name').textContent === 'Lab phone', null, WAIT);

  // The opening, as the page sees it in the server's time.
  await page.waitForSelector('#buy[aria-disabled=false]', WAIT);
  assert.equal(await page.locator('#p-opening').innerText(), 'Open now');
  // The bots fire with the person: 15 buyers for 20 units, so the person
  // gets one whoever wins the race.
  const bots = Array.from({ length: 15 }, (_, i) => api('POST', `/api/sales/${sale.id}/orders`, { user_id: `bot-${i}` }));
  await page.click('#buy');
  const text = await answer(page);
  assert.match(text, /^Bought! Order \d+ is yours\.$/, text);
  const botAnswers = await Promise.all(bots);
  const botOrders = botAnswers.filter((r) => r.status === 201).length;
  assert.equal(botAnswers.filter((r) => r.status !== 201 && r.status !== 409 && r.status !== 503).length, 0,
    `unexpected bot answers: ${JSON.stringify(botAnswers.map((r) => r.status))}`);
  const view = (await api('GET', `/api/sales/${sale.id}`)).body;
  assert.equal(view.sold, botOrders + 1, 'the database counts the person\'s order and the bots\'');
  assert.equal(view.oversold, 0);
  await page.screenshot({ path: path.join(SHOTS, 'shop-bought.png'), fullPage: true });

  // The default per-user limit is 1: the next click is a new intent, refused.
  await clearAnswer(page);
  await page.click('#buy');
  assert.match(await answer(page), /^Already bought/);
  assert.equal((await api('GET', `/api/sales/${sale.id}`)).body.sold, botOrders + 1);
  await page.close();
});

test('a ticket_required sale buys through its ticket', async () => {
  const sale = await createSale({ name: 'Ticketed', stock: 3, ticket_required: true });
  // Without a ticket the API refuses: the page must get one first.
  const bare = await api('POST', `/api/sales/${sale.id}/orders`, { user_id: 'script' });
  assert.equal(bare.status, 403);
  assert.equal(bare.body.error, 'ticket_required');
  const page = await openShop(sale.id);
  await page.waitForSelector('#p-ticket:not([hidden])', WAIT);
  await page.waitForSelector('#buy[aria-disabled=false]', WAIT);
  await page.click('#buy');
  assert.match(await answer(page), /^Bought! Order \d+/);
  assert.equal((await api('GET', `/api/sales/${sale.id}`)).body.sold, 1);
  await page.close();
});

test('on a phone-sized screen, by keyboard only', async () => {
  const sale = await createSale({ name: 'Keyboard buy', stock: 5 });
  const page = await openShop(sale.id);
  await page.waitForSelector('#buy[aria-disabled=false]', WAIT);
  // Nothing wider than the phone: no sideways scrolling.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the page scrolls sideways');
  // Tab from the top of the page to the button; the focus is visible there.
  let focused = '';
  for (let i = 0; i < 6 && focused !== 'buy'; i++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  }
  assert.equal(focused, 'buy', 'Tab never reached the Buy button');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'the focused button shows no focus ring');
  await page.keyboard.press('Enter');
  assert.match(await answer(page), /^Bought! Order \d+/);
  await page.screenshot({ path: path.join(SHOTS, 'shop-phone.png'), fullPage: true });
  await page.close();
});

test('an unknown sale says so in words', async () => {
  const page = await openShop(99_999_999);
  await page.waitForFunction(() => /No such sale/.test(document.querySelector('#p-name').textContent), null, WAIT);
  assert.equal(await page.locator('#buy-form').isHidden(), true);
  await page.close();
});

test('the dashboard starts a run that opens later, counts down, links to its shop and counts the layers', async () => {
  const dash = await browser.newPage();
  dash.on('pageerror', (e) => pageErrors.push(String(e)));
  // The dashboard on the trainer's projector (a phone's band leaves the layers to the Herd panel).
  await dash.setViewportSize({ width: 1366, height: 768 });
  await dash.goto(`${demo.url}/#/run`, { waitUntil: 'load' });
  await dash.waitForSelector('#f-strategy option[value="db-conditional"]', { state: 'attached', ...WAIT });
  await dash.waitForSelector('body[data-limits=api]', { state: 'attached', ...WAIT });
  await dash.selectOption('#f-strategy', 'db-conditional');
  await dash.fill('#f-stock', '50');
  await dash.fill('#f-buyers', '40');
  await dash.fill('#f-load', '4');
  await dash.fill('#f-opens', '20'); // long enough for a loaded machine to show the countdown first
  await dash.click('#start');
  await dash.waitForFunction(() => /Run \d+ started|Refused|Failed/.test(document.querySelector('#form-msg').textContent), null, WAIT);
  const started = await dash.locator('#form-msg').innerText();
  assert.match(started, /Run \d+ started/, started);
  // The band counts down to the step's opening and links to its shop.
  await dash.waitForSelector('#live-opening:not([hidden])', WAIT);
  assert.match(await dash.locator('#live-opening').innerText(), /^Opens in \d+:\d\d$/);
  const href = await dash.getAttribute('#shop-link', 'href');
  assert.match(href, /^\/shop\/\d+$/);
  // A person buys on the run's sale, against the agents: 40 buyers for 50 units.
  const shop = await openShop(href.split('/').pop());
  await shop.waitForSelector('#buy[aria-disabled=false]', WAIT);
  await dash.waitForSelector('#live-opening[hidden]', { state: 'attached', ...WAIT });
  await shop.click('#buy');
  assert.match(await answer(shop), /^Bought! Order \d+/);
  await shop.close();
  // Once the replicas published their figures, the band lists the answers per layer.
  await dash.waitForSelector('#live[data-status="done"]', { timeout: 60_000 });
  await dash.waitForSelector('#layers:not([hidden]) li[data-layer="database"]', { timeout: 30_000 });
  await dash.screenshot({ path: path.join(SHOTS, 'shop-dashboard-layers.png') });
  await dash.close();
});

test('once sold out, the page says so and the Buy button is off; a restock turns it back on', async () => {
  const sale = await createSale({ name: 'Last unit', stock: 1 });
  const page = await openShop(sale.id);
  await page.waitForSelector('#buy[aria-disabled=false]', WAIT);
  assert.equal((await api('POST', `/api/sales/${sale.id}/orders`, { user_id: 'first' })).status, 201);
  // The page reads the sale about once a second: wait for what it shows.
  await page.waitForFunction(() => document.querySelector('#p-opening').textContent === 'Buying closed', null, WAIT);
  assert.equal(await page.getAttribute('#buy', 'aria-disabled'), 'true');
  assert.equal(await page.evaluate(() => document.querySelector('#p-opening').classList.contains('open')), false);
  await page.screenshot({ path: path.join(SHOTS, 'shop-sold-out.png'), fullPage: true });
  assert.equal((await api('POST', `/api/sales/${sale.id}/restock`, { units: 1 })).status, 200);
  await page.waitForSelector('#buy[aria-disabled=false]', WAIT);
  assert.equal(await page.locator('#p-opening').innerText(), 'Open now');
  await page.close();
});
