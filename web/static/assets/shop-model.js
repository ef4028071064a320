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

/** openingState is what the page shows about the opening at server time serverNow (ms). */
export function openingState(opensAt, serverNow) {
  const at = Date.parse(opensAt || '');
  if (!Number.isFinite(at)) return { open: true, msLeft: 0, text: '' };
  const msLeft = at - serverNow;
  if (msLeft <= 0) return { open: true, msLeft: 0, text: 'Open now' };
  return { open: false, msLeft, text: `Opens in ${countdownText(msLeft)}` };
}

/** unitsText says how many units are left of the sale view's stock. */
export function unitsText(sale) {
  if (!sale) return '–';
  if (sale.stock <= 0) return 'Sold out';
  return `${sale.stock.toLocaleString('en-US')} of ${sale.initial_stock.toLocaleString('en-US')} left`;
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
export function answerOf(res) {
  if (res.network !== undefined) {
    return { kind: 'retry', text: `Try again: no answer from the shop (${res.network}). Your click keeps its key: a retry cannot buy twice.`, bad: true, settled: false };
  }
  const { status, body } = res;
  const code = body?.error || '';
  const header = (n) => (res.header ? res.header(n) : null);
  const replayed = header('Idempotency-Replayed') === 'true';
  const again = replayed ? ' (the first answer to this click, replayed)' : '';
  const wait = retryAfter(header('Retry-After'));
  const a = (kind, text, bad, settled) => ({ kind, text: text + again, bad, settled });
  if (status === 201 || status === 200) {
    return a('bought', `Bought! Order ${body?.order_id ?? '?'} is yours.`, false, true);
  }
  switch (code) {
    case 'sold_out': return a('sold_out', 'Sold out: every unit is gone.', true, true);
    case 'limit_reached': return a('already', 'Already bought: this user has the most orders the sale allows.', true, true);
    case 'rate_limited':
      return a('rate_limited', `Too many requests: wait ${wait || 1} s, then try again.`, true, false);
    case 'not_open': {
      const at = clockTime(body?.opens_at);
      return a('not_open', `Not open yet${at ? `: the sale opens at ${at}` : ''}. Wait for the countdown.`, true, false);
    }
    case 'ticket_required': case 'bad_ticket':
      return a('ticket', `Ticket refused (${code}): the page gets a new ticket on the next click.`, true, false);
    case 'in_progress':
      return a('retry', 'Try again: your click is still being answered.', true, false);
    case 'not_found': return a('not_found', 'No such sale.', true, true);
    default: break;
  }
  if (status >= 500 || body?.retryable) {
    const why = code ? ` (${code.replaceAll('_', ' ')})` : '';
    // A replayed failure would replay for ever: the next click starts afresh.
    return a('retry', `Try again: the shop could not answer this time${why}.`, true, replayed);
  }
  return a('refused', `Refused: ${body?.message || `HTTP ${status}`}.`, true, true);
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
