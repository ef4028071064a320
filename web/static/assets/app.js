// The dashboard: a live band always in view (big numbers and charts fed by
// the SSE stream) above one section at a time: Run, Timeline, Compare,
// Lessons, Class, Matrix, Interview, Faults, Strategies (nav.js). Plain DOM, no framework: the page is a few
// tables and numbers that change once a second. This module wires the
// parts; live-model.js decides what the band shows, live.js draws it.
import { ApiError, getJSON, postJSON, openStream, setAdminToken, adminToken } from './api.js';
import { Charts } from './charts.js';
import { relabelClaims } from './claims-view.js';
import { initCombineForm } from './combine-view.js';
import { initPins, loadClaims, loadComparison as fillComparison, setPinsFromURL } from './compare.js';
import { el } from './dom.js';
import { initFaultArm } from './fault-arm.js';
import { initFaults } from './faults.js';
import { initHerd } from './herd.js';
import { EXPLAIN, applyLabels, explainText, label } from './i18n.js';
import { initInterview } from './interview.js';
import { initLessons } from './lessons.js';
import { loadLimits, setLoadModel } from './limits.js';
import { initMatrix } from './matrix.js';
import { liveView, timelineBand, verdictText } from './live-model.js';
import { initBand, renderLive, renderTables } from './live.js';
import { initQueue } from './queue.js';
import { initShare } from './share.js';
import { initNav, saleInHash } from './nav.js';
import { initPace } from './pace.js';
import { ServerClock } from './shop-model.js';
import { initTimeline } from './timeline.js';

const $ = (sel) => document.querySelector(sel);
const LANG_KEY = 'seckill.zhLabels';

// The timeline is drawn when its section shows (it starts after the nav).
let timeline = null;
let herd = null; // the Run section's Herd panel (herd.js)
let share = null; // the students' link and QR code (share.js)
let queue = null; // the queue's persistence form (queue.js), relabelled with the page
let lessons = null; // the Lessons view (started below)
let matrix = null; // the Matrix section (matrix.js), read each time it shows
let interview = null; // the Interview section (interview.js), read each time it shows
// The Class section (class.js): predict, vote, reveal. Loaded when it first
// shows (or a question is asked), so the page most runs open stays light;
// never before the page has started (the nav shows its first section before).
let classView = null;
let classReady = false;
const classSection = () => {
  classView ??= import('./class.js').then(({ initClass }) => initClass({ zh: () => state.zh, needToken }));
  return classView;
};
// A link to one sale's timeline (#/timeline?sale=ID, the lesson cards'):
// read before the nav rewrites the hash to its canonical form.
let openSaleFirst = saleInHash(location.hash);
window.addEventListener('hashchange', () => {
  const id = saleInHash(location.hash);
  if (id && timeline) timeline.openSale(id); else if (id) openSaleFirst = id;
});
const nav = initNav({ onRun: (id) => { state.focus = id; }, onShow: (name) => { if (name === 'timeline') timeline?.show(); else if (timeline) unpinBand(); if (name === 'matrix') matrix?.show(); if (name === 'class' && classReady) classSection().then((c) => c.show()); if (name === 'interview') interview?.show(); }, onPins: (p) => setPinsFromURL(p) });
const state = {
  strategies: [], // GET /api/strategies
  safe: {}, // name -> claimed safe
  replicas: [], // last `replicas` event
  // run id the page started (0: follow the newest live run); kept in the
  // URL's hash so that a move to another replica keeps following it.
  focus: nav.run(),
  last: null, // the previous sample of the live view (live-model.js), for orders/s
  finishedSeen: new Set(), // run ids already counted in the comparison
  zh: localStorage.getItem(LANG_KEY) === '1',
  step: null, // the step the live band shows
  more: {}, // {sale, queue}: the band's sale view and queue figures (queue.js), which the stream does not carry
  lesson: null, // the lesson run the band shows ({title, run}, lessons.js) instead of a load-test run
  pinned: null, // {id, sale}: on the Timeline, the sale it shows when the band follows another (timelineBand)
};

const charts = new Charts({ orders: $('#c-orders'), latency: $('#c-latency'), lockwait: $('#c-lockwait') });
if (!charts.available) { $('#charts').hidden = true; $('#charts-off').hidden = false; }

// ---- language ---------------------------------------------------------

// The EN | 中文 switch: one button, pressed in Chinese; the side lit is the
// language shown (style.css).
function applyLang() {
  applyLabels(document, state.zh);
  $('#lang').setAttribute('aria-pressed', String(state.zh));
  document.body.dataset.lang = state.zh ? 'zh' : 'en';
  $('#load-hint').dataset.l = form.model.value === 'rate' ? 'loadHintOpen' : 'loadHintClosed';
  $('#load-hint').textContent = label($('#load-hint').dataset.l, state.zh);
  fillStrategyOptions();
  renderExplanations();
  charts.relabel(state.zh);
  band.relabel(state.zh);
  // The band and the tables again in the new language (the charts keep their points).
  if (state.pinned) showPinned();
  else if (state.view) {
    const { step } = state.view;
    const oversold = { ...state.view.numbers.oversold, word: state.view.numbers.oversold.word ? label('vOversold', state.zh) : '' };
    renderLive({ ...state.view, verdict: verdictText(step, state.zh), numbers: { ...state.view.numbers, oversold } }, { reset() {}, push() {} }, state.zh);
  }
  renderTables(state.step, state.replicas, state.zh);
  setConn(conn.text, conn.ok);
  queue?.refresh();
  timeline?.relabel();
  arming?.relabel();
  herd?.relabel();
  share?.relabel();
  lessons?.relabel();
  matrix?.relabel();
  classView?.then((c) => c.relabel());
  interview?.relabel();
  relabelClaims(state.zh); // at once, without waiting for GET /api/claims again (nor when it does not answer)
}
$('#lang').addEventListener('click', () => {
  state.zh = !state.zh;
  localStorage.setItem(LANG_KEY, state.zh ? '1' : '0');
  applyLang();
  loadComparison(1); // its cells are drawn in the language
});

// ---- strategies and explanations ---------------------------------------

async function loadStrategies() {
  try {
    state.strategies = await getJSON('/api/strategies');
  } catch (err) {
    $('#form-msg').textContent = `${label('cannotList', state.zh)}: ${err.message}`;
    return;
  }
  const sel = $('#f-strategy');
  for (const s of state.strategies) {
    state.safe[s.name] = s.safe;
    const o = el('option', { value: s.name });
    if (!s.available) o.disabled = true;
    sel.append(o);
  }
  fillStrategyOptions();
  renderExplanations();
}

/** fillStrategyOptions writes the strategies' options in the current language: the name, then what marks it. */
function fillStrategyOptions() {
  for (const s of state.strategies) {
    const o = $(`#f-strategy option[value="${s.name}"]`);
    if (!o) continue;
    const marks = [s.safe ? '' : label('unsafeMark', state.zh), s.available ? '' : label('unavailableMark', state.zh)].filter(Boolean);
    o.textContent = marks.length ? `${s.name} (${marks.join(', ')})` : s.name;
  }
}

function renderExplanations() {
  const box = $('#explanations');
  box.replaceChildren();
  for (const s of state.strategies) {
    const x = EXPLAIN[s.name];
    // The name in code style, as typed; in Chinese its Chinese name beside it.
    const summary = el('summary', {}, el('code', { class: 'sname', text: s.name }));
    if (state.zh && x?.zh) summary.append(' ', el('strong', { text: x.zh }));
    summary.append(' ', el('span', { class: s.safe ? 'tag safe' : 'tag unsafe', text: label(s.safe ? 'claimedSafeTag' : 'unsafeTag', state.zh) }));
    const d = el('details', { class: 'explain', id: `x-${s.name}` }, summary);
    const dl = el('dl');
    const add = (key, text) => dl.append(el('dt', { text: label(key, state.zh) }), el('dd', { text }));
    if (x) for (const part of ['does', 'pitfall', 'lesson']) add(part, explainText(x, part, state.zh));
    else add('does', s.description);
    d.append(dl);
    // The registry's own one-liner is English (it comes from the Go code): shown in English mode only.
    if (!state.zh || !x) d.append(el('p', { class: 'note', text: `${label('registry', state.zh)}: ${s.description}` }));
    box.append(d);
  }
}

// ---- run form -----------------------------------------------------------

const form = $('#run-form');
initPace(form);
// A fault armed for the next run (fault-arm.js): its card fills this form.
const arming = initFaultArm({ form, charts, zh: () => state.zh,
  strategies: () => state.strategies.filter((s) => s.available).map((s) => s.name) });
// Only redis-lua-stock takes the unit in a Lua script that can queue the
// order in the same step: the async mode is offered with it alone, and
// with "all", whose redis-lua-stock step it makes async (the API leaves
// the other steps sync).
const ASYNC_STRATEGY = 'redis-lua-stock';
const asyncAllowed = (strategy) => strategy === ASYNC_STRATEGY || strategy === 'all';
function offerOrderMode() {
  const asyncOk = asyncAllowed($('#f-strategy').value);
  const mode = $('#f-order-mode');
  mode.querySelector('option[value=async]').disabled = !asyncOk;
  if (!asyncOk && mode.value === 'async') mode.value = 'sync';
}
form.addEventListener('change', (e) => {
  if (e.target.name === 'strategy') offerOrderMode();
  if (e.target.name !== 'model') return;
  const rate = form.model.value === 'rate';
  setLoadModel(rate);
  const hint = $('#load-hint');
  hint.dataset.l = rate ? 'loadHintOpen' : 'loadHintClosed';
  hint.textContent = label(hint.dataset.l, state.zh);
});
// Combining: offered where a lock can be shared (combine-view.js).
const combine = initCombineForm(form, { strategies: () => state.strategies, zh: () => state.zh });

/** fill writes the label key in the current language with its {placeholders} replaced. */
const fill = (key, values) => label(key, state.zh).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));

/**
 * readForm validates the form like the API does and returns the body. The
 * bounds are the inputs' attributes, which limits.js sets from the API.
 */
function readForm() {
  const msg = [];
  const int = (id, name) => {
    const input = $(id);
    const v = Number(input.value);
    const ok = input.value !== '' && Number.isInteger(v) && v >= Number(input.min) && v <= Number(input.max);
    input.setAttribute('aria-invalid', String(!ok));
    // In Chinese the field's own label names it; in English the API's name for it.
    const key = input.closest('label')?.querySelector('[data-l]')?.dataset.l;
    if (!ok) msg.push(fill('mustWhole', { name: state.zh && key ? label(key, true) : name, min: input.min, max: input.max }));
    return v;
  };
  const body = { strategy: $('#f-strategy').value };
  body.stock = int('#f-stock', 'stock');
  body.buyers = int('#f-buyers', 'buyers');
  if (form.model.value === 'rate') {
    const input = $('#f-load');
    const v = Number(input.value);
    const min = Number(input.min), max = Number(input.max);
    const above = input.dataset.minExclusive === 'true' ? v > min : v >= min;
    const ok = input.value !== '' && above && v <= max;
    input.setAttribute('aria-invalid', String(!ok));
    if (!ok) msg.push(fill('mustRate', { min: input.min, max: input.max }));
    body.rate = v;
  } else {
    body.concurrency = int('#f-load', 'concurrency');
  }
  body.replicas = int('#f-replicas', 'replicas');
  body.work_ms = int('#f-work', 'work_ms');
  body.ttl_ms = int('#f-ttl', 'ttl_ms');
  body.per_user_limit = int('#f-limit', 'per_user_limit');
  body.fencing = $('#f-fencing').checked;
  // Sent only when off: the API's default is on, and it refuses `false`
  // for a strategy whose lock does not renew itself.
  if (!$('#f-watchdog').checked) body.watchdog = false;
  // The guards: only what differs from the API's defaults (cache on,
  // limits off, no ticket, open at once), so a plain run sends none.
  const opensS = int('#f-opens', 'opens in (s)');
  if (opensS > 0) body.opens_in_ms = opensS * 1000;
  const rlUser = int('#f-rl-user', 'rate_limit_user'), rlIp = int('#f-rl-ip', 'rate_limit_ip');
  if (rlUser > 0) body.rate_limit_user = rlUser;
  if (rlIp > 0) body.rate_limit_ip = rlIp;
  if (!$('#f-soldout').checked) body.sold_out_cache = false;
  if ($('#f-ticket').checked) body.ticket_required = true;
  // The order pipeline, also only when it differs from the defaults.
  if ($('#f-order-mode').value === 'async') {
    if (!asyncAllowed(body.strategy)) msg.push(fill('mustAsync', { s: ASYNC_STRATEGY }));
    body.order_mode = 'async';
  }
  const payInput = $('#f-pay');
  const pay = int('#f-pay', 'pay_within_ms');
  if (pay > 0 && pay < Number(payInput.dataset.minOn)) {
    payInput.setAttribute('aria-invalid', 'true');
    msg.push(fill('mustPay', { min: payInput.dataset.minOn, max: payInput.max }));
  }
  if (pay > 0) body.pay_within_ms = pay;
  // Split stock: sent only above 1 (the API's default).
  const shards = int('#f-shards', 'stock_shards');
  if (shards > 1) body.stock_shards = shards;
  const combined = combine.read();
  Object.assign(body, combined.body);
  msg.push(...combined.msg);
  return { body, msg };
}

/**
 * formBody is the Run form's run as POST /api/runs takes it, or null after
 * saying what is wrong under the form; the token typed beside it is kept.
 */
function formBody() {
  const out = $('#form-msg');
  out.className = 'msg';
  out.textContent = '';
  const { body, msg } = readForm();
  if (msg.length) { out.textContent = msg.join(state.zh ? '；' : '; '); out.classList.add('bad'); return null; }
  const tok = $('#f-token').value.trim();
  if (tok) setAdminToken(tok);
  return body;
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const out = $('#form-msg');
  const body = formBody();
  if (!body) return;
  const btn = $('#start');
  btn.disabled = true;
  out.textContent = label('starting', state.zh);
  try {
    const run = await postJSON('/api/runs', body);
    state.focus = run.id;
    nav.followRun(run.id);
    out.textContent = fill('started', { id: run.id, strategies: run.config.strategies.join(', '), n: run.targets.length });
    arming.started(run);
    showRun(run);
    // The run's charts, not the form, are what the room watches now: they
    // top the Run section, right under the band.
    window.scrollTo({ top: 0 });
  } catch (err) {
    out.classList.add('bad');
    if (err instanceof ApiError && err.status === 401) {
      $('#token-wrap').hidden = false;
      setAdminToken('');
      out.textContent = `${err.message}. ${label('needTokenMsg', state.zh)}`;
      $('#f-token').focus();
    } else {
      out.textContent = `${label(err instanceof ApiError ? 'refused' : 'failed', state.zh)}: ${err.message}`;
      if (err.field) { const f = form.querySelector(`[name="${err.field}"]`); if (f) { f.setAttribute('aria-invalid', 'true'); f.focus(); } }
    }
  } finally {
    btn.disabled = false;
  }
});
if (adminToken()) $('#token-wrap').hidden = false;
// The token also serves the Lessons and Faults buttons: keep it as typed.
$('#f-token').addEventListener('change', (e) => setAdminToken(e.target.value.trim()));

/** needToken shows the admin token field after a 401 from any button. */
function needToken() {
  setAdminToken('');
  $('#token-wrap').hidden = false;
  $('#f-token').focus();
}

// ---- live band -------------------------------------------------------------

// The server's time for the opening countdown, from the Date header of a
// small request every few seconds: a wrong client clock must not show a
// sale open before it is.
const clock = new ServerClock();
const clientNow = () => performance.timeOrigin + performance.now();
async function syncClock() {
  const sent = clientNow();
  try {
    const res = await fetch('/healthz', { cache: 'no-store', signal: AbortSignal.timeout(3000) });
    clock.sample(res.headers.get('Date'), sent, clientNow());
  } catch { /* the stream says when the replica is gone */ }
  setTimeout(syncClock, 2000 + Math.random() * 2000); // a varying phase narrows the whole-second Date
}

function showRun(run) {
  const serverMs = clock.known ? clock.now(clientNow()) : undefined;
  const view = liveView(run, state.last, Date.now() / 1000, serverMs, { ...state.more, zh: state.zh });
  if (!view) return;
  if (!state.pinned) renderLive(view, charts, state.zh);
  state.view = view;
  state.last = view.sample;
  state.step = view.step;
  if (view.saleId) faults.setSaleId(view.saleId);
  arming.sample(run, state.pinned ? null : view.step);
  if (state.pinned) showPinned();
  renderTables(view.step, state.replicas, state.zh);
}

/**
 * showLesson puts a lesson run on the band (lessons.js's bandRun: its
 * sales as steps, the title naming the lesson and the case). It stays
 * there after the lesson ends until a load-test run is queued or runs.
 */
function showLesson(b) {
  state.lesson = b;
  const view = liveView(b.run, state.last, Date.now() / 1000, undefined, { zh: state.zh });
  if (!view) return;
  view.title = b.title;
  view.heading = b.heading;
  if (!state.pinned) {
    renderLive(view, charts, state.zh);
    arming.follow(view.step);
  }
  state.view = view;
  state.last = view.sample;
  state.step = view.step;
  if (view.saleId) faults.setSaleId(view.saleId);
  renderTables(view.step, state.replicas, state.zh);
}

// ---- the band on the Timeline ----------------------------------------------
// The band tells about the sale on the screen: on the Timeline, the sale it
// draws, when the band follows another (a finished lesson's case opened
// from its card, an older sale picked). A sale running now is the band's
// own: following it is the band's live view, charts and all.

const onTimeline = () => document.body.dataset.section === 'timeline';

/** pinBand shows the Timeline's sale id on the band, or gives the band back (0, or the band's own sale). */
async function pinBand(id) {
  const own = state.step?.sale_id || state.step?.sale?.id || 0;
  if (!id || !onTimeline() || id === own) { unpinBand(); return; }
  let sale;
  try { sale = await getJSON(`/api/sales/${id}`, { timeoutMs: 8000 }); } catch { return; }
  if (timeline?.saleId() !== id || !onTimeline()) return; // another sale, or another section, meanwhile
  state.pinned = { id, sale };
  showPinned();
}

/** showPinned draws the pinned sale on the band; the charts keep the run's points. */
function showPinned() {
  const b = timelineBand(state.pinned.sale, state.zh);
  const view = liveView(b.run, null, Date.now() / 1000, undefined, { zh: state.zh, sale: state.pinned.sale });
  view.title = b.title;
  view.heading = 'liveSale';
  renderLive(view, { reset() {}, push() {} }, state.zh);
  arming.follow(view.step);
}

/** unpinBand gives the band back to the run or lesson it follows. */
function unpinBand() {
  if (!state.pinned) return;
  state.pinned = null;
  if (state.view) {
    renderLive(state.view, { reset() {}, push() {} }, state.zh);
    arming.follow(state.step);
  }
}

function onRuns(list) {
  if (!list.length) return;
  const run = list.find((r) => r.id === state.focus)
    || list.find((r) => r.status === 'running' || r.status === 'queued') || list[0];
  const loadRuns = run.status === 'running' || run.status === 'queued';
  if (state.lesson && (state.lesson.run.status === 'running' || !loadRuns)) {
    // the band follows the lesson
  } else {
    state.lesson = null;
    showRun(run);
  }
  // A run that just finished: refresh the comparison from the database.
  const fresh = list.filter((r) => (r.status === 'done' || r.status === 'failed') && !state.finishedSeen.has(r.id));
  if (fresh.length) {
    loadComparison();
    // The replicas publish their server-side figures once a second: read
    // the finished runs again once those have landed.
    setTimeout(loadComparison, 2500);
  }
}

// Until the API has answered with every finished run's figures (a loaded
// replica can time out), ask again every 2.5 s, for a minute at most.
let pinsReady = false;
const loadComparison = async (tries = 24) => {
  if (!pinsReady) { initPins(nav, () => loadComparison(1)); pinsReady = true; }
  const complete = await fillComparison(state.strategies, state.safe, state.finishedSeen, state.zh);
  loadClaims(state.zh);
  if (!complete && tries > 1) setTimeout(() => loadComparison(tries - 1), 2500);
};

// ---- connection ---------------------------------------------------------------

// The stream's state (api.js words it in English): the known sentences in
// the current language, the address kept as it is; the full text is the title.
const CONN = [
  [/^live from (.*)$/, 'connLive', (m, w) => `${w} ${m[1]}`],
  [/^stream lost: reconnecting…$/, 'connLost', (m, w) => w],
  [/^(.*) is gone: moving to (.*)$/, 'connGone', (m, w) => `${m[1]} ${w} ${m[2]}`],
  [/^no replica answers: retrying…$/, 'connNone', (m, w) => w],
  [/^server: (.*)$/, 'connServer', (m, w) => `${w}: ${m[1]}`],
];
const conn = { text: null, ok: false };
function setConn(text, ok) {
  conn.text = text;
  conn.ok = ok;
  if (text === null) return;
  const c = $('#conn');
  delete c.dataset.l; // from now on the stream's state, not the "connecting…" label
  let shown = text;
  let short = null; // a phone's top row has room for "live" alone; the address is in the title
  for (const [re, key, words] of CONN) {
    const m = re.exec(text);
    if (m) { shown = words(m, label(key, state.zh)); if (key === 'connLive') short = label('connLiveShort', state.zh); break; }
  }
  if (c.dataset.shown !== shown) { // a live region: announce changes only
    c.dataset.shown = shown;
    c.replaceChildren(el('span', { class: short ? 'conn-long' : '', text: shown }),
      ...(short ? [el('span', { class: 'conn-short', 'aria-hidden': 'true', text: short })] : []));
  }
  c.title = shown;
  c.className = `conn ${ok ? 'ok' : 'bad'}`;
}

// ---- start ------------------------------------------------------------------

// The band's collapse, the large-type switch and the charts link (live.js).
const band = initBand({ zh: () => state.zh, onResize: () => charts.resize() });
applyLang();
loadLimits();
syncClock();
const zh = () => state.zh;
// A class-paced lesson's "Next (in 6 s)" counts down on the server's clock too.
lessons = initLessons({ zh, needToken, onBand: showLesson, now: () => (clock.known ? clock.now(clientNow()) : Date.now()) });
const faults = initFaults({ zh, needToken, onArm: arming.arm, onInjected: arming.injected });
timeline = initTimeline({ zh, liveStep: () => state.step, onSale: (id) => pinBand(id), onCompare: (sale, vs) => nav.setCompare(sale, vs) });
if (!$('#timeline').hidden) timeline.show();
matrix = initMatrix({ zh });
if (!$('#matrix').hidden) matrix.show();
interview = initInterview({ zh });
if (!$('#interview').hidden) interview.show();
classReady = true;
if (!$('#class').hidden) classSection().then((c) => c.show());
// The Run form's run as a question: the class predicts, Reveal starts it.
$('#ask-class').addEventListener('click', () => {
  const body = formBody();
  if (body) classSection().then((c) => c.askRun(body));
});
if (openSaleFirst) timeline.openSale(openSaleFirst);
// A click on the band's violation count lists its pairs on the timeline.
$('#b-viol').addEventListener('click', () => {
  if (state.step?.sale) timeline.openSale(state.step.sale.id);
  timeline.showPairs();
  location.hash = `#/timeline${state.focus ? `?run=${state.focus}` : ''}`;
});
herd = initHerd({ liveSale: () => state.step?.sale, zh });
share = initShare({ liveSale: () => state.step?.sale, zh });
queue = initQueue({
  liveSale: () => state.step?.sale,
  onFigures: (more) => { state.more = more; },
  needToken,
});
await loadStrategies();
offerOrderMode();
combine.offer();
loadComparison();

openStream({
  runs: onRuns,
  replicas: (list) => {
    state.replicas = list;
    renderTables(state.step, state.replicas, state.zh);
    lessons.setReplicas(list);
    faults.setReplicas(list);
  },
  error: (body) => setConn(`server: ${body.message}`, false),
  moveTo: (url) => location.assign(`${url}/${location.hash}`),
  state: setConn,
});
