// The exported timeline (GET /api/sales/{id}/timeline.html, `--timeline
// FILE`) opens with no network: Debian's chromium, offline and with every
// request aborted, loads the page internal/timeline's WriteHTML wrote for
// the fixture (fixtures/timeline-redis-pause.html, kept current by
// TestExportedFixtureIsCurrentAndSelfContained) and draws it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = path.join(HERE, 'test-results');

test('the exported file draws its canvas offline and asks for nothing', { timeout: 60_000 }, async () => {
  const html = await readFile(path.join(HERE, 'fixtures/timeline-redis-pause.html'), 'utf8');
  await mkdir(SHOTS, { recursive: true });
  const userDir = await mkdtemp(path.join(os.tmpdir(), 'seckill-chromium-export-'));
  const ctx = await chromium.launchPersistentContext(userDir, {
    executablePath: CHROMIUM, headless: true, offline: true, viewport: { width: 1366, height: 768 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const requests = [], errors = [];
    await ctx.route('**/*', (route) => { requests.push(route.request().url()); return route.abort(); });
    const page = ctx.pages()[0] || await ctx.newPage();
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setContent(html, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelectorAll('#story li').length > 0);
    const drawn = await page.evaluate(() => {
      const c = document.getElementById('c');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let ink = 0, red = 0;
      for (let i = 0; i < d.length; i += 4) {
        if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) ink++;
        if (d[i] > 170 && d[i + 1] < 90 && d[i + 2] < 90 && d[i + 3] > 0) red++;
      }
      return { ink, red, pixels: d.length / 4 };
    });
    assert.ok(drawn.ink > drawn.pixels * 0.02, `the canvas is drawn: ${drawn.ink} of ${drawn.pixels} pixels inked`);
    assert.ok(drawn.red > 50, `the overlaps are red: ${drawn.red} pixels`);
    assert.match(await page.locator('h1').innerText(), /Sale 7 \(redis\)/);
    assert.match(await page.locator('#story').innerText(), /replica-2 gets token #2/);
    assert.match(await page.locator('#story li').first().innerText(), /\n.*[\u4e00-\u9fff]/, 'the Chinese under the English');
    assert.match(await page.locator('#effects').innerText(), /pause_holder: nothing was damaged: fencing refused 1 stale write/);
    // replica-2's paused hold (the second row), mid-way: its token's rank, then the raw token.
    // Legible on a projector: the canvas writes at 16 px or more.
    const geo = await page.evaluate(() => ({ left, rowH, plotTop, font: document.getElementById('c').getContext('2d').font }));
    assert.ok(Number(/(\d+)px/.exec(geo.font)[1]) >= 16, `canvas font ${geo.font}`);
    const box = await page.locator('#c').boundingBox();
    await page.mouse.move(box.x + geo.left + (box.width - geo.left - 10) * 0.5, box.y + geo.plotTop + geo.rowH * 1.5);
    assert.match(await page.locator('#tip').innerText(), /replica-2, token #2 \(raw 1795827359907589\), fenced/);
    await page.screenshot({ path: path.join(SHOTS, 'timeline-export-offline.png') });
    assert.deepEqual(requests, [], 'the page asked for nothing');
    assert.deepEqual(errors, []);
  } finally {
    await ctx.close();
    await rm(userDir, { recursive: true, force: true });
  }
});
