// Browser test of orders through the queue: Debian's chromium, driven by
// playwright-core, against a real `shop demo` (2 replicas, 1 agent, the
// real MariaDB and Redis). The dashboard starts an async redis-lua-stock
// run whose orders are reserved; a person on its shopper page gets a
// ticket, sees it pending then confirmed, and pays by keyboard on a phone;
// a second person leaves the order unpaid and the page says it expired and
// the unit went back; the dashboard shows the queue's figures and no drift
// for that sale, as the API does. Every wait is on what a page or the API
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
const DESKTOP = { width: 1280, height: 900 };
const WAIT = { timeout: 30_000 };
// Long enough to pay by keyboard on a loaded machine; the unpaid order's
// expiry is the only wait of this length.
const PAY_WITHIN_MS = 12_000;

let demo, browser, userDir;
const pageErrors = [];

before(async () => {
  demo = await startDemo({ replicas: 2, agents: 1, db: 'seckill_test_queue' });
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-queue-'));
  browser = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: DESKTOP });
}, { timeout: 120_000 });

after(async () => {
  await browser?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  const code = await demo?.stop();
  if (demo && code !== 0) console.error(`demo stopped with ${code}; logs in ${demo.logDir}\n${demo.output()}`);
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

async function api(method, p, body) {
  const res = await fetch(demo.url + p, { method, headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function newPage(url, viewport) {
  const page = await browser.newPage();
  if (viewport) await page.setViewportSize(viewport);
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) pageErrors.push(`console: ${m.text()}`);
  });
  // Every answer the shop page shows, in order: a state that lasts a few
  // milliseconds (a ticket confirmed at once) is still seen.
  await page.addInitScript(() => {
    window.answers = [];
    document.addEventListener('DOMContentLoaded', () => {
      const e = document.querySelector('#answer');
      if (!e) return;
      new MutationObserver(() => { if (e.textContent) window.answers.push([e.dataset.kind, e.textContent]); })
        .observe(e, { childList: true, characterData: true, subtree: true });
    });
  });
  await page.goto(demo.url + url, { waitUntil: 'load' });
  return page;
}

/** answerOfKind waits until the answer region says something of kind and returns the words. */
async function answerOfKind(page, kind) {
  await page.waitForFunction((k) => {
    const e = document.querySelector('#answer');
    return e.dataset.kind === k && e.textContent !== '';
  }, kind, WAIT);
  return page.locator('#answer').innerText();
}

/** buy clicks Buy on a fresh shop tab of sale and waits until its ticket is settled; returns the page and its answers. */
async function buy(saleId) {
  const page = await newPage(`/shop/${saleId}`, PHONE);
  await page.waitForSelector('#buy[aria-disabled=false]', WAIT);
  await page.click('#buy');
  await page.waitForFunction(() => ['confirmed', 'failed', 'lost'].includes(document.querySelector('#answer').dataset.kind)
    && document.querySelector('#answer').textContent !== '', null, WAIT);
  return { page, answers: await page.evaluate(() => window.answers) };
}

test('an async sale with reservations: pending, confirmed, paid; an unpaid order expires; the dashboard shows the queue and no drift', async () => {
  const dash = await newPage('/#/run');
  await dash.waitForSelector('#f-strategy option[value="redis-lua-stock"]', { state: 'attached', ...WAIT });
  await dash.waitForSelector('body[data-limits=api]', { state: 'attached', ...WAIT });
  // The async mode is offered with redis-lua-stock only, and the form says why.
  await dash.selectOption('#f-strategy', 'redis');
  assert.equal(await dash.locator('#f-order-mode option[value=async]').isDisabled(), true);
  assert.match(await dash.locator('#order-mode-hint').innerText(), /async needs redis-lua-stock/);
  await dash.selectOption('#f-strategy', 'redis-lua-stock');
  await dash.selectOption('#f-order-mode', 'async');
  await dash.fill('#f-pay', String(PAY_WITHIN_MS));
  await dash.fill('#f-stock', '40');
  await dash.fill('#f-buyers', '10');
  await dash.fill('#f-load', '2');
  await dash.click('#start');
  await dash.waitForFunction(() => /Run \d+ started|Refused|Failed/.test(document.querySelector('#form-msg').textContent), null, WAIT);
  assert.match(await dash.locator('#form-msg').innerText(), /Run \d+ started/);
  await dash.waitForSelector('#shop-link:not([hidden])', WAIT);
  const saleId = (await dash.getAttribute('#shop-link', 'href')).split('/').pop();
  const sale = (await api('GET', `/api/sales/${saleId}`)).body;
  assert.equal(sale.order_mode, 'async');
  assert.equal(sale.pay_within_ms, PAY_WITHIN_MS);

  // Two people buy at once: the second leaves the order unpaid, whose
  // expiry runs while the first pays.
  const [first, second] = await Promise.all([buy(saleId), buy(saleId)]);
  // The first person: a ticket, pending, then confirmed and reserved.
  const kinds = first.answers.map(([k]) => k);
  assert.equal(kinds[0], 'queued', `answers: ${JSON.stringify(first.answers)}`);
  assert.match(first.answers[0][1], /^In the queue: ticket ot_\d+_[0-9a-f]{32}\./);
  assert.equal(kinds.at(-1), 'confirmed', `answers: ${JSON.stringify(first.answers)}`);
  assert.match(first.answers.at(-1)[1], /^Confirmed! Order \d+ is held for you: pay before the time runs out\.$/);
  await first.page.waitForSelector('#order[data-state=reserved]', WAIT);
  assert.match(await first.page.locator('#o-state').innerText(), /^Pay within 0:\d\d \(by \d\d:\d\d:\d\d\)\.$/);
  await first.page.screenshot({ path: path.join(SHOTS, 'queue-reserved.png'), fullPage: true });
  // Pays by keyboard: the Pay button is in the Tab order after Buy.
  await first.page.focus('#buy');
  let focused = '';
  for (let i = 0; i < 4 && focused !== 'pay'; i++) {
    await first.page.keyboard.press('Tab');
    focused = await first.page.evaluate(() => document.activeElement?.id);
  }
  assert.equal(focused, 'pay', 'Tab never reached the Pay button');
  await first.page.keyboard.press('Enter');
  const paidText = await answerOfKind(first.page, 'paid');
  const orderId = paidText.match(/^Paid! Order (\d+) is yours\.$/)?.[1];
  assert.ok(orderId, paidText);
  await first.page.waitForSelector('#order[data-state=paid]', { state: 'attached', ...WAIT });
  // The API is asked by the ticket the page showed: an order id alone is no proof.
  const ticketOf = (answers) => answers[0][1].match(/ticket (ot_\d+_[0-9a-f]{32})/)[1];
  assert.equal((await api('GET', `/api/orders/${orderId}`)).status, 403, 'an order id without its token is refused');
  const paid = (await api('GET', `/api/orders/${ticketOf(first.answers)}`)).body.order;
  assert.equal(String(paid.order_id), orderId);
  assert.equal(paid.status, 'paid');

  // The second person left the order unpaid: the page says it expired and the unit went back.
  assert.equal(second.answers.at(-1)[0], 'confirmed', `answers: ${JSON.stringify(second.answers)}`);
  const secondId = second.answers.at(-1)[1].match(/Order (\d+)/)[1];
  await second.page.waitForSelector('#order[data-state=expired]', { state: 'attached', timeout: PAY_WITHIN_MS + 30_000 });
  assert.match(await answerOfKind(second.page, 'expired'), /^The reservation expired: .*unit went back to the sale\.$/);
  assert.equal(await second.page.locator('#pay').isHidden(), true);
  const expired = (await api('GET', `/api/orders/${ticketOf(second.answers)}`)).body.order;
  assert.equal(String(expired.order_id), secondId);
  assert.equal(expired.status, 'expired');
  await second.page.screenshot({ path: path.join(SHOTS, 'queue-expired.png'), fullPage: true });
  await first.page.close();
  await second.page.close();

  // The dashboard: the queue's figures for the run's sale, every expired
  // unit returned and no drift, as the API says once the queue is empty.
  await dash.waitForSelector('#live[data-status="done"]', { timeout: 60_000 });
  for (const box of ['qLength', 'qLag', 'qPending', 'qConfirmedPerS', 'qConfirmMs', 'qDurability', 'resExpiredReturned', 'drift', 'health']) {
    await dash.waitForSelector(`#queue-band:not([hidden]) [data-box=${box}]`, WAIT);
  }
  let view;
  for (const deadline = Date.now() + 30_000; ;) {
    view = (await api('GET', `/api/sales/${saleId}`)).body;
    const settled = view.queue.in_flight === 0 && view.reservations.reserved === 0 && view.reconcile.in_flight === 0;
    if (settled && view.reconcile.drift === 0 && view.reservations.returned === view.reservations.expired) break;
    assert.ok(Date.now() < deadline, `the sale did not settle: ${JSON.stringify(view)}`);
    await new Promise((r) => { setTimeout(r, 250); });
  }
  assert.ok(view.reservations.expired >= 1 && view.reservations.paid >= 1, JSON.stringify(view.reservations));
  assert.equal(view.healthy, true, JSON.stringify(view));
  const rs = view.reservations;
  await dash.waitForFunction((want) => document.querySelector('#q-resExpiredReturned')?.textContent === want,
    `${rs.expired} / ${rs.returned}`, WAIT);
  await dash.waitForFunction(() => document.querySelector('#q-drift')?.textContent === '0'
    && document.querySelector('#q-health')?.textContent === 'healthy', null, WAIT);
  assert.match(await dash.locator('#q-qConfirmMs').innerText(), /^\d[\d.,]* \/ \d[\d.,]*$/);
  // The persistence of the queue's Redis: shown as the API says, and the
  // switch goes through (to the mode it has: the services' Redis is shared).
  const durability = (await api('GET', '/api/queue/durability')).body;
  assert.match(await dash.locator('#dur-now').innerText(), new RegExp(`^Now: ${durability.mode} on ${durability.addr}: `));
  assert.equal(await dash.inputValue('#f-durability'), durability.mode);
  await dash.click('#dur-set');
  await dash.waitForFunction(() => /Switched|Refused|Failed/.test(document.querySelector('#dur-msg').textContent), null, { timeout: 70_000 });
  assert.equal(await dash.locator('#dur-msg').innerText(), `Switched to ${durability.mode}.`);
  await dash.screenshot({ path: path.join(SHOTS, 'queue-dashboard.png') });
  await dash.close();
});
