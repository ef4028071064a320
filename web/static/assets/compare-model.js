// What the comparison of runs shows for a sale's history check (the sale
// view's `history` member, GET /api/sales/{id}): pure, so node tests it.
import { unitsPerHold } from './combine-model.js';

/**
 * historyCell is the "linearizable?" cell of a sale whose view answered
 * with history h (null: not checked, or the database did not answer): its
 * text, its class, its hover (the check's message, in Chinese too when zh)
 * and where porcupine's drawing of the check is served ('' if nowhere).
 */
export function historyCell(h, zh) {
  if (!h || !h.verdict) {
    return { text: '…', cls: '', title: zh ? '尚未检查：秒杀视图没有带上历史检查的结论' : 'not checked (yet): the sale view came without its history verdict', href: '' };
  }
  const words = {
    linearizable: [zh ? '是' : 'yes', 'ok'],
    not_linearizable: [zh ? '否' : 'no', 'bad'],
    unknown: ['?', ''],
  }[h.verdict] || ['?', ''];
  const msg = h.message || {};
  const lines = [(zh && msg.zh) || msg.en || h.verdict];
  if (h.verdict === 'not_linearizable' && h.witness?.length) {
    lines.push(`${zh ? '证据：' : 'witness: '}${h.witness.map((w) => witnessLine(w, zh)).join(zh ? '；' : '; ')}`);
  }
  lines.push(zh ? `porcupine 检查了 ${h.operations ?? 0} 个下单请求` : `${h.operations ?? 0} order requests checked with porcupine`);
  return { text: words[0], cls: words[1], title: lines.join('\n'), href: h.visualization || '' };
}

/** witnessLine names one order request of a witness: its order (or request id), replica and outcome. */
function witnessLine(w, zh) {
  const who = w.order_id != null ? `${zh ? '订单' : 'order'} ${w.order_id}` : `${zh ? '请求' : 'request'} ${w.id}`;
  return zh ? `${who}（${w.replica || '?'}，${w.outcome}）` : `${who} (${w.replica || '?'}, ${w.outcome})`;
}

/**
 * isFinal says whether a verdict can be kept for a finished sale: an
 * unknown one (the bounded check ran out) is asked for again.
 */
export function isFinal(h) {
  return h?.verdict === 'linearizable' || h?.verdict === 'not_linearizable';
}

// ---- pinned comparisons ------------------------------------------------------

/** A pin names one step of one run: "RUN.STEP" (run 12, step 1: "12.1"). */
export const pinKey = (runID, step) => `${runID}.${step}`;

/** parsePins reads "12.1,14.2" (the URL's or localStorage's): valid keys, each once, in order. */
export function parsePins(s) {
  const out = [];
  for (const k of String(s || '').split(',')) {
    if (/^\d+\.\d+$/.test(k) && !out.includes(k)) out.push(k);
  }
  return out;
}

/** togglePin adds key to pins, or removes it when it is there. */
export const togglePin = (pins, key) => (pins.includes(key) ? pins.filter((k) => k !== key) : [...pins, key]);

/** finishedSteps are the steps of runs (newest first) that finished with their sale, as {run, step} rows. */
export function finishedSteps(runs) {
  const out = [];
  for (const run of runs) for (const step of run.steps) if (step.status === 'done' && step.sale) out.push({ run, step });
  return out;
}

/** pinnedRows are the finished steps pins name, in the pins' order; a pin no run has (yet) is left out. */
export function pinnedRows(runs, pins) {
  const all = new Map(finishedSteps(runs).map((r) => [pinKey(r.run.id, r.step.step), r]));
  return pins.map((k) => all.get(k)).filter(Boolean);
}

/** newestRows is the newest finished step of each strategy, in the order of names (the comparison without pins). */
export function newestRows(runs, names) {
  const newest = new Map();
  for (const r of finishedSteps(runs)) if (!newest.has(r.step.strategy)) newest.set(r.step.strategy, r);
  return [...newest.values()].sort((a, b) => names.indexOf(a.step.strategy) - names.indexOf(b.step.strategy));
}

/**
 * SETTINGS are the settings a step ran with, each a label key (compare.js
 * registers them) and how to read it from the run: the comparison names
 * those that differ between the rows.
 */
export const SETTINGS = [
  ['cmpFencing', (run) => onOff(run.config.fencing)],
  ['cmpWatchdog', (run) => onOff(run.config.watchdog !== false)],
  ['cmpWork', (run) => `${run.config.work_ms} ms`],
  ['cmpTTL', (run) => `${run.config.ttl_ms} ms`],
  ['cmpCache', (run) => onOff(run.config.sold_out_cache)],
  ['cmpStock', (run) => String(run.config.stock)],
  ['cmpBuyers', (run) => String(run.config.buyers)],
  ['cmpLoad', (run) => (run.config.rate ? `${run.config.rate} req/s` : `${run.config.concurrency} conc.`)],
  ['cmpReplicas', (run) => String(run.targets?.length ?? run.config.replicas)],
  ['cmpLimit', (run) => String(run.config.per_user_limit)],
  ['cmpMode', (run) => run.config.order_mode || 'sync'],
  ['cmpOpens', (run) => `${run.config.opens_in_ms || 0} ms`],
  ['cmpTicket', (run) => onOff(run.config.ticket_required)],
  ['cmpPay', (run) => `${run.config.pay_within_ms || 0} ms`],
  // combine-view.js registers its label; "≤100 / 500 µs" on, else off.
  ['cmpCombine', (run) => (run.config.combine ? `≤${run.config.combine_max_batch} / ${run.config.combine_max_wait_us} µs` : 'off')],
];
const onOff = (b) => (b ? 'on' : 'off');

/** differingSettings are the keys of SETTINGS whose value is not the same on every row (none for one row). */
export function differingSettings(rows) {
  if (rows.length < 2) return [];
  return SETTINGS.filter(([, of]) => new Set(rows.map((r) => of(r.run))).size > 1).map(([key]) => key);
}

/** settingValue is a row's value of setting key. */
export const settingValue = (row, key) => SETTINGS.find(([k]) => k === key)[1](row.run);

/**
 * limitCell is the physical-limit ratio's cell: a label key (or the ratio
 * of holds of the lock, when it means something, with the units each hold
 * sold: more than one when the sale combined) and its hover's key. A lock
 * that let sections overlap was not the serial bottleneck the ratio
 * assumes: "n/a".
 */
export function limitCell(step) {
  if (!step.limit) return { key: 'cmpNoLock', titleKey: 'cmpNoLockTip' };
  if (step.sale?.violations > 0) return { key: 'cmpOverlapNA', titleKey: 'cmpOverlapNATip' };
  return { ratio: step.limit.ratio, titleKey: 'cmpRatioTip', units: unitsPerHold(step) };
}

/**
 * lessonFor is the lesson that breaks an unsafe strategy shown holding
 * here: the first lesson of the catalogue (GET /api/lessons' lessons) that
 * lists it; '' for a safe strategy, a verdict other than holds, or none.
 */
export function lessonFor(strategy, safe, kind, lessons) {
  if (safe !== false || kind !== 'holds') return '';
  return (lessons || []).find((l) => (l.strategies || []).includes(strategy))?.name || '';
}

/** faultsText lists a step's faults (the timeline's `faults`) by kind, with a count past one; '' for none. */
export function faultsText(faults) {
  const n = new Map();
  for (const f of faults || []) n.set(f.kind, (n.get(f.kind) || 0) + 1);
  return [...n].map(([k, c]) => (c > 1 ? `${k} ×${c}` : k)).join(', ');
}
