// The comparison of finished runs, from the database through GET /api/runs
// (so it survives a reload and a restart): the steps the user pinned side
// by side (pins kept in localStorage and in the URL's hash, to share), or,
// with no pin, the newest finished step of each strategy; below it the
// recent runs' steps, each with its pin button.
import { getJSON, getOnce } from './api.js';
import { claimRow } from './claims-view.js';
import { limitWords } from './combine-view.js';
import {
  differingSettings, faultsText, finishedSteps, historyCell, isFinal, lessonFor, limitCell, newestRows, parsePins,
  pinKey, pinnedRows, settingValue, togglePin,
} from './compare-model.js';
import { el, fmt, ms, verdictOf } from './dom.js';
import { addLabels, label } from './i18n.js';

addLabels({
  cmpNote: ['Pin any finished steps below to compare them (the pins stay in this browser and in the link, to share); with no pin, the newest finished step of each strategy. holds: no two buyers were ever inside the critical section at once; overlapped, data safe: they were, but fencing or the database refused every stale write; broken: oversold, an update lost or a buyer over the limit.',
    '在下方固定任意已完成的步骤进行对比（固定保存在本浏览器和链接里，可分享）；未固定时显示每种策略最新的一次。守住：从未有两个买家同时在临界区内；重叠但数据安全：有过重叠，但防护令牌或数据库拒绝了每次过期写入；数据已损坏：超卖、丢失更新或买家超过限购。'],
  cmpPinned: ['Pinned', '已固定'],
  cmpNewest: ['Newest of each strategy', '每种策略最新一次'],
  cmpRecent: ['Recent runs: pin the steps to compare', '最近的压测：固定要对比的步骤'],
  cmpPin: ['Pin', '固定'],
  cmpUnpin: ['Unpin', '取消固定'],
  cmpClear: ['Unpin all', '全部取消固定'],
  cmpFenced: ['Fenced writes', '被拦截的写入'],
  cmpOrdersPerS: ['Orders/s (201)', '成功下单（次/秒）'],
  cmpAnswersPerS: ['Answers/s (all)', '全部应答（次/秒）'],
  cmpFaults: ['Faults injected', '注入的故障'],
  cmpDiffers: ['Settings that differ', '不同的设置'],
  cmpNone: ['none', '无'],
  cmpSame: ['same', '相同'],
  cmpNoRun: ['no finished run yet', '还没有完成的压测'],
  cmpLessonHolds: ['holds here; breaks in lesson', '此处守住；在此实验课中被破坏：'],
  cmpNoLock: ['n/a (no lock)', '不适用（无锁）'],
  cmpNoLockTip: ['This strategy takes no lock: nothing is serialised, so there is no physical limit to compare with.', '该策略不加锁：没有串行化，因此没有物理上限可比。'],
  cmpOverlapNA: ['n/a: sections overlapped', '不适用：临界区重叠'],
  cmpOverlapNATip: ['The ratio assumes one holder at a time. Here critical sections overlapped, so more ran per second than one lock can allow: the ratio would exceed 1 and means nothing.', '该比值假设同一时刻只有一个持锁者。这里临界区发生了重叠，每秒完成的数量超过了一把锁所允许的上限：比值会大于 1，没有意义。'],
  cmpRatioTip: ['Holds of the lock (critical sections) per second divided by the most one lock can do, 1 / (mean hold + mean hand-over to a waiting buyer), both measured in this step. 1: the lock never sat free while a buyer waited (it was the bottleneck); lower: it idled with nobody waiting.', '每秒完成的临界区数除以一把锁的上限 1 /（平均持有时间 + 交给等待买家的平均交接时间），两者都在本步骤中测得。1：有买家等待时锁从不空闲（锁就是瓶颈）；更低：锁空闲且无人等待。'],
  cmpOrdersTip: ['Orders made per second: 201 answers only. Sold-out and refused answers are in Answers/s.', '每秒成功下单数：只计 201 应答。售罄和拒绝的应答计入“全部应答”。'],
  cmpAnswersTip: ['Every answer per second, sold-out (409) and refusals included: a fast "sold out" is not a fast lock.', '每秒全部应答，包括售罄（409）和拒绝：很快地回答“售罄”并不代表锁快。'],
  cmpSettings: ['Settings', '设置'],
  cmpFinished: ['Finished', '完成时间'],
  cmpFencing: ['fencing', '防护令牌'],
  cmpWatchdog: ['watchdog', '看门狗'],
  cmpWork: ['work', '锁内耗时'],
  cmpTTL: ['TTL', '锁过期时间'],
  cmpCache: ['sold-out cache', '售罄缓存'],
  cmpStock: ['stock', '库存'],
  cmpBuyers: ['buyers', '买家数'],
  cmpLoad: ['load', '负载'],
  cmpReplicas: ['replicas', '实例数'],
  cmpLimit: ['per-user limit', '每人限购'],
  cmpMode: ['order mode', '下单模式'],
  cmpOpens: ['opens in', '开售延迟'],
  cmpTicket: ['ticket', '购买凭证'],
  cmpPay: ['pay within', '支付时限'],
  cmpOn: ['on', '开'], cmpYes: ['yes', '是'], cmpNo: ['no', '否'],
  cmpOff: ['off', '关'],
  cmpConc: ['concurrency', '并发'],
  cmpNoWatchdog: ['no watchdog', '无看门狗'],
});

const PINS_KEY = 'seckill.comparePins';

/** Each shown sale's final history verdict (sale id -> history): a finished sale's does not change. */
const verdicts = new Map();
/** Each pinned sale's faults (sale id -> text): a finished sale's do not change. */
const faultsOf = new Map();
/** The lessons' catalogue (GET /api/lessons), read once. */
let lessons = null;

/** The pins, and what keeps them: the URL (through nav) and localStorage. */
let pins = [];
let pinsNav = null;
let redraw = () => {};

/**
 * initPins reads the pins from the URL (nav.pins()) or else localStorage,
 * and keeps nav (its setPins) for the changes. refresh redraws the
 * comparison after a pin changed.
 */
export function initPins(nav, refresh) {
  pinsNav = nav;
  redraw = refresh;
  let stored = '';
  try { stored = localStorage.getItem(PINS_KEY) || ''; } catch { /* storage off: the URL alone */ }
  pins = parsePins(nav.pins() || stored);
  save();
}

/** setPinsFromURL takes the pins a changed hash names. */
export function setPinsFromURL(s) {
  pins = parsePins(s);
  save();
  redraw();
}

function save() {
  const s = pins.join(',');
  try { localStorage.setItem(PINS_KEY, s); } catch { /* storage off */ }
  pinsNav?.setPins(s);
}

function toggle(key) {
  pins = togglePin(pins, key);
  save();
  redraw();
}

/**
 * loadComparison fills #t-compare and #t-recent. strategies orders the rows
 * without pins (the API's order), safeOf maps a strategy to its claimed
 * safety; seen collects the ids of the finished runs it has shown; zh says
 * whether Chinese labels are on. It resolves false when the API did not
 * answer or a finished run came without its figures: ask again later. Each
 * row's history verdict and faults are read after the table is drawn,
 * without holding it up.
 */
export async function loadComparison(strategies, safeOf, seen, zh = false) {
  let runs;
  try { runs = await getJSON('/api/runs', { timeoutMs: 30000 }); } catch { return false; }
  if (!lessons) getOnce('/api/lessons', { timeoutMs: 30000 }).then((v) => { lessons = v.lessons || []; redraw(); }, () => {});
  let complete = true;
  for (const run of runs) {
    // A finished run counts as seen only once every finished step came with
    // its sale: a loaded replica may answer without one, and the caller
    // then asks again instead of showing an older run for good.
    const whole = run.steps.every((st) => st.status !== 'done' || st.sale);
    if ((run.status === 'done' || run.status === 'failed') && !seen.has(run.id)) {
      if (whole) seen.add(run.id); else complete = false;
    }
  }
  const pinned = pinnedRows(runs, pins);
  const rows = pinned.length ? pinned : newestRows(runs, strategies.map((s) => s.name));
  const head = document.querySelector('#compare-mode');
  if (head) {
    head.textContent = label(pinned.length ? 'cmpPinned' : 'cmpNewest', zh) + (pinned.length ? ` (${pinned.length})` : '');
  }
  const clear = document.querySelector('#compare-clear');
  if (clear) { clear.hidden = !pins.length; clear.onclick = () => { pins = []; save(); redraw(); }; }
  for (const [sel, key] of [['.orders-h', 'cmpOrdersTip'], ['.answers-h', 'cmpAnswersTip']]) {
    const th = document.querySelector(`#t-compare ${sel}`);
    if (th) th.title = label(key, zh);
  }
  drawCompare(rows, safeOf, zh);
  drawRecent(finishedSteps(runs).slice(0, 40), zh);
  return complete;
}

/** drawCompare fills #t-compare with rows ({run, step}). */
function drawCompare(rows, safeOf, zh) {
  const tb = document.querySelector('#t-compare tbody');
  tb.replaceChildren();
  if (!rows.length) { tb.append(el('tr', {}, el('td', { colspan: '19', text: label('cmpNoRun', zh) }))); return; }
  const differ = differingSettings(rows);
  for (const row of rows) {
    const { run, step } = row;
    const s = step.sale, c = step.client, sv = step.server || {};
    const v = verdictOf(s, zh);
    const safe = safeOf[step.strategy];
    const key = pinKey(run.id, step.step);
    const lesson = lessonFor(step.strategy, safe, v.kind, lessons);
    const verdictTd = el('td', { class: v.bad ? 'bad verdict-cell' : v.warn ? 'warn verdict-cell' : 'ok verdict-cell' },
      el('span', { class: 'verdict-word', text: v.kind ? label({ holds: 'vHolds', overlapped_safe: 'vOverlappedSafe', broken: 'vBroken' }[v.kind], zh) : v.word }));
    if (v.reason) verdictTd.append(el('span', { class: 'verdict-reason', text: v.reason }));
    if (lesson) {
      verdictTd.append(el('span', { class: 'lesson-pointer' }, `${label('cmpLessonHolds', zh)} `, lessonLink(lesson)));
    }
    const lim = limitCell(step);
    tb.append(el('tr', { 'data-strategy': step.strategy, 'data-pin': key, class: v.bad ? 'bad-row' : '' },
      el('td', {}, pinButton(key, zh)),
      el('th', { scope: 'row', text: step.strategy }),
      verdictTd,
      // The safety figures beside the verdict: in view on a projector at Large type.
      el('td', { class: s.oversold > 0 ? 'bad' : '', text: fmt(s.oversold) }),
      el('td', { class: s.lost_updates > 0 ? 'bad' : '', text: fmt(s.lost_updates) }),
      el('td', { class: s.violations > 0 ? (v.bad ? 'bad' : 'warn') : '', text: fmt(s.violations) }),
      historyTd(s.id, zh),
      el('td', { class: 'fenced-cell', text: fmt(s.fenced_writes) }),
      el('td', { class: 'orders-cell', text: fmt(c.orders_per_s, 1) }),
      el('td', { class: 'answers-cell', text: fmt(c.requests_per_s, 1) }),
      limitTd(step, lim, zh),
      el('td', { class: 'small differs-cell', text: differ.length ? differ.map((k) => `${label(k, zh)} ${settingText(settingValue(row, k), zh)}`).join(', ') : label(rows.length > 1 ? 'cmpSame' : 'cmpNone', zh) }),
      faultsTd(s.id, zh),
      el('td', { text: ms(c.latency_ms.p50) }),
      el('td', { text: ms(c.latency_ms.p99) }),
      el('td', { text: ms(sv.lock_wait_ms?.p99) }),
      el('td', { text: fmt(sv.retries) }),
      el('td', { class: 'safe-cell', text: safe === undefined ? '?' : label(safe ? 'cmpYes' : 'cmpNo', zh) }),
      el('td', { class: 'small', text: `#${run.id}: ${label('sold', zh)} ${fmt(s.sold)}/${fmt(s.initial_stock)}, ${summary(run, zh)}` })));
  }
}

/**
 * limitTd is the physical-limit cell: the ratio of holds of the lock, the
 * units each hold sold under it when more than one (combining), and the
 * hover: holds/s, the limit, × units per hold = orders/s, then what the
 * ratio means.
 */
function limitTd(step, lim, zh) {
  if (lim.key) return el('td', { class: 'limit-cell', title: label(lim.titleKey, zh), text: label(lim.key, zh) });
  const w = limitWords(step, zh);
  const td = el('td', { class: 'limit-cell', title: `${w.title}\n${label(lim.titleKey, zh)}`.trim() }, fmt(lim.ratio, 2));
  if (w.units) td.append(el('span', { class: 'units-per-hold', text: w.units }));
  return td;
}

/** drawRecent fills #t-recent: one row per finished step, newest first, with its pin button. */
function drawRecent(rows, zh) {
  const tb = document.querySelector('#t-recent tbody');
  if (!tb) return;
  tb.replaceChildren();
  if (!rows.length) { tb.append(el('tr', {}, el('td', { colspan: '5', text: label('cmpNoRun', zh) }))); return; }
  for (const { run, step } of rows) {
    const key = pinKey(run.id, step.step);
    const v = verdictOf(step.sale, zh);
    tb.append(el('tr', { 'data-pin': key, class: pins.includes(key) ? 'pinned' : '' },
      el('td', {}, pinButton(key, zh)),
      el('th', { scope: 'row', text: `#${run.id} · ${step.strategy}` }),
      el('td', { class: v.bad ? 'bad' : v.warn ? 'warn' : 'ok', text: v.kind ? label({ holds: 'vHolds', overlapped_safe: 'vOverlappedSafe', broken: 'vBroken' }[v.kind], zh) : v.word }),
      el('td', { class: 'small', text: summary(run, zh) }),
      el('td', { class: 'small', text: step.finished_at ? new Date(step.finished_at).toLocaleString('en-GB') : '' })));
  }
}

/** lessonLink opens the Lessons section on the lesson's card. */
function lessonLink(name) {
  const a = el('a', { href: '#/lessons', 'data-lesson': name, text: name });
  a.addEventListener('click', () => {
    // After the section is shown (nav scrolls to its top on the hash change).
    window.addEventListener('hashchange', () => requestAnimationFrame(() => {
      document.getElementById(`lesson-${name}`)?.scrollIntoView({ block: 'center' });
    }), { once: true });
  });
  return a;
}

/** pinButton pins or unpins one step; aria-pressed says which. */
function pinButton(key, zh) {
  const on = pins.includes(key);
  const b = el('button', { type: 'button', class: 'pin-btn', 'aria-pressed': String(on), 'data-pin': key, text: label(on ? 'cmpUnpin' : 'cmpPin', zh) });
  b.addEventListener('click', () => toggle(key));
  return b;
}

/** summary is a run's settings in one line. */
function summary(run, zh) {
  const cfg = run.config;
  const l = (k) => label(k, zh);
  const load = cfg.rate ? `${fmt(cfg.rate)} req/s` : `${l('cmpConc')} ${cfg.concurrency}`;
  return [`${l('cmpBuyers')} ${fmt(cfg.buyers)}`, load, `${l('cmpWork')} ${cfg.work_ms} ms`, `${l('cmpTTL')} ${cfg.ttl_ms} ms`,
    `${l('cmpReplicas')} ${run.targets.length}`, cfg.fencing ? l('cmpFencing') : '', cfg.watchdog === false ? l('cmpNoWatchdog') : '',
    cfg.sold_out_cache ? l('cmpCache') : '', cfg.combine ? `${l('cmpCombine')} ≤${cfg.combine_max_batch}` : ''].filter(Boolean).join(', ');
}

/** settingText is a setting's value for people: on and off in the language. */
const settingText = (v, zh) => (v === 'on' ? label('cmpOn', zh) : v === 'off' ? label('cmpOff', zh)
  : zh ? v.replace(/ conc\.$/, ' 并发').replace(/ req\/s$/, ' 次/秒') : v);

/** faultsTd is a row's faults cell: read from the sale's timeline (its `faults`) once, "…" until then. */
function faultsTd(saleID, zh) {
  const td = el('td', { class: 'small faults-cell', text: '…' });
  const fill = (t) => { td.textContent = t || label('cmpNone', zh); };
  if (faultsOf.has(saleID)) { fill(faultsOf.get(saleID)); return td; }
  getOnce(`/api/sales/${saleID}/timeline`, { timeoutMs: 30000 }).then((t) => { // a finished run's sale
    const text = faultsText(t.faults);
    faultsOf.set(saleID, text);
    fill(text);
  }, () => { /* "…" stays; the next refresh asks again */ });
  return td;
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
 * figures of the runs it was judged on, and the verdict (in the page's
 * language when zh). It resolves false when the API did not answer.
 */
export async function loadClaims(zh = false) {
  let v;
  try { v = await getJSON('/api/claims', { timeoutMs: 30000 }); } catch { return false; }
  const tb = document.querySelector('#t-claims tbody');
  tb.replaceChildren(...v.claims.map((c) => claimRow(c, zh)));
  return true;
}
