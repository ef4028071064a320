// The Herd panel of the Run section (#herd): the band's sale's time to
// sell out, its first second after the opening and who answered, in type
// large enough for the back of a room. It reads GET /api/sales/:id/herd
// once a second while the Run section shows a sale (the same figures
// `loadtest herd` prints); herd-model.js turns them into texts and bars.
import { getJSON } from './api.js';
import { el } from './dom.js';
import { label } from './i18n.js';
import { herdModel } from './herd-model.js';

const $ = (sel) => document.querySelector(sel);
const EVERY_MS = 1000;
const IDLE_MS = 10_000; // a herd that stopped changing (the sale is over) is read less and less often, up to this

/** figure is one big number: its label, its value and a line under it. */
function figure(key, value, zh, ...sub) {
  return el('div', { class: 'herd-fig' }, el('p', { class: 'herd-k', 'data-l': key, text: label(key, zh) }),
    el('p', { class: 'herd-v', text: value }), ...sub);
}

/** draw writes model m (herdModel) into the panel. */
function draw(box, m, zh) {
  const head = el('h3', { id: 'herd-h' }, el('span', { 'data-l': 'herdTitle', text: label('herdTitle', zh) }));
  if (!m) {
    box.replaceChildren(head, el('p', { class: 'herd-none', 'data-l': 'herdNone', text: label('herdNone', zh) }));
    return;
  }
  head.append(' ', el('span', { class: 'sub', text: `#${m.saleId}` }));
  const sellOut = m.sellOut
    ? figure('herdSellOut', m.sellOut, zh, el('p', { class: 'herd-sub' },
      el('span', { 'data-l': 'herdFromOpening', text: label('herdFromOpening', zh) }), '; ',
      el('span', { 'data-l': 'herdFromFirst', text: label('herdFromFirst', zh) }), `: ${m.fromFirst}`))
    : figure('herdSellOut', label('herdNotSoldOut', zh), zh);
  const first = figure('herdFirstSecond', m.first.answers, zh, el('p', { class: 'herd-sub' },
    el('span', { 'data-l': 'herdAnswers', text: label('herdAnswers', zh) }), ': ',
    el('strong', { text: m.first.orders }), ' ', el('span', { 'data-l': 'herdOrders', text: label('herdOrders', zh) }), ' · ',
    el('strong', { text: m.first.soldOut }), ' ', el('span', { 'data-l': 'herdSoldOutAnswers', text: label('herdSoldOutAnswers', zh) })));
  const latency = figure('herdLatency', m.first.latency, zh);
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
  box.replaceChildren(head, el('div', { class: 'herd-figs' }, sellOut, first, latency),
    el('h4', { 'data-l': 'herdLayers', text: label('herdLayers', zh) }), bars);
}

/**
 * initHerd follows liveSale() (the sale the band shows) while the Run
 * section is in view. Returns relabel(), for a change of language.
 */
export function initHerd({ liveSale, zh }) {
  const box = $('#herd');
  let shown = null; // the last view drawn
  let delay = EVERY_MS; // between reads of the same sale
  let readAt = 0; // when the last read was sent
  const render = () => draw(box, herdModel(shown), zh());
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
        if (changed) { shown = v; render(); }
        delay = changed ? EVERY_MS : Math.min(delay * 2, IDLE_MS);
      } catch { /* the stream says when the replica is gone; the panel keeps its last figures */ }
    }
    setTimeout(tick, EVERY_MS);
  };
  render();
  tick();
  return { relabel: render };
}
