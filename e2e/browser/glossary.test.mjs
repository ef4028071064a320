// One translation per term: every label of the dashboard (an
// `key: ['English', '中文']` pair or an `{ en, zh }` object in
// web/static/assets/*.js) that uses a term of docs/glossary.md in English
// uses its Chinese in Chinese. Pure file reading, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ASSETS = path.join(ROOT, 'web/static/assets');

/** glossary is docs/glossary.md's table: [{en: [forms], zh: [forms]}]. */
function glossary() {
  const rows = readFileSync(path.join(ROOT, 'docs/glossary.md'), 'utf8').split('\n')
    .filter((l) => /^\| [^-|]/.test(l) && !l.startsWith('| English'));
  return rows.map((l) => {
    const [en, zh] = l.split('|').slice(1, 3).map((c) => c.trim().split(' / ').map((s) => s.trim()));
    return { en, zh };
  });
}

/** labels are the dashboard's texts in both languages, with where each is. */
function labels() {
  const out = [];
  const q = "'((?:[^'\\\\]|\\\\.)*)'";
  for (const f of readdirSync(ASSETS).filter((f) => f.endsWith('.js'))) {
    const src = readFileSync(path.join(ASSETS, f), 'utf8');
    for (const m of src.matchAll(new RegExp(`(\\w+): \\[${q}, ${q}\\]`, 'g'))) if (!m[2].startsWith('#')) out.push({ where: `${f} ${m[1]}`, en: m[2], zh: m[3] });
    for (const m of src.matchAll(new RegExp(`(\\w+): \\{ en: ${q}, zh: ${q}`, 'g'))) out.push({ where: `${f} ${m[1]}`, en: m[2], zh: m[3] });
  }
  return out;
}

test('the glossary is a table of terms, each with its Chinese', () => {
  const g = glossary();
  assert.ok(g.length >= 20, `${g.length} terms`);
  for (const t of g) assert.ok(t.en[0] && t.zh[0] && /[\u4e00-\u9fff]/.test(t.zh.join('')), JSON.stringify(t));
});

test('every label that uses a term in English uses its Chinese', () => {
  const all = labels();
  assert.ok(all.length > 300, `only ${all.length} labels found: the pattern no longer matches the sources`);
  const wrong = [];
  for (const t of glossary()) {
    const re = new RegExp(`(?<![/\\w])(${t.en.map((e) => e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, t.en[0] === t.en[0].toUpperCase() && /[A-Z]{3}/.test(t.en[0]) ? '' : 'i');
    for (const l of all) {
      if (re.test(l.en) && !t.zh.some((z) => l.zh.includes(z))) wrong.push(`${l.where}: "${l.en}" is "${l.zh}", without ${t.zh.join(' or ')}`);
    }
  }
  assert.deepEqual(wrong, []);
});
