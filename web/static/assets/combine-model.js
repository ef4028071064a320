// Combining (合并请求) as the dashboard shows it: whether the run form may
// offer it, the body it sends, the band's tag, a batch hold's words on the
// timeline and the comparison's units per hold. Pure (no DOM, no i18n:
// label keys and numbers come out, the views word them), so node tests it.

/** The API's bounds and defaults (internal/sale/combine.go). */
export const COMBINE = { batch: { min: 1, max: 1000, def: 100 }, waitUs: { min: 0, max: 100000, def: 500 } };

/**
 * combineOffer says whether the form may combine for strategy ("all" or a
 * name) with order mode mode: {ok, reason}, reason a label key. Only a
 * strategy whose kind (GET /api/strategies) is "lock" has a lock to share;
 * "all" combines its lock steps; async orders are batched by the queue.
 */
export function combineOffer(strategy, strategies, mode) {
  if (mode === 'async') return { ok: false, reason: 'cbNoAsync' };
  if (strategy === 'all') return { ok: true, reason: 'cbAllHint' };
  const s = (strategies || []).find((x) => x.name === strategy);
  if (!s) return { ok: false, reason: 'cbUnknown' };
  if (s.kind !== 'lock') return { ok: false, reason: 'cbNoLock' };
  return { ok: true, reason: 'cbHint' };
}

/**
 * combineBody is what the run's body gets: nothing when off, else combine
 * with the batch and the wait; errors lists [field, min, max] for a value
 * out of the API's bounds (or not a whole number).
 */
export function combineBody(on, batch, waitUs) {
  if (!on) return { body: {}, errors: [] };
  const errors = [];
  const whole = (v, b, field) => {
    const n = Number(v);
    if (String(v).trim() === '' || !Number.isInteger(n) || n < b.min || n > b.max) errors.push([field, b.min, b.max]);
    return n;
  };
  const body = { combine: true, combine_max_batch: whole(batch, COMBINE.batch, 'combine_max_batch'),
    combine_max_wait_us: whole(waitUs, COMBINE.waitUs, 'combine_max_wait_us') };
  return { body, errors };
}

/** combineTag is the band's tag for a sale view: its batch bound ("≤100") when it combines, else ''. */
export function combineTag(sale) {
  return sale?.combine ? `≤${sale.combine_max_batch || COMBINE.batch.def}` : '';
}

/** isBatch says whether a timeline section sold (or tried to sell) a batch. */
export const isBatch = (s) => (s?.buyers || 0) > 0;

/**
 * batchBarTexts are a batch hold's labels on its bar, longest first (the
 * drawing takes the first that fits): "37 buyers · 30 orders · #12"
 * (#12: the token's rank in the sale, token_rank),
 * "×37 · #12", "×37". words: {buyers, orders} in the page's language.
 * Empty for a section of one order.
 */
export function batchBarTexts(s, words) {
  if (!isBatch(s)) return [];
  const token = s.token_rank ? ` · #${s.token_rank}` : '';
  return [`${s.buyers} ${words.buyers} · ${s.orders || 0} ${words.orders}${token}`, `×${s.buyers}${token}`, `×${s.buyers}`];
}

/**
 * batchFacts are what a batch hold's tooltip says, beyond the section's
 * own rows: {buyers, orders, others, othersGot} where othersGot is a label
 * key: the buyers left without an order got "sold out" when the stock read
 * 0 after the hold (stockLeft, null when unknown), else a refusal (the
 * per-user limit or a repeated key); a fenced or lock-lost batch was
 * refused whole. Null for one order.
 */
export function batchFacts(s, stockLeft) {
  if (!isBatch(s)) return null;
  const orders = s.orders || 0;
  const others = s.buyers - orders;
  let othersGot = '';
  if (s.outcome === 'fenced' || s.outcome === 'lock_lost' || s.outcome === 'rolled_back' || s.outcome === 'error') othersGot = 'cbRefusedWhole';
  else if (others > 0) othersGot = stockLeft === 0 ? 'cbOthersSoldOut' : stockLeft === null || stockLeft === undefined ? 'cbOthersNoOrder' : 'cbOthersRefused';
  return { buyers: s.buyers, orders, others, othersGot };
}

/**
 * unitsPerHold is a finished step's orders per hold of the lock (the sale
 * view's lock_cycle), null when unknown.
 */
export function unitsPerHold(step) {
  const u = step?.sale?.lock_cycle?.units_per_hold;
  return typeof u === 'number' && u > 0 ? u : null;
}

/**
 * limitFigures are the physical-limit cell's numbers: holds per second,
 * the most one lock allows, units per hold and the orders per second they
 * make (holds/s × units per hold). Null without a limit.
 */
export function limitFigures(step) {
  const l = step?.limit;
  if (!l) return null;
  const units = unitsPerHold(step);
  return { holdsPerS: l.sections_per_s, limitPerS: l.limit_per_s, ratio: l.ratio, units,
    ordersPerS: units === null ? null : l.sections_per_s * units };
}
