// The Herd panel of the Run section (#herd): the band's sale's time to
// sell out, its first second after the opening (answer times of the
// orders and of the sold-out answers apart), the lock's holds and who
// answered, in type large enough for the back of a room; beside it, in a
// narrower column, the previous herd it showed and how much faster or
// slower this one sold out. It reads GET /api/sales/:id/herd once a second
// while the Run section shows a sale (the same figures `loadtest herd`
// prints); herd-model.js turns them into texts and bars. The previous herd
// is kept in sessionStorage, so that a reload keeps both on screen.
import { getJSON } from './api.js';
import { el } from './dom.js';
import { label } from './i18n.js';
import { herdModel, previousModel, remember, fillParts, segments } from './herd-model.js';

const $ = (sel) => document.querySelector(sel);
const EVERY_MS = 1000;
const IDLE_MS = 10_000; // a herd that stopped changing (the sale is over) is read less and less often, up to this
const MEMORY = 'seckill.herd'; // sessionStorage: {current, previous} herd views (herd-model.js remember)

/** figure is one big number: its label, its value and a line under it. */
function figure(key, value, zh, ...sub) {
  return el('div', { class: 'herd-fig' }, el('p', { class: 'herd-k', 'data-l': key, text: label(key, zh) }),
    el('p', { class: 'herd-v', text: value }), ...sub);
}

/**
 * filled is a label template filled in: its values in <strong>, the words
 * between as text; a line of several runs ("20 holds · 1.0 units per
 * hold") keeps each run whole (span.herd-nw) and breaks between them.
 */
function filled(tag, attrs, key, values, zh) {
  const cut = segments(fillParts(label(key, zh), values));
  const runs = cut.map((run) => el('span', cut.length > 1 ? { class: 'herd-nw' } : {}, ...withUnit(run)));
  return el(tag, attrs, ...runs.flatMap((r, i) => (i ? [' · ', r] : [r])));
}

/** withUnit draws parts, each value in <strong> kept on one line with the word after it ("4.2× faster", "4.2 倍"). */
function withUnit(parts) {
  const out = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!p.value) { out.push(p.text); continue; }
    const next = parts[i + 1] && !parts[i + 1].value ? /^(\s*\S{1,8})(.*)$/s.exec(parts[i + 1].text) : null;
    if (!next) { out.push(el('strong', { text: p.text })); continue; }
    out.push(el('span', { class: 'herd-nw' }, el('strong', { text: p.text }), next[1]));
    if (next[2]) out.push(next[2]);
    i++;
  }
  return out;
}

/**
 * lockLines are the lock's holds (lockFigure) as a line of class cls
 * ("20 holds · 1.0 units per hold": its numbers large, its words smaller,
 * class herd-line) and the line under it.
 */
function lockLines(lock, zh, cls) {
  if (!lock) return [el('p', { class: cls, text: '–' })];
  const words = Object.keys(lock.values).length ? ' herd-line' : '';
  const out = [filled('p', { class: cls + words }, lock.key, lock.values, zh)];
  if (lock.why) out.push(filled('p', { class: 'herd-sub' }, lock.why, lock.values, zh));
  return out;
}

/** saleLine is "#7 · redis · combining on" (withCombine false: without the combining), each bit kept whole. */
function saleLine(m, zh, withCombine = true) {
  const bits = [`#${m.saleId}`];
  if (m.strategy) bits.push(m.strategy);
  if (m.combine && withCombine) bits.push(label(m.combine, zh));
  return bits.flatMap((b, i) => [...(i ? [' · '] : []), el('span', { class: 'herd-nw', text: b })]);
}

/** latencyFigure is the first second's answer time, orders and sold-out answers apart, and where it is measured. */
function latencyFigure(m, zh) {
  const row = (key, value) => el('div', { class: 'herd-lat-row' }, el('dt', { 'data-l': key, text: label(key, zh) }),
    el('dd', {}, ...value.split(' / ').flatMap((v, i) => [...(i ? [' / '] : []), el('span', { class: 'herd-nw', text: v })])));
  return el('div', { class: 'herd-fig herd-lat' }, el('p', { class: 'herd-k', 'data-l': 'herdLatency', text: label('herdLatency', zh) }),
    el('dl', { class: 'herd-lat-rows' }, row('herdLatOrders', m.first.orderTime), row('herdLatSoldOut', m.first.soldOutTime)),
    el('p', { class: 'herd-note', 'data-l': 'herdLatNote', text: label('herdLatNote', zh) }));
}

/** previousColumn is the previous herd's key figures and the ratio of the sell-out times. */
function previousColumn(p, zh) {
  const fig = (key, ...value) => el('div', { class: 'herd-pfig' }, el('dt', { 'data-l': key, text: label(key, zh) }), el('dd', {}, ...value));
  const ratio = p.ratio
    ? filled('p', { class: 'herd-ratio' }, p.ratio.key, p.ratio, zh)
    : el('p', { class: 'herd-note', 'data-l': 'herdRatioWait', text: label('herdRatioWait', zh) });
  return el('aside', { class: 'herd-prev', 'aria-labelledby': 'herd-prev-h' },
    el('h4', { id: 'herd-prev-h', 'data-l': 'herdPrev', text: label('herdPrev', zh) }),
    el('p', { class: 'herd-prev-id' }, `${label('herdSale', zh)} `, ...saleLine(p, zh, false)),
    ...(p.combine ? [el('p', { class: 'herd-sub', 'data-l': p.combine, text: label(p.combine, zh) })] : []),
    el('dl', {},
      fig('herdSellOut', el('span', { class: 'herd-pv', text: p.sellOut || label('herdNotSoldOut', zh) })),
      fig('herdHolds', ...lockLines(p.lock, zh, 'herd-pv'))),
    ratio);
}

/** draw writes model m (herdModel) and the previous herd p (previousModel, or null) into the panel. */
function draw(box, m, p, zh) {
  const head = el('h3', { id: 'herd-h' }, el('span', { 'data-l': 'herdTitle', text: label('herdTitle', zh) }));
  if (!m) {
    box.replaceChildren(head, el('p', { class: 'herd-none', 'data-l': 'herdNone', text: label('herdNone', zh) }));
    return;
  }
  head.append(' ', el('span', { class: 'sub' }, ...saleLine(m, zh)));
  const sellOut = m.sellOut
    ? figure('herdSellOut', m.sellOut, zh, el('p', { class: 'herd-sub' },
      el('span', { 'data-l': 'herdFromOpening', text: label('herdFromOpening', zh) }), '; ',
      el('span', { 'data-l': 'herdFromFirst', text: label('herdFromFirst', zh) }), `: ${m.fromFirst}`))
    : figure('herdSellOut', label('herdNotSoldOut', zh), zh);
  const first = figure('herdFirstSecond', m.first.answers, zh, el('p', { class: 'herd-sub' },
    el('span', { 'data-l': 'herdAnswers', text: label('herdAnswers', zh) }), ': ',
    el('strong', { text: m.first.orders }), ' ', el('span', { 'data-l': 'herdOrders', text: label('herdOrders', zh) }), ' · ',
    el('strong', { text: m.first.soldOut }), ' ', el('span', { 'data-l': 'herdSoldOutAnswers', text: label('herdSoldOutAnswers', zh) })));
  const holds = el('div', { class: 'herd-fig herd-holds' }, el('p', { class: 'herd-k', 'data-l': 'herdHolds', text: label('herdHolds', zh) }),
    ...lockLines(m.lock, zh, 'herd-v'));
  const bar = (l) => {
    const b = el('span', { class: `herd-bar l-${l.layer}` });
    b.style.width = `${l.width}%`; // CSSOM: the CSP allows it, unlike a style attribute
    return b;
  };
  const bars = m.layers.length
    ? el('ul', { class: 'herd-bars', 'aria-label': label('herdLayers', zh) }, ...m.layers.map((l) => el('li', { 'data-layer': l.layer },
      el('span', { class: 'herd-name', ...(l.key ? { 'data-l': l.key } : {}), text: l.key ? label(l.key, zh) : l.layer }),
      el('span', { class: 'herd-track' }, bar(l)),
      el('span', { class: 'herd-n', text: l.text }))))
    : el('p', { class: 'herd-none', 'data-l': 'herdLayersNone', text: label('herdLayersNone', zh) });
  const now = el('div', { class: 'herd-now' }, el('div', { class: 'herd-figs' }, sellOut, first, latencyFigure(m, zh), holds),
    el('h4', { 'data-l': 'herdLayers', text: label('herdLayers', zh) }), bars);
  box.replaceChildren(head, el('div', { class: p ? 'herd-cols with-prev' : 'herd-cols' }, now, ...(p ? [previousColumn(p, zh)] : [])));
}

/** The panel's memory: the herd views drawn last (this tab only; storage off keeps it in memory). */
function loadMemory() {
  try { return JSON.parse(sessionStorage.getItem(MEMORY) || 'null') || {}; } catch { return {}; }
}
function saveMemory(m) {
  try { sessionStorage.setItem(MEMORY, JSON.stringify(m)); } catch { /* not kept across a reload */ }
}

/**
 * initHerd follows liveSale() (the sale the band shows) while the Run
 * section is in view. Returns relabel(), for a change of language.
 */
export function initHerd({ liveSale, zh }) {
  const box = $('#herd');
  let shown = null; // the last view drawn
  let memory = loadMemory(); // {current, previous}: the previous herd survives a reload
  let delay = EVERY_MS; // between reads of the same sale
  let readAt = 0; // when the last read was sent
  const render = () => draw(box, herdModel(shown), shown ? previousModel(memory.previous, shown) : null, zh());
  // Looks every second; reads at once when the band moves to another sale,
  // else after delay, which grows while the figures stay the same.
  const tick = async () => {
    const sale = liveSale();
    const moved = sale?.id && shown?.sale_id !== sale.id;
    if (!document.hidden && !$('#run').hidden && sale?.id && (moved || Date.now() - readAt >= delay)) {
      readAt = Date.now();
      try {
        const v = await getJSON(`/api/sales/${sale.id}/herd`);
        const changed = JSON.stringify(v) !== JSON.stringify(shown);
        if (changed) {
          shown = v;
          memory = remember(memory, v);
          saveMemory(memory);
          render();
        }
        delay = changed ? EVERY_MS : Math.min(delay * 2, IDLE_MS);
      } catch { /* the stream says when the replica is gone; the panel keeps its last figures */ }
    }
    setTimeout(tick, EVERY_MS);
  };
  render();
  tick();
  return { relabel: render };
}
