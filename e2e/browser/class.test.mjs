// Browser test of predict, vote, reveal: Debian's chromium, driven by
// playwright-core, against a real `shop demo` (1 replica, 1 agent, the real
// MariaDB and Redis). The projector (the dashboard's #/class) asks about a
// lesson's case; three phones (three browser contexts, each its own
// storage: three anonymous voters) vote on /vote/{id}; the projector shows
// how many voted, never what, until Reveal, which starts the lesson; its
// result then stands beside the tally, lit on the projector and on the
// phones. A fourth phone is refused once the question closed; bad votes
// get a 4xx naming the member and change nothing. Every wait is on what a
// page or the API shows. Screenshots: test-results/class-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, startDemo } from './demo.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SHOTS = path.join(ROOT, 'e2e/browser/test-results');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const WAIT = { timeout: 30_000 };
// The lesson runs at its normal pace here (a few seconds); a loaded
// machine may take far longer, which only this wait absorbs.
const RESULT = { timeout: 240_000 };
const LESSON = 'ttl-shorter-than-work';

let demo, browser;
const pageErrors = [];

before(async () => {
  demo = await startDemo({ replicas: 1, agents: 1, db: 'seckill_test_class' });
  await mkdir(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}, { timeout: 120_000 });

after(async () => {
  await browser?.close();
  const code = await demo?.stop();
  if (demo && code !== 0) console.error(`demo stopped with ${code}; logs in ${demo.logDir}\n${demo.output()}`);
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

async function api(method, p, body) {
  const res = await fetch(demo.url + p, { method, headers: { 'Content-Type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** page opens path in a context of its own (its own storage: another phone). */
async function page(size, p) {
  const ctx = await browser.newContext({ viewport: size });
  const pg = await ctx.newPage();
  pg.on('pageerror', (e) => pageErrors.push(String(e)));
  pg.on('console', (m) => { if (m.type() === 'error' && !/status of (409|429|400)/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
  await pg.goto(demo.url + p, { waitUntil: 'load' });
  return pg;
}

/** parseCSV reads RFC 4180 text (quoted fields with commas, "" for a quote) into rows. */
function parseCSV(text) {
  const rows = [[]];
  let field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { rows.at(-1).push(field); field = ''; }
    else if (ch === '\n') { rows.at(-1).push(field); field = ''; rows.push([]); }
    else if (ch !== '\r') field += ch;
  }
  if (field || rows.at(-1).length) rows.at(-1).push(field);
  return rows.filter((r) => r.length > 1);
}

async function vote(phone, outcome) {
  await phone.click(`#v-choices button[data-outcome=${outcome}]`);
  await phone.waitForSelector(`#v-choices button[data-outcome=${outcome}][aria-pressed=true]`, WAIT);
}

test('three phones vote, the projector shows only the count until Reveal starts the lesson, then the result beside the tally', { timeout: 420_000 }, async () => {
  const projector = await page(PROJECTOR, '/#/class');
  await projector.waitForSelector(`#cl-lesson option[value=${LESSON}]`, { state: 'attached', ...WAIT });
  await projector.selectOption('#cl-lesson', LESSON);
  await projector.selectOption('#cl-case', '1');
  await projector.selectOption('#cl-pace', 'normal');
  await projector.click('#cl-ask');
  await projector.waitForSelector('#cl-question:not([hidden]) #cl-choices li', WAIT);
  const id = Number(await projector.evaluate(() => localStorage.getItem('seckill.classQuestion')));
  assert.ok(id > 0, 'the question has an id');
  assert.equal(await projector.locator('#cl-choices li').count(), 4);

  const phones = [];
  for (const outcome of ['overlapped_safe', 'broken', 'holds']) {
    const phone = await page(PHONE, `/vote/${id}`);
    await phone.waitForSelector('#v-choices button', WAIT);
    await vote(phone, outcome);
    phones.push(phone);
  }
  await vote(phones[2], 'overlapped_safe'); // a change of mind is not a fourth vote
  await projector.waitForFunction(() => /^3 votes/.test(document.querySelector('#cl-votes').textContent), null, WAIT);
  assert.equal(await projector.locator('.cl-count').count(), 0, 'no count per choice before the reveal');
  const before = await api('GET', `/api/class/questions/${id}`);
  assert.equal(before.body.votes, 3);
  assert.equal(before.body.tally, null, 'the API hides the tally before the reveal');
  await projector.screenshot({ path: path.join(SHOTS, 'class-votes-1366.png') });
  await phones[0].screenshot({ path: path.join(SHOTS, 'class-phone-390.png') });

  // Bad votes: a 4xx naming the member, nothing written.
  for (const [body, field] of [[{ voter: 'x', outcome: 'holds' }, 'voter'], [{ voter: 'a'.repeat(32), outcome: 'soon' }, 'outcome'],
    [{ voter: 'a'.repeat(32), outcome: 'holds', name: 'Ann' }, 'name']]) {
    const r = await api('PUT', `/api/class/questions/${id}/vote`, body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.equal(r.body.field, field);
  }
  assert.equal((await api('GET', `/api/class/questions/${id}`)).body.votes, 3, 'a refused vote wrote');

  await projector.click('#cl-reveal');
  await projector.waitForFunction(() => document.querySelector('#cl-question').dataset.status === 'revealed', null, WAIT);
  const counts = await projector.locator('.cl-count').allTextContents();
  assert.deepEqual(counts.map((c) => Number(c.split(' ')[0])), [1, 2, 0, 0], `tally ${counts}`);
  const revealed = await api('GET', `/api/class/questions/${id}`);
  assert.ok(revealed.body.lesson_run_id > 0, 'the reveal started the lesson');

  // A fourth phone, after the reveal: its page offers nothing, its vote is refused.
  const late = await page(PHONE, `/vote/${id}`);
  await late.waitForSelector('#v-choices button[aria-disabled=true]', WAIT);
  const refused = await api('PUT', `/api/class/questions/${id}/vote`, { voter: 'b'.repeat(32), outcome: 'holds' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.error, 'question_closed');

  // The result: the case's verdict, lit beside the tally on the projector and the phones.
  await projector.waitForSelector('#cl-choices li.observed', RESULT);
  const run = (await api('GET', `/api/lesson-runs/${revealed.body.lesson_run_id}`)).body;
  const seen = await projector.locator('#cl-choices li.observed').getAttribute('data-outcome');
  const c = run.cases[0];
  assert.equal(seen, c.verdict === 'holds' && c.sold === 0 && c.initial_stock > 0 ? 'stopped' : c.verdict);
  assert.match(await projector.locator('#cl-observed').textContent(), /^Observed: [A-D]/);
  await projector.screenshot({ path: path.join(SHOTS, 'class-result-1366.png') });
  await phones[1].waitForSelector(`#v-choices button.observed[data-outcome=${seen}]`, RESULT);
  await phones[1].screenshot({ path: path.join(SHOTS, 'class-phone-result-390.png') });

  // The session keeps it: the CSV has the question with its tally and what was observed.
  const csv = await (await fetch(`${demo.url}/api/class/sessions/${revealed.body.session_id}/export.csv`)).text();
  const [cols, ...rows] = parseCSV(csv.replace(/^\uFEFF/, ''));
  const row = rows.find((r) => Number(r[cols.indexOf('question')]) === id);
  assert.ok(row, `question ${id} in the CSV:\n${csv}`);
  assert.equal(row[cols.indexOf('observed')], seen);
  assert.equal(row[cols.indexOf('votes')], '3');
});
