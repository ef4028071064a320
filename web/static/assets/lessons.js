// The Lessons view: one card per scenario of `loadtest scenario`, what the
// seed predicts, a Run button, and the last run's verdict (in words and
// colour). A load-test agent runs the lesson; this module only asks for it
// (POST /api/lessons/{name}/runs) and polls GET /api/lessons: every second
// while a run is pending or running, else every 5 s.
import { ApiError, getJSON, postJSON } from './api.js';
import { el } from './dom.js';
import { applyLabels } from './i18n.js';

const FAST = 1000, SLOW = 5000;
const VERDICT = { // word, css class, symbol (colour is never the only signal)
  PASS: ['PASS', 'pass', '✓'], FAIL: ['FAIL', 'fail', '✗'], ERROR: ['ERROR', 'error', '!'], SKIP: ['SKIP', 'skip', '–'],
};
const NO_AGENT_HINT = 'start a load-test agent: shop demo starts two';

const $ = (sel) => document.querySelector(sel);
const active = (run) => run && (run.status === 'pending' || run.status === 'running');
/** clock is a run's time of day, with the date when it is not today. */
function clock(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const t = d.toLocaleTimeString('en-GB');
  return d.toDateString() === new Date().toDateString() ? t : `${d.toLocaleDateString('en-CA')} ${t}`;
}

/**
 * initLessons starts the view. opts.zh() says whether Chinese labels are on;
 * opts.needToken(err) handles a 401 (asks for the admin token). Returns
 * setReplicas(list), for "needs N replicas (M alive)".
 */
export function initLessons({ zh, needToken }) {
  const cards = new Map(); // name -> {li, parts}
  let shops = 0; // live shop replicas, from the replicas events
  let lessons = [];
  let timer = null;

  const msg = (text, bad = true) => { const m = $('#lessons-msg'); m.textContent = text; m.className = `msg${bad && text ? ' bad' : ''}`; };

  function card(l) {
    const id = `lesson-${l.name}`;
    const status = el('span', { class: 'l-status' });
    const badge = el('strong', { class: 'badge' });
    const observed = el('p', { class: 'l-observed' });
    const meta = el('p', { class: 'l-meta note' });
    const pre = el('pre', { class: 'l-output' });
    const details = el('details', { class: 'l-details', hidden: '' }, el('summary', { 'data-l': 'output', text: 'Full output' }), pre);
    const needs = el('dd', {});
    const run = el('button', { type: 'button', class: 'l-run', 'aria-describedby': `${id}-res` },
      el('span', { 'data-l': 'runLesson', text: 'Run' }), el('span', { class: 'sr-only', text: ` ${l.title}` }));
    run.addEventListener('click', () => start(l.name, run));
    const dl = el('dl', { class: 'l-facts' },
      el('dt', { 'data-l': 'predicts', text: 'The seed predicts' }), el('dd', { class: 'l-predict', text: l.predict }),
      el('dt', { 'data-l': 'fix', text: 'The fix' }), el('dd', { text: l.fix || '–' }),
      el('dt', { 'data-l': 'strategies', text: 'Strategies' }),
      el('dd', {}, ...(l.strategies || []).flatMap((s, i) => [i ? ' ' : '', el('code', { class: 'tag', text: s })])),
      el('dt', { 'data-l': 'minReplicas', text: 'Needs' }), needs);
    if (l.seed) dl.append(el('dt', { 'data-l': 'seed', text: 'From the seed' }), el('dd', { class: 'l-seed', text: l.seed }));
    const head = el('div', { class: 'l-head' }, el('h3', { id: `${id}-h`, text: l.title }), el('code', { class: 'l-name', text: l.name }));
    const res = el('div', { class: 'l-result', id: `${id}-res`, 'aria-live': 'polite' }, badge, ' ', status, observed, meta);
    const li = el('li', { class: 'lesson', id, 'data-lesson': l.name, 'aria-labelledby': `${id}-h` },
      head, dl, el('div', { class: 'l-foot' }, res, run), details);
    applyLabels(li, zh());
    return { li, parts: { status, badge, observed, meta, pre, details, needs, run } };
  }

  // set changes an element's text only when it differs: the result is a
  // live region, and a poll every second must not repeat it.
  const set = (e, text) => { if (e.textContent !== text) e.textContent = text; };

  function update(l, { li, parts: p }) {
    const r = l.last;
    const min = l.min_replicas || 1;
    set(p.needs, `${min} shop replica${min > 1 ? 's' : ''} (${shops} alive${shops && shops < min ? ': not enough' : ''})`);
    li.dataset.status = r ? r.status : 'none';
    li.dataset.verdict = r?.verdict || '';
    const busy = active(r);
    p.run.disabled = busy;
    if (!r) {
      set(p.badge, ''); p.badge.className = 'badge';
      set(p.status, 'not run yet'); set(p.observed, ''); set(p.meta, ''); p.details.hidden = true;
      return;
    }
    const v = VERDICT[r.verdict];
    set(p.badge, v ? `${v[2]} ${v[0]}` : '');
    p.badge.className = `badge ${v ? v[1] : ''}`;
    set(p.status, r.status === 'done' ? 'done' : `${r.status}…`);
    set(p.observed, r.observed || (busy ? 'waiting for the agent…' : ''));
    const when = r.finished_at ? `finished ${clock(r.finished_at)}` : r.started_at ? `started ${clock(r.started_at)}` : `asked ${clock(r.created_at)}`;
    set(p.meta, `run ${r.id} · ${when} · ${r.agent ? `agent ${r.agent}` : 'no agent yet'}`);
    p.details.hidden = !r.output;
    set(p.pre, r.output || '');
  }

  function render(body) {
    lessons = body.lessons || [];
    const n = body.agents ?? 0;
    set($('#lessons-agents'), n ? `${n} load-test agent${n > 1 ? 's' : ''} live` : `no load-test agent is live: ${NO_AGENT_HINT}`);
    $('#lessons-agents').classList.toggle('bad', !n);
    const list = $('#lesson-list');
    const names = lessons.map((l) => l.name).join();
    if (names !== [...cards.keys()].join()) { // the set of lessons changed: rebuild
      cards.clear();
      list.replaceChildren();
      for (const l of lessons) { const c = card(l); cards.set(l.name, c); list.append(c.li); }
      if (!lessons.length) list.append(el('li', { class: 'note', text: 'this replica lists no lessons' }));
    }
    for (const l of lessons) update(l, cards.get(l.name));
  }

  async function poll() {
    clearTimeout(timer);
    let next = SLOW;
    try {
      const body = await getJSON('/api/lessons');
      render(body);
      if (lessons.some((l) => active(l.last))) next = FAST;
      if ($('#lessons-msg').dataset.api === 'down') { msg(''); delete $('#lessons-msg').dataset.api; }
    } catch (err) {
      msg(`Cannot list the lessons: ${err.message}`);
      $('#lessons-msg').dataset.api = 'down';
    }
    clearTimeout(timer); // a click's poll may have overlapped this one: keep one timer
    timer = setTimeout(poll, next);
  }

  function refused(err, what) {
    if (err instanceof ApiError && err.status === 401) { needToken(err); msg(`${err.message}: enter the admin token at the top of the page, then ${what} again.`); return; }
    if (err instanceof ApiError && err.code === 'no_agents' && !/shop demo/.test(err.message)) { msg(`Refused: ${err.message} (${NO_AGENT_HINT}).`); return; }
    msg(err instanceof ApiError ? `Refused: ${err.message}` : `Failed: ${err.message}`);
  }

  async function start(name, btn) {
    btn.disabled = true;
    msg('');
    try {
      const run = await postJSON(`/api/lessons/${encodeURIComponent(name)}/runs`, {});
      msg(`${name}: run ${run.id} queued; its card shows the progress and the verdict.`, false);
    } catch (err) {
      refused(err, 'run it');
    } finally {
      btn.disabled = false;
      poll();
    }
  }

  const all = $('#lessons-all');
  all.addEventListener('click', async () => {
    all.disabled = true;
    msg('');
    try {
      const body = await postJSON('/api/lessons/all/runs', {});
      msg(`${body.runs.length} lesson run${body.runs.length === 1 ? '' : 's'} queued.`, false);
    } catch (err) {
      refused(err, 'run them');
    } finally {
      all.disabled = false;
      poll();
    }
  });

  poll();
  return {
    setReplicas(list) {
      shops = list.filter((m) => m.kind === 'shop' && m.alive).length;
      for (const l of lessons) update(l, cards.get(l.name));
    },
  };
}
