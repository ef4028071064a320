// class-model.js without a browser: the projector's choices and lines, and
// a phone's anonymous id and remembered votes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { choiceRows, clock, myChoice, observedLine, rememberChoice, rightLine, timeLeft, voterId, votesLine } from '../../web/static/assets/class-model.js';

const CHOICES = ['broken', 'overlapped_safe', 'holds', 'stopped'].map((o) => ({ outcome: o, en: `${o} words`, zh: `${o} 中文` }));
const open = { id: 4, status: 'open', votes: 3, tally: null, choices: CHOICES, closes_at: '2026-11-29T10:05:00Z', observed: null };
const revealed = { ...open, status: 'revealed', tally: { broken: 2, overlapped_safe: 1, holds: 0, stopped: 0 },
  observed: { done: true, outcome: 'overlapped_safe', sale_id: 9, reason: { en: '2 sections overlapped', zh: '2 个临界区重叠' } } };

class Store { constructor() { this.m = new Map(); } getItem(k) { return this.m.get(k) ?? null; } setItem(k, v) { this.m.set(k, String(v)); } }

test('before the reveal a choice has no count; after it, the count, the share and the observed one', () => {
  const before = choiceRows(open, false);
  assert.deepEqual(before.map((r) => [r.letter, r.count, r.pct]), [['A', null, null], ['B', null, null], ['C', null, null], ['D', null, null]]);
  const after = choiceRows(revealed, true);
  assert.deepEqual(after.map((r) => [r.letter, r.count, r.pct, r.observed]),
    [['A', 2, 67, false], ['B', 1, 33, true], ['C', 0, 0, false], ['D', 0, 0, false]]);
  assert.equal(after[0].text, 'broken 中文');
  assert.deepEqual(choiceRows({ ...revealed, votes: 0, tally: { broken: 0 } }, false).map((r) => r.pct), [0, 0, 0, 0]);
});

test('the votes line says how many and the time left, never what', () => {
  const now = Date.parse('2026-11-29T10:03:55Z');
  assert.equal(timeLeft(open, now), 65);
  assert.equal(clock(65), '1:05');
  assert.equal(votesLine(open, false, now), '3 votes, 1:05 left');
  assert.equal(votesLine({ ...open, votes: 1 }, false, now), '1 vote, 1:05 left');
  assert.equal(votesLine(open, true, now), '已有 3 票，还剩 1:05');
  assert.equal(votesLine({ ...open, status: 'closed' }, false, now), '3 votes, voting closed');
  assert.equal(timeLeft(open, Date.parse('2026-11-29T11:00:00Z')), 0);
  assert.doesNotMatch(votesLine(open, false, now), /broken|holds/);
});

test('what the run showed, and how many chose it', () => {
  assert.equal(observedLine(open, false), '');
  assert.match(observedLine({ ...revealed, observed: { done: false } }, false), /^Running/);
  assert.equal(observedLine(revealed, false), 'Observed: B, 2 sections overlapped');
  assert.equal(observedLine(revealed, true), '结果：B——2 个临界区重叠');
  assert.match(observedLine({ ...revealed, observed: { done: true, outcome: '', error: 'SKIP: needs 2 replicas' } }, false), /could not run: SKIP/);
  assert.equal(rightLine(revealed, false), '1 of 3 chose it.');
  assert.equal(rightLine({ ...revealed, votes: 0 }, false), 'Nobody voted.');
  assert.equal(rightLine(open, false), '');
});

test('a phone keeps one random id of 32 hex digits, and its choices', () => {
  const s = new Store();
  const id = voterId(s, (b) => b.fill(171));
  assert.equal(id, 'ab'.repeat(16));
  assert.equal(voterId(s, () => assert.fail('made a second id')), id);
  s.setItem('seckill.voter', 'not-hex');
  assert.match(voterId(s), /^[0-9a-f]{32}$/);
  assert.equal(myChoice(s, 4), '');
  rememberChoice(s, 4, 'holds');
  assert.equal(myChoice(s, 4), 'holds');
  for (let i = 0; i < 60; i++) rememberChoice(s, 100 + i, 'broken');
  assert.equal(myChoice(s, 4), '', 'the oldest choices are let go');
  assert.equal(myChoice(s, 159), 'broken');
  s.setItem('seckill.votes', '{broken');
  assert.equal(myChoice(s, 4), '');
});
