// The Interview section's model: the flash-sale design question as the
// questions interviewers ask (GET /api/interview: {questions, measured,
// unmeasured}; internal/interview Page), each figure with the run it came
// from or the sentence that says it was never measured here. Pure and
// self-contained (it imports nothing): interview-view.js draws what this
// returns, and the exported page (loadtest interview --html) inlines both.

/** @type {Record<string, [string, string]>} key -> [English, 中文]; the view registers them with the dashboard's labels. */
export const IV_LABELS = {
  navInterview: ['Interview', '面试'],
  ivTitle: ['Design a flash sale: the interview path', '设计一个秒杀系统：面试路线'],
  ivSub: ['each answer backed by figures measured on this machine', '每个回答都用本机实测的数字说话'],
  ivTradeOff: ['Trade-off', '代价'],
  ivFollowUp: ['Next they ask', '面试官接着问'],
  ivShowMe: ['Show me: measured here', '拿数据说话：本机实测'],
  ivNever: ['not measured here', '本机未测'],
  ivLessonRun: ['lesson run', '实验课运行'],
  ivMatrixRun: ['matrix run', '故障矩阵运行'],
  ivOpenSale: ['timeline', '时间线'],
  ivCount: ['{m} figures measured on this machine, {u} not yet', '本机已测 {m} 个数字，还有 {u} 个未测'],
  ivHow: ['loadtest interview --targets URL,URL measures the missing ones', 'loadtest interview --targets URL,URL 可补测缺少的数字'],
  ivLoading: ['Loading the interview path…', '正在读取面试路线…'],
  ivError: ['Could not read the interview path', '无法读取面试路线'],
  ivNoRoute: ['This shop serves no interview path: GET /api/interview answered 404 (a build from before it).', '该实例不提供面试路线：GET /api/interview 返回 404（它的版本早于此功能）。'],
};

const lab = (key, zh) => (IV_LABELS[key] ? IV_LABELS[key][zh ? 1 : 0] : key);
const pick = (t, zh) => (t ? (zh ? t.zh || t.en : t.en) : '');

/** The fields that are times, in seconds (internal/interview's *Seconds). */
const SECONDS = new Set(['sell_out_s', 'unavailable_s', 'reclaim_s']);

/**
 * formatValue is a figure's number as the page shows it: seconds with one
 * decimal (two under a second), orders/s and counts whole (a unit per hold
 * with one decimal).
 */
export function formatValue(fig) {
  const v = Number(fig.value) || 0;
  const field = fig.source?.field || '';
  if (SECONDS.has(field)) return v < 1 && v > 0 ? v.toFixed(2) : v.toFixed(1);
  if (field === 'units_per_hold') return v.toFixed(1);
  return Math.round(v).toLocaleString('en-US');
}

/** provenance is the line naming a figure's run: "lesson run #12 · split-hot-row · db-conditional, 1 stock shards · 2026-11-29 06:01". */
export function provenance(from, zh) {
  if (!from) return '';
  const kind = lab(from.kind === 'matrix_run' ? 'ivMatrixRun' : 'ivLessonRun', zh);
  const when = from.at ? String(from.at).replace('T', ' ').slice(0, 16) : '';
  const what = from.kind === 'matrix_run' ? from.name : `${from.name} · ${pick(from.case, zh)}`;
  return [`${kind} #${from.id}`, what, when ? `${when} UTC` : ''].filter(Boolean).join(' · ');
}

/** figureView is one figure as the view draws it. */
export function figureView(fig, zh) {
  return {
    measured: !!fig.measured,
    word: !!(fig.measured && fig.word),
    value: !fig.measured ? '—' : fig.word ? pick(fig.word, zh) : formatValue(fig),
    unit: fig.word ? '' : pick(fig.unit, zh),
    label: pick(fig.label, zh),
    detail: fig.measured ? pick(fig.detail, zh) : '',
    from: fig.measured ? provenance(fig.from, zh) : '',
    link: fig.measured ? fig.from?.link || '' : '',
    saleLink: fig.measured ? fig.from?.sale_link || '' : '',
    missing: fig.measured ? '' : pick(fig.missing, zh),
  };
}

/** pageView is the whole page in one language: the count line and every question, numbered. */
export function pageView(page, zh) {
  const qs = (page?.questions || []).map((q, i) => ({
    n: i + 1,
    id: q.id,
    ask: pick(q.ask, zh),
    answer: pick(q.answer, zh),
    tradeOff: pick(q.trade_off, zh),
    followUp: pick(q.follow_up, zh),
    figures: (q.figures || []).map((f) => figureView(f, zh)),
  }));
  const count = lab('ivCount', zh).replace('{m}', String(page?.measured || 0)).replace('{u}', String(page?.unmeasured || 0));
  // The command is offered where a new run may measure a figure (rerun), not
  // for one a kept run measured to have nothing to quote.
  const rerun = (page?.questions || []).some((q) => (q.figures || []).some((f) => !f.measured && f.rerun));
  return { count, how: rerun ? lab('ivHow', zh) : '', questions: qs };
}

/** ivLabel is a label of this section in one language. */
export const ivLabel = lab;
