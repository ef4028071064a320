// The class's predictions without the DOM (node --test runs it): a
// question's choices lettered A-D with their counts once revealed, what a
// projector says of the votes before, the time left, the observed outcome
// in words, and a phone's anonymous voter id. Used by class.js (the
// projector's section) and vote.js (the phones' page).

/** The outcomes' short names, for a tally bar's label and the phone's "your vote". */
export const OUTCOME_SHORT = {
  broken: { en: 'data goes wrong', zh: '数据出错' },
  overlapped_safe: { en: 'overlaps, data safe', zh: '重叠但数据安全' },
  holds: { en: 'holds', zh: '守住' },
  stopped: { en: 'stops selling', zh: '卖不动了' },
};

export const LETTERS = ['A', 'B', 'C', 'D', 'E'];

/** ASK_LESSON_KEY holds the lesson a Lessons card's "Ask the class first" opens the Class section on. */
export const ASK_LESSON_KEY = 'seckill.classAskLesson';

/** text is t's words in the language shown. */
export const text = (t, zh) => (t ? (zh ? t.zh || t.en : t.en) : '');

/**
 * choiceRows are q's choices as the projector lists them: letter, words,
 * and once revealed the count, the share of the votes (whole percent) and
 * whether the run showed it. Before the reveal count and pct are null.
 */
export function choiceRows(q, zh) {
  const total = q.votes || 0;
  const observed = q.observed?.done ? q.observed.outcome : '';
  return (q.choices || []).map((c, i) => {
    const count = q.tally ? q.tally[c.outcome] || 0 : null;
    return {
      letter: LETTERS[i] || String(i + 1), outcome: c.outcome, text: text(c, zh), count,
      pct: count === null ? null : total ? Math.round((100 * count) / total) : 0,
      observed: observed === c.outcome,
    };
  });
}

/** timeLeft is the whole seconds until q closes, at now (ms), never below 0. */
export const timeLeft = (q, now) => Math.max(0, Math.ceil((Date.parse(q.closes_at) - now) / 1000));

/** clock writes seconds as m:ss. */
export const clock = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

/**
 * votesLine is what the projector says of the votes: how many, never what,
 * before the reveal; with the time left or why it closed.
 */
export function votesLine(q, zh, now) {
  const n = q.votes || 0;
  const count = zh ? `已有 ${n} 票` : `${n} ${n === 1 ? 'vote' : 'votes'}`;
  switch (q.status) {
    case 'open':
      return zh ? `${count}，还剩 ${clock(timeLeft(q, now))}` : `${count}, ${clock(timeLeft(q, now))} left`;
    case 'closed':
      return zh ? `${count}，投票已结束` : `${count}, voting closed`;
    default:
      return zh ? `${count}，已揭晓` : `${count}, revealed`;
  }
}

/**
 * observedLine says what the run showed, once it ended: the outcome's
 * letter and the verdict's reason (the row itself is lit); while it runs,
 * that it runs; '' before the reveal.
 */
export function observedLine(q, zh) {
  const o = q.observed;
  if (!o) return '';
  if (!o.done) return zh ? '正在运行……结果出来后显示在这里。' : 'Running… the result shows here when it ends.';
  if (!o.outcome) return (zh ? '没能运行：' : 'It could not run: ') + (o.error || '');
  const row = choiceRows(q, zh).find((r) => r.outcome === o.outcome);
  const what = row ? row.letter : o.outcome;
  const reason = text(o.reason, zh);
  if (zh) return `结果：${what}${reason ? `——${reason}` : ''}`;
  return `Observed: ${what}${reason ? `, ${reason}` : ''}`;
}

/** rightLine says how many of the class chose what the run showed. */
export function rightLine(q, zh) {
  const o = q.observed;
  if (!o?.done || !o.outcome || !q.tally) return '';
  const n = q.tally[o.outcome] || 0;
  const total = q.votes || 0;
  if (!total) return zh ? '没有人投票。' : 'Nobody voted.';
  return zh ? `${total} 人中有 ${n} 人答对。` : `${n} of ${total} chose it.`;
}

const VOTER_KEY = 'seckill.voter';

/**
 * voterId is this phone's anonymous id: 32 lowercase hex digits, made once
 * from random bytes and kept in storage. Nothing in it names anyone.
 */
export function voterId(storage, random = (b) => crypto.getRandomValues(b)) {
  let id = storage.getItem(VOTER_KEY) || '';
  if (!/^[0-9a-f]{32}$/.test(id)) {
    id = [...random(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    storage.setItem(VOTER_KEY, id);
  }
  return id;
}

const CHOICE_KEY = 'seckill.votes';

/** myChoice is what this phone chose on question id ('' for none), remembered locally. */
export function myChoice(storage, id) {
  try { return JSON.parse(storage.getItem(CHOICE_KEY) || '{}')[id] || ''; } catch { return ''; }
}

/** rememberChoice keeps this phone's choice on question id (the newest 50 questions). */
export function rememberChoice(storage, id, outcome) {
  let all = {};
  try { all = JSON.parse(storage.getItem(CHOICE_KEY) || '{}') || {}; } catch { /* a fresh start */ }
  all[id] = outcome;
  const keys = Object.keys(all);
  for (const k of keys.slice(0, Math.max(0, keys.length - 50))) delete all[k];
  storage.setItem(CHOICE_KEY, JSON.stringify(all));
}
