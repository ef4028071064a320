// The live panel's rendering: writes a view model (live-model.js) into the
// always-visible band, and fills the replica and agent tables of the Run
// section. It decides nothing: the model says what is bad and in which words.
import { el, fmt, ms } from './dom.js';
import { label } from './i18n.js';

const $ = (sel) => document.querySelector(sel);

// Big number -> [element id, id of its box when a value above 0 is bad].
const BIG = {
  stock: ['#n-stock'], sold: ['#n-sold'], oversold: ['#n-oversold', '#b-oversold'], lost: ['#n-lost', '#b-lost'],
  viol: ['#n-viol', '#b-viol'], fenced: ['#n-fenced'], rps: ['#n-rps'], latency: ['#n-latency'],
};

/** renderQueue writes the queue's boxes (view.queue): rebuilt when the set of boxes changes, else only their texts. */
function renderQueue(view, zh) {
  const band = $('#queue-band');
  band.hidden = view.queue.length === 0;
  const sig = view.queue.map((b) => b.key).join() + (zh ? ':zh' : '');
  if (band.dataset.sig !== sig) {
    band.dataset.sig = sig;
    band.replaceChildren(...view.queue.map((b) => el('div', { 'data-box': b.key },
      el('dt', { 'data-l': b.key, text: label(b.key, zh) }), el('dd', { id: `q-${b.key}` }))));
  }
  for (const b of view.queue) {
    const dd = band.querySelector(`#q-${b.key}`);
    if (dd.textContent !== b.text) dd.textContent = b.text;
    dd.classList.toggle('long', b.text.length > 12);
    dd.parentElement.classList.toggle('bad', b.bad);
  }
}

/** renderLive writes view (see liveView) into the band; charts gets the point; zh: Chinese labels too. */
export function renderLive(view, charts, zh = false) {
  $('#live-title').textContent = view.title;
  const heading = $('#live-h [data-l]');
  if (heading && view.heading && heading.dataset.l !== view.heading) {
    heading.dataset.l = view.heading;
    heading.textContent = label(view.heading, zh);
  }
  Object.assign($('#live').dataset, view.data);
  for (const [name, [id, box]] of Object.entries(BIG)) {
    const n = view.numbers[name];
    $(id).textContent = n.text;
    if (n.word) $(id).append(el('span', { class: 'word', text: ` ${n.word}` }));
    if (box) {
      $(box).classList.toggle('bad', n.bad);
      $(box).classList.toggle('warn', !!n.warn);
    }
  }
  // Only on a change: #verdict is a live region, and a screen reader would
  // otherwise repeat it every second.
  const verdict = $('#verdict');
  if (verdict.textContent !== view.verdict.text) verdict.textContent = view.verdict.text;
  verdict.className = `verdict ${view.verdict.bad ? 'bad' : view.verdict.warn ? 'warn' : 'ok'}`;
  renderGuards(view);
  renderQueue(view, zh);
  charts.reset(view.key, view.step.strategy);
  if (view.point) charts.push(view.sample.t, view.point);
}

/** renderGuards writes the opening countdown, the shop link and the answers per layer. */
function renderGuards(view) {
  const opening = $('#live-opening');
  opening.hidden = !view.opening;
  // Not a live region: a countdown read out every second would drown the page.
  if (view.opening && opening.textContent !== view.opening.text) opening.textContent = view.opening.text;
  const link = $('#shop-link');
  link.hidden = !view.shopUrl;
  if (view.shopUrl && link.getAttribute('href') !== view.shopUrl) {
    link.href = view.shopUrl;
    link.setAttribute('aria-label', `open the shop of sale ${view.saleId}`);
  }
  const list = $('#layers');
  list.hidden = view.layers.length === 0;
  list.replaceChildren(...view.layers.map((l) => {
    const bar = el('span', { class: `bar l-${l.layer}` });
    bar.style.width = `${(0.15 + 3.85 * l.share).toFixed(2)}rem`; // CSSOM: the CSP allows it, unlike a style attribute
    return el('li', { 'data-layer': l.layer }, el('span', { class: 'k', text: l.word }), ' ', el('strong', { text: l.text }), bar);
  }));
}

/** aliveOf says whether discovery sees id, in words. */
function aliveOf(replicas, id) {
  const m = replicas.find((r) => r.id === id);
  if (!m) return 'unknown';
  return m.alive ? 'alive' : `gone ${Math.round(m.age_ms / 1000)} s ago`;
}

function stateCell(text) {
  return el('td', { class: text === 'alive' || text === 'done' ? 'ok' : text.startsWith('gone') ? 'bad' : '', text });
}

/** renderTables fills the per-replica and per-agent tables of step. */
export function renderTables(step, replicas) {
  const rb = $('#t-replicas tbody');
  rb.replaceChildren();
  const byId = new Map((step?.server?.replicas || []).map((r) => [r.replica_id, r]));
  const shops = replicas.filter((m) => m.kind === 'shop');
  for (const id of new Set([...shops.map((m) => m.id), ...byId.keys()])) {
    const r = byId.get(id) || {};
    rb.append(el('tr', {}, el('th', { scope: 'row', text: id }), el('td', { text: fmt(r.requests) }),
      el('td', { text: fmt(r.orders) }), el('td', { text: fmt(r.errors) }), el('td', { text: r.p99_ms === undefined ? '–' : ms(r.p99_ms) }),
      stateCell(aliveOf(replicas, id))));
  }
  const ab = $('#t-agents tbody');
  ab.replaceChildren();
  const agents = step?.agents || [];
  const listed = new Set(agents.map((a) => a.agent_id));
  for (const a of agents) {
    const st = a.done ? 'done' : a.agent_id ? aliveOf(replicas, a.agent_id) : 'unclaimed';
    ab.append(el('tr', {}, el('th', { scope: 'row', text: `${a.agent_id || '–'} (share ${a.share + 1})` }),
      el('td', { text: fmt(a.requests) }), el('td', { text: fmt(a.orders) }), el('td', { text: fmt(a.errors) }),
      el('td', { text: ms(a.p99_ms) }), stateCell(st)));
  }
  for (const m of replicas.filter((x) => x.kind === 'agent' && !listed.has(x.id))) {
    ab.append(el('tr', {}, el('th', { scope: 'row', text: m.id }), el('td', { text: '–' }), el('td', { text: '–' }),
      el('td', { text: '–' }), el('td', { text: '–' }), stateCell(aliveOf(replicas, m.id))));
  }
}
