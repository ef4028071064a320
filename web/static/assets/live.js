// The live panel's rendering: writes a view model (live-model.js) into the
// always-visible band, and fills the replica and agent tables of the Run
// section. It decides nothing: the model says what is bad and in which words.
import { renderCombineTag } from './combine-view.js';
import { el, fmt, ms } from './dom.js';
import { addLabels, label } from './i18n.js';

const $ = (sel) => document.querySelector(sel);

// The guard layers' words in the band (live-model.js LAYERS keys).
addLabels({
  layer_opening: ['not open', '未开售'], layer_ticket: ['ticket', '购买凭证'], layer_rate_limit: ['rate limited', '被限流'],
  layer_idempotency: ['idempotency', '幂等拦截'], layer_sold_out_cache: ['sold-out cache', '售罄缓存'], layer_lock: ['lock', '锁'],
  layer_database: ['database', '数据库'], layer_store: ['store', '库存存储'],
});

// A run's status in the band's title, and the title itself in Chinese.
addLabels({ st_running: ['running', '运行中'], st_queued: ['queued', '排队中'], st_done: ['done', '已完成'], st_failed: ['failed', '失败'] });

/**
 * titleIn writes the band's title (live-model.js: "run 3 step 2/18: redis
 * (running)") in Chinese when zh: 压测 3 第 2/18 步：redis（运行中）; a title of
 * another form stays as it is.
 */
export function titleIn(title, zh) {
  const m = /^run (\d+)(?: step (\d+\/\d+))?: (\S+) \((\w+)\)$/.exec(title);
  if (!zh || !m) return title;
  return `压测 ${m[1]}${m[2] ? ` 第 ${m[2]} 步` : ''}：${m[3]}（${label(`st_${m[4]}`, true)}）`;
}

const COLLAPSED_KEY = 'seckill.bandCollapsed';
const LARGE_KEY = 'seckill.largeType';

/**
 * initBand wires the band's own controls: the collapse button (the band
 * shrinks to its one-line heading), the large-type switch (the whole page
 * scales for the back of a room) and the charts link (the charts sit at the
 * top of the Run section, under the band). Both switches are remembered in
 * localStorage. zh() says the language; onResize() follows a change of
 * type size. Returns relabel(zh).
 */
export function initBand({ zh, onResize = () => {} }) {
  const live = $('#live');
  const toggle = $('#band-toggle');
  const large = $('#large');
  const setCollapsed = (on) => {
    live.classList.toggle('collapsed', on);
    toggle.setAttribute('aria-expanded', String(!on));
    const key = on ? 'bandShow' : 'bandHide';
    toggle.dataset.lTitle = key;
    toggle.title = label(key, zh());
    const sr = toggle.querySelector('[data-l]');
    sr.dataset.l = key;
    sr.textContent = label(key, zh());
  };
  const setLarge = (on) => {
    document.documentElement.classList.toggle('large', on);
    large.setAttribute('aria-pressed', String(on));
  };
  setCollapsed(localStorage.getItem(COLLAPSED_KEY) === '1');
  setLarge(localStorage.getItem(LARGE_KEY) === '1');
  toggle.addEventListener('click', () => {
    const on = !live.classList.contains('collapsed');
    localStorage.setItem(COLLAPSED_KEY, on ? '1' : '0');
    setCollapsed(on);
  });
  large.addEventListener('click', () => {
    const on = !document.documentElement.classList.contains('large');
    localStorage.setItem(LARGE_KEY, on ? '1' : '0');
    setLarge(on);
    onResize();
  });
  // The charts open the Run section, whose top they are (the nav scrolls to it).
  $('#charts-link').addEventListener('click', () => {
    if (document.body.dataset.section !== 'run') location.hash = '#/run';
    else window.scrollTo(0, 0);
    $('#charts').focus({ preventScroll: true });
  });
  return {
    relabel() { setCollapsed(live.classList.contains('collapsed')); },
  };
}

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

/** renderLive writes view (see liveView) into the band; charts gets the point; zh: in Chinese. */
export function renderLive(view, charts, zh = false) {
  const title = titleIn(view.title, zh);
  if ($('#live-title').textContent !== title) $('#live-title').textContent = title;
  renderCombineTag($('#live-combine'), view.step.sale, zh);
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
  const head = view.verdict.head ?? view.verdict.text, why = view.verdict.why ?? '';
  if (verdict.textContent !== head) {
    verdict.textContent = head;
    verdict.title = view.verdict.text; // the whole of it
  }
  verdict.className = `verdict ${view.verdict.bad ? 'bad' : view.verdict.warn ? 'warn' : 'ok'}`;
  // The reason and its figures, on the row under the heading (not a live
  // region of its own: the verdict's change is announced).
  const reason = $('#verdict-why');
  if (reason.textContent !== why) reason.textContent = why;
  reason.hidden = !why;
  reason.className = `verdict-why ${view.verdict.bad ? 'bad' : view.verdict.warn ? 'warn' : 'ok'}`;
  renderGuards(view, zh);
  renderQueue(view, zh);
  charts.reset(view.key, view.step.strategy);
  if (view.point) charts.push(view.sample.t, view.point);
}

/** renderGuards writes the opening countdown, the shop link and the answers per layer. */
function renderGuards(view, zh) {
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
    const word = zh ? label(`layer_${l.layer}`, true) : l.word;
    return el('li', { 'data-layer': l.layer }, el('span', { class: 'k', text: word }), ' ', el('strong', { text: l.text }), bar);
  }));
}

// The tables' states, in both languages.
addLabels({
  stAlive: ['alive', '在线'], stGone: ['gone {s} s ago', '{s} 秒前离线'], stUnknown: ['unknown', '未知'],
  stDone: ['done', '已完成'], stUnclaimed: ['unclaimed', '未认领'], share: ['share {n}', '第 {n} 份'],
});

/** aliveOf says whether discovery sees id: {key, s} (s: seconds since it was last seen). */
function aliveOf(replicas, id) {
  const m = replicas.find((r) => r.id === id);
  if (!m) return { key: 'stUnknown' };
  return m.alive ? { key: 'stAlive' } : { key: 'stGone', s: Math.round(m.age_ms / 1000) };
}

/** stateCell writes a state ({key, s}) in words, green when alive or done, red when gone. */
function stateCell({ key, s }, zh) {
  const text = label(key, zh).replace('{s}', String(s));
  return el('td', { class: key === 'stAlive' || key === 'stDone' ? 'ok' : key === 'stGone' ? 'bad' : '', text });
}

/** renderTables fills the per-replica and per-agent tables of step; zh: in Chinese. */
export function renderTables(step, replicas, zh = false) {
  const rb = $('#t-replicas tbody');
  rb.replaceChildren();
  const byId = new Map((step?.server?.replicas || []).map((r) => [r.replica_id, r]));
  const shops = replicas.filter((m) => m.kind === 'shop');
  for (const id of new Set([...shops.map((m) => m.id), ...byId.keys()])) {
    const r = byId.get(id) || {};
    rb.append(el('tr', {}, el('th', { scope: 'row', text: id }), el('td', { text: fmt(r.requests) }),
      el('td', { text: fmt(r.orders) }), el('td', { text: fmt(r.errors) }), el('td', { text: r.p99_ms === undefined ? '–' : ms(r.p99_ms) }),
      stateCell(aliveOf(replicas, id), zh)));
  }
  const ab = $('#t-agents tbody');
  ab.replaceChildren();
  const agents = step?.agents || [];
  const listed = new Set(agents.map((a) => a.agent_id));
  for (const a of agents) {
    const st = a.done ? { key: 'stDone' } : a.agent_id ? aliveOf(replicas, a.agent_id) : { key: 'stUnclaimed' };
    ab.append(el('tr', {}, el('th', { scope: 'row', text: `${a.agent_id || '–'} (${label('share', zh).replace('{n}', a.share + 1)})` }),
      el('td', { text: fmt(a.requests) }), el('td', { text: fmt(a.orders) }), el('td', { text: fmt(a.errors) }),
      el('td', { text: ms(a.p99_ms) }), stateCell(st, zh)));
  }
  for (const m of replicas.filter((x) => x.kind === 'agent' && !listed.has(x.id))) {
    ab.append(el('tr', {}, el('th', { scope: 'row', text: m.id }), el('td', { text: '–' }), el('td', { text: '–' }),
      el('td', { text: '–' }), el('td', { text: '–' }), stateCell(aliveOf(replicas, m.id), zh)));
  }
}
