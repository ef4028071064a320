// Combining (合并请求) on the page: the run form's checkbox with its batch
// and wait (offered only where a lock can be shared), the band's
// "combining ≤100" tag, a batch hold's words on the timeline (its bar and
// tooltip) and the comparison's units per hold. combine-model.js decides;
// this module words it in English and Chinese and touches the DOM.
import {
  COMBINE, batchBarTexts, batchFacts, combineBody, combineOffer, combineTag, limitFigures,
} from './combine-model.js';
import { addLabels, label } from './i18n.js';

addLabels({
  cbCombine: ['Combine orders (one lock per batch)', '合并下单（每批加锁一次）'],
  cbBatch: ['batch ≤', '每批 ≤'],
  cbWait: ['wait (µs)', '等待（微秒）'],
  cbHint: ['buyers waiting on one replica share one lock and one transaction', '同一实例上等锁的买家共用一次加锁、一个事务'],
  cbAllHint: ['with all strategies: only the steps that take a lock', '全部策略时：只有加锁的策略合并'],
  cbNoLock: ['off: this strategy takes no lock to share', '不可用：该策略不加锁'],
  cbNoAsync: ['off: async orders are batched by the queue', '不可用：异步下单已由队列批量处理'],
  cbUnknown: ['off: pick a strategy first', '不可用：请先选择策略'],
  cbMustWhole: ['{name} must be a whole number from {min} to {max}', '{name}必须是 {min} 到 {max} 之间的整数'],
  cbTag: ['combining {n}', '合并 {n}'],
  cbTagTip: ['This sale combines: the buyers waiting on one replica for its lock are sold as one batch (at most {n}), one lock and one transaction per batch.',
    '该场秒杀合并下单：同一实例上等锁的买家作为一批（最多 {n} 位）成交，每批加锁一次、一个事务。'],
  cbBuyers: ['buyers', '位买家'],
  cbOrders: ['orders', '单'],
  tlBatch: ['Batch', '批次'],
  tlOthers: ['The others', '其余买家'],
  tlBatchKey: ['one hold of the lock for 37 buyers (combining)', '一次持锁服务 37 位买家（合并下单）'],
  cbBatchVal: ['{b} buyers, one hold: {o} orders', '{b} 位买家，一次持锁：{o} 单'],
  cbOthersSoldOut: ['{n}: sold out', '{n} 位：售罄'],
  cbOthersRefused: ['{n}: refused (limit or repeated key)', '{n} 位：被拒绝（限购或重复请求）'],
  cbOthersNoOrder: ['{n}: no order', '{n} 位：未成交'],
  cbRefusedWhole: ['refused whole: none of the {b} written', '整批被拒绝：{b} 位均未写入'],
  cmpCombine: ['combining', '合并下单'],
  cmpUnits: ['×{u} units/hold', '每次持锁 {u} 单'],
  cmpLimitTip: ['{h} holds/s of the lock, of at most {l} holds/s: ratio {r}. × {u} units per hold = {o} orders/s.',
    '每秒持锁 {h} 次，上限 {l} 次/秒：比值 {r}。× 每次持锁 {u} 单 = {o} 单/秒。'],
  cmpLimitTipOne: ['{h} holds/s of the lock, of at most {l} holds/s: ratio {r}.', '每秒持锁 {h} 次，上限 {l} 次/秒：比值 {r}。'],
});

/** fill is label key in the language with its {placeholders} replaced. */
export const fill = (key, zh, values = {}) => label(key, zh).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));

const num = (v, d = 1) => (Math.round(v * 10 ** d) / 10 ** d).toLocaleString('en-US');

// ---- the run form ----------------------------------------------------------

/**
 * initCombineForm wires the checkbox #f-combine and its inputs in form:
 * the inputs show while it is checked; it is disabled with its reason
 * (#combine-hint) when the strategy picked takes no lock or the order
 * mode is async. strategies() is GET /api/strategies' list, zh() the
 * language. Returns {offer() (call after the strategies or the language
 * change), read(): {body, msg}}: the members to add to POST /api/runs'
 * body and the form's complaints in the language.
 */
export function initCombineForm(form, { strategies, zh }) {
  const box = form.querySelector('#f-combine');
  const opts = form.querySelector('#combine-opts');
  const hint = form.querySelector('#combine-hint');
  const batch = form.querySelector('#f-combine-batch'), wait = form.querySelector('#f-combine-wait');
  for (const [input, b] of [[batch, COMBINE.batch], [wait, COMBINE.waitUs]]) {
    input.min = String(b.min); input.max = String(b.max);
  }
  function offer() {
    const o = combineOffer(form.querySelector('#f-strategy').value, strategies(), form.querySelector('#f-order-mode').value);
    box.disabled = !o.ok;
    if (!o.ok) box.checked = false;
    box.closest('.combine-wrap').classList.toggle('off', !o.ok);
    hint.dataset.l = o.reason;
    hint.textContent = label(o.reason, zh());
    opts.hidden = !box.checked;
  }
  form.addEventListener('change', (e) => {
    if (['strategy', 'order_mode', 'combine'].includes(e.target.name)) offer();
  });
  function read() {
    const { body, errors } = combineBody(box.checked && !box.disabled, batch.value, wait.value);
    for (const input of [batch, wait]) input.setAttribute('aria-invalid', String(errors.some(([f]) => f === input.name)));
    const msg = errors.map(([f, min, max]) => fill('cbMustWhole', zh(), {
      name: zh() ? label(f === 'combine_max_batch' ? 'cbBatch' : 'cbWait', true) : f, min, max }));
    return { body, msg };
  }
  offer();
  return { offer, read };
}

// ---- the band --------------------------------------------------------------

/** renderCombineTag shows "combining ≤100" in tag (an element) while sale combines, hides it otherwise. */
export function renderCombineTag(tag, sale, zh) {
  if (!tag) return;
  const n = combineTag(sale);
  tag.hidden = !n;
  if (!n) return;
  const text = fill('cbTag', zh, { n });
  if (tag.textContent !== text) tag.textContent = text;
  tag.title = fill('cbTagTip', zh, { n: sale.combine_max_batch || COMBINE.batch.def });
}

// ---- the timeline ----------------------------------------------------------

/** batchBarLabels are a batch hold's bar labels in the language, longest first ([] for one order). */
export const batchBarLabels = (s, zh) => batchBarTexts(s, { buyers: label('cbBuyers', zh), orders: label('cbOrders', zh) });

/**
 * batchRows are the tooltip's rows of a batch hold: [label, value] in the
 * language (buyers and orders; what the others got). stockLeft is the
 * stock after the hold (null: unknown). [] for one order.
 */
export function batchRows(s, stockLeft, zh) {
  const f = batchFacts(s, stockLeft);
  if (!f) return [];
  const rows = [[label('tlBatch', zh), fill('cbBatchVal', zh, { b: f.buyers, o: f.orders })]];
  if (f.othersGot) rows.push([label('tlOthers', zh), fill(f.othersGot, zh, { n: f.others, b: f.buyers })]);
  return rows;
}

/** combineFact is the timeline facts' "combining ≤100" for a sale that combines, else ''. */
export const combineFact = (d, zh) => (d?.combine ? fill('cbTag', zh, { n: `≤${d.combine_max_batch || COMBINE.batch.def}` }) : '');

// ---- the comparison --------------------------------------------------------

/**
 * limitWords are the physical-limit cell's extra line ("×12.3 units/hold",
 * '' for about one unit per hold) and its hover: holds/s, the limit, the
 * ratio, and × units per hold = orders/s.
 */
export function limitWords(step, zh) {
  const f = limitFigures(step);
  if (!f) return { units: '', title: '' };
  const v = { h: num(f.holdsPerS), l: num(f.limitPerS), r: num(f.ratio, 2) };
  // Without combining each hold sells at most one unit; its "units per
  // hold" below 1 only counts the holds that sold nothing (a sold-out
  // answer under the lock): not a figure to multiply by.
  if (f.units === null || !step?.sale?.combine) return { units: '', title: fill('cmpLimitTipOne', zh, v) };
  return { units: f.units >= 1.05 ? fill('cmpUnits', zh, { u: num(f.units) }) : '',
    title: fill('cmpLimitTip', zh, { ...v, u: num(f.units, 2), o: num(f.ordersPerS) }) };
}
