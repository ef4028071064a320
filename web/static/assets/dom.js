// Small DOM and number helpers shared by the dashboard's modules, and the
// verdict in words (colour is never the only signal).
import { addLabels, label } from './i18n.js';

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

addLabels({
  vHolds: ['holds', '守住'],
  vOverlappedSafe: ['OVERLAPPED, DATA SAFE', '重叠但数据安全'],
  vBroken: ['BROKEN', '数据已损坏'],
  vOversold: ['OVERSOLD', '超卖'],
  vFenced: ['FENCED: the lock overlapped, fencing refused the stale write', '已拦截：锁重叠，防护令牌拒绝了过期写入'],
  vOverlapped: ['OVERLAPPED: two holders at once, no write lost this time', '重叠：两个持有者同时在内，这次没有写入丢失'],
  vWaiting: ['waiting', '等待中'],
});

/** The server's verdict kinds (internal/verdict) and their labels. */
export const KIND_LABEL = { holds: 'vHolds', overlapped_safe: 'vOverlappedSafe', broken: 'vBroken' };

/**
 * verdictOf says in words what a finished (or running) step did to the
 * sale. The server's verdict (sale.verdict: holds, overlapped_safe or
 * broken, with its reason in English and Chinese) is used when the sale
 * has one: the kind's label and its reason (Chinese when zh). Without it,
 * the fallback judges the figures the same way: damage (an oversell, a
 * lost update, a buyer over the limit) is BROKEN; two holders at once
 * without damage is told apart: the lock broke and fencing refused the
 * stale write (FENCED), or it broke and no write collided this time
 * (OVERLAPPED). warn marks overlapped_safe: not safe by the lock, not
 * damaged. kind is the server's kind name in every case.
 */
export function verdictOf(sale, zh = false) {
  if (!sale) return { word: label('vWaiting', zh), bad: false };
  const sv = sale.verdict;
  if (sv && KIND_LABEL[sv.kind]) {
    const reason = (zh ? sv.reason_zh : sv.reason_en) || sv.reason_en || '';
    const name = label(KIND_LABEL[sv.kind], zh);
    return {
      word: sv.kind === 'holds' ? name : `${name}: ${reason}`, kind: sv.kind, reason,
      bad: sv.kind === 'broken', warn: sv.kind === 'overlapped_safe',
    };
  }
  if (sale.oversold > 0) return { word: label('vOversold', zh), bad: true, kind: 'broken' };
  if (sale.lost_updates > 0 || sale.duplicates > 0) return { word: label('vBroken', zh), bad: true, kind: 'broken' };
  if (sale.violations > 0 && sale.fenced_writes > 0) {
    return { word: label('vFenced', zh), bad: false, warn: true, kind: 'overlapped_safe' };
  }
  if (sale.violations > 0) return { word: label('vOverlapped', zh), bad: false, warn: true, kind: 'overlapped_safe' };
  return { word: label('vHolds', zh), bad: false, kind: 'holds' };
}
