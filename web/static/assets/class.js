// The Class section (#/class): the projector's side of predict, vote,
// reveal. The trainer opens a question (a lesson's case, or the Run
// form's run: "Ask the class first"), the room scans the QR code and votes
// on /vote/{id} (vote.js); the projector shows how many voted, never what,
// until Reveal starts the run at class pace; then the class's answers stand
// beside what the run showed, with the timeline's decisive moment. A
// session keeps its questions and tallies (CSV). class-model.js decides the
// words; this module talks to /api/class and draws.
import { ApiError, getJSON, getOnce, postJSON } from './api.js';
import { el } from './dom.js';
import { addLabels, applyLabels, label } from './i18n.js';
import { choiceRows, observedLine, rightLine, text, votesLine } from './class-model.js';
import { ASK_LESSON_KEY, decisiveLines } from './lessons-model.js';

addLabels({
  clSession: ['Class session', '课堂'],
  clNewSession: ['New session', '新建课堂'],
  clSessionTitle: ['Title (optional)', '标题（可选）'],
  clExport: ['Export votes (CSV)', '导出投票（CSV）'],
  clLesson: ['Lesson', '课'],
  clCase: ['Case', '案例'],
  clMinutes: ['Open for (minutes)', '开放时长（分钟）'],
  clPace: ['Pace', '节奏'],
  clPaceClass: ['class pace', '课堂节奏'],
  clPaceNormal: ['normal pace', '正常节奏'],
  clMaxVotes: ['Votes at most', '最多票数'],
  clAsk: ['Ask the class', '向全班提问'],
  clAskHint: ['Nothing starts until Reveal: first the class predicts.', '揭晓之前什么都不会开始：先让全班预测。'],
  clJoin: ['Vote on your phone', '用手机投票'],
  clNotShared: ['Phones cannot open it', '手机打不开'],
  clReveal: ['Reveal and start', '揭晓并开始'],
  clRevealNote: ['No phones? Reveal all the same: it starts and its result shows here.', '没有手机？照样可以揭晓：开始运行，结果显示在这里。'],
  clNext: ['Next question', '下一题'],
  clMoment: ['Decisive moment', '关键时刻'],
  clOnTimeline: ['open it on the Timeline', '在时间线上查看'],
  clQuestions: ['Questions of this session', '本课堂的问题'],
  clNone: ['No question yet: pick a lesson\u2019s case above and ask.', '还没有问题：在上面选一个课的案例并提问。'],
  clColSetup: ['Setup', '设定'],
  clColVotes: ['Votes', '票数'],
  clColObserved: ['Observed', '结果'],
  clColRight: ['Chose it', '答对'],
  clFailed: ['Refused', '被拒绝'],
  clRunCase: ['Run form', '压测表单'],
});

const $ = (sel) => document.querySelector(sel);
const SESSION_KEY = 'seckill.classSession';
const QUESTION_KEY = 'seckill.classQuestion';

/**
 * initClass starts the section. zh() says the language, needToken() shows
 * the token field after a 401. Returns show(), relabel() and askRun(body):
 * a question about the run the Run form set up.
 */
export function initClass({ zh, needToken }) {
  applyLabels(document.getElementById('class'), zh()); // its labels came with this module
  let lessons = [];
  let session = Number(localStorage.getItem(SESSION_KEY)) || 0;
  let q = null; // the question on the projector
  let share = null; // its link: {key, info}
  const moments = new Map(); // sale id -> decisive lines
  let timer = 0;

  const showing = () => document.body.dataset.section === 'class';
  const msg = (text, bad = false) => { const m = $('#cl-msg'); m.textContent = text; m.className = `msg${bad ? ' bad' : ''}`; };
  const refused = (err) => {
    if (err instanceof ApiError && err.status === 401) needToken();
    msg(`${label('clFailed', zh())}: ${err.message}`, true);
  };

  async function ensureSession() {
    if (session) return session;
    const s = await postJSON('/api/class/sessions', { title: $('#cl-title').value.trim() });
    setSession(s.id);
    return s.id;
  }
  function setSession(id) {
    session = id;
    localStorage.setItem(SESSION_KEY, String(id));
  }
  function setQuestion(v) {
    q = v;
    if (v) localStorage.setItem(QUESTION_KEY, String(v.id));
    render();
  }

  async function ask(body) {
    try {
      const id = await ensureSession();
      setQuestion(await postJSON(`/api/class/sessions/${id}/questions`, body));
      msg('');
      loadSession();
      window.scrollTo({ top: 0 });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404 && err.field === 'id') { setSession(0); return ask(body); }
      refused(err);
    }
  }

  function askLesson(e) {
    e.preventDefault();
    ask({ lesson: $('#cl-lesson').value, case: Number($('#cl-case').value), pace: $('#cl-pace').value, minutes: Number($('#cl-minutes').value),
      max_votes: Number($('#cl-max').value) });
  }

  async function reveal() {
    if (!q) return;
    $('#cl-reveal').disabled = true;
    try {
      setQuestion(await postJSON(`/api/class/questions/${q.id}/reveal`, {}));
      msg('');
    } catch (err) {
      refused(err);
    } finally {
      $('#cl-reveal').disabled = false;
    }
  }

  async function poll() {
    clearTimeout(timer);
    if (showing() && q && !(q.observed?.done)) {
      try {
        const v = await getJSON(`/api/class/questions/${q.id}`);
        if (q && v.id === q.id) {
          const before = q.observed?.done;
          q = v;
          render();
          if (!before && v.observed?.done) loadSession();
        }
      } catch { /* the next poll tries again */ }
    }
    timer = setTimeout(poll, 1000);
  }

  async function loadSession() {
    if (!session) { renderList(null); return; }
    try {
      renderList(await getJSON(`/api/class/sessions/${session}`));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) { setSession(0); renderList(null); }
    }
  }

  return wire({ askLesson, reveal, poll, loadSession, ask, render: () => render(), lessonsRef: () => lessons });

  // ---- drawing ----------------------------------------------------------

  function render() {
    const box = $('#cl-question');
    box.hidden = !q;
    if (!q) return;
    const z = zh();
    $('#cl-kicker').textContent = kicker(q, z);
    $('#cl-setup').textContent = text(q.setup, z);
    $('#cl-choices').replaceChildren(...choiceRows(q, z).map((r) => choiceItem(r, z)));
    $('#cl-votes').textContent = votesLine(q, z, Date.now());
    $('#cl-observed').textContent = observedLine(q, z);
    $('#cl-right').textContent = rightLine(q, z);
    const revealed = q.status === 'revealed' || q.status === 'revealing';
    box.dataset.status = q.status;
    $('#cl-reveal').hidden = revealed;
    $('#cl-reveal-note').hidden = revealed;
    $('#cl-next').hidden = !revealed;
    renderJoin(z, revealed);
    renderMoment(z);
  }

  function kicker(v, z) {
    if (v.lesson) {
      const l = lessons.find((x) => x.lesson === v.lesson);
      const title = l ? (z ? l.title_zh || l.title : l.title) : v.lesson;
      return `#${v.id} · ${title} · ${label('clCase', z)} ${v.case}`;
    }
    return `#${v.id} · ${label('clRunCase', z)}`;
  }

  function choiceItem(r, z) {
    const li = el('li', { class: `cl-choice${r.observed ? ' observed' : ''}`, 'data-outcome': r.outcome },
      el('span', { class: 'cl-letter', text: r.letter }), el('span', { class: 'cl-words', text: r.text }));
    if (r.count !== null) {
      li.append(el('span', { class: 'cl-count', text: z ? `${r.count} 票 · ${r.pct}%` : `${r.count} · ${r.pct}%` }));
      const bar = el('span', { class: 'cl-bar', 'aria-hidden': 'true' });
      bar.style.setProperty('--pct', `${r.pct}%`);
      li.append(bar);
    }
    if (r.observed) li.append(el('span', { class: 'cl-seen', text: z ? '✓ 结果' : '✓ observed' }));
    return li;
  }

  async function renderJoin(z, revealed) {
    const box = $('#cl-join');
    box.hidden = revealed;
    if (revealed) return;
    const key = `${q.id}:${z}`;
    if (share?.key !== key) {
      share = { key, info: null };
      try { share.info = await getJSON(`/api/class/questions/${q.id}/share?lang=${z ? 'zh' : 'en'}`); } catch { share = null; return; }
    }
    const info = share?.info;
    if (!info || share.key !== `${q?.id}:${zh()}`) return;
    const sig = `${key}:${info.shared}`;
    if (box.dataset.sig === sig) return;
    box.dataset.sig = sig;
    box.replaceChildren(el('h3', { text: label(info.shared ? 'clJoin' : 'clNotShared', z) }),
      ...(info.shared
        ? [el('img', { class: 'cl-qr', src: `/api/class/questions/${q.id}/qr.png?lang=${z ? 'zh' : 'en'}`, alt: info.url, width: '512', height: '512' }),
          el('p', { class: 'cl-url' }, el('a', { href: info.url, text: info.url.replace(/^https?:\/\//, '') }))]
        : [el('p', { class: 'cl-url-none', text: z ? info.message?.zh || info.message?.en : info.message?.en })]));
  }

  function renderMoment(z) {
    const box = $('#cl-moment');
    const sale = q.observed?.done ? q.observed.sale_id : 0;
    const lines = sale ? moments.get(sale) : undefined;
    if (sale && lines === undefined) {
      moments.set(sale, []);
      getOnce(`/api/sales/${sale}/timeline`, { timeoutMs: 15000 }).then((tl) => { moments.set(sale, decisiveLines(tl)); render(); })
        .catch(() => moments.delete(sale));
    }
    box.hidden = !lines?.length;
    if (!lines?.length) return;
    box.replaceChildren(el('h3', {}, `${label('clMoment', z)} · `, el('a', { href: `#/timeline?sale=${sale}`, text: label('clOnTimeline', z) })),
      el('ol', {}, ...lines.map((l) => el('li', {}, el('span', { class: 'at', text: l.since }), ' ', z ? l.zh : l.en))));
  }

  function renderList(sess) {
    const z = zh();
    $('#cl-export').hidden = !sess;
    if (sess) $('#cl-export').href = `/api/class/sessions/${sess.id}/export.csv`;
    $('#cl-session-name').textContent = sess ? `#${sess.id}${sess.title ? ` · ${sess.title}` : ''}` : '–';
    const rows = sess?.questions || [];
    $('#cl-list tbody').replaceChildren(...(rows.length ? rows.map((v) => listRow(v, z))
      : [el('tr', {}, el('td', { colspan: '5', class: 'cl-empty', text: label('clNone', z) }))]));
  }

  function listRow(v, z) {
    const seen = v.observed?.done && v.observed.outcome ? choiceRows(v, z).find((r) => r.observed) : null;
    const open = el('a', { href: '#/class', text: `#${v.id}` });
    open.addEventListener('click', (e) => { e.preventDefault(); setQuestion(v); poll(); window.scrollTo({ top: 0 }); });
    return el('tr', {}, el('td', {}, open), el('td', { text: text(v.setup, z) }), el('td', { class: 'num', text: String(v.votes) }),
      el('td', { text: seen ? `${seen.letter} · ${seen.text}` : '–' }), el('td', { class: 'num', text: seen ? String(seen.count) : '–' }));
  }

  // ---- wiring -----------------------------------------------------------

  function wire(api) {
    $('#cl-form').addEventListener('submit', api.askLesson);
    $('#cl-lesson').addEventListener('change', () => fillCases());
    $('#cl-case').addEventListener('change', () => preview());
    $('#cl-reveal').addEventListener('click', api.reveal);
    $('#cl-next').addEventListener('click', () => { $('#cl-form').scrollIntoView(); $('#cl-lesson').focus(); });
    $('#cl-new').addEventListener('click', async () => {
      try {
        const s = await postJSON('/api/class/sessions', { title: $('#cl-title').value.trim() });
        setSession(s.id);
        setQuestion(null);
        api.loadSession();
      } catch (err) { refused(err); }
    });
    let started = false;
    return {
      async show() {
        if (!started) {
          started = true;
          await loadLessons();
          const last = Number(localStorage.getItem(QUESTION_KEY)) || 0;
          if (last) try { q = await getJSON(`/api/class/questions/${last}`); } catch { /* gone */ }
          api.poll();
        }
        const asked = localStorage.getItem(ASK_LESSON_KEY);
        if (asked && lessons.some((l) => l.lesson === asked && l.cases?.length)) {
          localStorage.removeItem(ASK_LESSON_KEY);
          $('#cl-lesson').value = asked;
          fillCases();
          $('#cl-form').scrollIntoView();
          $('#cl-case').focus();
        }
        api.loadSession();
        render();
      },
      relabel() { fillLessons(); api.loadSession(); render(); }, // the link is asked again in the new language (renderJoin's key)
      askRun(body) { location.hash = '#/class'; return api.ask({ run: body }); },
    };
  }

  async function loadLessons() {
    try {
      lessons = (await getOnce('/api/class/cases', { timeoutMs: 15000 })).lessons || [];
    } catch (err) { msg(err.message, true); }
    fillLessons();
  }

  function fillLessons() {
    const sel = $('#cl-lesson');
    const keep = sel.value;
    sel.replaceChildren(...lessons.filter((l) => l.cases?.length).map((l) => el('option', { value: l.lesson, text: zh() ? l.title_zh || l.title : l.title })));
    if (keep) sel.value = keep;
    fillCases();
  }

  function fillCases() {
    const l = lessons.find((x) => x.lesson === $('#cl-lesson').value);
    const sel = $('#cl-case');
    const keep = sel.value;
    sel.replaceChildren(...(l?.cases || []).map((c, i) => el('option', { value: String(i + 1), text: `${i + 1}. ${text(c, zh())}` })));
    if (keep && Number(keep) <= (l?.cases?.length || 0)) sel.value = keep;
    preview();
  }

  /** preview says the chosen case's setup whole: the select cuts it. */
  function preview() {
    const l = lessons.find((x) => x.lesson === $('#cl-lesson').value);
    $('#cl-preview').textContent = text(l?.cases?.[Number($('#cl-case').value) - 1], zh());
  }
}
