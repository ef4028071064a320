// Two sales on one time axis, the Timeline's "Compare with": the second
// sale drawn under the first at the same milliseconds per pixel, each from
// its own start (its first event), the axis as long as the longer sale, so
// that a sale 8x shorter is drawn 8x shorter. This module decides and words
// it (the shared windows, the headings, the caption); no
// DOM here, so it runs under node's test runner. timeline.js shows it.
import { fill, combineFact } from './combine-view.js';
import { KIND_LABEL, verdictOf } from './dom.js';
import { addLabels, label } from './i18n.js';

addLabels({
  tlVs: ['Compare with', '对比'],
  tlVsNone: ['—', '—'],
  tlVsClear: ['end the comparison', '结束对比'],
  tlVsOff: ['Comparing on one time scale: zoom, replay and hover are off (✕ ends the comparison).', '同一时间刻度对比中：缩放、回放和悬停已关闭（点 ✕ 结束对比）。'],
  tlVsBadId: ['Cannot compare with “{v}”: not a sale number. Showing one sale.', '无法对比“{v}”：不是秒杀场次编号。只显示一场。'],
  tlVsMissing: ['Cannot compare with sale {id}: there is no such sale. Showing one sale.', '无法对比第 {id} 场秒杀：没有这一场。只显示一场。'],
  tlVsCannot: ['Cannot compare with sale {id}: {why}. Showing one sale.', '无法对比第 {id} 场秒杀：{why}。只显示一场。'],
  tlVsShorter: ['#{a} took {da}, #{b} took {db}: {r}× shorter', '#{a} 用时 {da}，#{b} 用时 {db}：#{b} 只用了 1/{r} 的时间'],
  tlVsLonger: ['#{a} took {da}, #{b} took {db}: {r}× longer', '#{a} 用时 {da}，#{b} 用时 {db}：#{b} 用时是 #{a} 的 {r} 倍'],
  tlVsSame: ['#{a} took {da}, #{b} took {db}: about as long', '#{a} 用时 {da}，#{b} 用时 {db}：用时差不多'],
  tlVsDone: ['done in {d}', '{d} 结束'],
  tlVsAria: ['sales #{a} and #{b} on one time scale', '#{a} 与 #{b} 两场秒杀，同一时间刻度'],
});

/** saleDuration is a sale's length in ms: from its first event to its last. */
export const saleDuration = (m) => Math.max(0, (m?.to ?? 0) - (m?.from ?? 0));

/**
 * sharedViews are the two windows drawn at one scale: each from its own
 * sale's start, both as long as the longer sale (with a margin of `margin`
 * of it on each side), so that one millisecond is as wide in both.
 */
export function sharedViews(a, b, margin = 0.02) {
  const span = Math.max(saleDuration(a), saleDuration(b), 1);
  const pad = span * margin;
  const view = (m) => ({ from: m.from - pad, to: m.from + span + pad });
  return { span, a: view(a), b: view(b) };
}

/** durationText writes a sale's length: "4.50 s", "0.57 s"; under 0.1 s in ms ("12.3 ms"); 秒/毫秒 in Chinese. */
export function durationText(ms, zh = false) {
  if (ms >= 100) return `${(ms / 1000).toFixed(2)} ${zh ? '秒' : 's'}`;
  return `${ms.toFixed(ms >= 10 ? 1 : 2)} ${zh ? '毫秒' : 'ms'}`;
}

/** ratioText writes how many times longer: "7.9", "12.0", "150". */
export const ratioText = (r) => (r >= 100 ? r.toFixed(0) : r.toFixed(1));

/**
 * compareCaption is the line under the two drawings: both lengths and
 * their ratio, said of the second sale ("#12 took 4.50 s, #13 took 0.57 s:
 * 7.9× shorter"). a and b: {id, ms}. Returns {text, ratio, kind}.
 */
export function compareCaption(a, b, zh = false) {
  const long = Math.max(a.ms, b.ms), short = Math.min(a.ms, b.ms);
  const ratio = short > 0 ? long / short : Infinity;
  const kind = ratio < 1.05 ? 'same' : b.ms < a.ms ? 'shorter' : 'longer';
  const key = { same: 'tlVsSame', shorter: 'tlVsShorter', longer: 'tlVsLonger' }[kind];
  const r = Number.isFinite(ratio) ? ratioText(ratio) : '∞';
  return { text: fill(key, zh, { a: a.id, b: b.id, da: durationText(a.ms, zh), db: durationText(b.ms, zh), r }), ratio, kind };
}

/**
 * verdictWord is a sale's verdict in one word (holds, BROKEN, OVERLAPPED,
 * DATA SAFE) with its tone: {word, tone: 'bad' | 'warn' | 'ok' | ''};
 * '' without the sale's figures.
 */
export function verdictWord(sale, zh = false) {
  if (!sale) return { word: '', tone: '' };
  const v = verdictOf(sale, zh);
  const word = v.kind && KIND_LABEL[v.kind] ? label(KIND_LABEL[v.kind], zh) : v.word;
  return { word, tone: v.bad ? 'bad' : v.warn ? 'warn' : 'ok' };
}

/** saleHeading heads a sale's lanes: "#13 · redis · combining ≤100" (the verdict word beside it, verdictWord). */
export function saleHeading(data, zh = false) {
  return [`#${data.sale_id}`, data.strategy, combineFact(data, zh)].filter(Boolean).join(' · ');
}
