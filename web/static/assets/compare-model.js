// What the comparison of runs shows for a sale's history check (the sale
// view's `history` member, GET /api/sales/{id}): pure, so node tests it.

/**
 * historyCell is the "linearizable?" cell of a sale whose view answered
 * with history h (null: not checked, or the database did not answer): its
 * text, its class, its hover (the check's message, in Chinese too when zh)
 * and where porcupine's drawing of the check is served ('' if nowhere).
 */
export function historyCell(h, zh) {
  if (!h || !h.verdict) return { text: '…', cls: '', title: 'not checked (yet): the sale view came without its history verdict', href: '' };
  const words = {
    linearizable: ['yes', 'ok'],
    not_linearizable: ['no', 'bad'],
    unknown: ['?', ''],
  }[h.verdict] || ['?', ''];
  const msg = h.message || {};
  const lines = [msg.en || h.verdict];
  if (zh && msg.zh) lines.push(msg.zh);
  if (h.verdict === 'not_linearizable' && h.witness?.length) {
    lines.push(`witness: ${h.witness.map(witnessLine).join('; ')}`);
  }
  lines.push(`${h.operations ?? 0} order requests checked with porcupine`);
  return { text: words[0], cls: words[1], title: lines.join('\n'), href: h.visualization || '' };
}

/** witnessLine names one order request of a witness: its order (or request id), replica and outcome. */
function witnessLine(w) {
  const who = w.order_id != null ? `order ${w.order_id}` : `request ${w.id}`;
  return `${who} (${w.replica || '?'}, ${w.outcome})`;
}

/**
 * isFinal says whether a verdict can be kept for a finished sale: an
 * unknown one (the bounded check ran out) is asked for again.
 */
export function isFinal(h) {
  return h?.verdict === 'linearizable' || h?.verdict === 'not_linearizable';
}
