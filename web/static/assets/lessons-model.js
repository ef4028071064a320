// The Lessons view's model, without the DOM (node --test runs it): the
// names of a lesson's cases, the lesson that runs now, the band's view of
// it (a run as live-model.js's liveView reads one) and the decisive moment
// of a case's timeline. Case names follow loadtest/lessons' CaseTable: the
// strategy and the settings that differ between the lesson's sales.
import { saleStep } from './live-model.js';

/** ASK_LESSON_KEY holds the lesson a card's "Ask the class first" opens the Class section on (class.js reads it). */
export const ASK_LESSON_KEY = 'seckill.classAskLesson';

/** The verdict of a lesson run, in both languages, with its css class and symbol (colour is never the only signal). */
export const LESSON_VERDICT = {
  PASS: { en: 'PASS', zh: '通过', cls: 'pass', sym: '✓' },
  FAIL: { en: 'FAIL', zh: '未通过', cls: 'fail', sym: '✗' },
  ERROR: { en: 'ERROR', zh: '出错', cls: 'error', sym: '!' },
  SKIP: { en: 'SKIP', zh: '跳过', cls: 'skip', sym: '–' },
};

/** The verdict of one case (one sale): the shop's kinds (internal/verdict) in words. */
export const CASE_VERDICT = {
  holds: { en: 'holds', zh: '守住', cls: 'ok' },
  overlapped_safe: { en: 'overlapped, data safe', zh: '重叠，数据安全', cls: 'warn' },
  broken: { en: 'BROKEN', zh: '数据已损坏', cls: 'bad' },
};

const onOff = (key, en, zh) => ({ value: (v) => String(!!v[key]), en: (v) => `${en} ${v[key] ? 'on' : 'off'}`, zh: (v) => `${zh} ${v[key] ? '开' : '关'}` });
const num = (key, en, zh) => ({ value: (v) => String(v[key] ?? 0), en: (v) => en.replace('%d', v[key] ?? 0), zh: (v) => zh.replace('%d', v[key] ?? 0) });
const SETTINGS = [
  onOff('fencing', 'fencing', '防护令牌'),
  onOff('combine', 'combining', '合并'),
  { value: (v) => String(Math.max(v.stock_shards || 1, 1)), en: (v) => `${Math.max(v.stock_shards || 1, 1)} stock shards`, zh: (v) => `库存分 ${Math.max(v.stock_shards || 1, 1)} 段` },
  onOff('watchdog', 'watchdog', '看门狗'),
  // redlock's per-process queue, on unless the sale says no_queue.
  { value: (v) => String(!v.no_queue), en: (v) => `local queue ${v.no_queue ? 'off' : 'on'}`, zh: (v) => `本地排队 ${v.no_queue ? '关' : '开'}` },
  num('work_ms', 'work %d ms', '锁内业务耗时 %d 毫秒'),
  num('ttl_ms', 'ttl %d ms', '锁过期时间 %d 毫秒'),
  onOff('sold_out_cache', 'sold-out cache', '售罄缓存'),
  num('rate_limit_ip', '%d orders/s per IP', '每 IP 限流 %d 次/秒'),
  num('per_user_limit', 'limit %d per buyer', '每人限购 %d'),
  { value: (v) => String(v.order_mode || ''), en: (v) => `${v.order_mode} orders`, zh: (v) => `下单模式 ${v.order_mode}` },
];

// What the scenarios' sale names add to their lesson's common name, in
// English and Chinese (loadtest/lessons extraNames); others stay as they are.
const EXTRA_NAMES = {
  'buyer-2 reads first': ['buyer-2 reads first', 'buyer-2 先读库存'],
  'time to acquire': ['time to acquire', '加锁耗时'],
  'crashed holder': ['crashed holder', '持锁者崩溃'],
  'slow holder': ['slow holder', '持锁者太慢'],
  ...Object.fromEntries(['none', 'everysec', 'always'].map((m) => [m, [`persistence ${m}`, `持久化 ${m}`]])),
};

const SEP = ' ,;:';
/** commonName is the start every sale name shares, cut back to a whole word. */
function commonName(views) {
  let common = views[0]?.name || '';
  for (const v of views) while (!(v.name || '').startsWith(common)) common = common.slice(0, -1);
  for (const v of views) {
    const name = v.name || '';
    if (name.length > common.length && !SEP.includes(name[common.length]) && (!common || !SEP.includes(common.at(-1)))) {
      common = common.slice(0, Math.max(...[...SEP].map((c) => common.lastIndexOf(c))) + 1);
    }
  }
  return common;
}

/**
 * caseNames names each sale view ({en, zh}) as the result table does
 * (loadtest/lessons CaseTable): the strategy, the settings that differ
 * ("redis, fencing on") and what its name adds to the lesson's common one.
 */
export function caseNames(views) {
  const differ = SETTINGS.filter((s) => views.some((v) => s.value(v) !== s.value(views[0])));
  const common = commonName(views);
  const seen = new Map();
  return views.map((v) => {
    const extra = common ? (v.name || '').slice(common.length).replace(/^[ ,;:]+|[ ,;:]+$/g, '') : '';
    const [extraEn, extraZh] = EXTRA_NAMES[extra] || [extra, extra];
    let en = [v.strategy, ...differ.map((s) => s.en(v)), ...(extra ? [extraEn] : [])].join(', ');
    let zh = [v.strategy, ...differ.map((s) => s.zh(v)), ...(extra ? [extraZh] : [])].join('，');
    const n = (seen.get(en) || 0) + 1;
    seen.set(en, n);
    if (n > 1) { en += ` (${n})`; zh += `（${n}）`; }
    return { en, zh };
  });
}

/** lessonText is a lesson's title, prediction, fix or seed commentary in the mode's language (Chinese when the lesson has it). */
export const lessonText = (l, key, zh) => (zh && l[`${key}_zh`]) || l[key] || '';

/**
 * observedText is a run's result line in the mode's language. The agent
 * writes it in English (each scenario words its own figures); in Chinese
 * it is said from the run's verdict and its result table, whose names and
 * reasons the agent gives in both languages: whether the run agreed with
 * the prediction, then each case's verdict (with its reason when it did
 * not hold). A run without a table (skipped, failed to start) keeps the
 * agent's line after its verdict word: it names a command or an error.
 */
export function observedText(run, zh) {
  if (!run) return '';
  if (!zh) return run.observed || '';
  const cases = run.cases || [];
  const head = { PASS: '与预言一致', FAIL: '与预言不符', ERROR: '出错', SKIP: '跳过' }[run.verdict] || '';
  if (!cases.length) return run.observed ? `${head ? `${head}：` : ''}${run.observed}` : '';
  const each = cases.map((c) => {
    const v = CASE_VERDICT[c.verdict];
    const word = v ? v.zh : c.verdict;
    return `${c.name_zh || c.name}：${word}${c.verdict !== 'holds' && c.reason_zh ? `（${c.reason_zh}）` : ''}`;
  });
  return `${head ? `${head}。` : ''}${cases.length} 个案例：${each.join('；')}。各项数字见下表。`;
}

/** runningLesson is the lesson whose run is running now (one at a time), or null. */
export function runningLesson(lessons) {
  return lessons.find((l) => l.last?.status === 'running') || null;
}


/**
 * nextCase is what a running lesson shows next while the class pace pauses
 * before it (the run's next: {en, zh, at}, which its agent reports), at
 * time now (ms since the epoch): secs, the whole seconds left (counting
 * down, at least 1), line, the card's sentence ("Next (in 6 s): ..." /
 * "接下来（6 秒后）：..."), and band, what the band's title adds given
 * the next case's number ("· case 2 in 6 s" / "· 6 秒后开始案例 2"), in
 * both languages. null when the run is not running, has none, or the next
 * case has started (at passed).
 */
export function nextCase(run, now) {
  const n = run?.next;
  if (!n || run.status !== 'running') return null;
  const left = Date.parse(n.at) - now;
  if (!(left > 0)) return null;
  const secs = Math.ceil(left / 1000);
  return {
    secs,
    line: { en: `Next (in ${secs} s): ${n.en}`, zh: `接下来（${secs} 秒后）：${n.zh || n.en}` },
    band: { en: (n) => `· case ${n} in ${secs} s`, zh: (n) => `· ${secs} 秒后开始案例 ${n}` },
  };
}

/**
 * bandRun is the lesson run as a run the band's liveView reads: one step
 * per sale the lesson made so far (views: their GET /api/sales/{id}, in
 * order), the newest running while the lesson runs. title says which
 * lesson and case the band shows, in the mode's language, heading the
 * band's word for it (a lesson running, the last lesson); during the class
 * pace's pause before the next case (at time now, ms) the title adds how
 * soon it starts, after the lesson's name. null before the lesson made a
 * sale.
 */
export function bandRun(lesson, views, zh, now = Date.now()) {
  const run = lesson.last;
  if (!run || !views.length) return null;
  const live = run.status === 'running';
  const names = caseNames(views);
  const i = views.length - 1;
  // Short enough for the band's heading on a projector: the heading's own
  // word says it is a lesson ("Lesson running", "Last lesson").
  const of = live ? '' : `/${views.length}`;
  // How soon the next case starts goes right after the lesson's name: the
  // heading is cut at its end on a projector, and a long case name
  // ("consistent-hash, fencing off") would take the countdown with it.
  const next = nextCase(run, now);
  const name = next ? `${lesson.name} ${(zh ? next.band.zh : next.band.en)(i + 2)}` : lesson.name;
  const title = zh ? `${name} · 案例 ${i + 1}${of}：${names[i].zh}` : `${name} · case ${i + 1}${of}: ${names[i].en}`;
  return {
    title,
    heading: live ? 'liveLesson' : 'liveLessonLast',
    run: {
      id: `lesson-${run.id}`,
      status: live ? 'running' : 'done',
      steps: views.map((v, k) => saleStep(v, k, live && k === i ? 'running' : 'done')),
    },
  };
}

/**
 * decisiveLines are the narration lines of a case's decisive moment (its
 * timeline: GET /api/sales/{id}/timeline): the first overlap (the two lines
 * that name its sections) or else the first fenced write; [] when the
 * timeline has neither. Each line is {at, en, zh, since}: since is the
 * time from the timeline's start, in words ("+1.25 s").
 */
export function decisiveLines(tl) {
  const from = tl?.from || 0;
  const lines = (tl?.narration || []).map((l) => ({ ...l, since: `+${((l.at - from) / 1000).toFixed(2)} s` }));
  const o = tl?.overlaps?.[0];
  if (o) {
    const ids = new Set([o.a, o.b]);
    const hit = lines.filter((l) => l.section !== undefined && l.section !== null && ids.has(l.section));
    if (hit.length) return hit.slice(0, 2);
  }
  const fenced = lines.find((l) => /\(fenced\)/.test(l.en));
  return fenced ? [fenced] : [];
}

/**
 * Whether the Lessons view offers "Run at teaching pace" for a lesson: only
 * where the catalogue says its scenario has a class pace (class_pace true);
 * the others would run at normal pace anyway, so the button would mislead.
 */
export function offersClassPace(lesson) {
  return lesson?.class_pace === true;
}
