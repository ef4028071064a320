// The Lessons view: one card per scenario of `loadtest scenario`, what the
// seed predicts, a Run button and, where the lesson has a class pace, a "Run at teaching pace" one, and the
// last run's verdict (in words and colour) with its result table: one row
// per case (each sale the scenario ran), each linked to its timeline, and
// the decisive moment of the first case whose sections overlapped. A
// load-test agent runs the lesson; this module only asks for it (POST
// /api/lessons/{name}/runs) and polls GET /api/lessons: every second while
// a run is pending or running, else every 5 s. While one runs it reads the
// sales it made so far (GET /api/sales/{id}) and hands the band a view of
// them (onBand).
import { ApiError, getJSON, getOnce, postJSON } from './api.js';
import { ASK_LESSON_KEY } from './class-model.js';
import { el, fmt } from './dom.js';
import { addLabels, applyLabels, label } from './i18n.js';
import { CASE_VERDICT, LESSON_VERDICT, bandRun, caseNames, decisiveLines, lessonText, nextCase, observedText, offersClassPace, runningLesson } from './lessons-model.js';

addLabels({
  runClass: ['Run at teaching pace', '课堂节奏运行'],
  noClassPace: ['no teaching pace for this lesson', '此课程没有课堂节奏'],
  lResult: ['What happened', '实际结果'],
  lCase: ['Case', '案例'],
  lInitial: ['Initial stock', '初始库存'],
  lSold: ['Sold', '售出'],
  lExpected: ['Expected stock', '应剩库存'],
  lLeft: ['Stock left', '实剩库存'],
  lOversold: ['Oversold', '超卖'],
  lLost: ['Lost updates', '丢失更新'],
  lViol: ['Overlaps', '重叠'],
  lFenced: ['Fenced writes', '被拦截的写入'],
  lVerdict: ['Verdict', '结论'],
  lMoment: ['Decisive moment', '关键时刻'],
  lTimeline: ['timeline', '时间线'],
  lNotRun: ['not run yet', '尚未运行'],
  lWaiting: ['waiting for the agent…', '等待压测节点…'],
  lClassPace: ['teaching pace', '课堂节奏'],
  lDone: ['done', '已完成'],
  lRunning: ['running…', '运行中…'],
  lPending: ['queued…', '排队中…'],
});

const FAST = 1000, SLOW = 5000;
const NO_AGENT_HINT = 'start a load-test agent: shop demo starts two';
const COLUMNS = [ // label key, case member, flagged when above 0
  ['lInitial', 'initial_stock'], ['lSold', 'sold'], ['lExpected', 'expected_stock'], ['lLeft', 'stock_left'],
  ['lOversold', 'oversold', true], ['lLost', 'lost_updates', true], ['lViol', 'violations', true], ['lFenced', 'fenced_writes'],
];

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
 * initLessons starts the view. opts.zh() says whether Chinese is on;
 * opts.needToken(err) handles a 401 (asks for the admin token);
 * opts.onBand({title, run} | null) gets the running lesson's view for the
 * band (bandRun), once more when it ends, and null when none ran;
 * opts.now() is the time (ms) the class pace's "Next (in 6 s)" counts
 * down on (the server's clock where the page knows it).
 * Returns setReplicas(list), for "needs N replicas (M alive)", and
 * relabel(), after a language switch.
 */
export function initLessons({ zh, needToken, onBand = () => {}, now = () => Date.now() }) {
  const cards = new Map(); // name -> {li, parts}
  let shops = 0; // live shop replicas, from the replicas events
  let lessons = [];
  let timer = null;
  const timelines = new Map(); // sale id -> decisive lines (a finished case's timeline does not change)
  let band = { run: 0, views: [] }; // the lesson run the band shows, and its sales' views
  const shown = new Set(); // lesson runs the band has shown
  const opened = Date.now(); // runs that finished before the page opened stay off the band

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
    const title = el('h3', { id: `${id}-h` });
    const predict = el('dd', { class: 'l-predict' });
    const fix = el('dd', {});
    const run = el('button', { type: 'button', class: 'l-run', 'aria-describedby': `${id}-res` },
      el('span', { 'data-l': 'runLesson', text: 'Run' }), el('span', { class: 'sr-only l-sr-title', text: ` ${l.title}` }));
    run.addEventListener('click', () => start(l.name, 'normal', run));
    // "Run at teaching pace" only where the lesson has one (class_pace).
    const slow = offersClassPace(l) ? el('button', { type: 'button', class: 'l-run l-class', 'aria-describedby': `${id}-res` },
      el('span', { 'data-l': 'runClass', text: 'Run at teaching pace' }), el('span', { class: 'sr-only l-sr-title', text: ` ${l.title}` })) : null;
    slow?.addEventListener('click', () => start(l.name, 'class', slow));
    // The class predicts first: the Class section opens on this lesson's cases.
    const ask = el('a', { class: 'l-ask', href: '#/class', 'data-l': 'askClass', text: 'Ask the class first' });
    ask.addEventListener('click', () => localStorage.setItem(ASK_LESSON_KEY, l.name));
    const dl = el('dl', { class: 'l-facts' },
      l.beyond_seeds ? el('dt', { 'data-l': 'predictsLab', text: 'The lab predicts (beyond the seeds)' })
        : el('dt', { 'data-l': 'predicts', text: 'The seed predicts' }), predict,
      el('dt', { 'data-l': 'fix', text: 'The fix' }), fix,
      el('dt', { 'data-l': 'strategies', text: 'Strategies' }),
      el('dd', {}, ...(l.strategies || []).flatMap((s, i) => [i ? ' ' : '', el('code', { class: 'tag', text: s })])),
      el('dt', { 'data-l': 'minReplicas', text: 'Needs' }), needs);
    const seed = l.seed ? el('dd', { class: 'l-seed', text: l.seed }) : null;
    if (seed) dl.append(el('dt', { 'data-l': 'seed', text: 'From the seed' }), seed);
    const head = el('div', { class: 'l-head' }, title, el('code', { class: 'l-name', text: l.name }));
    const cases = el('div', { class: 'l-cases', hidden: '' });
    const moment = el('div', { class: 'l-moment', hidden: '' });
    const res = el('div', { class: 'l-result', id: `${id}-res`, 'aria-live': 'polite' }, badge, ' ', status, observed, meta);
    const body = el('div', { class: 'l-body' }, dl, el('div', { class: 'l-outcome' }, cases, moment));
    // At the class pace, the pause between two cases: what comes next, in large type, counting down.
    const next = el('p', { class: 'l-next', hidden: '' });
    const li = el('li', { class: 'lesson', id, 'data-lesson': l.name, 'aria-labelledby': `${id}-h` },
      head, next, body, el('div', { class: 'l-foot' }, res, el('div', { class: 'l-buttons' }, run,
      ...(slow ? [slow] : [el('span', { class: 'l-pace-note note', 'data-l': 'noClassPace', text: label('noClassPace', false) })]), ask)), details);
    applyLabels(li, zh());
    return { li, parts: { status, badge, observed, meta, pre, details, needs, run, slow, title, predict, fix, seed, cases, moment, next } };
  }

  // set changes an element's text only when it differs: the result is a
  // live region, and a poll every second must not repeat it.
  const set = (e, text) => { if (e.textContent !== text) e.textContent = text; };
  const word = (w) => (zh() ? w.zh : w.en);

  /** renderCases writes the result table: one row per case, each linked to its sale's timeline. */
  function renderCases(box, rows, lessonName) {
    const sig = JSON.stringify(rows) + zh();
    if (box.dataset.sig === sig) return;
    box.dataset.sig = sig;
    box.hidden = !rows.length;
    if (!rows.length) { box.replaceChildren(); return; }
    // The verdict beside the case: on a phone the figures scroll, the verdict stays in view.
    const th = (key) => (zh() ? zhOf(key) : label(key, false)); // one language in the narrow header cells
    const head = el('tr', {}, el('th', { scope: 'col', text: th('lCase') }), el('th', { scope: 'col', text: th('lVerdict') }),
      ...COLUMNS.map(([key]) => el('th', { scope: 'col', class: 'num', text: th(key) })));
    const body = rows.map((c) => {
      const v = CASE_VERDICT[c.verdict] || { en: c.verdict, zh: c.verdict, cls: '' };
      const name = zh() && c.name_zh ? c.name_zh : c.name;
      return el('tr', { class: `case-${v.cls}`, 'data-sale': String(c.sale_id) },
        el('th', { scope: 'row' }, el('a', { href: `#/timeline?sale=${c.sale_id}`, 'data-sale': String(c.sale_id),
          title: `${label('lTimeline', zh())} #${c.sale_id}` }, name)),
        el('td', { class: `l-verdict ${v.cls}`, text: word(v), title: (zh() ? c.reason_zh : c.reason) || '' }),
        // A count above 0 is red when the case broke, amber when it overlapped without damage.
        ...COLUMNS.map(([, k, flag]) => el('td', { class: `num${flag && c[k] > 0 ? (v.cls === 'bad' ? ' bad' : ' warn') : ''}`, text: fmt(c[k]) })));
    });
    box.replaceChildren(el('h4', { text: label('lResult', zh()) }),
      el('div', { class: 'l-table-scroll', tabindex: '0', role: 'region', 'aria-label': `${lessonName}: ${label('lResult', false)}` },
        el('table', { class: 'l-table' }, el('thead', {}, head), el('tbody', {}, ...body))));
  }
  const zhOf = (key) => {
    const t = label(key, true);
    const i = t.lastIndexOf(' · ');
    return i >= 0 ? t.slice(i + 3) : t;
  };

  /** renderMoment shows the decisive moment of the first case that overlapped or was fenced, once its timeline is read. */
  function renderMoment(box, rows) {
    const c = rows.find((r) => r.violations > 0 || r.fenced_writes > 0);
    if (!c) { box.hidden = true; return; }
    const lines = timelines.get(c.sale_id);
    if (lines === undefined) { readMoment(c.sale_id); box.hidden = true; return; }
    const sig = `${c.sale_id}:${zh()}:${lines.length}`;
    box.hidden = !lines.length;
    if (box.dataset.sig === sig) return;
    box.dataset.sig = sig;
    const name = zh() && c.name_zh ? c.name_zh : c.name;
    box.replaceChildren(el('h4', {}, `${label('lMoment', zh())}: `, el('a', { href: `#/timeline?sale=${c.sale_id}`, 'data-sale': String(c.sale_id) }, name)),
      el('ol', { class: 'l-narration' }, ...lines.map((l) => el('li', {}, el('span', { class: 'at', text: l.since }), ' ', zh() ? l.zh : l.en))));
  }

  async function readMoment(sale) {
    timelines.set(sale, []); // asked once
    try {
      timelines.set(sale, decisiveLines(await getOnce(`/api/sales/${sale}/timeline`, { timeoutMs: 15000 }))); // a finished case's
    } catch { timelines.delete(sale); return; }
    for (const l of lessons) update(l, cards.get(l.name));
  }

  function update(l, c) {
    if (!c) return;
    const { li, parts: p } = c;
    set(p.title, lessonText(l, 'title', zh()));
    for (const s of li.querySelectorAll('.l-sr-title')) set(s, ` ${lessonText(l, 'title', zh())}`); // what a screen reader says after "Run"
    set(p.predict, lessonText(l, 'predict', zh()));
    set(p.fix, lessonText(l, 'fix', zh()) || '–');
    if (p.seed) set(p.seed, lessonText(l, 'seed', zh()));
    const r = l.last;
    const min = l.min_replicas || 1;
    set(p.needs, zh() ? `${min} 个实例（${shops} 个在线${shops && shops < min ? '：不够' : ''}）`
      : `${min} shop replica${min > 1 ? 's' : ''} (${shops} alive${shops && shops < min ? ': not enough' : ''})`);
    li.dataset.status = r ? r.status : 'none';
    li.dataset.verdict = r?.verdict || '';
    const busy = active(r);
    p.run.disabled = busy;
    if (p.slow) p.slow.disabled = busy;
    // Counts down each poll; gone once the next case has started or the run ended.
    const next = nextCase(r, now());
    set(p.next, next ? word(next.line) : '');
    p.next.hidden = !next;
    if (!r) {
      set(p.badge, ''); p.badge.className = 'badge';
      set(p.status, label('lNotRun', zh())); set(p.observed, ''); set(p.meta, ''); p.details.hidden = true;
      renderCases(p.cases, [], l.name); p.moment.hidden = true; li.classList.remove('has-cases');
      return;
    }
    const v = LESSON_VERDICT[r.verdict];
    set(p.badge, v ? `${v.sym} ${word(v)}` : '');
    p.badge.className = `badge ${v ? v.cls : ''}`;
    set(p.status, label({ done: 'lDone', running: 'lRunning', pending: 'lPending' }[r.status] || r.status, zh()));
    set(p.observed, observedText(r, zh()) || (r.status === 'pending' ? label('lWaiting', zh()) : '')); // once claimed, the status says running
    p.observed.title = zh() && r.cases?.length ? r.observed || '' : ''; // the agent's own English line, on hover
    const pace = r.pace === 'class' ? ` · ${label('lClassPace', zh())}` : '';
    if (zh()) {
      const when = r.finished_at ? `完成于 ${clock(r.finished_at)}` : r.started_at ? `开始于 ${clock(r.started_at)}` : `请求于 ${clock(r.created_at)}`;
      set(p.meta, `第 ${r.id} 次运行 · ${when} · ${r.agent ? `压测节点 ${r.agent}` : '尚无压测节点'}${pace}`);
    } else {
      const when = r.finished_at ? `finished ${clock(r.finished_at)}` : r.started_at ? `started ${clock(r.started_at)}` : `asked ${clock(r.created_at)}`;
      set(p.meta, `run ${r.id} · ${when} · ${r.agent ? `agent ${r.agent}` : 'no agent yet'}${pace}`);
    }
    p.details.hidden = !r.output;
    set(p.pre, r.output || '');
    // While it runs, the table is the sales read so far; once done, the agent's.
    const rows = r.cases?.length ? r.cases : (band.run === r.id ? liveRows(band.views) : []);
    renderCases(p.cases, rows, l.name);
    li.classList.toggle('has-cases', rows.length > 0);
    if (r.status === 'done') renderMoment(p.moment, rows); else p.moment.hidden = true;
  }

  /** liveRows are the running lesson's sales as table rows (the agent sends the final ones at the end). */
  function liveRows(views) {
    const names = caseNames(views);
    return views.map((v, i) => {
      const row = { sale_id: v.id, name: names[i].en, name_zh: names[i].zh, initial_stock: v.initial_stock, sold: v.sold,
        expected_stock: v.initial_stock - v.sold, stock_left: v.stock, oversold: v.oversold, lost_updates: v.lost_updates,
        violations: v.violations, fenced_writes: v.fenced_writes };
      // The shop's verdict on the sale (internal/verdict), as the agent's table will carry it.
      Object.assign(row, { verdict: v.verdict?.kind || '', reason: v.verdict?.reason_en || '', reason_zh: v.verdict?.reason_zh || '' });
      return row;
    });
  }

  /**
   * follow reads the running lesson's sales and hands the band their view;
   * once more when the run ended. A lesson that ran between two polls (a
   * herd takes 3 s; the poll is every 5 s when nothing runs) is shown once
   * done, when it finished after this page opened.
   */
  async function follow() {
    const l = runningLesson(lessons) || lessons.find((x) => x.last?.id === band.run && x.last.status === 'done' && !band.final)
      || lessons.find((x) => x.last?.status === 'done' && x.last.id > band.run && !shown.has(x.last.id)
        && Date.parse(x.last.finished_at) > opened && x.last.sales?.length);
    if (!l) return;
    shown.add(l.last.id);
    const r = l.last;
    if (band.run !== r.id) band = { run: r.id, views: [] };
    if (r.status === 'done') band.final = true;
    const ids = r.sales || [];
    if (!ids.length) return;
    try {
      band.views = await Promise.all(ids.map((id) => getJSON(`/api/sales/${id}`)));
    } catch { return; }
    const b = bandRun(l, band.views, zh(), now());
    if (b) onBand(b);
    update(l, cards.get(l.name));
  }

  let lastBody = null;
  function render(body) {
    lastBody = body;
    lessons = body.lessons || [];
    const n = body.agents ?? 0;
    set($('#lessons-agents'), zh() ? (n ? `${n} 个压测节点在线` : '没有在线的压测节点：shop demo 会启动两个')
      : n ? `${n} load-test agent${n > 1 ? 's' : ''} live` : `no load-test agent is live: ${NO_AGENT_HINT}`);
    $('#lessons-agents').classList.toggle('bad', !n);
    const list = $('#lesson-list');
    const names = lessons.map((l) => l.name).join();
    if (names !== [...cards.keys()].join()) { // the set of lessons changed: rebuild
      cards.clear();
      list.replaceChildren();
      for (const l of lessons) { const c = card(l); cards.set(l.name, c); list.append(c.li); }
      if (!lessons.length) list.append(el('li', { class: 'note', text: zh() ? '这个实例没有列出实验课' : 'this replica lists no lessons' }));
    }
    for (const l of lessons) update(l, cards.get(l.name));
    if (body.not_taught) notTaught = body.not_taught;
    renderNotTaught();
  }

  // The seeds' points no lesson runs, each with why not (from the first
  // read's not_taught: the polls carry only the runs).
  let notTaught = [];
  function renderNotTaught() {
    const box = $('#lessons-not-taught');
    box.hidden = !notTaught.length;
    box.querySelector('ul').replaceChildren(...notTaught.map((p) => el('li', {},
      el('p', { class: 'nt-point', text: zh() ? p.point_zh : p.point }),
      el('p', { class: 'nt-why note', text: label('whyNot', zh()) + (zh() ? p.why_zh : p.why) }))));
  }

  /**
   * readLessons is GET /api/lessons: the catalogue with the newest runs
   * the first time, then each lesson's newest run alone (?only=runs; the
   * texts in two languages do not change), put into the catalogue read
   * before. A replica that lists other lessons is read whole again.
   */
  async function readLessons() {
    if (!lastBody?.lessons?.length) return getOnce('/api/lessons'); // the comparison reads the same
    const runs = await getJSON('/api/lessons?only=runs');
    const names = (runs.lessons || []).map((l) => l.name).join();
    if (names !== lastBody.lessons.map((l) => l.name).join()) return getJSON('/api/lessons');
    return { ...runs, lessons: lastBody.lessons.map((l, i) => ({ ...l, last: runs.lessons[i].last })) };
  }

  async function poll() {
    clearTimeout(timer);
    let next = SLOW;
    try {
      render(await readLessons());
      if (lessons.some((l) => active(l.last))) next = FAST;
      if ($('#lessons-msg').dataset.api === 'down') { msg(''); delete $('#lessons-msg').dataset.api; }
      await follow();
    } catch (err) {
      msg(zh() ? `无法列出实验课：${err.message}` : `Cannot list the lessons: ${err.message}`);
      $('#lessons-msg').dataset.api = 'down';
    }
    clearTimeout(timer); // a click's poll may have overlapped this one: keep one timer
    timer = setTimeout(poll, next);
  }

  // The API's own message stays as it wrote it (it names a field or a command); the words around it follow the page.
  function refused(err, what) {
    const z = zh();
    if (err instanceof ApiError && err.status === 401) {
      needToken(err);
      msg(z ? `${err.message}：请在页面顶部输入管理令牌，然后再${what.zh}。` : `${err.message}: enter the admin token at the top of the page, then ${what.en} again.`);
      return;
    }
    if (err instanceof ApiError && err.code === 'no_agents' && !/shop demo/.test(err.message)) {
      msg(z ? `被拒绝：${err.message}（启动一个压测节点：shop demo 会启动两个）。` : `Refused: ${err.message} (${NO_AGENT_HINT}).`);
      return;
    }
    if (z) msg(err instanceof ApiError ? `被拒绝：${err.message}` : `失败：${err.message}`);
    else msg(err instanceof ApiError ? `Refused: ${err.message}` : `Failed: ${err.message}`);
  }

  async function start(name, pace, btn) {
    btn.disabled = true;
    msg('');
    try {
      const run = await postJSON(`/api/lessons/${encodeURIComponent(name)}/runs`, pace === 'class' ? { pace } : {});
      msg(zh() ? `${name}：第 ${run.id} 次运行已排队${pace === 'class' ? '（课堂节奏）' : ''}；进度和结论显示在它的卡片上。`
        : `${name}: run ${run.id} queued${pace === 'class' ? ' at teaching pace' : ''}; its card shows the progress and the verdict.`, false);
    } catch (err) {
      refused(err, { en: 'run it', zh: '运行' });
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
      const n = body.runs.length;
      msg(zh() ? `已排队 ${n} 次实验课运行。` : `${n} lesson run${n === 1 ? '' : 's'} queued.`, false);
    } catch (err) {
      refused(err, { en: 'run them', zh: '运行' });
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
    relabel() {
      if (lastBody) render(lastBody);
      const l = lessons.find((x) => x.last?.id === band.run);
      const b = l && bandRun(l, band.views, zh(), now());
      if (b) onBand(b);
    },
  };
}
