// The dashboard: run form, live panel fed by the SSE stream, comparison of
// finished runs, explanation panels. Plain DOM, no framework: the page is
// a few tables and numbers that change once a second.
import { ApiError, getJSON, postJSON, openStream, setAdminToken, adminToken } from './api.js';
import { Charts } from './charts.js';
import { loadComparison as fillComparison } from './compare.js';
import { el, fmt, ms, verdictOf } from './dom.js';
import { initFaults } from './faults.js';
import { EXPLAIN, applyLabels, label } from './i18n.js';
import { initLessons } from './lessons.js';

const $ = (sel) => document.querySelector(sel);
const LANG_KEY = 'seckill.zhLabels';

const state = {
  strategies: [], // GET /api/strategies
  safe: {}, // name -> claimed safe
  replicas: [], // last `replicas` event
  // run id the page started (0: follow the newest live run); kept in the
  // URL's #run= so that a move to another replica keeps following it.
  focus: Number((location.hash.match(/run=(\d+)/) || [])[1] || 0),
  last: null, // {key, t, sold} of the previous sample, for orders/s
  finishedSeen: new Set(), // run ids already counted in the comparison
  zh: localStorage.getItem(LANG_KEY) === '1',
  step: null, // the step the live panel shows
};

const charts = new Charts({ orders: $('#c-orders'), latency: $('#c-latency'), lockwait: $('#c-lockwait') });
if (!charts.available) { $('#charts').hidden = true; $('#charts-off').hidden = false; }

// ---- labels -----------------------------------------------------------

function applyLang() {
  applyLabels(document, state.zh);
  const b = $('#lang');
  b.setAttribute('aria-pressed', String(state.zh));
  b.textContent = state.zh ? 'English labels only' : '中文 labels';
  renderExplanations();
}
$('#lang').addEventListener('click', () => {
  state.zh = !state.zh;
  localStorage.setItem(LANG_KEY, state.zh ? '1' : '0');
  applyLang();
});

// ---- strategies and explanations ---------------------------------------

async function loadStrategies() {
  try {
    state.strategies = await getJSON('/api/strategies');
  } catch (err) {
    $('#form-msg').textContent = `Cannot list the strategies: ${err.message}`;
    return;
  }
  const sel = $('#f-strategy');
  for (const s of state.strategies) {
    state.safe[s.name] = s.safe;
    const o = el('option', { value: s.name, text: `${s.name}${s.safe ? '' : ' (unsafe)'}${s.available ? '' : ' (unavailable here)'}` });
    if (!s.available) o.disabled = true;
    sel.append(o);
  }
  renderExplanations();
}

function renderExplanations() {
  const box = $('#explanations');
  box.replaceChildren();
  for (const s of state.strategies) {
    const x = EXPLAIN[s.name];
    const name = state.zh && x?.zh ? `${s.name} · ${x.zh}` : s.name;
    const d = el('details', { class: 'explain', id: `x-${s.name}` },
      el('summary', {}, el('strong', { text: name }), ' ',
        el('span', { class: s.safe ? 'tag safe' : 'tag unsafe', text: s.safe ? 'claimed safe' : 'unsafe by design' })));
    const dl = el('dl');
    const add = (key, text) => dl.append(el('dt', { text: label(key, state.zh) }), el('dd', { text }));
    if (x) { add('does', x.does); add('pitfall', x.pitfall); add('lesson', x.lesson); } else add('does', s.description);
    d.append(dl, el('p', { class: 'note', text: `Registry: ${s.description}` }));
    box.append(d);
  }
}

// ---- run form -----------------------------------------------------------

const form = $('#run-form');
form.addEventListener('change', (e) => {
  if (e.target.name !== 'model') return;
  const rate = form.model.value === 'rate';
  const load = $('#f-load');
  load.max = rate ? '1000000' : '10000';
  load.step = rate ? 'any' : '1';
  $('#load-hint').textContent = rate ? 'open model: requests per second, whatever the answers take' : 'closed model: buyers in flight at once';
});

/** readForm validates the form like the API does and returns the body. */
function readForm() {
  const msg = [];
  const int = (id, name) => {
    const input = $(id);
    const v = Number(input.value);
    const ok = input.value !== '' && Number.isInteger(v) && v >= Number(input.min) && v <= Number(input.max);
    input.setAttribute('aria-invalid', String(!ok));
    if (!ok) msg.push(`${name} must be a whole number from ${input.min} to ${input.max}`);
    return v;
  };
  const body = { strategy: $('#f-strategy').value };
  body.stock = int('#f-stock', 'stock');
  body.buyers = int('#f-buyers', 'buyers');
  if (form.model.value === 'rate') {
    const input = $('#f-load');
    const v = Number(input.value);
    const ok = input.value !== '' && v > 0 && v <= 1e6;
    input.setAttribute('aria-invalid', String(!ok));
    if (!ok) msg.push('rate must be above 0 and at most 1000000 requests/s');
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
  return { body, msg };
}

form.addEventListener('submit', async (e) => {
  e.preventDefault();
  const out = $('#form-msg');
  out.className = 'msg';
  const { body, msg } = readForm();
  if (msg.length) { out.textContent = msg.join('; '); out.classList.add('bad'); return; }
  const tok = $('#f-token').value.trim();
  if (tok) setAdminToken(tok);
  const btn = $('#start');
  btn.disabled = true;
  out.textContent = 'starting…';
  try {
    const run = await postJSON('/api/runs', body);
    state.focus = run.id;
    history.replaceState(null, '', `#run=${run.id}`);
    out.textContent = `Run ${run.id} started: ${run.config.strategies.join(', ')} on ${run.targets.length} replica(s).`;
    showRun(run);
  } catch (err) {
    out.classList.add('bad');
    if (err instanceof ApiError && err.status === 401) {
      $('#token-wrap').hidden = false;
      setAdminToken('');
      out.textContent = `${err.message}. Enter the admin token (SECKILL_ADMIN_TOKEN) and start again.`;
      $('#f-token').focus();
    } else {
      out.textContent = err instanceof ApiError ? `Refused: ${err.message}` : `Failed: ${err.message}`;
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

// ---- live panel -----------------------------------------------------------

/** currentStep is the running step, else the last one that has a sale. */
function currentStep(run) {
  return run.steps.find((s) => s.status === 'running') || [...run.steps].reverse().find((s) => s.sale) || run.steps[0];
}

function setBig(id, n, box) {
  $(id).textContent = fmt(n);
  if (box) {
    const bad = n > 0;
    $(box).classList.toggle('bad', bad);
  }
}

function showRun(run) {
  const step = currentStep(run);
  if (!step) return;
  const sale = step.sale;
  const steps = run.steps.length > 1 ? ` step ${step.step + 1}/${run.steps.length}` : '';
  $('#live-title').textContent = `run ${run.id}${steps}: ${step.strategy} (${run.status})`;
  $('#live').dataset.run = run.id;
  $('#live').dataset.strategy = step.strategy;
  $('#live').dataset.status = run.status;
  setBig('#n-stock', sale?.stock);
  setBig('#n-sold', sale?.sold);
  setBig('#n-oversold', sale?.oversold, '#b-oversold');
  // The word, not only the colour: "OVERSOLD" beside the number.
  if (sale?.oversold > 0) $('#n-oversold').append(el('span', { class: 'word', text: ' OVERSOLD' }));
  setBig('#n-lost', sale?.lost_updates, '#b-lost');
  setBig('#n-viol', sale?.violations, '#b-viol');
  setBig('#n-fenced', sale?.fenced_writes);
  const v = verdictOf(sale);
  const done = step.status === 'done';
  // Only on a change: #verdict is a live region, and a screen reader would
  // otherwise repeat it every second.
  const verdict = sale ? `${step.strategy}: ${done ? '' : 'so far, '}${v.word === 'holds' ? 'the sale holds' : v.word}` : 'waiting for the step to start';
  if ($('#verdict').textContent !== verdict) $('#verdict').textContent = verdict;
  $('#verdict').className = `verdict ${v.bad ? 'bad' : 'ok'}`;

  const key = `${run.id}/${step.step}`;
  charts.reset(key);
  const now = Date.now() / 1000;
  const first = state.last?.key !== key;
  const running = step.status === 'running';
  // Orders/s from the database's sold count between two events; a step
  // first seen finished (it ran between two events) gets its average.
  let rate = 0;
  if (!first && sale) rate = Math.max(0, (sale.sold - state.last.sold) / Math.max(0.2, now - state.last.t));
  else if (first && done) rate = step.client.orders_per_s;
  // A point while the step runs, plus one when it ends (or when it is first
  // seen already ended), so that even a short step leaves a trace.
  if (sale && (running || (!first && state.last.running) || (first && done))) {
    // 0 means "no sample yet" here: a gap, not a dive to zero.
    const gap = (v) => (v > 0 ? v : null);
    const c = step.client.latency_ms, sv = step.server?.latency_ms || {}, lw = step.server?.lock_wait_ms || {};
    charts.push(now, {
      orders: [rate],
      latency: [c.p50, c.p95, c.p99, sv.p50, sv.p95, sv.p99].map(gap),
      lockwait: [lw.p50, lw.p95, lw.p99].map(gap),
    });
  }
  state.last = { key, t: now, sold: sale?.sold || 0, running: step.status === 'running' };
  state.step = step;
  if (step.sale_id) faults.setSaleId(step.sale_id);
  renderTables(step);
}

function aliveOf(id) {
  const m = state.replicas.find((r) => r.id === id);
  if (!m) return 'unknown';
  return m.alive ? 'alive' : `gone ${Math.round(m.age_ms / 1000)} s ago`;
}

function stateCell(text) {
  return el('td', { class: text === 'alive' || text === 'done' ? 'ok' : text.startsWith('gone') ? 'bad' : '', text });
}

function renderTables(step) {
  const rb = $('#t-replicas tbody');
  rb.replaceChildren();
  const byId = new Map((step?.server?.replicas || []).map((r) => [r.replica_id, r]));
  const shops = state.replicas.filter((m) => m.kind === 'shop');
  for (const id of new Set([...shops.map((m) => m.id), ...byId.keys()])) {
    const r = byId.get(id) || {};
    rb.append(el('tr', {}, el('th', { scope: 'row', text: id }), el('td', { text: fmt(r.requests) }),
      el('td', { text: fmt(r.orders) }), el('td', { text: fmt(r.errors) }), el('td', { text: r.p99_ms === undefined ? '–' : ms(r.p99_ms) }),
      stateCell(aliveOf(id))));
  }
  const ab = $('#t-agents tbody');
  ab.replaceChildren();
  const agents = step?.agents || [];
  const listed = new Set(agents.map((a) => a.agent_id));
  for (const a of agents) {
    const st = a.done ? 'done' : a.agent_id ? aliveOf(a.agent_id) : 'unclaimed';
    ab.append(el('tr', {}, el('th', { scope: 'row', text: `${a.agent_id || '–'} (share ${a.share + 1})` }),
      el('td', { text: fmt(a.requests) }), el('td', { text: fmt(a.orders) }), el('td', { text: fmt(a.errors) }),
      el('td', { text: ms(a.p99_ms) }), stateCell(st)));
  }
  for (const m of state.replicas.filter((x) => x.kind === 'agent' && !listed.has(x.id))) {
    ab.append(el('tr', {}, el('th', { scope: 'row', text: m.id }), el('td', { text: '–' }), el('td', { text: '–' }),
      el('td', { text: '–' }), el('td', { text: '–' }), stateCell(aliveOf(m.id))));
  }
}

function onRuns(list) {
  if (!list.length) return;
  const run = list.find((r) => r.id === state.focus)
    || list.find((r) => r.status === 'running' || r.status === 'queued') || list[0];
  showRun(run);
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
const loadComparison = async (tries = 24) => {
  const complete = await fillComparison(state.strategies, state.safe, state.finishedSeen);
  if (!complete && tries > 1) setTimeout(() => loadComparison(tries - 1), 2500);
};

// ---- start ------------------------------------------------------------------

applyLang();
const zh = () => state.zh;
const lessons = initLessons({ zh, needToken });
const faults = initFaults({ zh, needToken });
await loadStrategies();
loadComparison();
openStream({
  runs: onRuns,
  replicas: (list) => {
    state.replicas = list;
    renderTables(state.step);
    lessons.setReplicas(list);
    faults.setReplicas(list);
  },
  error: (body) => { $('#conn').textContent = `server: ${body.message}`; },
  moveTo: (url) => location.assign(`${url}/${location.hash}`),
  state: (text, ok) => {
    const c = $('#conn');
    if (c.textContent !== text) c.textContent = text; // a live region: announce changes only
    c.className = `conn ${ok ? 'ok' : 'bad'}`;
  },
});
