// The Timeline's "History check" panel, decided: the linearizability
// verdict of a sale's answered orders (GET /api/sales/{id}/history,
// internal/history.Result) as sentences a class reads off a projector, and
// the witness orders with the replica and the token (its rank, "#4") of
// each, found among the timeline's sections. No DOM here: timeline.js
// renders, the browser tests read the same functions.
import { label } from './i18n.js';
import { orderLabel, tokenLabel } from './timeline-model.js';

/**
 * WITNESS_SHOWN bounds the witness rows listed: a few a class can read
 * (an oversell of 1,000 lists 1,001 orders); all of them are framed on
 * the canvas.
 */
export const WITNESS_SHOWN = 4;

/**
 * sectionOfOrder is the timeline section that made order id: its order_id,
 * or a batch's consecutive ids from its first (order_id .. +orders-1).
 */
export function sectionOfOrder(sections, id) {
  if (!id || !sections) return null;
  return sections.find((s) => s.order_id && id >= s.order_id && id < s.order_id + Math.max(s.orders || 1, 1)) || null;
}

/**
 * historyView is what the panel shows for result res (null: the check did
 * not answer; live: the sale still runs), with the sections of the
 * timeline model (for the witness orders' tokens), in Chinese when zh:
 * {verdict, sentence, meaning, rows: [{order, replica, token, outcome}],
 * more (rows left out), orders (the witness order ids, for the canvas)}.
 */
export function historyView(res, sections, zh = false, live = false) {
  const L = (k) => label(k, zh);
  if (live) return { verdict: 'live', sentence: L('hcLive'), meaning: '', rows: [], more: 0, orders: [] };
  if (!res || !res.verdict) return { verdict: 'none', sentence: L('hcNone'), meaning: '', rows: [], more: 0, orders: [] };
  const msg = (zh ? res.message?.zh : res.message?.en) || res.message?.en || '';
  let sentence;
  switch (res.verdict) {
  case 'linearizable': sentence = L('hcYes'); break;
  case 'not_linearizable': sentence = msg || L('hcNoGeneric'); break;
  default: sentence = `${L('hcUnknown')} ${msg}`.trim();
  }
  const meaning = L({ linearizable: 'hcYesBuyer', not_linearizable: 'hcNoBuyer' }[res.verdict] || 'hcUnknownBuyer');
  const witness = res.witness || [];
  const rows = witness.slice(0, WITNESS_SHOWN).map((w) => {
    const s = sectionOfOrder(sections, w.order_id);
    return {
      order: w.order_id ? orderLabel(w.order_id, zh) : (zh ? `请求 ${w.id}` : `request ${w.id}`),
      replica: w.replica || s?.replica || '–',
      token: tokenLabel(s) || '–',
      outcome: w.outcome,
    };
  });
  return { verdict: res.verdict, sentence, meaning, rows, more: witness.length - rows.length, orders: witness.map((w) => w.order_id).filter(Boolean) };
}
