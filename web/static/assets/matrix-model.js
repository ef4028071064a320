// The Matrix section's model: which lock survives which failure, from a
// matrix report (GET /api/matrix: {observed, report}; internal/matrix
// Report). Rows are strategy configurations in bands (the seeds' systems
// first), columns the faults, numbered; each cell a word and a colour (never
// the colour alone), observed or, where it did not run, its prediction,
// faded. Pure and self-contained (it imports nothing): matrix-view.js draws
// what this returns, and the exported page (internal/matrix WriteHTML)
// inlines both files, so that the page and the dashboard are one renderer.

/** @type {Record<string, [string, string]>} key -> [English, 中文]; the view registers them with the dashboard's labels. */
export const MX_LABELS = {
  navMatrix: ['Matrix', '故障矩阵'],
  mxTitle: ['Which lock survives which failure', '哪种锁扛得住哪种故障'],
  mxSub: ['every strategy configuration against every fault', '每种策略配置 × 每种故障'],
  // The cell words: the ones `loadtest matrix --predict` prints (README), in small letters: 21 columns of 16 px words
  // fit a 1366 px projector only with words of five narrow letters at most ("BROKE" is a sixth wider).
  mxK_holds: ['holds', '守住'],
  mxK_overlapped_safe: ['fence', '拦截'],
  mxK_unavailable: ['pause', '停售'],
  mxK_stuck: ['stuck', '卡住'],
  mxK_broken: ['broke', '损坏'],
  mxK_na: ['n/a', '无关'],
  mxK_skip: ['skip', '跳过'],
  mxM_holds: ['no sections overlapped', '临界区没有重叠'],
  mxM_overlapped_safe: ['overlapped, fencing refused every stale write', '临界区重叠，防护令牌拒绝了每次过期写入'],
  mxM_unavailable: ['sold nothing during the fault, sold again after it', '故障期间停止售卖，故障后恢复'],
  mxM_stuck: ['units neither sold nor sellable after the fault', '故障后有库存既卖不出也不能再卖'],
  mxM_broken: ['oversold, a lost update or a buyer over the limit', '超卖、丢失更新或买家超过限购'],
  mxM_na: ['the fault cannot touch it', '该故障影响不到它'],
  mxM_skip: ['its backend was not running', '它的后端没有运行'],
  mxLegend: ['What the words say', '格子里的词的意思'],
  mxPredictedStyle: ['predicted, not run', '仅预测，未运行'],
  mxFindingStyle: ['finding: observed ≠ predicted', '与预测不符'],
  // The bands (internal/matrix Groups: TestBandTitlesAreTheModels keeps them equal).
  mxG_database: ['Database (the articles\' first lock)', '数据库（文章中的第一种锁）'],
  mxG_redis: ['Redis', 'Redis'],
  mxG_zookeeper: ['ZooKeeper', 'ZooKeeper'],
  mxG_beyond: ['Beyond the articles: etcd, a hash ring', '文章之外：etcd、一致性哈希'],
  mxG_nolock: ['No distributed lock', '没有分布式锁'],
  // The run's line.
  mxRan: ['Observed {date}, {from}–{to} ({min} min) on', '观测于 {date} {from}–{to}（{min} 分钟），机器'],
  mxCommit: ['commit', '提交'],
  mxQuick: ['quick: one configuration per strategy', '快速：每种策略一个配置'],
  mxFull: ['full: every configuration', '完整：全部配置'],
  mxComplete: ['complete', '全部完成'],
  mxInterrupted: ['interrupted: the cells that ran are kept', '中途中断：已运行的格子保留'],
  mxPredOnly: ['Predicted only: no cell has been observed yet. To observe them on make demo\'s shops, run', '仅有预测：还没有观测任何格子。要在 make demo 的实例上观测，请运行'],
  mxPredOnly2: ['(each cell is a sale of its own, judged by the database).', '（每个格子是一场独立的秒杀，由数据库判定）。'],
  // The summary.
  mxSumObserved: ['{n} observed', '已观测 {n} 格'],
  mxSumFindings: ['{n} differ from the prediction', '其中 {n} 格与预测不符'],
  mxSumFinding1: ['1 differs from the prediction', '其中 1 格与预测不符'],
  mxSumNone: ['all as predicted', '全部符合预测'],
  mxSumNA: ['{n} n/a', '{n} 格无关（故障影响不到）'],
  mxSumSkip: ['{n} skipped (backend down)', '{n} 格跳过（后端未运行）'],
  mxSumNotRun: ['{n} predicted only', '{n} 格仅有预测'],
  mxSumPredicted: ['{n} cells predicted, none observed yet', '共 {n} 格，全部为预测，尚未观测'],
  // The filters and the table.
  mxFilterRow: ['Row or strategy', '行或策略'],
  mxAllRows: ['all {n} rows', '全部 {n} 行'],
  mxStrategyRows: ['{s}: its {n} rows', '{s}：全部 {n} 行'],
  mxFilterFault: ['Fault', '故障'],
  mxAllFaults: ['all {n} faults', '全部 {n} 种故障'],
  mxFindingsOnly: ['findings only', '只看与预测不符的'],
  mxColumns: ['Columns: the faults', '列：故障'],
  mxCorner: ['row \\ fault', '行 \\ 故障'],
  mxNoMatch: ['No cell matches the filters.', '没有符合筛选条件的格子。'],
  mxLoading: ['loading the matrix…', '正在加载矩阵…'],
  mxError: ['Could not read the matrix', '无法读取矩阵'],
  mxTableLabel: ['The matrix: rows are strategy configurations, columns faults', '矩阵：行是策略配置，列是故障'],
  // The detail of one cell.
  mxObserved: ['Observed', '观测结果'],
  mxPredicted: ['Predicted', '预测'],
  mxNotRun: ['not run', '未运行'],
  mxFinding: ['Finding: observed ≠ predicted, so the prediction or the code is wrong.', '与预测不符：要么预测错了，要么代码错了。'],
  mxFigures: ['The sale, as the database counts it', '这场秒杀（按数据库统计）'],
  mxF_stock: ['Stock', '库存'],
  mxF_sold: ['Sold', '已售'],
  mxF_left: ['Left unsold', '未售出'],
  mxF_oversold: ['Oversold', '超卖'],
  mxF_lost_updates: ['Lost updates', '丢失更新'],
  mxF_duplicates: ['Duplicates', '重复订单'],
  mxF_violations: ['Overlaps', '重叠'],
  mxF_fenced_writes: ['Fenced writes', '被拦截的写入'],
  mxUnavail: ['Sold nothing for', '停售时长'],
  mxSeconds: ['{s} s', '{s} 秒'],
  mxHistory: ['History check', '历史检查'],
  mxH_linearizable: ['linearizable: every answer fits one order of events', '可线性化：每个应答都符合同一个事件顺序'],
  mxH_not_linearizable: ['not linearizable: the answers fit no single order of events', '不可线性化：这些应答不符合任何单一的事件顺序'],
  mxH_unknown: ['unknown: the check ran out of time', '未知：检查超时'],
  mxH_none: ['not checked', '未检查'],
  mxSeed: ['Seed', '随机种子'],
  mxElapsed: ['Took', '用时'],
  mxReplay: ['Replay', '重放'],
  mxCopy: ['Copy', '复制'],
  mxCopied: ['copied', '已复制'],
  mxCopyFailed: ['select it and copy', '请选中后手动复制'],
  mxTimeline: ['Open sale {id} on the Timeline', '在时间线中打开第 {id} 场秒杀'],
  mxSaleOnly: ['Sale {id}', '秒杀 {id}'],
  mxClose: ['Close', '关闭'],
};

/** The cell words (internal/matrix Kinds), best first; a kind not listed is shown as it is. */
export const KINDS = ['holds', 'overlapped_safe', 'unavailable', 'stuck', 'broken', 'n/a', 'skip'];
const KIND_KEY = (kind) => (kind === 'n/a' ? 'na' : kind);

/** L is key's label in the language asked; the key itself when unknown. */
export const L = (key, zh) => {
  const l = MX_LABELS[key];
  return l ? (zh && l[1] ? l[1] : l[0]) : key;
};

/** fill is key's label with its {placeholders} replaced. */
export const fill = (key, zh, values) => L(key, zh).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));

/** word is a kind's short word ("holds", "BROKE", "守住"). */
export const word = (kind, zh) => (KINDS.includes(kind) ? L(`mxK_${KIND_KEY(kind)}`, zh) : kind);

/** meaning is a kind's meaning in a few words, for the legend. */
export const meaning = (kind, zh) => (KINDS.includes(kind) ? L(`mxM_${KIND_KEY(kind)}`, zh) : '');

/** kindClass is a kind's CSS class: k-holds, k-overlapped_safe, …, k-na. */
export const kindClass = (kind) => `k-${KINDS.includes(kind) ? KIND_KEY(kind) : 'other'}`;

const RAN = new Set(['holds', 'overlapped_safe', 'unavailable', 'stuck', 'broken']);

/**
 * cellView is what a cell shows: the kind shown (the observed one, else
 * the prediction), its word and class, run (false: the prediction, drawn
 * faded), finding.
 */
export function cellView(cell, zh) {
  const run = !!cell.kind;
  const kind = run ? cell.kind : cell.predicted?.kind || '';
  return { kind, word: word(kind, zh), cls: kindClass(kind), run, finding: !!cell.finding };
}

/**
 * summary counts a report's cells: observed (run and judged: holds …
 * broken), findings, n/a and skip observed, notRun (predicted only), total.
 */
export function summary(report) {
  const s = { observed: 0, findings: 0, na: 0, skip: 0, notRun: 0, total: 0 };
  for (const c of report?.cells || []) {
    s.total++;
    if (c.finding) s.findings++;
    if (!c.kind) s.notRun++;
    else if (c.kind === 'n/a') s.na++;
    else if (c.kind === 'skip') s.skip++;
    else if (RAN.has(c.kind)) s.observed++;
  }
  return s;
}

/** summaryParts are the summary as phrases, the first (the headline) and the findings' marked: [{text, strong, finding}]. */
export function summaryParts(report, zh) {
  const s = summary(report);
  if (s.notRun === s.total) return [{ text: fill('mxSumPredicted', zh, { n: s.total }), strong: true }];
  const parts = [{ text: fill('mxSumObserved', zh, { n: s.observed }), strong: true }];
  if (s.findings) parts.push({ text: s.findings === 1 ? L('mxSumFinding1', zh) : fill('mxSumFindings', zh, { n: s.findings }), strong: true, finding: true });
  else parts.push({ text: L('mxSumNone', zh), strong: true });
  if (s.na) parts.push({ text: fill('mxSumNA', zh, { n: s.na }) });
  if (s.skip) parts.push({ text: fill('mxSumSkip', zh, { n: s.skip }) });
  if (s.notRun) parts.push({ text: fill('mxSumNotRun', zh, { n: s.notRun }) });
  return parts;
}

const pad = (n) => String(n).padStart(2, '0');
const day = (d) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const hm = (d) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;
const valid = (iso) => { const d = iso ? new Date(iso) : null; return d && !Number.isNaN(d.getTime()) && d.getFullYear() > 1 ? d : null; };

/**
 * runLine says when and where the report ran, or that it is predicted
 * only: {predicted: true, command} or {predicted: false, text (before the
 * machine), machine, commit, quick, complete} with quick and complete as
 * phrases. observed is GET /api/matrix's flag (undefined: any cell run).
 */
export function runLine(report, observed, zh) {
  const s = summary(report);
  const seen = observed ?? s.notRun < s.total;
  const targets = report?.targets?.length ? report.targets.join(',') : 'http://127.0.0.1:8080,http://127.0.0.1:8081';
  if (!seen) return { predicted: true, text: L('mxPredOnly', zh), command: `loadtest matrix --targets ${targets}`, after: L('mxPredOnly2', zh) };
  const from = valid(report.started_at), to = valid(report.finished_at);
  const min = from && to ? Math.max(0, Math.round((to - from) / 60000)) : '?';
  return {
    predicted: false,
    text: fill('mxRan', zh, { date: from ? day(from) : '?', from: from ? hm(from) : '?', to: to ? hm(to) : '?', min }),
    machine: report.machine || '?',
    commit: report.commit || '?',
    quick: L(report.quick ? 'mxQuick' : 'mxFull', zh),
    complete: L(report.complete ? 'mxComplete' : 'mxInterrupted', zh),
    interrupted: !report.complete,
  };
}

/** groupTitle is a band's title. */
export const groupTitle = (group, zh) => (MX_LABELS[`mxG_${group}`] ? L(`mxG_${group}`, zh) : group);

/** columnTitle is a fault's title in the language asked (the English when there is no Chinese). */
export const columnTitle = (col, zh) => (zh && col.title_zh ? col.title_zh : col.title_en || col.name);

/**
 * rowOptions are the row filter's choices: all rows, then per band each
 * strategy that has several rows (value "s:NAME") and each row ("r:NAME").
 */
export function rowOptions(report, zh) {
  const rows = report?.rows || [];
  const bands = [];
  for (const g of groupsOf(rows)) {
    const mine = rows.filter((r) => r.group === g);
    const options = [];
    for (const r of mine) {
      const same = mine.filter((x) => x.strategy === r.strategy);
      if (same.length > 1 && same[0] === r) options.push({ value: `s:${r.strategy}`, text: fill('mxStrategyRows', zh, { s: r.strategy, n: same.length }) });
      options.push({ value: `r:${r.name}`, text: r.name, row: true });
    }
    bands.push({ title: groupTitle(g, zh), options });
  }
  return { all: { value: '', text: fill('mxAllRows', zh, { n: rows.length }) }, bands };
}

/** faultOptions are the fault filter's choices: all, then each column numbered ("3 · Lose the reply…"). */
export function faultOptions(report, zh) {
  const cols = report?.faults || [];
  return [{ value: '', text: fill('mxAllFaults', zh, { n: cols.length }) },
    ...cols.map((c, i) => ({ value: c.name, text: `${i + 1} · ${columnTitle(c, zh)}` }))];
}

/** groupsOf are the bands rows are in, in the order they come. */
function groupsOf(rows) {
  const out = [];
  for (const r of rows) if (!out.includes(r.group)) out.push(r.group);
  return out;
}

/**
 * table is what the grid shows under filter {row: "" | "s:NAME" | "r:NAME",
 * fault: "" | NAME, findings: bool}: columns [{n, name, title_en, title_zh}]
 * (n counts from 1 in the report's order) and bands [{group, title, rows:
 * [{ref, cells}]}], cells in the columns' order. Findings only keeps the
 * rows and columns that have a finding.
 */
export function table(report, filter = {}, zh = false) {
  const faults = (report?.faults || []).map((c, i) => ({ ...c, n: i + 1 }));
  const byKey = new Map((report?.cells || []).map((c) => [`${c.row}\u0000${c.fault}`, c]));
  const cellOf = (row, fault) => byKey.get(`${row}\u0000${fault}`) || { row, fault, kind: '', predicted: { kind: '' } };
  let rows = report?.rows || [];
  if (filter.row?.startsWith('s:')) rows = rows.filter((r) => r.strategy === filter.row.slice(2));
  else if (filter.row?.startsWith('r:')) rows = rows.filter((r) => r.name === filter.row.slice(2));
  let cols = filter.fault ? faults.filter((c) => c.name === filter.fault) : faults;
  if (filter.findings) {
    rows = rows.filter((r) => cols.some((c) => cellOf(r.name, c.name).finding));
    cols = cols.filter((c) => rows.some((r) => cellOf(r.name, c.name).finding));
  }
  const bands = groupsOf(rows).map((g) => ({
    group: g, title: groupTitle(g, zh),
    rows: rows.filter((r) => r.group === g).map((ref) => ({ ref, cells: cols.map((c) => cellOf(ref.name, c.name)) })),
  }));
  return { columns: cols, bands };
}

/** seconds is ms as seconds with one decimal ("2.3"). */
export const seconds = (ms) => (Number(ms) / 1000).toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

const FIGURES = ['stock', 'sold', 'left', 'oversold', 'lost_updates', 'duplicates', 'violations', 'fenced_writes'];
const BAD_FIGURES = new Set(['oversold', 'lost_updates', 'duplicates']);

/**
 * detail is one cell opened: its row, its column (number and title in the
 * language asked, the fault's name), observed and predicted as {kind,
 * word, cls, why} (observed null when not run: notRun says why), finding,
 * figures [{key, label, value, bad, warn}] (none when not run), the
 * unavailable time in seconds, the history check in words, seed, elapsed
 * seconds, replay line, sale id.
 */
export function detail(report, rowName, fault, zh) {
  const n = (report?.faults || []).findIndex((c) => c.name === fault);
  const col = report?.faults?.[n] || { name: fault };
  const cell = (report?.cells || []).find((c) => c.row === rowName && c.fault === fault);
  if (!cell) return null;
  const why = (en, zhText) => (zh && zhText ? zhText : en || '');
  const p = cell.predicted || {};
  const run = !!cell.kind;
  const ran = RAN.has(cell.kind);
  return {
    row: rowName,
    fault,
    n: n + 1,
    title: columnTitle(col, zh),
    observed: run ? { kind: cell.kind, word: word(cell.kind, zh), cls: kindClass(cell.kind), why: why(cell.why_en, cell.why_zh) } : null,
    notRun: run ? '' : why(cell.why_en, cell.why_zh) || L('mxNotRun', zh),
    predicted: { kind: p.kind, word: word(p.kind, zh), cls: kindClass(p.kind), why: why(p.why_en, p.why_zh) },
    finding: !!cell.finding,
    figures: ran ? FIGURES.map((k) => {
      const v = Number(cell.figures?.[k] || 0);
      return { key: k, label: L(`mxF_${k}`, zh), value: v.toLocaleString('en-US'), bad: BAD_FIGURES.has(k) && v > 0, warn: k === 'violations' && v > 0 };
    }) : [],
    unavailable: cell.unavailable_ms > 0 ? fill('mxSeconds', zh, { s: seconds(cell.unavailable_ms) }) : '',
    history: ran || cell.history ? L(`mxH_${cell.history || 'none'}`, zh) : '',
    historyBad: cell.history === 'not_linearizable',
    seed: cell.seed || 0,
    elapsed: cell.elapsed_ms > 0 ? fill('mxSeconds', zh, { s: seconds(cell.elapsed_ms) }) : '',
    replay: cell.replay || '',
    saleId: cell.sale_id || 0,
  };
}

/** cellLabel is a cell's name for a screen reader and its tooltip: "redis+fencing × 1 Pause the lock holder: holds (predicted)". */
export function cellLabel(cell, col, zh) {
  const v = cellView(cell, zh);
  const bits = [meaning(v.kind, zh) ? `${v.word} (${meaning(v.kind, zh)})` : v.word];
  if (!v.run) bits.push(L('mxPredictedStyle', zh));
  if (v.finding) bits.push(L('mxFindingStyle', zh));
  return `${cell.row} × ${col.n} ${columnTitle(col, zh)}: ${bits.join(zh ? '，' : ', ')}`;
}

/**
 * rowLabel is how the grid names a row: a strategy's variants under its
 * plain row read as their switches alone ("+fencing", "/async"), indented;
 * a row shown without its plain row keeps its whole name.
 */
export function rowLabel(ref, visibleNames) {
  const rest = ref.name.slice(ref.strategy.length);
  if (ref.name !== ref.strategy && ref.name.startsWith(ref.strategy) && /^[+/]/.test(rest) && visibleNames.includes(ref.strategy)) {
    return { text: rest, variant: true };
  }
  return { text: ref.name, variant: false };
}

/**
 * moveIn is where the arrow keys go in a grid of h rows and w columns from
 * (r, c): clamped at the edges; Home and End to the row's ends, with Ctrl
 * to the grid's corners. null for another key.
 */
export function moveIn(key, r, c, h, w, ctrl = false) {
  const at = {
    ArrowUp: [r - 1, c], ArrowDown: [r + 1, c], ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1],
    Home: ctrl ? [0, 0] : [r, 0], End: ctrl ? [h - 1, w - 1] : [r, w - 1],
    PageUp: [r - 10, c], PageDown: [r + 10, c],
  }[key];
  if (!at) return null;
  return [Math.min(h - 1, Math.max(0, at[0])), Math.min(w - 1, Math.max(0, at[1]))];
}
