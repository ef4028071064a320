// The timeline view's frame rate while panning a 20,000-section sale (the
// issue's target: >= 30 frames per second), measured in Debian's headless
// chromium at 1366x768 on the fixture server's generated sale 9 (always
// whole: the drawing's worst case; fixtures/generate.mjs). Not a test: it
// prints figures (`make bench-timeline`).
//
// For each zoom (half the sale in view, about 10,000 sections; and about
// 1,300 sections) the mouse drags the lanes to and fro for SECONDS while the
// page counts requestAnimationFrame callbacks (the frames the page could
// show: a slow paint holds them back) and paints; three rounds, the median.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFixtureServer } from './fixture-server.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SECONDS = Number(process.env.SECKILL_BENCH_TIMELINE_SECONDS || 3);
const ROUNDS = 3;
const CASES = [
  { name: 'half the sale in view (~10,000 sections)', zoomIns: 1 },
  { name: 'a 460 ms window (~1,300 sections)', zoomIns: 4 },
];

const server = await startFixtureServer();
const userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-bench-'));
const ctx = await chromium.launchPersistentContext(userDir, {
  executablePath: CHROMIUM, headless: true, viewport: { width: 1366, height: 768 },
  args: ['--headless', '--no-sandbox', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = ctx.pages()[0] || await ctx.newPage();
  await page.goto(`${server.url}/#/timeline`, { waitUntil: 'load' });
  await page.waitForFunction(() => Number(document.querySelector('#tl-canvas').dataset.drawn || 0) > 0);
  await page.selectOption('#tl-sale', '9');
  await page.waitForFunction(() => /#9 redis/.test(document.querySelector('#tl-facts').textContent));
  console.log(`timeline frame rate, generated sale #9: 20,000 sections at 1366x768, ${SECONDS} s of panning per round, median of ${ROUNDS}`);
  const rows = [];
  for (const c of CASES) {
    const fps = [], paints = [];
    for (let r = 0; r < ROUNDS; r++) {
      await page.click('#tl-fit');
      for (let i = 0; i < c.zoomIns; i++) await page.click('#tl-zoom-in');
      await page.evaluate(() => document.querySelector('#tl-canvas').scrollIntoView({ block: 'center' }));
      const box = await page.locator('#tl-canvas').boundingBox();
      const y = box.y + Math.min(box.height / 2, 60);
      const m = await pan(page, box, y);
      fps.push(m.frames / m.seconds);
      paints.push(m.paints / m.seconds);
    }
    rows.push({ name: c.name, fps: median(fps), paints: median(paints), all: fps });
  }
  console.log('\n| view | frames/s (median) | paints/s (median) | frames/s of each round |');
  console.log('|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.name} | ${r.fps.toFixed(1)} | ${r.paints.toFixed(1)} | ${r.all.map((x) => x.toFixed(1)).join(', ')} |`);
  const worst = Math.min(...rows.map((r) => r.fps));
  console.log(`\ntarget >= 30 frames/s while panning: ${worst >= 30 ? 'met' : 'NOT met'} (worst median ${worst.toFixed(1)})`);
} finally {
  await ctx.close();
  await rm(userDir, { recursive: true, force: true });
  await server.close();
}

/** pan drags across the canvas to and fro for SECONDS, counting frames and paints in the page. */
async function pan(page, box, y) {
  await page.evaluate(() => {
    const c = document.querySelector('#tl-canvas');
    window.benchCount = { frames: 0, paints0: Number(c.dataset.drawn || 0), t0: performance.now(), on: true };
    const tick = () => { if (!window.benchCount.on) return; window.benchCount.frames++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
  });
  const left = box.x + 200, right = box.x + box.width - 40;
  await page.mouse.move(left, y);
  await page.mouse.down();
  const end = Date.now() + SECONDS * 1000;
  let x = left, dir = 1;
  while (Date.now() < end) {
    x += dir * 12;
    if (x > right || x < left) { dir = -dir; x += 2 * dir * 12; }
    await page.mouse.move(x, y);
  }
  await page.mouse.up();
  return page.evaluate(() => {
    const b = window.benchCount;
    b.on = false;
    return { frames: b.frames, paints: Number(document.querySelector('#tl-canvas').dataset.drawn) - b.paints0, seconds: (performance.now() - b.t0) / 1000 };
  });
}

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
