// The phones' page /vote/{question}: the question's setup and its four
// outcomes as big buttons; a tap votes (PUT /api/class/questions/:id/vote,
// no admin token: anonymous, one per phone, changeable until the reveal).
// It follows the question every 2 s: closed, revealed, and what the run
// showed. class-model.js decides the words and the phone's id.
import { LABELS, addLabels, applyLabels } from './i18n.js';
import { LETTERS, OUTCOME_SHORT, myChoice, observedLine, rememberChoice, text, voterId } from './class-model.js';

addLabels({
  voteBrand: ['Seckill Lab: predict', '秒杀实验室：预测'],
  voteKicker: ['What will happen?', '会发生什么？'],
  voteLegend: ['Your prediction', '你的预测'],
  voteAnon: ['Anonymous: no name is asked; one vote per phone, and you may change it until the reveal.',
    '匿名投票：不问姓名；每部手机一票，揭晓前可以改。'],
  voteLoading: ['Loading the question…', '正在加载问题…'],
  voteYours: ['Your vote: {n}. Tap another to change it.', '你的选择：{n}。点另一个可以改。'],
  voteSent: ['Sending…', '发送中…'],
  voteOpen: ['Voting is open.', '投票进行中。'],
  voteClosed: ['Voting is closed: wait for the reveal on the projector.', '投票已结束：请看投影揭晓。'],
  voteRevealed: ['Revealed: it is running now, watch the projector.', '已揭晓：正在运行，请看投影。'],
  voteDone: ['The result is in: the projector shows the whole class.', '结果出来了：投影上有全班的选择。'],
  voteTooFast: ['Too many votes from this network at once: try again in a second.', '这个网络同时投票太多：请一秒后再试。'],
  voteNoQuestion: ['No such question: check the link on the projector.', '没有这个问题：请核对投影上的链接。'],
  voteFailed: ['The vote did not go through', '投票没有成功'],
  voteGotIt: ['You chose it.', '你选对了。'],
  voteMissed: ['You chose {n}.', '你选的是 {n}。'],
});

const $ = (sel) => document.querySelector(sel);
const LANG_KEY = 'seckill.zhLabels';
const langAsked = new URLSearchParams(location.search).get('lang');
let zh = langAsked ? langAsked === 'zh' : localStorage.getItem(LANG_KEY) === '1';
const t = (key, n) => (LABELS[key]?.[zh ? 1 : 0] ?? key).replace('{n}', n);
const id = (/^\/vote\/(\d{1,15})$/.exec(location.pathname) || [])[1] || '';
const voter = voterId(localStorage);
let q = null;
let sending = false;

function letterOf(outcome) {
  const i = (q?.choices || []).findIndex((c) => c.outcome === outcome);
  return i < 0 ? '' : `${LETTERS[i]} (${text(OUTCOME_SHORT[outcome], zh)})`;
}

/** render draws the question; keepAnswer leaves the answer line as it is (an error just said). */
function render(keepAnswer = false) {
  document.documentElement.lang = zh ? 'zh-CN' : 'en';
  applyLabels(document, zh);
  $('#lang').textContent = zh ? 'EN' : '中文';
  $('#lang').setAttribute('lang', zh ? 'en' : 'zh');
  $('#lang').setAttribute('aria-pressed', String(zh));
  if (!q) return;
  $('#card').setAttribute('aria-busy', 'false');
  $('#v-setup').textContent = text(q.setup, zh);
  const mine = myChoice(localStorage, q.id);
  const open = q.status === 'open';
  const observed = q.observed?.done ? q.observed.outcome : '';
  const buttons = q.choices.map((c, i) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.outcome = c.outcome;
    b.setAttribute('aria-pressed', String(mine === c.outcome));
    if (!open) b.setAttribute('aria-disabled', 'true');
    if (observed === c.outcome) b.classList.add('observed');
    const letter = document.createElement('span');
    letter.className = 'letter';
    letter.textContent = LETTERS[i];
    const words = document.createElement('span');
    words.textContent = text(c, zh);
    b.append(letter, words);
    b.addEventListener('click', () => vote(c.outcome));
    return b;
  });
  $('#v-choices').replaceChildren($('#v-choices legend'), ...buttons);
  $('#v-state').textContent = t(open ? 'voteOpen' : q.status === 'closed' ? 'voteClosed' : observed ? 'voteDone' : 'voteRevealed');
  if (keepAnswer) return;
  if (observed) {
    const line = observedLine(q, zh);
    const end = zh ? '。' : '.';
    say(mine ? `${line}${end} ${mine === observed ? t('voteGotIt') : t('voteMissed', letterOf(mine))}` : `${line}${end}`, mine === observed ? 'good' : '');
  } else if (mine && !sending) {
    say(t('voteYours', letterOf(mine)), 'good');
  }
}

function say(msg, kind = '') {
  const a = $('#v-answer');
  a.textContent = msg;
  a.className = `answer ${kind}`.trim();
}

async function vote(outcome) {
  if (!q || q.status !== 'open' || sending) return;
  sending = true;
  say(t('voteSent'));
  try {
    const res = await fetch(`/api/class/questions/${id}/vote`, { method: 'PUT', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ voter, outcome }), signal: AbortSignal.timeout(10000) });
    const body = await res.json().catch(() => ({}));
    if (res.ok) {
      rememberChoice(localStorage, q.id, outcome);
      q.votes = body.votes;
    } else if (res.status === 429) {
      say(t('voteTooFast'), 'bad');
    } else {
      if (body.error === 'question_closed') q.status = 'closed';
      say(`${t('voteFailed')}: ${body.message || res.status}`, 'bad');
    }
    sending = false;
    render(!res.ok);
  } catch (err) {
    sending = false;
    say(`${t('voteFailed')}: ${err.message}`, 'bad');
  }
}

async function load() {
  if (!id) { $('#v-setup').textContent = t('voteNoQuestion'); return; }
  try {
    const res = await fetch(`/api/class/questions/${id}`, { cache: 'no-store', signal: AbortSignal.timeout(8000) });
    if (res.status === 404 || res.status === 400) { $('#v-setup').textContent = t('voteNoQuestion'); return; }
    if (res.ok) {
      q = await res.json();
      if (!sending) render();
    }
  } catch { /* the next poll tries again */ }
  // Until the run's result is in; then the page rests.
  if (!q?.observed?.done) setTimeout(load, 2000);
}

$('#lang').addEventListener('click', () => {
  zh = !zh;
  localStorage.setItem(LANG_KEY, zh ? '1' : '0');
  render();
});
$('#v-setup').textContent = t('voteLoading');
render();
load();
