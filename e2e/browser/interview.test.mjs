// The Interview section (#/interview) in Debian's chromium on
// fixture-server.mjs, GET /api/interview answering a page measured on a demo
// (fixtures/interview-page.json): every question drawn in order with its
// answer, trade-off and follow-up; every measured figure with the run it
// came from (a link to the run's section and to its sale's timeline), every
// unmeasured one saying so; the 中文 switch turns the whole section Chinese.
// Legible on a projector: at 1366x768 with Large type the answers are 18 px
// or more and nothing is cut or wider than the screen; on a 390x844 phone
// nothing is wider than the screen either. Screenshots in
// test-results/interview-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './demo.mjs';
import { startFixtureServer } from './fixture-server.mjs';
import { cutOff, englishSentences } from './zh-texts.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'];
const SHOTS = path.join(ROOT, 'e2e/browser/test-results');
const PROJECTOR = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const PAGE = JSON.parse(await readFile(path.join(ROOT, 'e2e/browser/fixtures/interview-page.json'), 'utf8'));
const FIGURES = PAGE.questions.flatMap((q) => q.figures);

let server, ctx, page, userDir;
const pageErrors = [];

before(async () => {
  server = await startFixtureServer(0); // GET /api/interview: fixtures/interview-page.json
  await mkdir(SHOTS, { recursive: true });
  userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-interview-'));
  ctx = await chromium.launchPersistentContext(userDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: PROJECTOR });
  page = ctx.pages()[0] || await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' && !/status of 404/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });
}, { timeout: 60_000 });

after(async () => {
  await ctx?.close();
  if (userDir) await rm(userDir, { recursive: true, force: true });
  await server?.close();
  assert.deepEqual(pageErrors, [], 'errors in the page');
});

/** open shows #/interview at size, in the language and type asked, once its questions are drawn. */
async function open(size, { zh = false, large = false } = {}) {
  await page.setViewportSize(size);
  await page.goto(`${server.url}/#/interview`, { waitUntil: 'load' });
  await page.evaluate(({ z, l }) => { localStorage.setItem('seckill.zhLabels', z ? '1' : '0'); localStorage.setItem('seckill.largeType', l ? '1' : '0'); }, { z: zh, l: large });
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('#interview .iv-q');
}

/**
 * wider lists the elements of the section (and the top bar) that reach past
 * the screen's right edge, outside a box that scrolls sideways (the phone's
 * nav does).
 */
const wider = () => page.evaluate(() => [...document.querySelectorAll('#interview *, .top *')]
  .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > innerWidth + 1)
  .filter((e) => { for (let p = e.parentElement; p; p = p.parentElement) if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) return false; return true; })
  .map((e) => `${e.className || e.tagName}: ${e.textContent.trim().slice(0, 40)}`));

test('every question in order, every figure from a named run or said unmeasured', async () => {
  await open(PROJECTOR);
  const cards = await page.$$eval('#interview .iv-q', (qs) => qs.map((q) => ({
    ask: q.querySelector('.iv-ask').textContent,
    parts: ['.iv-answer', '.iv-trade', '.iv-next'].map((s) => q.querySelector(s)?.textContent || ''),
    figs: [...q.querySelectorAll('.iv-fig')].map((f) => ({ none: f.classList.contains('iv-none'), text: f.textContent, hrefs: [...f.querySelectorAll('a')].map((a) => a.getAttribute('href')) })),
  })));
  assert.equal(cards.length, PAGE.questions.length);
  cards.forEach((c, i) => {
    const q = PAGE.questions[i];
    assert.equal(c.ask, `${i + 1}. ${q.ask.en}`);
    assert.ok(c.parts[0] === q.answer.en && c.parts[1].includes(q.trade_off.en) && c.parts[2].includes(q.follow_up.en), q.id);
    assert.equal(c.figs.length, q.figures.length, q.id);
    c.figs.forEach((f, j) => {
      const want = q.figures[j];
      if (want.measured) {
        assert.ok(!f.none && f.text.includes(`#${want.from.id}`) && f.hrefs.includes(want.from.link), `${q.id}: ${f.text}`);
        if (want.from.sale_link) assert.ok(f.hrefs.includes(want.from.sale_link), `${q.id}: ${f.hrefs}`);
      } else {
        assert.ok(f.none && f.text.includes('not measured here') && f.text.includes(want.missing.en), `${q.id}: ${f.text}`);
      }
    });
  });
  const count = await page.textContent('#interview .iv-count');
  assert.match(count, new RegExp(`${PAGE.measured} figures measured on this machine, ${PAGE.unmeasured} not yet`));
  assert.ok(FIGURES.some((f) => !f.measured), 'the fixture has an unmeasured figure');
});

test('中文: the whole section in Chinese', async () => {
  await open(PROJECTOR, { zh: true });
  const first = await page.textContent('#interview .iv-ask');
  assert.equal(first, `1. ${PAGE.questions[0].ask.zh}`);
  assert.equal(await page.textContent('#interview-h [data-l="ivTitle"]'), '设计一个秒杀系统：面试路线');
  const english = await englishSentences(page, [], ['#live', '.top', '.iv-from']);
  assert.deepEqual(english, [], 'English sentences left in the Chinese section');
  await page.screenshot({ path: path.join(SHOTS, 'interview-projector-zh.png') });
});

test('legible at 1366x768 with Large type, and on a 390x844 phone, in both languages', async () => {
  for (const zh of [false, true]) {
    await open(PROJECTOR, { zh, large: true });
    const px = await page.$eval('#interview .iv-answer', (e) => parseFloat(getComputedStyle(e).fontSize));
    assert.ok(px >= 18, `answers at ${px} px with Large type`);
    assert.deepEqual(await wider(), [], `wider than 1366 px (${zh ? 'zh' : 'en'})`);
    assert.deepEqual(await cutOff(page), [], 'texts cut off');
    await page.screenshot({ path: path.join(SHOTS, `interview-projector-large-${zh ? 'zh' : 'en'}.png`) });
    await open(PHONE, { zh });
    assert.deepEqual(await wider(), [], `wider than the phone (${zh ? 'zh' : 'en'})`);
    const link = await page.$eval('#nav a[aria-current=page]', (a) => { const r = a.getBoundingClientRect(); return { left: r.left, right: r.right }; });
    assert.ok(link.left >= 0 && link.right <= PHONE.width, `the nav's Interview link out of view: ${JSON.stringify(link)}`);
    assert.deepEqual(await cutOff(page), [], 'texts cut off on the phone');
    await page.screenshot({ path: path.join(SHOTS, `interview-phone-${zh ? 'zh' : 'en'}.png`), fullPage: false });
  }
});
