// The shopper page's logic (web/static/assets/shop-model.js) without a
// browser: the server's clock from Date headers, the countdown, the
// purchase intent's key and every answer of the order endpoint in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Intent, POLL, ServerClock, answerOf, countdownText, openingState, orderPath, payAnswerOf, payBody, pollDelay, reservationOf,
  retryAfter, saleIdFromPath, ticketAnswerOf, ticketUsable, unitsText, headline } from '../../web/static/assets/shop-model.js';

const res = (status, body, headers = {}) => ({ status, body, header: (n) => headers[n] ?? null });

test('the sale id comes from the path, decimal only', () => {
  assert.equal(saleIdFromPath('/shop/42'), '42');
  assert.equal(saleIdFromPath('/shop/42/'), '42');
  for (const p of ['/shop/', '/shop/abc', '/shop/-1', '/shop/4/2', '/x/42']) assert.equal(saleIdFromPath(p), null, p);
});

test('the server clock never runs ahead of the server, whatever the client clock says', () => {
  const c = new ServerClock();
  assert.equal(c.known, false);
  assert.equal(c.now(5000), 5000);
  // The client's clock is an hour ahead; the server stamped 12:00:00 (its
  // true time 12:00:00.700) on an answer that took 20 ms there and back.
  const server = Date.parse('2026-01-01T12:00:00.700Z');
  const skew = 3_600_000;
  const sent = server + skew - 10, got = server + skew + 10;
  c.sample('Thu, 01 Jan 2026 12:00:00 GMT', sent, got);
  assert.equal(c.known, true);
  assert.ok(c.now(got) <= server + 10, 'the estimate is ahead of the server');
  assert.ok(server - c.now(got) <= 1000 + 20, 'the estimate is more than a second plus the round trip behind');
  // A later answer stamped just after a second boundary tightens it.
  const server2 = Date.parse('2026-01-01T12:00:05.010Z');
  c.sample('Thu, 01 Jan 2026 12:00:05 GMT', server2 + skew - 10, server2 + skew + 10);
  assert.ok(c.now(server2 + skew) <= server2 && server2 - c.now(server2 + skew) <= 30, `behind by ${server2 - c.now(server2 + skew)} ms`);
  // A clock set by hand (bounds disjoint) starts the estimate afresh.
  c.sample('Thu, 01 Jan 2026 12:00:06 GMT', server2 + 1000, server2 + 1010);
  assert.ok(c.now(server2 + 1010) <= Date.parse('2026-01-01T12:00:07Z'));
  c.sample('not a date', 0, 0);
  assert.equal(c.known, true);
});

test('the countdown says minutes and seconds, hours when needed, nothing once open', () => {
  assert.equal(countdownText(0), '');
  assert.equal(countdownText(-5), '');
  assert.equal(countdownText(1), '0:01');
  assert.equal(countdownText(9_000), '0:09');
  assert.equal(countdownText(61_000), '1:01');
  assert.equal(countdownText(3_600_000 + 62_000), '1:01:02');
  const at = '2026-01-01T12:00:10Z';
  assert.deepEqual(openingState(at, Date.parse('2026-01-01T12:00:00Z')), { open: false, msLeft: 10_000, text: 'Opens in 0:10' });
  assert.equal(openingState(at, Date.parse(at)).open, true);
  assert.equal(openingState(undefined, 0).open, true);
});

test('units left in words', () => {
  assert.equal(unitsText(null), '–');
  assert.equal(unitsText({ stock: 1234, initial_stock: 2000 }), '1,234 of 2,000 units left');
  assert.equal(unitsText({ stock: 0, initial_stock: 5 }), 'Sold out');
  assert.equal(unitsText({ stock: 100, initial_stock: 100 }, true), '剩余 100 / 100 件');
  assert.equal(unitsText({ stock: 0, initial_stock: 5 }, true), '已售罄');
});

test('the headline is the product, else the sale number in the reader\'s language', () => {
  assert.equal(headline({ id: 12, product: ' Mechanical keyboard ' }), 'Mechanical keyboard');
  assert.equal(headline({ id: 12, product: '' }), 'Flash sale #12');
  assert.equal(headline({ id: 12 }, true), '秒杀商品 #12');
});

test('the opening and the main answers in Chinese', () => {
  const at = '2026-01-01T12:00:10Z';
  assert.equal(openingState(at, Date.parse('2026-01-01T12:00:00Z'), true).text, '距开售 0:10');
  assert.equal(openingState(at, Date.parse(at), true).text, '已开售');
  assert.match(answerOf(res(201, { order_id: 7 }), true).text, /抢到了！订单 7 归你/);
  assert.match(answerOf(res(409, { error: 'sold_out' }), true).text, /已售罄/);
  assert.match(answerOf(res(429, { error: 'rate_limited' }, { 'Retry-After': '3' }), true).text, /请等 3 秒/);
  assert.match(ticketAnswerOf(res(200, { state: 'confirmed', order: { order_id: 9, status: 'paid' } }), 0, 'ot_1', true).text, /已确认！订单 9 归你/);
  assert.match(ticketAnswerOf(res(200, { state: 'failed', reason: 'sold_out' }), 0, 'ot_1', true).text, /没有买到：订单写入数据库前已经售罄/);
  assert.equal(reservationOf({ status: 'paid', order_id: 9 }, 0, true).text, '已付款。');
  assert.match(payAnswerOf(res(409, { error: 'reservation_expired' }), true).text, /预留已超时/);
});

test('every answer of the contract has its words and says whether the click is over', () => {
  const cases = [
    [res(201, { order_id: 77 }), 'bought', /Bought! Order 77/, true],
    [res(201, { order_id: 78, status: 'paid' }), 'bought', /Bought! Order 78 is yours/, true],
    [res(201, { order_id: 79, status: 'reserved', pay_by: '2026-01-01T12:00:10Z' }), 'reserved', /Reserved! Order 79 .*pay before/, true],
    [res(202, { order_ticket: 'ot_7_ab', state: 'pending' }), 'queued', /In the queue: ticket ot_7_ab/, true],
    [res(503, { error: 'backend_unavailable', retryable: true }), 'retry', /Try again: .*backend unavailable/, false],
    [res(409, { error: 'sold_out' }), 'sold_out', /Sold out/, true],
    [res(409, { error: 'limit_reached' }), 'already', /Already bought/, true],
    [res(429, { error: 'rate_limited', retryable: true }, { 'Retry-After': '3' }), 'rate_limited', /Too many requests: wait 3 s/, false],
    [res(409, { error: 'not_open', opens_at: '2026-01-01T12:00:10Z' }, { 'Retry-After': '4' }), 'not_open', /Not open yet: the sale opens at \d\d:\d\d:10/, false],
    [res(403, { error: 'ticket_required' }), 'ticket', /Ticket refused \(ticket_required\)/, false],
    [res(403, { error: 'bad_ticket' }), 'ticket', /Ticket refused \(bad_ticket\)/, false],
    [res(409, { error: 'in_progress', retryable: true }), 'retry', /still being answered/, false],
    [res(503, { error: 'lock_timeout', retryable: true }), 'retry', /Try again: .*lock timeout/, false],
    [res(502, null), 'retry', /Try again/, false],
    [res(409, { error: 'conflict', retryable: true }), 'retry', /Try again/, false],
    [{ network: 'Failed to fetch' }, 'retry', /Try again: no answer.*Failed to fetch/, false],
    [res(404, { error: 'not_found' }), 'not_found', /No such sale/, true],
    [res(400, { error: 'invalid_field', message: 'user_id must not be empty' }), 'refused', /Refused: user_id must not be empty/, true],
  ];
  for (const [r, kind, text, settled] of cases) {
    const a = answerOf(r);
    assert.equal(a.kind, kind, JSON.stringify(r));
    assert.match(a.text, text);
    assert.equal(a.settled, settled, `${kind}: settled`);
    assert.equal(a.bad, kind !== 'bought' && kind !== 'queued' && kind !== 'reserved');
  }
  // A replayed answer says so; a replayed failure ends the intent (it would replay for ever).
  const replay = answerOf(res(201, { order_id: 5 }, { 'Idempotency-Replayed': 'true' }));
  assert.match(replay.text, /Order 5 .*replayed/);
  assert.equal(answerOf(res(503, { error: 'lock_timeout' }, { 'Idempotency-Replayed': 'true' })).settled, true);
});

test('Retry-After in seconds or as a date', () => {
  assert.equal(retryAfter(null), 0);
  assert.equal(retryAfter('0.2'), 1);
  assert.equal(retryAfter('7'), 7);
  assert.ok(retryAfter(new Date(Date.now() + 5000).toUTCString()) >= 4);
});

test('a retry of the same click reuses its key; a settled answer or another user starts a new one', () => {
  let n = 0;
  const i = new Intent(() => `k${++n}`);
  assert.equal(i.keyFor('ann'), 'k1');
  i.settle(answerOf({ network: 'offline' }));
  assert.equal(i.keyFor('ann'), 'k1', 'a retry after a network error must reuse the key');
  i.settle(answerOf(res(201, { order_id: 1 })));
  assert.equal(i.keyFor('ann'), 'k2', 'a new click after a purchase is a new intent');
  assert.equal(i.keyFor('bob'), 'k3', 'another user is another intent');
  assert.match(new Intent().keyFor('x'), /^[0-9a-f]{32}$/);
});

test('a ticket serves its own user until 5 s before it expires', () => {
  const t = { ticket: 't', user_id: 'ann', expires_at: '2026-01-01T12:01:00Z' };
  const now = Date.parse('2026-01-01T12:00:00Z');
  assert.equal(ticketUsable(t, 'ann', now), true);
  assert.equal(ticketUsable(t, 'bob', now), false);
  assert.equal(ticketUsable(t, 'ann', Date.parse('2026-01-01T12:00:56Z')), false);
  assert.equal(ticketUsable(null, 'ann', now), false);
});

test('a 202 carries its ticket; a replayed 202 is the same ticket', () => {
  assert.equal(answerOf(res(202, { order_ticket: 'ot_1_x' })).ticket, 'ot_1_x');
  const again = answerOf(res(202, { order_ticket: 'ot_1_x' }, { 'Idempotency-Replayed': 'true' }));
  assert.equal(again.ticket, 'ot_1_x');
  assert.match(again.text, /replayed/);
});

test('a ticket is polled from 300 ms, backing off to 2 s', () => {
  const d = Array.from({ length: 10 }, (_, n) => pollDelay(n));
  assert.equal(d[0], 300);
  for (let i = 1; i < d.length; i++) assert.ok(d[i] >= d[i - 1], `delay ${i} shrank: ${d}`);
  assert.ok(d[1] > 300, 'no back-off');
  assert.equal(d[9], 2000);
  assert.equal(pollDelay(100), POLL.maxMs);
});

test('every answer about a ticket has its words and says when polling ends', () => {
  const t = 'ot_7_ab';
  const pending = ticketAnswerOf(res(200, { order_ticket: t, state: 'pending', order: null }), 1000, t);
  assert.deepEqual([pending.kind, pending.done, pending.bad], ['pending', false, false]);
  assert.match(pending.text, /^In the queue: ticket ot_7_ab/);
  assert.match(ticketAnswerOf(res(200, { state: 'pending' }), POLL.stillWaitingMs, t).text, /^Still waiting: .*ot_7_ab/);
  assert.equal(ticketAnswerOf(res(200, { state: 'pending' }), POLL.stillWaitingMs - 1, t).text.startsWith('In the queue'), true);
  const paid = { order_id: 9, status: 'paid', pay_by: null };
  const ok = ticketAnswerOf(res(200, { state: 'confirmed', order: paid }), 500, t);
  assert.deepEqual([ok.kind, ok.done, ok.bad, ok.order], ['confirmed', true, false, paid]);
  assert.match(ok.text, /^Confirmed! Order 9 is yours\.$/);
  const held = ticketAnswerOf(res(200, { state: 'confirmed', order: { order_id: 10, status: 'reserved', pay_by: '2026-01-01T12:00:10Z' } }), 500, t);
  assert.match(held.text, /^Confirmed! Order 10 is held for you/);
  for (const [reason, words] of [['sold_out', /sold out/], ['limit_reached', /most orders/], ['duplicate_request', /already been ordered/], ['odd_one', /odd one/]]) {
    const f = ticketAnswerOf(res(200, { state: 'failed', reason }), 500, t);
    assert.deepEqual([f.kind, f.done, f.bad], ['failed', true, true], reason);
    assert.match(f.text, /^Not bought: /);
    assert.match(f.text, words, reason);
    assert.match(f.text, /unit went back/);
  }
  const lost = ticketAnswerOf(res(404, { error: 'not_found', field: 'ref' }), 500, t);
  assert.deepEqual([lost.kind, lost.done, lost.bad], ['lost', true, true]);
  assert.match(lost.text, /^Ticket lost: .*ot_7_ab.*nothing was bought/);
  // No answer, or a server error: keep polling, and say so.
  for (const r of [{ network: 'Failed to fetch' }, res(503, { error: 'backend_unavailable' }), res(502, null)]) {
    const p = ticketAnswerOf(r, 500, t);
    assert.deepEqual([p.kind, p.done], ['pending', false], JSON.stringify(r));
  }
  assert.match(ticketAnswerOf({ network: 'Failed to fetch' }, 500, t).text, /no answer from the shop/);
});

test('a reservation counts down on the server clock to its pay-by time, then expires', () => {
  const payBy = '2026-01-01T12:00:30Z';
  const o = { order_id: 4, status: 'reserved', pay_by: payBy };
  const at = (iso) => Date.parse(iso);
  const r = reservationOf(o, at('2026-01-01T12:00:00Z'));
  assert.equal(r.state, 'reserved');
  assert.equal(r.canPay, true);
  assert.equal(r.msLeft, 30_000);
  assert.match(r.text, /^Pay within 0:30 \(by \d\d:\d\d:30\)\.$/);
  assert.match(reservationOf(o, at('2026-01-01T12:00:29.500Z')).text, /^Pay within 0:01/);
  const due = reservationOf(o, at(payBy));
  assert.deepEqual([due.state, due.canPay], ['expiring', false]);
  assert.match(due.text, /expiring/);
  const gone = reservationOf({ ...o, status: 'expired' }, at('2026-01-01T12:00:00Z'));
  assert.deepEqual([gone.state, gone.canPay], ['expired', false]);
  assert.match(gone.text, /^Expired: not paid by \d\d:\d\d:30\.$/);
  assert.match(gone.said, /^The reservation expired: .*unit went back to the sale\.$/);
  const paid = reservationOf({ ...o, status: 'paid' }, at(payBy));
  assert.deepEqual([paid.state, paid.canPay, paid.text], ['paid', false, 'Paid.']);
  assert.match(paid.said, /^Paid\. Order 4 is yours\.$/);
  assert.equal(reservationOf({ order_id: 1 }, 0), null, 'an order without a status (an older server) has no reservation');
  assert.equal(reservationOf(null, 0), null);
});

test('every answer of the pay endpoint has its words', () => {
  const cases = [
    [res(200, { order_id: 4, status: 'paid' }), 'paid', /^Paid! Order 4 is yours\.$/, false],
    [res(409, { error: 'reservation_expired' }), 'expired', /Too late to pay: .*unit went back/, false],
    [res(409, { error: 'order_pending', retryable: true }), 'retry', /still in the queue/, true],
    [res(409, { error: 'order_failed' }), 'refused', /this order failed/, false],
    [res(403, { error: 'not_your_order', field: 'user_id' }), 'refused', /Not your order/, false],
    [res(404, { error: 'not_found' }), 'refused', /No such order/, false],
    [res(403, { error: 'order_token_required', field: 'order_token' }), 'refused', /cannot prove .*order is yours/, false],
    [res(403, { error: 'bad_order_token', field: 'order_token' }), 'refused', /cannot prove .*order is yours/, false],
    [res(429, { error: 'rate_limited', retryable: true }), 'retry', /Too many requests .*try again/i, true],
    [res(400, { error: 'invalid_field', field: 'user_id', message: 'user_id is required' }), 'refused', /Refused: user_id is required/, false],
    [res(503, { error: 'backend_unavailable', retryable: true }), 'retry', /Try again/, true],
    [{ network: 'Failed to fetch' }, 'retry', /Try again: no answer/, true],
  ];
  for (const [r, kind, text, retry] of cases) {
    const a = payAnswerOf(r);
    assert.equal(a.kind, kind, JSON.stringify(r));
    assert.match(a.text, text);
    assert.equal(a.retry, retry, `${kind}: retry`);
    assert.equal(a.bad, kind !== 'paid');
  }
  assert.equal(payAnswerOf(res(200, { order_id: 4, status: 'paid' })).order.status, 'paid');
});

test('an order is read and paid with its token, never with a user id', () => {
  const o = { order_id: 12, user_id: 'ann', order_token: 'v1.a-b_c+/=', status: 'reserved' };
  assert.equal(orderPath(o), '/api/orders/12?order_token=v1.a-b_c%2B%2F%3D');
  assert.deepEqual(payBody(o), { order_token: 'v1.a-b_c+/=' });
  assert.equal(orderPath({ order_id: 3 }), '/api/orders/3', 'an order without a token (an older server) is asked for as before');
  assert.deepEqual(payBody({ order_id: 3, user_id: 'ann' }), { user_id: 'ann' }, 'an older server takes the buyer');
});

test('a sale open but sold out is not "Open now": the page says buying is closed and the Buy button is off', () => {
  const at = '2026-01-01T12:00:10Z';
  const after = Date.parse('2026-01-01T12:00:20Z');
  assert.deepEqual(openingState(at, after, false, true), { open: false, soldOut: true, msLeft: 0, text: 'Buying closed' });
  assert.equal(openingState(at, after, true, true).text, '已停止购买');
  assert.equal(openingState(undefined, 0, false, true).open, false);
  // Before the opening, the countdown still shows whatever the stock.
  assert.equal(openingState(at, Date.parse('2026-01-01T12:00:00Z'), false, true).text, 'Opens in 0:10');
  assert.equal(openingState(at, after, false, false).open, true);
});
