// The seeds' claims table (#t-claims): each claim, the figures it was
// judged on (median and min-max over repeated runs of the same settings)
// and its verdict, which decides only outside the runs' spread. The seed's
// sentence (its own words in 「」, verbatim in both languages), the check
// and the figures with their conditions (and, when undecided, why) come
// from the Go judge in English and in Chinese (seed_zh, claim_zh,
// measured_zh; an older shop without a _zh field shows its English); the
// verdict's label is this file's, in both. Every cell follows the page's
// language and is drawn again when the language switches.
import { el } from './dom.js';
import { addLabels, label } from './i18n.js';

addLabels({
  claimsNote1: ['Judged on up to 5 newest finished runs with the same settings that measured redis, zookeeper and a database lock one step after the other (orders per second of each step: median, min-max); a verdict decides only when the compared ranges do not overlap, and needs 3 runs;',
    '依据最多 5 次设置相同、逐个步骤测过 redis、zookeeper 和数据库锁的已完成压测（各步骤每秒订单数：中位数、最小-最大）判定；只有比较的范围不重叠时才下结论，至少需要 3 次；'],
  claimsNote2: ['judges them on the lock alone, 5 rounds: sections per second and Redis commands per acquisition, redsync on one master against three, and the database\'s own TPS.',
    '只测锁本身，5 轮：每秒完成的临界区数和每次加锁的 Redis 命令数，redsync 在 1 个与 3 个主节点上的对比，以及数据库自身的 TPS。'],
  claimHolds: ['holds', '成立'],
  claimDoesNotHold: ['does not hold', '不成立'],
  claimInconclusive: ['inconclusive', '无法判定'],
  claimNotMeasured: ['not measured', '未测'],
  claimDifferentAxes: ['different axes, not a contradiction', '不同维度的排序，并不矛盾'],
});

// Each verdict of the judge (internal/claims): its label and its cell's
// class. Why a verdict is inconclusive (the ranges overlap, or the shop's
// own ceiling) is in the figures' cell. Two rankings on different axes are
// no error: no colour.
const VERDICTS = {
  holds: ['claimHolds', 'ok'],
  'does not hold': ['claimDoesNotHold', 'bad'],
  inconclusive: ['claimInconclusive', 'warn'],
  'not measured': ['claimNotMeasured', ''],
  'different axes': ['claimDifferentAxes', ''],
};

// The claim each row was drawn from, to draw it again in the other language.
const drawn = new WeakMap();

/** claimRow is one claim's row in the language zh; data-verdict keeps the judge's word. */
export function claimRow(c, zh) {
  const [key, cls] = VERDICTS[c.verdict] || [null, ''];
  const say = (en, inZh) => (zh && inZh ? inZh : en);
  const tr = el('tr', { 'data-verdict': c.verdict },
    el('td', { class: 'small', text: say(c.seed, c.seed_zh) }),
    el('td', { text: say(c.claim, c.claim_zh) }),
    el('td', { class: 'small', text: say(c.measured, c.measured_zh) }),
    el('td', { class: `${cls} verdict-cell`.trim(), text: key ? label(key, zh) : c.verdict }));
  drawn.set(tr, c);
  return tr;
}

/** relabelClaims draws #t-claims' rows again in the language zh, from the claims they were drawn from. */
export function relabelClaims(zh) {
  for (const tr of document.querySelectorAll('#t-claims tbody tr')) {
    const c = drawn.get(tr);
    if (c) tr.replaceWith(claimRow(c, zh));
  }
}
