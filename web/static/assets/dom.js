// Small DOM and number helpers shared by the dashboard's modules, and the
// verdict in words (colour is never the only signal).

/** el builds an element: attrs (class, text, any attribute) and children. */
export function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
export const fmt = (n, digits = 0) => (n === undefined || n === null || Number.isNaN(n) ? '–'
  : Number(n).toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 }));
export const ms = (n) => fmt(n, n < 10 ? 2 : 1);

/**
 * verdictOf says in words what a finished (or running) step did to the
 * sale. Damage (an oversell, a lost update, a buyer over the limit) is
 * BROKEN; two holders at once without damage is told apart: the lock broke
 * and fencing refused the stale write (FENCED), or it broke and no write
 * collided this time (OVERLAPPED). warn marks those two: not safe by the
 * lock, not damaged.
 */
export function verdictOf(sale) {
  if (!sale) return { word: 'waiting', bad: false };
  if (sale.oversold > 0) return { word: 'OVERSOLD', bad: true };
  if (sale.lost_updates > 0 || sale.duplicates > 0) return { word: 'BROKEN', bad: true };
  if (sale.violations > 0 && sale.fenced_writes > 0) {
    return { word: 'FENCED: the lock overlapped, fencing refused the stale write', bad: false, warn: true };
  }
  if (sale.violations > 0) return { word: 'OVERLAPPED: two holders at once, no write lost this time', bad: false, warn: true };
  return { word: 'holds', bad: false };
}

