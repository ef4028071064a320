// The shopper page's logic without the DOM, so that node's test runner
// checks it: the server's clock, the countdown, the purchase intent (its
// Idempotency-Key) and every answer of the order endpoint in words.

/** saleIdFromPath reads the sale id of /shop/{id}; null when it is not a decimal id. */
export function saleIdFromPath(pathname) {
  const m = /^\/shop\/([^/]+)\/?$/.exec(pathname);
  return m && /^[0-9]{1,19}$/.test(m[1]) ? m[1] : null;
}

/** randomHex is n random bytes in hex (crypto.randomUUID needs a secure context; this does not). */
export function randomHex(n) {
  const b = crypto.getRandomValues(new Uint8Array(n));
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
}

/**
 * ServerClock estimates the server's time from the Date headers of its
 * answers. A Date header has whole seconds and was stamped somewhere
 * between the request's departure and the answer's arrival, so each answer
 * bounds the offset (server minus client) from below and above. The page
 * uses the lower bound: its countdown may end a little late, never early,
 * whatever the client's clock says. Every answer tightens the bounds.
 */
export class ServerClock {
  constructor() { this.reset(); }

  reset() { this.lo = -Infinity; this.hi = Infinity; }

  /** sample records one answer: its Date header and the client times (ms) it left and came back. */
  sample(dateHeader, sentAt, receivedAt) {
    const d = Date.parse(dateHeader || '');
    if (!Number.isFinite(d)) return;
    const lo = d - receivedAt, hi = d + 1000 - sentAt;
    // Disjoint bounds: the client's clock jumped (set by hand, a sleep):
    // start again from this answer.
    if (lo > this.hi || hi < this.lo) this.reset();
    this.lo = Math.max(this.lo, lo);
    this.hi = Math.min(this.hi, hi);
  }

  get known() { return Number.isFinite(this.lo); }

  /** now is the earliest the server's time can be at client time clientNow (ms). */
  now(clientNow) { return clientNow + (this.known ? this.lo : 0); }
}

/** countdownText says how long until the opening, msLeft from now ("" once open). */
export function countdownText(msLeft) {
  if (!(msLeft > 0)) return '';
  const s = Math.ceil(msLeft / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const pad = (n) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`;
}

/**
 * openingState is what the page shows about the opening at server time
 * serverNow (ms); zh: in Chinese. A sale open but soldOut is not "open"
 * for the page: it says so, and the Buy button is off (a restock turns it
 * back on at the next refresh).
 */
export function openingState(opensAt, serverNow, zh = false, soldOut = false) {
  const at = Date.parse(opensAt || '');
  const msLeft = Number.isFinite(at) ? at - serverNow : 0;
  if (msLeft <= 0 && soldOut) return { open: false, soldOut: true, msLeft: 0, text: zh ? '已停止购买' : 'Buying closed' };
  if (!Number.isFinite(at)) return { open: true, msLeft: 0, text: '' };
  if (msLeft <= 0) return { open: true, msLeft: 0, text: zh ? '已开售' : 'Open now' };
  return { open: false, msLeft, text: zh ? `距开售 ${countdownText(msLeft)}` : `Opens in ${countdownText(msLeft)}` };
}

/** unitsText says how many units are left of the sale view's stock; zh: in Chinese. */
export function unitsText(sale, zh = false) {
  if (!sale) return '–';
  if (sale.stock <= 0) return zh ? '已售罄' : 'Sold out';
  const left = sale.stock.toLocaleString('en-US'), of = sale.initial_stock.toLocaleString('en-US');
  return zh ? `剩余 ${left} / ${of} 件` : `${left} of ${of} units left`;
}

/** headline is what the sale sells (its product), or "Flash sale #ID" in the reader's language. */
export function headline(sale, zh = false) {
  const p = (sale?.product || '').trim();
  if (p) return p;
  return zh ? `秒杀商品 #${sale?.id ?? '?'}` : `Flash sale #${sale?.id ?? '?'}`;
}

const clockTime = (iso) => {
  const t = new Date(iso);
  return Number.isNaN(t.getTime()) ? '' : t.toLocaleTimeString('en-GB', { hour12: false });
};

/** retryAfter reads a Retry-After header in whole seconds (at least 1), or 0 when absent. */
export function retryAfter(value) {
  const n = Number(value);
  if (value !== null && value !== undefined && value !== '' && Number.isFinite(n)) return Math.max(1, Math.ceil(n));
  const at = Date.parse(value || '');
  return Number.isFinite(at) ? Math.max(1, Math.ceil((at - Date.now()) / 1000)) : 0;
}

/**
 * answerOf turns one answer of POST /api/sales/:id/orders (or /ticket) into
 * words. res: {status, body, header(name)}, or {network: message} when no
 * answer came. It returns {kind, text, bad, settled}: settled says the
 * purchase intent is over (a new click is a new intent with a new
 * Idempotency-Key); an unsettled answer keeps the key so that the retry of
 * the same click can never buy twice.
 */
export function answerOf(res, zh = false) {
  const w = (en, cn) => (zh ? cn : en);
  if (res.network !== undefined) {
    return { kind: 'retry', text: w(`Try again: no answer from the shop (${res.network}). Your click keeps its key: a retry cannot buy twice.`,
      `请重试：商店没有应答（${res.network}）。这次点击保留它的幂等键：重试不会重复购买。`), bad: true, settled: false };
  }
  const { status, body } = res;
  const code = body?.error || '';
  const header = (n) => (res.header ? res.header(n) : null);
  const replayed = header('Idempotency-Replayed') === 'true';
  const again = replayed ? w(' (the first answer to this click, replayed)', '（重放这次点击的第一次应答）') : '';
  const wait = retryAfter(header('Retry-After'));
  const a = (kind, text, bad, settled) => ({ kind, text: text + again, bad, settled });
  if (status === 202) {
    // An async sale: the unit is taken and the order queued; the ticket
    // is the buyer's handle on it, so the click is over.
    const t = body?.order_ticket || '';
    return { ...a('queued', w(`In the queue: ticket ${t || '?'}. Waiting for the order to be confirmed…`, `已排队：凭证 ${t || '?'}，等待订单确认…`), false, true), ticket: t };
  }
  if (status === 201 || status === 200) {
    if (body?.status === 'reserved') {
      return a('reserved', w(`Reserved! Order ${body?.order_id ?? '?'} is held for you: pay before the time runs out.`,
        `已预留！订单 ${body?.order_id ?? '?'} 为你保留：请在倒计时结束前付款。`), false, true);
    }
    return a('bought', w(`Bought! Order ${body?.order_id ?? '?'} is yours.`, `抢到了！订单 ${body?.order_id ?? '?'} 归你。`), false, true);
  }
  switch (code) {
    case 'sold_out': return a('sold_out', w('Sold out: every unit is gone.', '已售罄：一件不剩。'), true, true);
    case 'limit_reached': return a('already', w('Already bought: this user has the most orders the sale allows.', '已购买：该用户已达到限购数量。'), true, true);
    case 'rate_limited':
      return a('rate_limited', w(`Too many requests: wait ${wait || 1} s, then try again.`, `请求太频繁：请等 ${wait || 1} 秒再试。`), true, false);
    case 'not_open': {
      const at = clockTime(body?.opens_at);
      return a('not_open', w(`Not open yet${at ? `: the sale opens at ${at}` : ''}. Wait for the countdown.`,
        `尚未开售${at ? `：${at} 开售` : ''}。请等倒计时结束。`), true, false);
    }
    case 'ticket_required': case 'bad_ticket':
      return a('ticket', w(`Ticket refused (${code}): the page gets a new ticket on the next click.`, `购买凭证被拒（${code}）：下次点击时页面会重新领取。`), true, false);
    case 'in_progress':
      return a('retry', w('Try again: your click is still being answered.', '请重试：你的点击仍在处理中。'), true, false);
    case 'not_found': return a('not_found', w('No such sale.', '没有这个秒杀。'), true, true);
    default: break;
  }
  if (status >= 500 || body?.retryable) {
    const why = code ? ` (${code.replaceAll('_', ' ')})` : '';
    // A replayed failure would replay for ever: the next click starts afresh.
    return a('retry', w(`Try again: the shop could not answer this time${why}.`, `请重试：商店这次没能应答${why}。`), true, replayed);
  }
  return a('refused', w(`Refused: ${body?.message || `HTTP ${status}`}.`, `被拒绝：${body?.message || `HTTP ${status}`}。`), true, true);
}

/**
 * Intent is one purchase intent: the Idempotency-Key every try of the same
 * click sends. A settled answer ends it; a new user id starts a new one.
 */
export class Intent {
  constructor(newKey = () => randomHex(16)) { this.newKey = newKey; this.key = ''; this.user = ''; }

  /** keyFor is the key for the next try by user. */
  keyFor(user) {
    if (!this.key || this.user !== user) { this.key = this.newKey(); this.user = user; }
    return this.key;
  }

  /** settle ends the intent when the answer says so. */
  settle(answer) { if (answer.settled) this.key = ''; }
}

/** ticketUsable says whether a ticket ({ticket, user_id, expires_at}) still serves user at server time serverNow, with 5 s to spare. */
export function ticketUsable(t, user, serverNow) {
  return !!t && t.user_id === user && Date.parse(t.expires_at) - serverNow > 5000;
}

// ---- an order after the click: the queue's ticket and the reservation -------

/** POLL is how the page follows a ticket: 300 ms at first, backing off to 2 s; "still waiting" after 10 s. */
export const POLL = { firstMs: 300, maxMs: 2000, factor: 1.5, stillWaitingMs: 10_000 };

/** pollDelay is the wait before the (n+1)th poll of a ticket (n from 0). */
export function pollDelay(n) {
  return Math.min(POLL.maxMs, Math.round(POLL.firstMs * POLL.factor ** Math.max(0, n)));
}

// Why a ticket failed, in words; the unit went back to the sale each time.
const FAILED = {
  sold_out: 'the sale sold out before your order reached the database',
  limit_reached: 'this user already has the most orders the sale allows',
  duplicate_request: 'this click had already been ordered once, and one order is all it makes',
  invalid_buyer: 'the user id was not one the shop accepts (a space at an end, a control character)',
  refused: 'the database refused this order; the other orders with it went through',
  abandoned: 'the replica taking your order stopped before saving it',
  stuck: 'the order could not be saved in time',
};
const FAILED_ZH = {
  sold_out: '订单写入数据库前已经售罄',
  limit_reached: '该用户已达到限购数量',
  duplicate_request: '这次点击已经下过一单，一次点击只下一单',
  invalid_buyer: '用户 ID 不被商店接受（首尾有空格或含控制字符）',
  refused: '数据库拒绝了这笔订单，同批的其他订单已成功',
  abandoned: '处理订单的副本在保存前停止了',
  stuck: '订单未能及时保存',
};

/**
 * ticketAnswerOf turns one answer of GET /api/orders/:ticket into words,
 * waitedMs after the 202. It returns {kind, text, bad, done, order}: done
 * says polling is over (confirmed, failed or lost); order is the confirmed
 * order's JSON.
 */
export function ticketAnswerOf(res, waitedMs, ticket, zh = false) {
  const w = (en, cn) => (zh ? cn : en);
  const pending = (extra) => ({
    kind: 'pending', bad: false, done: false, order: null,
    text: waitedMs >= POLL.stillWaitingMs
      ? w(`Still waiting: the queue is busy. Ticket ${ticket} keeps your place; the page keeps asking${extra}.`,
        `仍在等待：队列繁忙。凭证 ${ticket} 为你保留位置，页面会继续查询${extra}。`)
      : w(`In the queue: ticket ${ticket}. Waiting for the order to be confirmed…${extra}`, `已排队：凭证 ${ticket}，等待订单确认…${extra}`),
  });
  if (res.network !== undefined) return pending(w(` (no answer from the shop: ${res.network})`, `（商店没有应答：${res.network}）`));
  const { status, body } = res;
  if (status === 404) {
    return { kind: 'lost', bad: true, done: true, order: null,
      text: w(`Ticket lost: the shop no longer knows ticket ${ticket}. The queue's Redis restarted without keeping it, so nothing was bought.`,
        `凭证丢失：商店已不认识凭证 ${ticket}。队列所在的 Redis 重启时没有保留它，所以什么也没买到。`) };
  }
  if (status !== 200 || !body) return pending(status >= 500 ? w(' (the shop did not answer this time)', '（商店这次没有应答）') : '');
  if (body.state === 'confirmed' && body.order) {
    const o = body.order;
    const text = o.status === 'reserved'
      ? w(`Confirmed! Order ${o.order_id} is held for you: pay before the time runs out.`, `已确认！订单 ${o.order_id} 为你保留：请在倒计时结束前付款。`)
      : w(`Confirmed! Order ${o.order_id} is yours.`, `已确认！订单 ${o.order_id} 归你。`);
    return { kind: 'confirmed', bad: false, done: true, order: o, text };
  }
  if (body.state === 'failed') {
    const why = (zh ? FAILED_ZH : FAILED)[body.reason] || (body.reason ? String(body.reason).replaceAll('_', ' ') : w('no reason given', '未给出原因'));
    return { kind: 'failed', bad: true, done: true, order: null, text: w(`Not bought: ${why}. The unit went back to the sale.`, `没有买到：${why}。这件商品已回补库存。`) };
  }
  return pending('');
}

/**
 * reservationOf is what the page shows of an order ({status, pay_by}) at
 * server time serverNow: {state, text, said, canPay, msLeft}; null for an
 * order without a status. text is the reservation's line, said the answer
 * that announces a change the person did not click for. "expiring" is a
 * reserved order past its pay-by time whose expiry the server has not
 * reported yet: no Pay button, and the page asks the server.
 */
export function reservationOf(order, serverNow, zh = false) {
  const w = (en, cn) => (zh ? cn : en);
  if (!order?.status) return null;
  if (order.status === 'paid') {
    return { state: 'paid', text: w('Paid.', '已付款。'), said: w(`Paid. Order ${order.order_id} is yours.`, `已付款。订单 ${order.order_id} 归你。`), canPay: false, msLeft: 0 };
  }
  if (order.status === 'expired') {
    const by = clockTime(order.pay_by);
    return { state: 'expired', text: w(`Expired: not paid${by ? ` by ${by}` : ' in time'}.`, `已超时：${by ? `${by} 前` : '按时'}未付款。`), canPay: false, msLeft: 0,
      said: w('The reservation expired: it was not paid in time, and the unit went back to the sale.', '预留已超时：没有按时付款，这件商品已回补库存。') };
  }
  const at = Date.parse(order.pay_by || '');
  if (!Number.isFinite(at)) return { state: 'reserved', text: w('Reserved: waiting for payment.', '已预留：等待付款。'), canPay: true, msLeft: Infinity };
  const msLeft = at - serverNow;
  if (msLeft <= 0) return { state: 'expiring', text: w('Time to pay is up: the reservation is expiring…', '付款时间已到：预留即将超时…'), canPay: false, msLeft: 0 };
  return { state: 'reserved', text: w(`Pay within ${countdownText(msLeft)} (by ${clockTime(order.pay_by)}).`, `请在 ${countdownText(msLeft)} 内付款（${clockTime(order.pay_by)} 前）。`), canPay: true, msLeft };
}

/**
 * orderPath is where the page reads order o again: by its id with its
 * order_token, which every answer showing the order carries and which
 * proves the order is this page's (an order id alone is refused: ids are
 * sequential). An order without a token (an older server) is asked for
 * by its id alone, as before.
 */
export function orderPath(o) {
  const path = `/api/orders/${encodeURIComponent(o.order_id)}`;
  return o.order_token ? `${path}?order_token=${encodeURIComponent(o.order_token)}` : path;
}

/** payBody is the body that pays order o: its order_token, the proof; a user id proves nothing (an older server takes it). */
export function payBody(o) {
  return o.order_token ? { order_token: o.order_token } : { user_id: o.user_id };
}

/** payAnswerOf turns one answer of POST /api/orders/:id/pay into words: {kind, text, bad, order, retry}. */
export function payAnswerOf(res, zh = false) {
  const w = (en, cn) => (zh ? cn : en);
  const r = (kind, text, bad, extra = {}) => ({ kind, text, bad, order: null, retry: false, ...extra });
  if (res.network !== undefined) {
    return r('retry', w(`Try again: no answer from the shop (${res.network}). Paying twice is harmless.`, `请重试：商店没有应答（${res.network}）。重复付款不会多扣。`), true, { retry: true });
  }
  const { status, body } = res;
  if (status === 200 && body) {
    if (body.status === 'paid') return r('paid', w(`Paid! Order ${body.order_id} is yours.`, `付款成功！订单 ${body.order_id} 归你。`), false, { order: body });
    return r('refused', w(`Not paid: the order is ${body.status || 'in an unknown state'}.`, `未付款：订单状态为 ${body.status || '未知'}。`), true, { order: body });
  }
  switch (body?.error || '') {
    case 'reservation_expired': return r('expired', w('Too late to pay: the reservation expired and the unit went back to the sale.', '付款太晚：预留已超时，这件商品已回补库存。'), true);
    case 'order_pending': return r('retry', w('Not yet: the order is still in the queue. Pay once it is confirmed.', '还不行：订单仍在队列中，确认后再付款。'), true, { retry: true });
    case 'order_failed': return r('refused', w('Nothing to pay: this order failed and bought nothing.', '无需付款：这个订单失败了，没有买到。'), true);
    case 'not_your_order': return r('refused', w('Not your order: it belongs to another user id.', '不是你的订单：它属于另一个用户 ID。'), true);
    case 'not_found': return r('refused', w('No such order.', '没有这个订单。'), true);
    case 'order_token_required':
    case 'bad_order_token': return r('refused', w('Not paid: this page cannot prove the order is yours (its order token is missing or wrong).', '未付款：本页面无法证明订单属于你（订单令牌缺失或错误）。'), true);
    case 'rate_limited': return r('retry', w('Too many requests from this address: wait a moment and try again. Paying twice is harmless.', '该地址请求太频繁：请稍后再试。重复付款不会多扣。'), true, { retry: true });
    default: break;
  }
  if (status >= 500 || body?.retryable) return r('retry', w('Try again: the shop could not take the payment this time.', '请重试：商店这次没能完成付款。'), true, { retry: true });
  return r('refused', w(`Refused: ${body?.message || `HTTP ${status}`}.`, `被拒绝：${body?.message || `HTTP ${status}`}。`), true);
}
