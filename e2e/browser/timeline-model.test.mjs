// The timeline view's model (web/static/assets/timeline-model.js) without
// a browser, on a fixture that follows the timeline JSON contract: a redis
// sale, fencing on, watchdog off, replica-2 paused 3 s while holding token
// #2 (raw 1795827359907589; fixtures/timeline-redis-pause.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Replay, SPEEDS, buildTimeline, centreOn, covers, currentLine, densityStrip, detailModel, detailWindow, sectionsIn, leaseBars, narrationText, niceTicks, panBy,
  ordersLabel, parseSpeed, relTime, sectionDetail, stockAt, tokenDetail, tokenLabel, violationPairs, pairWindow, visibleRange, visibleSections, zoomAt,
} from '../../web/static/assets/timeline-model.js';

const fixture = () => JSON.parse(readFileSync(new URL('./fixtures/timeline-redis-pause.json', import.meta.url)));
const T0 = 1764161234000;
const at = (ms) => T0 + ms;

test('one lane per replica and holder row, in the order the answer gives, sections sorted', () => {
  const m = buildTimeline(fixture());
  assert.deepEqual(m.lanes.map((l) => l.key), ['replica-1/0', 'replica-2/0', 'replica-2/1']);
  assert.deepEqual(m.lanes[0].sections.map(tokenLabel), ['#1', '#3', '#4', '#5', '#6', '#8', '#9']);
  assert.deepEqual(m.lanes[2].sections.map((s) => s.id), [107]);
  // A replica with no section yet still has its lane.
  const empty = buildTimeline({ ...fixture(), replicas: ['replica-1', 'replica-2', 'replica-3'] });
  assert.deepEqual(empty.lanes.map((l) => l.key), ['replica-1/0', 'replica-2/0', 'replica-2/1', 'replica-3/0']);
});

test('the visible range is found by binary search and matches a scan, on 20,000 sections', () => {
  const sections = [];
  for (let i = 0; i < 20000; i++) {
    const enter = T0 + i * 0.5 + (i % 7) * 0.01;
    // Every 1000th section is a long one, which must stay visible long after it began.
    const exit = enter + (i % 1000 === 0 ? 400 : 0.3);
    sections.push({ id: i + 1, replica: `r${i % 3}`, lane: 0, token: i + 1, wait_at: enter - 0.1, enter_at: enter, exit_at: exit, order_id: i + 1, outcome: 'committed' });
  }
  const m = buildTimeline({ from: T0, to: T0 + 10500, replicas: ['r0', 'r1', 'r2'], sections });
  for (const [from, to] of [[T0 + 100, T0 + 101], [T0 + 5000.2, T0 + 5003], [T0 - 50, T0 + 1], [T0 + 9990, T0 + 20000], [T0 + 150, T0 + 150]]) {
    for (const lane of m.lanes) {
      const scan = lane.sections.filter((s) => s.exit_at >= from && s.wait_at <= to).map((s) => s.id);
      assert.deepEqual(visibleSections(lane, from, to).map((s) => s.id).sort((a, b) => a - b), scan, `${lane.key} ${from - T0}..${to - T0}`);
      const [lo, hi] = visibleRange(lane, from, to);
      assert.ok(hi - lo <= scan.length + 3, `the range ${hi - lo} holds little more than the ${scan.length} visible`);
    }
  }
  // The long ones are kept apart (every 1000th section, a third of them on r0), and do not widen the search.
  assert.deepEqual(m.lanes[0].long.map((s) => s.id), [1, 3001, 6001, 9001, 12001, 15001, 18001]);
  // The long section that began at 0 is still seen at 300 ms.
  assert.ok(visibleSections(m.lanes[0], T0 + 300, T0 + 301).some((s) => s.id === 1));
});

test('overlaps span the lanes of both sections and keep their orders', () => {
  const m = buildTimeline(fixture());
  assert.equal(m.overlaps.length, 5);
  const first = m.overlaps[0];
  assert.deepEqual([first.laneA, first.laneB, first.top, first.bottom], [1, 0, 0, 1]);
  assert.deepEqual(first.orders, [51]);
  const last = m.overlaps[4];
  assert.deepEqual([last.laneA, last.laneB, last.top, last.bottom], [1, 2, 1, 2]);
  const pairs = violationPairs(m);
  assert.deepEqual(pairs[0].a, { id: 102, replica: 'replica-2', token: '#2', from: at(6.48), to: at(3012.4), outcome: 'fenced' });
  assert.deepEqual([pairs[0].b.replica, pairs[0].b.token], ['replica-1', '#3']);
  const w = pairWindow(pairs[4]);
  assert.ok(w.from < at(6.48) && w.to > at(3013.9), 'the window shows both sections whole');
});

test('leases run from the grant to the expiry the client believed, never past it', () => {
  const m = buildTimeline(fixture());
  const paused = m.leases.find((b) => b.token_rank === 2);
  // Granted at 6.48 with 500 ms; the client learnt it lost at 3006.6, but it ran out at 506.48.
  assert.equal(paused.from, at(6.48));
  assert.equal(paused.to, at(506.48));
  assert.equal(paused.ended, 'lost');
  assert.equal(paused.endedAt, at(3006.6));
  assert.equal(paused.lane, 1, 'beside the hold that used token #2');
  const released = m.leases.find((b) => b.token_rank === 3);
  assert.deepEqual([released.to, released.ended, released.lane], [at(512.95), 'released', 0]);
  // A renewal carries the bar on; a grant with no end reaches its TTL.
  const bars = leaseBars([
    { replica: 'a', token: 1, event: 'granted', at: 0, ttl_ms: 100 },
    { replica: 'a', token: 1, event: 'renewed', at: 60, ttl_ms: 100 },
    { replica: 'a', token: 2, event: 'granted', at: 500, ttl_ms: 100 },
  ]);
  assert.deepEqual(bars.map((b) => [b.token, b.from, b.to, b.renewals, b.ended]), [[1, 0, 160, 1, ''], [2, 500, 600, 0, '']]);
});

test('fault windows cover their replica\'s lanes; an open one reaches the end', () => {
  const m = buildTimeline(fixture());
  assert.deepEqual(m.faults[0].lanes, [1, 2]);
  assert.equal(m.faults[0].open, false);
  const open = buildTimeline({ ...fixture(), faults: [{ kind: 'stop_replica', replica: '', target: 'x', from: at(10), to: null }] });
  assert.deepEqual(open.faults[0].lanes, [0, 1, 2], 'no replica: every lane');
  assert.deepEqual([open.faults[0].open, open.faults[0].to], [true, at(3030)]);
});

test('a run opens on the decisive moment: the first overlap, or the first fenced write', () => {
  const m = buildTimeline(fixture());
  assert.equal(m.decisive.kind, 'overlap');
  assert.equal(m.decisive.at, at(506.7));
  // The window shows the lease running out (506.48) and the new holder's whole section (to 512.95).
  assert.ok(m.decisive.from < at(506.48) && m.decisive.to > at(512.95), `${m.decisive.from - T0}..${m.decisive.to - T0}`);
  assert.ok(m.decisive.to - m.decisive.from < 100, 'zoomed on the moment, not the whole sale');
  // Without overlaps, the fenced write is the moment: where it was refused.
  const fencedOnly = buildTimeline({ ...fixture(), overlaps: [] });
  assert.deepEqual([fencedOnly.decisive.kind, fencedOnly.decisive.at, fencedOnly.decisive.section], ['fenced', at(3012.4), 102]);
  const calm = buildTimeline({ ...fixture(), overlaps: [], sections: fixture().sections.filter((s) => s.outcome !== 'fenced') });
  assert.equal(calm.decisive, null);
});

test('zoom keeps the anchor put, pan moves, both stay inside the sale', () => {
  const m = buildTimeline(fixture());
  const bounds = { from: m.from, to: m.to };
  const v = { from: at(500), to: at(600) };
  const z = zoomAt(v, 0.5, at(550), bounds);
  assert.deepEqual([z.from, z.to], [at(525), at(575)]);
  const out = zoomAt(v, 1000, at(550), bounds);
  assert.ok(out.from >= m.from - 200 && out.to <= m.to + 200, 'zoomed out to the sale, not beyond');
  const p = panBy(v, 50, bounds);
  assert.deepEqual([p.from, p.to], [at(550), at(650)]);
  const end = panBy(v, 1e9, bounds);
  assert.ok(end.to <= m.to + (m.to - m.from) * 0.05 + 1e-6 && end.to - end.from === 100);
  const c = centreOn(v, at(1000), bounds);
  assert.deepEqual([c.from, c.to], [at(950), at(1050)]);
  const tiny = zoomAt(v, 1e-9, at(550), bounds);
  assert.ok(tiny.to - tiny.from >= 0.2 - 1e-3, 'a microsecond-wide window at the most zoom');
});

test('the replay clock moves at 0.1x, 0.25x and 1x, stops at the end, seeks within the sale', () => {
  const r = new Replay(1000, 2000);
  assert.equal(r.tick(100), false, 'paused: no move');
  r.play();
  r.setSpeed(0.1);
  r.tick(100);
  assert.equal(r.t, 1010);
  r.setSpeed(0.25);
  r.tick(100);
  assert.equal(r.t, 1035);
  r.setSpeed(3); // not offered: unchanged
  assert.equal(r.speed, 0.25);
  r.setSpeed(1);
  r.tick(5000);
  assert.deepEqual([r.t, r.playing, r.fraction()], [2000, false, 1]);
  r.play(); // from the end starts again
  assert.equal(r.t, 1000);
  r.seek(500);
  assert.equal(r.t, 1000);
  r.seek(1500);
  assert.equal(r.fraction(), 0.5);
});

test('a summarised sale is a density strip of its buckets', () => {
  const m = buildTimeline({ ...fixture(), summarised: true, bucket_ms: 100, sections: [], overlaps: [],
    buckets: [{ from: at(0), to: at(100), sections: 40, overlaps: 2, fenced: 1 }, { from: at(100), to: at(200), sections: 10, overlaps: 0, fenced: 0 }] });
  assert.equal(m.summarised, true);
  assert.deepEqual(m.lanes.map((l) => l.sections.length), [0, 0]);
  const strip = densityStrip(m.buckets);
  assert.deepEqual(strip.map((b) => [b.level, b.overlaps, b.fenced]), [[1, 2, 1], [0.25, 0, 0]]);
  assert.deepEqual(densityStrip([]), []);
});

test('narration in the dashboard\'s language, the line at a time, the stock at a time, the tooltip', () => {
  const m = buildTimeline(fixture());
  assert.deepEqual(narrationText(m.narration[0], false), { main: 'replica-2 gets token #2', sub: '' });
  assert.deepEqual(narrationText(m.narration[0], true), { main: 'replica-2 获得令牌 #2', sub: '' });
  assert.equal(currentLine(m.narration, at(0)), -1);
  assert.equal(currentLine(m.narration, at(506.7)), 3);
  assert.equal(currentLine(m.narration, at(99999)), 5);
  assert.equal(stockAt(m.stock, at(-10)), null);
  assert.equal(stockAt(m.stock, at(513)), 8);
  const d = Object.fromEntries(sectionDetail(m.byId.get(102), m.from));
  assert.equal(d.tlReplica, 'replica-2');
  assert.equal(d.tlToken, '#2 (raw 1795827359907589)');
  assert.equal(Object.fromEntries(sectionDetail(m.byId.get(102), m.from, true)).tlToken, '#2（原始值 1795827359907589）');
  assert.equal(d.tlOutcome, 'fenced');
  assert.equal(d.tlOrder, '–');
  assert.match(d.tlHeld, /^11\.480 ms → 3\.017 s \(3005\.920 ms\)$/);
  assert.match(d.tlWaited, /6\.050 ms → 11\.480 ms/);
  assert.equal(Object.fromEntries(sectionDetail(m.byId.get(107), m.from)).tlReplica, 'replica-2 (row 2)');
  // A batch's orders are consecutive ids from its first (one multi-row INSERT).
  const batch = { ...m.byId.get(107), order_id: 9, buyers: 85, orders: 85 };
  assert.equal(Object.fromEntries(sectionDetail(batch, m.from)).tlOrder, '9–93');
  assert.equal(Object.fromEntries(sectionDetail({ ...batch, orders: 1 }, m.from)).tlOrder, '9');
  assert.equal(relTime(at(1.5), at(0)), '1.500 ms');
  const { step, ticks } = niceTicks(0, 1000, 8);
  assert.equal(step, 200);
  assert.deepEqual(ticks, [0, 200, 400, 600, 800, 1000]);
});

test('a summarised sale asks for its window again once the view holds few enough sections', () => {
  // 10 buckets of 100 ms, 1,000 sections each: 10,000 over a second.
  const buckets = Array.from({ length: 10 }, (_, i) => ({ from: at(i * 100), to: at((i + 1) * 100), sections: 1000, overlaps: 0, fenced: 0 }));
  const m = { summarised: true, from: at(0), to: at(1000), buckets };
  assert.equal(sectionsIn(buckets, at(0), at(1000)), 10000);
  assert.equal(sectionsIn(buckets, at(150), at(250)), 1000); // half of two buckets
  // The whole sale: too many, keep the buckets.
  assert.equal(detailWindow(m, { from: at(0), to: at(1000) }, null, 5000), null);
  // 100 ms in view: widened by half its span each side.
  assert.deepEqual(detailWindow(m, { from: at(400), to: at(500) }, null, 5000), { from: at(350), to: at(550) });
  // Widened it would hold too many (3,000 >= 80% of 3,000): the bare view.
  assert.deepEqual(detailWindow(m, { from: at(400), to: at(600) }, null, 3000), { from: at(400), to: at(600) });
  // Clamped to the sale.
  assert.deepEqual(detailWindow(m, { from: at(0), to: at(100) }, null, 5000), { from: at(0), to: at(150) });
  // A window already fetched that covers the view: nothing to ask.
  assert.equal(detailWindow(m, { from: at(400), to: at(500) }, { from: at(350), to: at(550) }, 5000), null);
  assert.equal(covers({ from: at(350), to: at(550) }, { from: at(340), to: at(500) }), false);
  // A sale that is not summarised never asks.
  assert.equal(detailWindow({ ...m, summarised: false }, { from: at(400), to: at(500) }, null, 5000), null);
});

test('a fetched window is drawn in the whole sale\'s times', () => {
  const whole = buildTimeline(fixture());
  const win = { ...fixture(), from: at(500), to: at(530) };
  const d = detailModel(win, whole);
  assert.equal(d.from, whole.from);
  assert.equal(d.to, whole.to);
  assert.equal(d.lanes.length, whole.lanes.length);
});

test('a token reads as its rank in the sale, "#4"; the raw token is the tooltip\'s, exact past 2^53', () => {
  // A consistent-hash ring's token (19 digits): as a JSON number it loses its last digits.
  const ring = { token: 3657291100323840001, token_raw: '3657291100323840001', token_rank: 4 };
  assert.equal(tokenLabel(ring), '#4');
  assert.equal(tokenDetail(ring), '#4 (raw 3657291100323840001)');
  assert.equal(tokenLabel({ token: 0, token_rank: 0 }), '', 'a hold without a token shows no number');
  assert.equal(tokenDetail({ token: 0, token_rank: 0 }), '–');
  assert.equal(tokenDetail({ token: 17 }), '17', 'an answer without ranks (an older server) says the raw token');
  // Two ring tokens one apart read as one JavaScript number; their leases stay apart by rank.
  const m = buildTimeline({ from: at(0), to: at(10), replicas: ['r1'],
    sections: [{ id: 1, replica: 'r1', lane: 0, token: 3657291100323840001, token_rank: 1, enter_at: at(0), exit_at: at(2), outcome: 'committed' },
      { id: 2, replica: 'r1', lane: 1, token: 3657291100323840002, token_rank: 2, enter_at: at(1), exit_at: at(3), outcome: 'committed' }],
    leases: [{ replica: 'r1', token: 3657291100323840001, token_rank: 1, event: 'granted', at: at(0), ttl_ms: 5 },
      { replica: 'r1', token: 3657291100323840002, token_rank: 2, event: 'granted', at: at(1), ttl_ms: 5 }] });
  assert.deepEqual(m.leases.map((b) => [b.token_rank, b.lane]), [[1, 0], [2, 1]]);
});

test('the replay speed kept is one of the speeds offered, else 1x; a replay starts at the speed given', () => {
  assert.deepEqual(SPEEDS.map(String).map(parseSpeed), SPEEDS);
  for (const bad of [null, undefined, '', '2', 'abc', '0']) assert.equal(parseSpeed(bad), 1, String(bad));
  const r = new Replay(at(0), at(1000), 0.25);
  r.play();
  r.tick(400);
  assert.equal(r.t, at(100), '400 ms of wall time at 0.25x is 100 ms of the sale');
  assert.equal(new Replay(at(0), at(1), 3).speed, 1, 'a speed not offered is 1x');
});

test('orders are named in words, never with the "#" that numbers tokens', () => {
  assert.equal(ordersLabel([51]), 'order 51');
  assert.equal(ordersLabel([51, 52]), 'orders 51, 52');
  assert.equal(ordersLabel([51, 52], true), '订单 51、52');
  assert.equal(ordersLabel([]), '');
});
