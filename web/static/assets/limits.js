// Input bounds from GET /api/limits, the constants the API validates with.
// The HTML carries harmless fallbacks (min, max, value) so the form works
// before the answer; once it comes, the inputs' attributes hold the API's
// numbers, and the page's own checks read those attributes: the bounds are
// written once, in Go.
import { getJSON } from './api.js';

// Input -> [group, name] in the answer.
const FORM = {
  'f-stock': ['sale', 'stock'], 'f-buyers': ['run', 'buyers'], 'f-replicas': ['run', 'replicas'],
  'f-work': ['sale', 'work_ms'], 'f-ttl': ['sale', 'ttl_ms'], 'f-limit': ['sale', 'per_user_limit'],
  'f-rl-user': ['sale', 'rate_limit_user'], 'f-rl-ip': ['sale', 'rate_limit_ip'], 'f-opens': ['sale', 'opens_in_ms'],
};
// The guards' bounds (internal/sale: MaxRateLimit, MaxOpensInMS) for an
// older replica whose /api/limits does not list them.
const FALLBACK = {
  rate_limit_user: { min: 0, max: 100_000, default: 0 }, rate_limit_ip: { min: 0, max: 100_000, default: 0 },
  opens_in_ms: { min: 0, max: 3_600_000, default: 0 },
};
// Inputs in other units than the API's member: the opening is asked in
// seconds, the API takes milliseconds.
const SCALE = { 'f-opens': 1000 };
// The form suggests 5 ms of work in the lock where the API's default is
// none: with a little work inside, an unsafe strategy's race shows within
// a short run.
const SUGGESTED = { 'f-work': 5 };

let limits = null; // the API's answer, once it came

/** setBound sets an input's min and max, and its value while untouched. */
function setBound(input, b, value) {
  if (!input || !b) return;
  if (b.min !== undefined) input.min = String(b.min);
  if (b.max !== undefined) input.max = String(b.max);
  if (value !== undefined && input.value === input.defaultValue) {
    input.value = String(value);
    input.defaultValue = String(value);
  }
}

/**
 * setLoadModel sets the load input's bounds for the closed (concurrency)
 * or open (rate) model, from the data-* attributes applyLimits fills.
 */
export function setLoadModel(rate) {
  const load = document.getElementById('f-load');
  const d = load.dataset;
  load.min = rate ? d.rateMin : d.concMin;
  load.max = rate ? d.rateMax : d.concMax;
  load.step = rate ? 'any' : '1';
  load.dataset.minExclusive = rate ? d.rateMinExclusive : 'false';
}

/** applyFaultLimits bounds the duration inputs of the fault forms under root. */
export function applyFaultLimits(root) {
  const b = limits?.faults?.duration_ms;
  for (const input of root.querySelectorAll('input[name=ms]')) setBound(input, b);
}

/** scaled divides a bound's numbers by k (an API in ms, an input in s), whole numbers inward. */
function scaled(b, k) {
  if (!b || !k) return b;
  const d = (v, round) => (v === undefined ? undefined : round(v / k));
  return { ...b, min: d(b.min, Math.ceil), max: d(b.max, Math.floor), default: d(b.default, Math.round) };
}

/** loadLimits asks the API and applies its bounds; the fallbacks stay on failure. */
export async function loadLimits() {
  try { limits = await getJSON('/api/limits'); } catch { return; }
  for (const [id, [group, name]] of Object.entries(FORM)) {
    const b = scaled(limits[group]?.[name] ?? FALLBACK[name], SCALE[id]);
    setBound(document.getElementById(id), b, SUGGESTED[id] ?? b?.default);
  }
  const load = document.getElementById('f-load');
  const conc = limits.run?.concurrency, rate = limits.run?.rate;
  if (conc) Object.assign(load.dataset, { concMin: conc.min, concMax: conc.max });
  if (rate) Object.assign(load.dataset, { rateMin: rate.min, rateMax: rate.max, rateMinExclusive: String(!!rate.min_exclusive) });
  const isRate = document.querySelector('input[name=model]:checked')?.value === 'rate';
  setLoadModel(isRate);
  if (!isRate && conc?.default !== undefined && load.value === load.defaultValue) {
    load.value = load.defaultValue = String(conc.default);
  }
  // The pay-by time is 0 (no reservation) or a bounded span: the input
  // keeps 0 as its minimum and the span's lower end aside.
  const pay = limits.sale?.pay_within_ms, payInput = document.getElementById('f-pay');
  if (pay?.max !== undefined) payInput.max = String(pay.max);
  if (pay?.min > 0) payInput.dataset.minOn = String(pay.min);
  applyFaultLimits(document);
  document.body.dataset.limits = 'api';
}
