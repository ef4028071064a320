// The Faults page's model, from GET /api/faults without a browser: the
// fault table (internal/faults) is the only list of kinds, their
// parameters and their labels; the page builds its forms from it.

/**
 * faultLabels returns the labels the table carries, as i18n.js keys them:
 * f<kind> for a kind's title, d<kind> for its description, p<name> for a
 * parameter's label, each [English, 中文].
 */
export function faultLabels(kinds) {
  const out = {};
  for (const k of kinds || []) {
    if (k.title) out[`f${k.kind}`] = [k.title.en, k.title.zh];
    if (k.descriptions?.en) out[`d${k.kind}`] = filledDescription(k);
    for (const p of k.parameters || []) {
      if (p.label) out[`p${p.name}`] = [p.label.en, p.label.zh];
    }
  }
  return out;
}

/**
 * filledDescription is a kind's description [English, 中文] with its
 * duration written in: the table says "stalls ms after its lock check" /
 * "停顿 ms 毫秒", where ms is the parameter; the card says the value its
 * input starts at ("stalls 3000 ms after", "停顿 3000 毫秒").
 */
export function filledDescription(k) {
  const en = k.descriptions.en, zh = k.descriptions.zh || en;
  const d = (k.parameters || []).find((p) => p.type === 'duration_ms');
  if (!d) return [en, zh];
  const v = String(d.suggested || d.min || 1);
  return [en.replace(/(^|\s)ms(?=[\s,.:;)]|$)/g, `$1${v} ms`), zh.replace(/(^|\s)ms 毫秒/g, `$1${v} 毫秒`).replace(/(^|\s)ms(?=[\s，。：；）]|$)/g, `$1${v} ms`)];
}

/**
 * paramControl says how to ask for one parameter: a select of its choices,
 * or a number input bounded by the table (a duration starts at the value
 * the table suggests).
 */
export function paramControl(p) {
  if (p.type === 'choice') return { tag: 'select', options: p.choices || [] };
  const c = { tag: 'input', type: 'number', min: String(p.min ?? 1) };
  if (p.type === 'duration_ms') {
    if (p.max) c.max = String(p.max);
    c.value = String(p.suggested || p.min || 1);
  }
  return c;
}

/**
 * needLabels are a kind's needs as labels i18n.js can switch: need<kind><i>
 * per setting, and need<kind>s for the strategies it acts on (none listed:
 * any strategy that takes a lock).
 */
export function needLabels(k) {
  const out = {};
  const strategies = k.needs?.strategies || [];
  out[`need${k.kind}s`] = strategies.length
    ? [`strategies: ${strategies.join(', ')}`, `策略：${strategies.join('、')}`]
    : ['strategies: any that takes a lock', '策略：任何加锁的策略'];
  (k.needs?.settings || []).forEach((s, i) => { out[`need${k.kind}${i}`] = [s.en, s.zh]; });
  return out;
}

/**
 * armForm is what "Arm for the next run" writes into the Run form (the
 * inputs' names as index.html names them), from the kind's arm: only what
 * the arm sets, so the rest of the form stays the trainer's. strategies are
 * the names the form offers; the first of the arm's that it offers is
 * chosen.
 */
export function armForm(k, strategies = []) {
  const a = k.arm || {};
  const out = {};
  const pick = (a.strategies || []).find((s) => !strategies.length || strategies.includes(s));
  if (pick) out.strategy = pick;
  if (a.watchdog === false) out.watchdog = false;
  else if (a.watchdog === true) out.watchdog = true;
  if (a.work_ms) out.work_ms = a.work_ms;
  if (a.ttl_ms) out.ttl_ms = a.ttl_ms;
  if (a.fencing?.length) out.fencing = a.fencing[0];
  if (a.order_mode) out.order_mode = a.order_mode;
  if (a.replicas > 0) out.replicas = a.replicas;
  return out;
}

/**
 * armedFault is the body to POST /api/faults once the armed run's sale has
 * buyers inside: the kind, the arm's arguments (a sale_id parameter gets the
 * run's sale) and the replica to run it on (none: the page's own).
 */
export function armedFault(k, saleId, replica) {
  const body = { kind: k.kind, ...(k.arm?.params || {}) };
  if ((k.parameters || []).some((p) => p.name === 'sale_id')) body.sale_id = saleId;
  if (replica) body.replica = replica;
  return body;
}

/**
 * fireNow says whether an armed fault fires at this sample of the run it
 * was armed for: once, when a running step of it has a sale with its
 * first orders (sold > 0): buyers are inside the lock from then on.
 */
export function fireNow(armed, run) {
  if (!armed || armed.fired || !run || run.id !== armed.runId) return false;
  const step = run.steps?.find((s) => s.status === 'running');
  if (!step?.sale) return false;
  return step.sale.sold > 0;
}
