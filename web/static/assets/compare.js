// The comparison of finished runs: the newest finished step of each
// strategy, read from the database through GET /api/runs, so it survives a
// reload and a restart.
import { getJSON } from './api.js';
import { historyCell, isFinal } from './compare-model.js';
import { el, fmt, ms, verdictOf } from './dom.js';

/** Each shown sale's final history verdict (sale id -> history): a finished sale's does not change. */
const verdicts = new Map();

/**
 * loadComparison fills #t-compare. strategies orders the rows (the API's
 * order), safe maps a strategy to its claimed safety; seen collects the ids
 * of the finished runs it has shown; zh says whether Chinese labels are on.
 * It resolves false when the API did not answer or a finished run came
 * without its figures: ask again later. Each row's history verdict is read
 * after the table is drawn (GET /api/sales/{id}), without holding it up.
 */
export async function loadComparison(strategies, safeOf, seen, zh = false) {
  let runs;
  try { runs = await getJSON('/api/runs', { timeoutMs: 30000 }); } catch { return false; }
  const newest = new Map(); // strategy -> {run, step}: runs come newest first
  let complete = true;
  for (const run of runs) {
    // A finished run counts as seen only once every finished step came with
    // its sale: a loaded replica may answer without one, and the caller
    // then asks again instead of showing an older run for good.
    const whole = run.steps.every((st) => st.status !== 'done' || st.sale);
    if ((run.status === 'done' || run.status === 'failed') && !seen.has(run.id)) {
      if (whole) seen.add(run.id); else complete = false;
    }
    for (const step of run.steps) {
      if (step.status !== 'done' || !step.sale || newest.has(step.strategy)) continue;
      newest.set(step.strategy, { run, step });
    }
  }
  const order = strategies.map((s) => s.name);
  const rows = [...newest.values()].sort((a, b) => order.indexOf(a.step.strategy) - order.indexOf(b.step.strategy));
  const tb = document.querySelector('#t-compare tbody');
  tb.replaceChildren();
  if (!rows.length) { tb.append(el('tr', {}, el('td', { colspan: '13', text: 'no finished run yet' }))); return complete; }
  for (const { run, step } of rows) {
    const s = step.sale, c = step.client, sv = step.server || {};
    const v = verdictOf(s);
    const safe = safeOf[step.strategy];
    const cfg = run.config;
    const load = cfg.rate ? `${fmt(cfg.rate)} req/s` : `${cfg.concurrency} conc.`;
    tb.append(el('tr', { 'data-strategy': step.strategy, class: v.bad ? 'bad-row' : '' },
      el('th', { scope: 'row', text: step.strategy }),
      el('td', { text: safe === undefined ? '?' : safe ? 'yes' : 'no' }),
      el('td', { class: v.bad ? 'bad verdict-cell' : v.warn ? 'warn verdict-cell' : 'ok verdict-cell', text: v.word }),
      el('td', { class: s.oversold > 0 ? 'bad' : '', text: fmt(s.oversold) }),
      el('td', { class: s.violations > 0 ? (v.bad ? 'bad' : 'warn') : '', text: fmt(s.violations) }),
      el('td', { class: s.lost_updates > 0 ? 'bad' : '', text: fmt(s.lost_updates) }),
      historyTd(s.id, zh),
      el('td', { text: fmt(c.requests_per_s, 1) }),
      el('td', { text: ms(c.latency_ms.p99) }),
      el('td', { text: ms(sv.lock_wait_ms?.p99) }),
      el('td', { text: fmt(sv.retries) }),
      el('td', step.limit ? { text: fmt(step.limit.ratio, 2), title: limitTitle(step.limit) } : { text: 'n/a (no lock)' }),
      el('td', { class: 'small', text: `#${run.id}: ${fmt(s.sold)}/${fmt(s.initial_stock)} sold, ${fmt(cfg.buyers)} buyers, ${load}, work ${cfg.work_ms} ms, ${run.targets.length} repl.${cfg.fencing ? ', fencing' : ''}${cfg.watchdog === false ? ', no watchdog' : ''}` })));
  }
  return complete;
}

/**
 * historyTd is a row's "linearizable?" cell: filled at once from a kept
 * verdict, otherwise when the sale view answers (a failed read leaves "…").
 */
function historyTd(saleID, zh) {
  const td = el('td', { class: 'history-cell', 'data-sale': String(saleID) });
  const fill = (h) => {
    const c = historyCell(h, zh);
    td.className = `history-cell ${c.cls}`.trim();
    td.title = c.title;
    td.dataset.verdict = h?.verdict || '';
    td.replaceChildren(c.href ? el('a', { href: c.href, target: '_blank', rel: 'noopener', text: c.text }) : c.text);
  };
  if (verdicts.has(saleID)) { fill(verdicts.get(saleID)); return td; }
  fill(null);
  getJSON(`/api/sales/${saleID}`, { timeoutMs: 30000 }).then((v) => {
    if (isFinal(v.history)) verdicts.set(saleID, v.history);
    fill(v.history);
  }, () => { /* the cell keeps "…"; the next refresh asks again */ });
  return td;
}


/**
 * loadClaims fills #t-claims from GET /api/claims: each seed's claim, the
 * figures of the run it was judged on, and the verdict. It resolves false
 * when the API did not answer.
 */
export async function loadClaims() {
  let v;
  try { v = await getJSON('/api/claims', { timeoutMs: 30000 }); } catch { return false; }
  const tb = document.querySelector('#t-claims tbody');
  tb.replaceChildren(...v.claims.map((c) => el('tr', { 'data-verdict': c.verdict },
    el('td', { class: 'small', text: c.seed }),
    el('td', { text: c.claim }),
    el('td', { class: 'small', text: c.measured }),
    el('td', { class: c.verdict === 'holds' ? 'ok verdict-cell' : c.verdict === 'does not hold' ? 'bad verdict-cell' : 'verdict-cell', text: c.verdict }))));
  return true;
}

/** limitTitle says what a step's physical-limit ratio was made of. */
function limitTitle(l) {
  return `${fmt(l.sections_per_s)} sections/s of a limit of ${fmt(l.limit_per_s)}/s = 1000 / (hold ${fmt(l.hold_ms, 3)} ms + hand-over ${fmt(l.handover_ms, 3)} ms). `
    + '1 = the lock never sat free while a buyer waited (it was the bottleneck); lower = it idled with nobody waiting.';
}
