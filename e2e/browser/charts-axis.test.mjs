// The charts' x axis (web/static/assets/charts.js xSplits) without a
// browser: seconds since the step's first point, one tick per whole step,
// so that no two labels read the same (the clock repeated "15:06:02").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xSplits } from '../../web/static/assets/charts.js';

const labels = (ticks, t0) => ticks.map((t) => `${Math.round(t - t0)} s`);

test('a short step gets one tick a second, from 0 s, each label once', () => {
  const t0 = 1764161234.4;
  const ticks = xSplits(t0, t0, t0 + 4.5, 400);
  assert.deepEqual(labels(ticks, t0), ['0 s', '1 s', '2 s', '3 s', '4 s']);
});

test('a longer step widens the step so that the labels keep their space', () => {
  assert.deepEqual(labels(xSplits(100, 100, 130, 400), 100), ['0 s', '10 s', '20 s', '30 s']);
  assert.deepEqual(labels(xSplits(100, 100, 400, 400), 100), ['0 s', '60 s', '120 s', '180 s', '240 s', '300 s']);
});

test('no label repeats, whatever the span and width', () => {
  for (const span of [0.2, 0.9, 3, 17, 61, 299]) {
    for (const width of [200, 360, 420]) {
      const l = labels(xSplits(50, 50, 50 + span, width), 50);
      assert.equal(new Set(l).size, l.length, `span ${span} s, ${width} px: ${l}`);
      assert.ok(l.length <= Math.max(1, Math.floor(width / 70)) + 1, `span ${span} s, ${width} px: ${l.length} labels`);
    }
  }
});

// A chart restored with one point let uPlot pick a span of years; ticks every
// 600 s over it were millions, and the page hung before its load event.
test('a span of years still gets a handful of ticks', () => {
  const year = 365 * 24 * 3600;
  const ticks = xSplits(1.7e9, 1.7e9 - year, 1.7e9 + year, 400);
  assert.ok(ticks.length >= 1 && ticks.length <= 7, `${ticks.length} ticks`);
});
