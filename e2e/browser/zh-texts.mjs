// What a Chinese-speaking class reads on a section, checked in the browser:
// the visible texts with no Chinese in them (latinTexts), the English
// sentences among them (englishSentences: at most a few may stay, e.g. an
// error message quoted as the agent wrote it) and the texts cut off by
// their box (cutOff). shell.test (fixtures) and dashboard.test (a real
// demo, after runs and a lesson) both use them.

// Kept in Latin letters by the bilingual review, beside every strategy
// name and the replicas' ids: Redis, ZooKeeper, RedLock, etcd, Lua, TTL,
// API, SSE, JavaScript, the percentiles p50/p95/p99, ms, and the language
// switch's own "EN"; numbers with their unit (3.011 s, 0.1x) and
// addresses (http://…) too.
export const LATIN_OK = ['ZooKeeper', 'RedLock', 'Redis', 'redis', 'etcd', 'Lua', 'TTL', 'API', 'SSE', 'JavaScript', 'p50', 'p95', 'p99', 'ms', 'EN', 'x'];

/**
 * visibleTexts returns, for each visible text node of the page outside
 * code, what is left once the allowed words and names are taken out:
 * [{where, text, rest}] (where: the nearest id). skip: selectors whose
 * texts are left out.
 */
function visibleTexts(page, names, skip = []) {
  return page.evaluate(({ LATIN_OK, names, skip }) => {
    const words = [...names, ...LATIN_OK].sort((a, b) => b.length - a.length)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const allowed = new RegExp(`(${words.join('|')}|https?://\\S+|\\b(?:shop|replica|agent|agent-vm)-[\\w-]+|\\d+(?:\\.\\d+)?\\s?(?:x|s|ms)\\b)`, 'g');
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const text = n.textContent.trim();
      const host = n.parentElement;
      if (!text || !host || host.closest('code, script, style, noscript, .sr-only, [hidden]')) continue;
      if (skip.some((sel) => host.closest(sel))) continue;
      if (!host.getClientRects().length || !host.checkVisibility({ visibilityProperty: true })) continue;
      out.push({ where: host.closest('[id]')?.id || host.tagName, text, rest: text.replace(allowed, ' ') });
    }
    return out;
  }, { LATIN_OK, names, skip });
}

const CJK = /[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]/;

/** latinTexts lists the visible texts that have no Chinese and, the allowed words taken out, still have a letter. */
export async function latinTexts(page, names, skip = []) {
  return (await visibleTexts(page, names, skip))
    .filter((t) => !CJK.test(t.text) && /[A-Za-z]/.test(t.rest))
    .map((t) => `${t.where}: "${t.text.slice(0, 80)}"`);
}

/**
 * englishSentences lists the visible texts that hold an English sentence:
 * three or more plain English words in a row once the technical names are
 * taken out ("the lock is lost", not "redis-lua-stock" nor "SET NX PX").
 */
export async function englishSentences(page, names, skip = []) {
  const prose = /\b[A-Za-z][a-z']+(?:[ ,]+[A-Za-z][a-z']+){2,}/;
  return (await visibleTexts(page, names, skip))
    .filter((t) => prose.test(t.rest))
    .map((t) => `${t.where}: "${t.text.slice(0, 100)}"`);
}

/**
 * cutOff lists the visible elements whose own text is cut by their box:
 * wider than the box that hides the rest (overflow hidden or an ellipsis).
 * A box that scrolls, a screen reader's text (.sr-only) and a canvas are
 * not cut.
 */
export function cutOff(page) {
  return page.evaluate(() => {
    const out = [];
    for (const e of document.querySelectorAll('body *')) {
      if (e.closest('.sr-only, canvas, svg, [hidden]') || !e.checkVisibility({ visibilityProperty: true })) continue;
      if (!e.textContent.trim()) continue;
      const cs = getComputedStyle(e);
      if (['auto', 'scroll'].includes(cs.overflowX)) continue;
      if ((cs.overflowX === 'visible' && cs.textOverflow !== 'ellipsis') || e.scrollWidth <= e.clientWidth + 1) continue;
      out.push(`${e.id || e.closest('[id]')?.id || e.tagName}: "${e.textContent.trim().slice(0, 60)}"`);
    }
    return out;
  });
}
