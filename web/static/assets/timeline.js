// The Timeline section: a sale's critical sections drawn from
// GET /api/sales/{id}/timeline (timeline-model.js decides, timeline-draw.js
// paints). Live while a run goes (the running step's sale, polled every
// second, the window following the newest second), any finished sale from
// the picker, opened on the decisive moment. Zoom with the wheel or the
// buttons, pan by dragging or with the arrow keys, hover for a section's
// details, replay at 0.1x, 0.25x or 1x with a scrubber (the speed kept
// across sales and reloads, in localStorage), the narration
// beside it, and the violation count's pairs a click away. A summarised
// sale (past the API's bound) shows its buckets; zoomed in far enough, the
// window is fetched again (`?from=&to=`, debounced) and its real sections
// are drawn while the view stays inside it. "Compare with" draws a second
// sale under the first at the same milliseconds per pixel
// (#/timeline?sale=12&vs=13; timeline-compare.js decides and words it).
import { ApiError, getJSON } from './api.js';
import { batchRows, combineFact, fill } from './combine-view.js';
import { el } from './dom.js';
import { historyView } from './history-model.js';
import { applyLabels, label } from './i18n.js';
import {
  compareCaption, durationText, saleDuration, saleHeading, sharedViews, verdictWord,
} from './timeline-compare.js';
import { saleInHash, vsInHash } from './nav.js';
import { COLOURS, LAYOUT, drawTimeline, planTimeline } from './timeline-draw.js';
import {
  OUTCOMES, Replay, SPEEDS, buildTimeline, centreOn, clampView, covers, currentLine, detailModel, detailWindow,
  narrationText, ordersLabel, pairWindow, panBy, parseSpeed, relTime, sectionDetail, sectionEnd, stockAt, visibleSections, violationPairs, zoomAt,
} from './timeline-model.js';

const $ = (sel) => document.querySelector(sel);

/** SPEED_KEY keeps the replay speed picked, across sales and reloads. */
const SPEED_KEY = 'seckill.replaySpeed';

function storedSpeed() {
  try { return parseSpeed(localStorage.getItem(SPEED_KEY)); } catch { return 1; } // storage off
}

function storeSpeed(v) {
  try { localStorage.setItem(SPEED_KEY, String(v)); } catch { /* storage off: this page alone */ }
}

// The comparison a link asks for (#/timeline?sale=12&vs=13), read when the
// module loads and on each change of the hash before the nav rewrites the
// hash to its canonical form (this listener is the first one: the module
// runs before app.js's body).
const bootVs = vsInHash(location.hash);
let onHash = null;
window.addEventListener('hashchange', (e) => onHash?.(new URL(e.newURL).hash));

/**
 * initTimeline wires the section. zh() says whether Chinese labels are on;
 * liveStep() is the step the live band shows ({status, sale}) or null;
 * onSale(id) is told the sale the section shows, each time the section
 * shows or opens one (the band then tells about that sale); onCompare(sale,
 * vs) the comparison to keep in the URL (0, 0: none).
 */
export function initTimeline({ zh, liveStep, onSale = () => {}, onCompare = () => {} }) {
  const canvas = $('#tl-canvas');
  const ctx = canvas.getContext('2d');
  const tip = $('#tl-tip');
  const st = {
    saleId: 0, model: null, view: null, replay: null, hover: null, following: false, shownFor: 0,
    dirty: false, lastFrame: 0, liveSale: 0, historyFor: 0, speed: storedSpeed(),
    // A summarised sale's zoomed-in window: {window, model} fetched, the
    // view it was asked for (a debounce key) and its timer.
    detail: null, detailKey: '', detailTimer: 0,
    // The sale compared with ({id, model}) or null; vsMsg: why a
    // comparison asked for was not made ({key, values}) or null; sales:
    // GET /api/sales by id, and asked: GET /api/sales/{id} of a sale older
    // than the list (null while asked): their verdicts, for the headings.
    vs: null, vsMsg: null, sales: new Map(), asked: new Map(),
  };
  const canvasVs = $('#tl-canvas-vs');
  const ctxVs = canvasVs.getContext('2d');
  const bounds = () => ({ from: st.model.from, to: st.model.to });
  const visible = () => !$('#timeline').hidden;

  // ---- drawing ------------------------------------------------------------

  function width() { return Math.max(canvas.parentElement.clientWidth, 600); }

  /** shown is the model drawn: the fetched window's while the view is inside it, else the whole sale's. */
  const shown = () => (st.detail && covers(st.detail.window, st.view) ? st.detail.model : st.model);

  /**
   * drawOn draws model in window view on canvas cv (context c) at the
   * section's width, sized for the device's pixels, and tells the tests
   * what it drew (its dataset). opts go to drawTimeline.
   */
  function drawOn(cv, c, m, view, opts = {}) {
    // The canvas's type follows the page's (Large type scales the rem).
    const scale = parseFloat(getComputedStyle(document.documentElement).fontSize) / 16 || 1;
    const plan = planTimeline(c, width(), m, view, { zh: zh(), scale, compact: !!opts.compact });
    const w = width(), h = plan.height, dpr = window.devicePixelRatio || 1;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) {
      cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
      cv.style.width = `${w}px`; cv.style.height = `${h}px`;
    }
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    const { labels, boxes } = drawTimeline(c, w, m, view, { zh: zh(), plan, ...opts });
    cv.dataset.drawn = String(Number(cv.dataset.drawn || 0) + 1);
    cv.dataset.labels = labels.join(' '); // what the holds say, for the tests to read
    cv.dataset.boxes = JSON.stringify(boxes); // the fault names' and stock figures' boxes, the font sizes, the scale
    return boxes;
  }

  function paint() {
    st.dirty = false;
    if (!st.model) return;
    if (comparing()) { paintCompare(); return; }
    wantDetail();
    const m = shown();
    const replaying = st.replay && (st.replay.playing || st.replay.t > st.replay.from);
    // During a replay the canvas is captioned with the narration line of the moment.
    const line = replaying ? st.model.narration[currentLine(st.model.narration, st.replay.t)] : null;
    const caption = line ? narrationText(line, zh()).main : '';
    const witness = new Set(st.witnessOrders || []);
    drawOn(canvas, ctx, m, st.view, { cursor: replaying ? st.replay.t : null, hover: st.hover, caption, witness });
    canvas.dataset.detail = m === st.model ? '' : `${m.data.from}-${m.data.to}`;
    $('#tl-window').textContent = `${relTime(st.view.from, st.model.from)} – ${relTime(st.view.to, st.model.from)}`;
    if (st.replay) {
      $('#tl-scrub').value = String(Math.round(st.replay.fraction() * 1000));
      $('#tl-now').textContent = relTime(st.replay.t, st.model.from);
    }
    markNarration(replaying ? st.replay.t : (st.view.from + st.view.to) / 2);
  }

  // ---- two sales on one time scale ---------------------------------------------

  const comparing = () => !!(st.vs?.model && st.model);

  /**
   * paintCompare draws the sale and the one compared with, one canvas each,
   * at one scale (sharedViews): each from its own start, both windows as
   * long as the longer sale. The shorter sale's end is marked.
   */
  function paintCompare() {
    const a = st.model, b = st.vs.model;
    const v = sharedViews(a, b);
    const da = saleDuration(a), db = saleDuration(b);
    const end = (d, other) => (d < other * 0.95 ? { at: 0, text: fill('tlVsDone', zh(), { d: durationText(d, zh()) }) } : null);
    const endA = end(da, db), endB = end(db, da);
    if (endA) endA.at = a.to;
    if (endB) endB.at = b.to;
    const witness = new Set(st.witnessOrders || []);
    // The stock bands lower, so that both drawings fit a projector's screen.
    drawOn(canvas, ctx, a, v.a, { witness, end: endA, compact: true });
    canvas.dataset.detail = '';
    drawOn(canvasVs, ctxVs, b, v.b, { end: endB, compact: true });
    // Both lengths, for the tests to compare with the widths drawn.
    canvas.dataset.compare = JSON.stringify({ a: { id: a.data.sale_id, ms: da }, b: { id: b.data.sale_id, ms: db }, span: v.span });
  }

  /** renderCompare shows or hides what the comparison adds: the headings, the caption, the note, the second canvas. */
  function renderCompare() {
    const on = comparing();
    const clear = $('#tl-vs-clear');
    clear.hidden = !st.vs;
    clear.setAttribute('aria-label', label('tlVsClear', zh()));
    $('#tl-vs').value = st.vs ? String(st.vs.id) : '';
    const msg = $('#tl-vs-msg');
    msg.hidden = !st.vsMsg;
    msg.textContent = st.vsMsg ? fill(st.vsMsg.key, zh(), st.vsMsg.values) : '';
    for (const id of ['#tl-cmp-a', '#tl-cmp-b', '#tl-cmp-caption', '#tl-vs-off', '#tl-canvas-vs']) $(id).hidden = !on;
    // Zoom, pan and replay work on one sale: their bar and window line go while comparing.
    $('#timeline .tl-bar').hidden = on;
    $('#timeline .tl-window').hidden = on;
    canvas.classList.toggle('comparing', on);
    if (!on) {
      delete canvas.dataset.compare;
      canvas.setAttribute('aria-label', "the sale's critical sections per replica over time");
      return;
    }
    if (st.replay?.playing) { st.replay.pause(); setPlaying(false); }
    tip.hidden = true;
    st.hover = null;
    const a = st.model, b = st.vs.model;
    heading($('#tl-cmp-a'), a.data, saleInfo(a.data.sale_id));
    heading($('#tl-cmp-b'), b.data, saleInfo(b.data.sale_id));
    const cap = compareCaption({ id: a.data.sale_id, ms: saleDuration(a) }, { id: b.data.sale_id, ms: saleDuration(b) }, zh());
    $('#tl-cmp-caption').textContent = cap.text;
    $('#tl-cmp-caption').dataset.ratio = String(cap.ratio);
    const aria = fill('tlVsAria', zh(), { a: a.data.sale_id, b: b.data.sale_id });
    canvas.setAttribute('aria-label', `${aria}: #${a.data.sale_id}`);
    canvasVs.setAttribute('aria-label', `${aria}: #${b.data.sale_id}`);
  }

  /** saleInfo is sale id as GET /api/sales lists it, else asked once (GET /api/sales/{id}); undefined meanwhile. */
  function saleInfo(id) {
    if (st.sales.has(id)) return st.sales.get(id);
    if (!st.asked.has(id)) {
      st.asked.set(id, null);
      getJSON(`/api/sales/${id}`, { timeoutMs: 8000 })
        .then((sale) => { st.asked.set(id, sale); if (comparing()) renderCompare(); })
        .catch(() => { /* no verdict word: the rest stands */ });
    }
    return st.asked.get(id) || undefined;
  }

  /** heading writes a lane group's heading: "#13 · redis · combining ≤100" and the verdict's word. */
  function heading(p, data, sale) {
    const v = verdictWord(sale, zh());
    const kids = [el('span', { class: 'tl-cmp-name', text: saleHeading(data, zh()) })];
    if (v.word) kids.push(' ', el('span', { class: `tl-cmp-verdict ${v.tone}`, text: v.word }));
    p.replaceChildren(...kids);
  }

  /**
   * syncURL puts the comparison into the URL (#/timeline?sale=12&vs=13)
   * through the nav, which owns the hash (onCompare), and takes both out
   * without one. Only while the section shows: a link followed from
   * another section is still on its way to the nav.
   */
  function syncURL() {
    if (visible()) onCompare(st.vs ? st.saleId : 0, st.vs?.id || 0);
  }

  /**
   * compareWith starts the comparison with the sale a link or the picker
   * names ({raw, id}; id 0: raw is not a sale id, said under the picker,
   * the one sale's view kept). sync: false leaves the URL alone (a link
   * being followed: its sale is read after this, the URL written when the
   * section shows).
   */
  function compareWith(vs, { sync = true } = {}) {
    if (!vs.id) { st.vsMsg = { key: 'tlVsBadId', values: { v: vs.raw } }; endCompare({ keepMsg: true, sync }); return; }
    st.vsMsg = null;
    if (st.vs?.id === vs.id) { renderCompare(); if (sync) syncURL(); return; }
    st.vs = { id: vs.id, model: null };
    st.asked.delete(vs.id); // its verdict asked afresh
    vsOption(vs.id);
    renderCompare();
    if (sync) syncURL();
    loadVs(vs.id);
  }

  /** endCompare returns to the one sale's view; keepMsg keeps the message of a comparison refused. */
  function endCompare({ keepMsg = false, sync = true } = {}) {
    if (!keepMsg) st.vsMsg = null;
    st.vs = null;
    renderCompare();
    if (sync) syncURL();
    redraw();
  }

  async function loadVs(id, { quiet = false } = {}) {
    let data;
    try {
      data = await getJSON(`/api/sales/${id}/timeline`, { timeoutMs: 8000 });
    } catch (err) {
      if (st.vs?.id !== id || quiet) return;
      st.vsMsg = err instanceof ApiError && err.status === 404
        ? { key: 'tlVsMissing', values: { id } } : { key: 'tlVsCannot', values: { id, why: err.message } };
      endCompare({ keepMsg: true });
      return;
    }
    if (st.vs?.id !== id) return; // cleared or another sale meanwhile
    st.vs.model = buildTimeline(data);
    renderCompare();
    redraw();
  }

  /** vsOption makes sure the "Compare with" picker has sale id (one older than the list). */
  function vsOption(id) {
    const pick = $('#tl-vs');
    if (![...pick.options].some((o) => o.value === String(id))) pick.append(el('option', { value: String(id), text: `#${id}` }));
    pick.value = String(id);
  }

  function redraw() {
    if (st.dirty) return;
    st.dirty = true;
    requestAnimationFrame(frame);
  }

  function frame(now) {
    const dt = st.lastFrame ? Math.min(now - st.lastFrame, 100) : 0;
    st.lastFrame = now;
    if (st.replay?.tick(dt)) {
      // The window follows the cursor when it leaves it.
      if (st.replay.t > st.view.to - (st.view.to - st.view.from) * 0.05) st.view = centreOn(st.view, st.replay.t, bounds());
      if (!st.replay.playing) setPlaying(false);
      st.dirty = false;
      paint();
      requestAnimationFrame(frame);
      return;
    }
    st.lastFrame = 0;
    paint();
  }

  function setView(v) {
    st.view = clampView(v, bounds());
    st.following = false;
    redraw();
  }

  // ---- a summarised sale, zoomed in: its window again, with real sections ------------

  /** wantDetail asks for the view's window once the view has stopped moving for 300 ms. */
  function wantDetail() {
    const key = `${st.saleId}:${st.view.from}:${st.view.to}`;
    if (key === st.detailKey) return;
    st.detailKey = key;
    clearTimeout(st.detailTimer);
    const want = detailWindow(st.model, st.view, st.detail?.window);
    if (want) st.detailTimer = setTimeout(() => loadDetail(st.saleId, want), 300);
  }

  async function loadDetail(id, w) {
    let data;
    try {
      data = await getJSON(`/api/sales/${id}/timeline?from=${w.from.toFixed(3)}&to=${w.to.toFixed(3)}`, { timeoutMs: 8000 });
    } catch (err) {
      $('#tl-msg').textContent = `${label('tlCannot', zh())} ${id}: ${err.message}`;
      return;
    }
    if (id !== st.saleId || !st.model?.summarised) return; // another sale meanwhile
    st.detail = { window: { from: data.from, to: data.to }, model: detailModel(data, st.model) };
    redraw();
  }

  // ---- loading ----------------------------------------------------------------

  async function load(id, { live = false } = {}) {
    let data;
    try {
      data = await getJSON(`/api/sales/${id}/timeline`, { timeoutMs: 8000 });
    } catch (err) {
      $('#tl-msg').textContent = `${label('tlCannot', zh())} ${id}: ${err.message}`;
      return;
    }
    if (id !== st.saleId) return; // another sale was picked meanwhile
    $('#tl-msg').textContent = '';
    const first = st.shownFor !== id;
    const model = buildTimeline(data);
    const prev = st.model;
    st.model = model;
    if (first || !st.view) {
      st.shownFor = id;
      st.detail = null; st.detailKey = '';
      st.replay = new Replay(model.from, model.to, st.speed); // the speed picked, not 1x
      st.view = live ? liveWindow(model) : openingWindow(model);
      st.following = live;
      renderFacts(); renderNarration(); renderPairs(); renderLegend(); links(id, live);
      if (visible()) onSale(id);
    } else {
      st.replay.from = model.from; st.replay.to = model.to;
      if (st.following) st.view = liveWindow(model);
      if (!live && prev && st.following) st.view = openingWindow(model); // the run just ended: its decisive moment
      if (!live) st.following = false;
      renderFacts();
      if (model.narration.length !== prev?.narration.length) renderNarration();
      if (model.overlaps.length !== prev?.overlaps.length) renderPairs();
      if (!live) links(id, false);
    }
    $('#tl-live').hidden = !live;
    if (st.vs) renderCompare();
    redraw();
  }

  // The newest 2 s of a running sale (all of it while shorter).
  const liveWindow = (m) => clampView({ from: Math.max(m.from, m.to - 2000), to: m.to }, { from: m.from, to: m.to });
  const openingWindow = (m) => clampView(m.decisive ? { from: m.decisive.from, to: m.decisive.to } : { from: m.from, to: m.to }, { from: m.from, to: m.to });

  async function loadSales() {
    let sales;
    try { sales = await getJSON('/api/sales'); } catch (err) { $('#tl-msg').textContent = err.message; return; }
    st.sales = new Map(sales.map((s) => [s.id, s]));
    if (comparing()) renderCompare(); // the verdicts may have come since
    const pick = $('#tl-sale');
    const sig = sales.map((s) => s.id).join();
    if (pick.dataset.sig === sig) return;
    pick.dataset.sig = sig;
    const option = (s) => el('option', { value: String(s.id), text: `#${s.id} ${s.strategy}${s.violations ? ` · ${s.violations} ⚠` : ''}` });
    pick.replaceChildren(...sales.map(option));
    // The same sales to compare with, after "—" (none).
    $('#tl-vs').replaceChildren(el('option', { value: '', 'data-l': 'tlVsNone', text: label('tlVsNone', zh()) }), ...sales.map(option));
    if (st.vs) vsOption(st.vs.id); else $('#tl-vs').value = '';
    if (!st.saleId && sales.length) pickSale(sales[0].id);
    else pick.value = String(st.saleId);
  }

  function pickSale(id) {
    st.saleId = id;
    $('#tl-sale').value = String(id);
    syncURL();
    const step = liveStep();
    load(id, { live: step?.sale?.id === id && step.status === 'running' });
  }

  // ---- panels ---------------------------------------------------------------

  function renderFacts() {
    const d = st.model.data;
    const yes = (b) => label(b ? 'tlOn' : 'tlOff', zh());
    $('#tl-facts').textContent = [`#${d.sale_id} ${d.strategy}`, `${label('fencing', zh())}: ${yes(d.fencing)}`,
      `${label('watchdog', zh())}: ${yes(d.watchdog)}`, `TTL ${d.ttl_ms} ms`, `${label('workMs', zh())}: ${d.work_ms}`,
      `${label('stock', zh())}: ${d.initial_stock}`, combineFact(d, zh()),
      d.summarised ? label('tlSummarised', zh()).replace('{ms}', String(d.bucket_ms)) : ''].filter(Boolean).join(' · ');
    const v = d.violations || { count: 0, counts: {} };
    $('#tl-viol-n').textContent = String(v.count);
    $('#tl-viol').classList.toggle('bad', v.count > 0);
    $('#tl-viol-what').textContent = (zh() && v.counts?.zh) || v.counts?.en || '';
    renderEffects(d.fault_effects || []);
  }

  /** renderEffects says under the facts what each fault did (the timeline's fault_effects). */
  function renderEffects(effects) {
    let list = $('#tl-effects');
    if (!list) {
      list = el('ul', { id: 'tl-effects', class: 'fault-note' });
      $('#tl-facts').after(list);
    }
    list.hidden = !effects.length;
    list.replaceChildren(...effects.map((e) => el('li', { class: e.damaged ? 'bad' : 'why', 'data-kind': e.kind,
      text: `${label(`f${e.kind}`, zh())}: ${zh() && e.zh ? e.zh : e.en}` })));
  }

  function renderNarration() {
    const list = $('#tl-narration');
    list.replaceChildren(...st.model.narration.map((line, i) => {
      const { main, sub } = narrationText(line, zh());
      const b = el('button', { type: 'button', 'data-i': String(i) },
        el('span', { class: 'tl-at', text: relTime(line.at, st.model.from) }), ' ', el('span', { text: main }));
      if (sub) b.append(el('small', { text: sub }));
      b.addEventListener('click', () => jumpTo(line.at, line.section));
      return el('li', {}, b);
    }));
    if (!st.model.narration.length) list.append(el('li', { class: 'note', text: label('tlNoNarration', zh()) }));
  }

  function markNarration(t) {
    const i = currentLine(st.model.narration, t);
    for (const li of $('#tl-narration').children) {
      const b = li.firstElementChild;
      if (b?.dataset.i !== undefined) b.classList.toggle('now', Number(b.dataset.i) === i);
    }
  }

  function renderPairs() {
    const body = $('#tl-pairs tbody');
    const rows = violationPairs(st.model).map((p, i) => {
      const side = (s) => `${s.replica} ${s.token || '–'} ${relTime(s.from, st.model.from)}–${relTime(s.to, st.model.from)}`;
      const tr = el('tr', { tabindex: '0', 'data-i': String(i) },
        el('td', { text: String(i + 1) }), el('td', { text: side(p.a) }), el('td', { text: side(p.b) }),
        el('td', { text: `${relTime(p.from, st.model.from)}–${relTime(p.to, st.model.from)}` }),
        el('td', { text: ordersLabel(p.orders, zh()) || '–' }));
      const go = () => { setView(pairWindow(p)); st.hover = p.b.id; redraw(); canvas.focus({ preventScroll: true }); };
      tr.addEventListener('click', go);
      tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
      return tr;
    });
    body.replaceChildren(...rows);
    $('#tl-pairs-n').textContent = String(rows.length);
  }

  /**
   * links: "open as a file" always; the History check panel asks the check
   * once per finished sale (a live sale says it is still running).
   */
  async function links(id, live) {
    $('#tl-file').href = `/api/sales/${id}/timeline.html`;
    if (live) { st.history = { id, live: true, res: null }; renderHistory(); return; }
    if (st.historyFor === id) return;
    st.historyFor = id;
    st.history = { id, live: false, res: undefined };
    renderHistory();
    let res = null;
    try {
      res = await getJSON(`/api/sales/${id}/history`, { timeoutMs: 10000 });
    } catch { /* no history check on this build, or not for this sale */ }
    if (id !== st.saleId) return;
    st.history = { id, live: false, res };
    renderHistory();
  }

  /** renderHistory fills the History check panel (history-model.js decides what it says). */
  function renderHistory() {
    const h = st.history;
    const box = $('#tl-hc');
    if (!h || h.res === undefined) { // asked, not answered yet
      box.dataset.verdict = '';
      $('#tl-hc-sentence').textContent = '…';
      $('#tl-hc-meaning').textContent = '';
      $('#tl-hc-orders').hidden = true;
      $('#tl-hc-link').hidden = true;
      return;
    }
    const v = historyView(h.res, st.model?.data.sections, zh(), h.live);
    box.dataset.verdict = v.verdict;
    box.dataset.orders = v.orders.join(' '); // the witness orders, for the tests
    const framed = (st.witnessOrders || []).join() !== v.orders.join();
    st.witnessOrders = v.orders; // framed on the canvas, named in the legend
    if (framed) { renderLegend(); redraw(); }
    $('#tl-hc-sentence').textContent = v.sentence;
    $('#tl-hc-meaning').textContent = v.meaning;
    const rows = v.rows.map((r) => el('tr', {},
      el('td', { text: r.order }), el('td', { text: r.replica }), el('td', { text: r.token }),
      el('td', { text: label(`hc_${r.outcome}`, zh()) })));
    if (v.more > 0) rows.push(el('tr', {}, el('td', { colspan: '4', text: `+${v.more} ${label('hcMore', zh())}` })));
    $('#tl-hc-orders tbody').replaceChildren(...rows);
    $('#tl-hc-orders').hidden = rows.length === 0;
    const link = $('#tl-hc-link');
    link.hidden = !h.res?.verdict;
    link.href = `/api/sales/${h.id}/history.html${zh() ? '?lang=zh' : ''}`;
  }

  function jumpTo(t, section) {
    st.view = centreOn(st.view, t, bounds());
    st.following = false;
    if (st.replay) st.replay.seek(t);
    st.hover = section ?? null;
    redraw();
  }

  // ---- the legend ---------------------------------------------------------------

  function renderLegend() {
    // The colour through the CSSOM: the page's CSP (style-src 'self') drops
    // a style attribute, which left every swatch blank.
    const item = (colour, key, cls = '') => {
      const sw = el('span', { class: `sw ${cls}` });
      sw.style.backgroundColor = colour;
      return el('li', {}, sw, label(key, zh()));
    };
    $('#tl-legend').replaceChildren(
      item(COLOURS.wait, 'tlWait', 'thin'), ...OUTCOMES.map((o) => item(COLOURS[o], `o_${o}`, o === 'fenced' ? 'crossed' : '')),
      item(COLOURS.lease, 'tlLease', 'thin'), item('rgba(209,36,47,.35)', 'tlOverlap', 'red'), item(COLOURS.fault, 'tlFault'),
      item(COLOURS.stock, 'tlStockLine', 'thin'));
    // The history check's witness orders, framed on the canvas.
    if (st.witnessOrders?.length) $('#tl-legend').append(item(COLOURS.witness, 'tlWitness', 'framed'));
    // A combining sale: what a bar's "×37" means.
    if (st.model?.data.combine) $('#tl-legend').append(el('li', { class: 'batch-key' }, el('b', { text: '×37' }), ` ${label('tlBatchKey', zh())}`));
  }

  // ---- input: zoom, pan, hover, keys, replay -------------------------------------------

  const timeAt = (clientX) => {
    const r = canvas.getBoundingClientRect();
    const plotW = Math.max(10, r.width - LAYOUT.labelW - 8);
    return st.view.from + ((clientX - r.left - LAYOUT.labelW) / plotW) * (st.view.to - st.view.from);
  };
  const zoom = (factor, anchor) => { if (st.model) setView(zoomAt(st.view, factor, anchor ?? (st.view.from + st.view.to) / 2, bounds())); };
  const pan = (fraction) => { if (st.model) setView(panBy(st.view, (st.view.to - st.view.from) * fraction, bounds())); };

  canvas.addEventListener('wheel', (e) => {
    if (!st.model || comparing()) return; // one sale's view only: the page scrolls
    e.preventDefault();
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(e.deltaX / 800);
    else zoom(Math.exp(e.deltaY / 400), timeAt(e.clientX));
  }, { passive: false });

  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    if (!st.model || comparing() || e.pointerType === 'touch') return; // a finger scrolls the page and the lanes
    drag = { x: e.clientX, view: st.view };
    canvas.setPointerCapture(e.pointerId);
    canvas.classList.add('dragging');
  });
  canvas.addEventListener('pointerup', () => { drag = null; canvas.classList.remove('dragging'); });
  canvas.addEventListener('pointermove', (e) => {
    if (!st.model || comparing()) return;
    if (drag) {
      const r = canvas.getBoundingClientRect();
      const plotW = Math.max(10, r.width - LAYOUT.labelW - 8);
      const dt = ((drag.x - e.clientX) / plotW) * (drag.view.to - drag.view.from);
      st.view = panBy(drag.view, dt, bounds());
      st.following = false;
      tip.hidden = true;
      redraw();
      return;
    }
    hoverAt(e);
  });
  canvas.addEventListener('pointerleave', () => { tip.hidden = true; if (st.hover !== null) { st.hover = null; redraw(); } });

  function hoverAt(e) {
    const r = canvas.getBoundingClientRect();
    const y = e.clientY - r.top - LAYOUT.axisH;
    const t = timeAt(e.clientX);
    const m = shown();
    const lane = m.summarised ? null : m.lanes[Math.floor(y / LAYOUT.rowH)];
    let found = null;
    if (lane && y >= 0) {
      const px = (st.view.to - st.view.from) / Math.max(10, r.width - LAYOUT.labelW - 8);
      const near = visibleSections(lane, t - 3 * px, t + 3 * px, m.to);
      found = near.find((s) => s.enter_at <= t && sectionEnd(s, m.to) >= t)
        || near.find((s) => (s.wait_at ?? s.enter_at) <= t && s.enter_at >= t) || near[0] || null;
    }
    const fault = m.faults.find((f) => f.from <= t && f.to >= t && (!lane || f.lanes.includes(lane.index)));
    if (!found && !fault) { tip.hidden = true; if (st.hover !== null) { st.hover = null; redraw(); } return; }
    const rows = [];
    if (found) {
      for (const [k, v] of sectionDetail(found, st.model.from, zh())) rows.push(el('dt', { text: label(k, zh()) }), el('dd', { text: k === 'tlOutcome' ? label(`o_${v}`, zh()) : v }));
      for (const [k, v] of batchRows(found, stockAt(m.stock, sectionEnd(found, m.to)), zh())) rows.push(el('dt', { text: k }), el('dd', { class: 'batch-row', text: v }));
      const ov = m.overlaps.filter((o) => o.a === found.id || o.b === found.id);
      if (ov.length) rows.push(el('dt', { text: label('tlOverlap', zh()) }), el('dd', { class: 'bad', text: ov.map((o) => ordersLabel(o.orders, zh()) || '–').join('; ') }));
    }
    if (fault) rows.push(el('dt', { text: label('tlFault', zh()) }), el('dd', { text: `${label(`f${fault.kind}`, zh())} ${relTime(fault.from, st.model.from)}–${fault.open ? '…' : relTime(fault.to, st.model.from)}` }));
    tip.replaceChildren(el('dl', {}, ...rows));
    tip.hidden = false;
    // Fixed to the window, so that the lanes' scrolling box never clips it.
    const left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 4);
    const top = e.clientY + 14 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 10 : e.clientY + 14;
    tip.style.left = `${Math.max(0, left)}px`;
    tip.style.top = `${Math.max(0, top)}px`;
    const id = found?.id ?? null;
    if (id !== st.hover) { st.hover = id; redraw(); }
  }

  canvas.addEventListener('keydown', (e) => {
    const keys = { ArrowLeft: () => pan(-0.2), ArrowRight: () => pan(0.2), '+': () => zoom(0.5), '=': () => zoom(0.5), '-': () => zoom(2),
      Home: () => setView(bounds()), ' ': () => togglePlay() };
    if (!keys[e.key] || !st.model || comparing()) return;
    e.preventDefault();
    keys[e.key]();
  });
  $('#tl-zoom-in').addEventListener('click', () => zoom(0.5));
  $('#tl-zoom-out').addEventListener('click', () => zoom(2));
  $('#tl-left').addEventListener('click', () => pan(-0.3));
  $('#tl-right').addEventListener('click', () => pan(0.3));
  $('#tl-fit').addEventListener('click', () => { if (st.model) setView(bounds()); });
  $('#tl-decisive').addEventListener('click', () => { if (st.model) setView(openingWindow(st.model)); });

  function setPlaying(on) {
    $('#tl-play').textContent = label(on ? 'tlPause' : 'tlPlay', zh());
    $('#tl-play').setAttribute('aria-pressed', String(on));
  }
  function togglePlay() {
    if (!st.replay) return;
    if (st.replay.playing) st.replay.pause();
    else {
      if (st.replay.t <= st.replay.from) st.replay.seek(st.view.from);
      st.replay.play();
      st.view = centreOn(st.view, st.replay.t, bounds());
      st.following = false;
    }
    setPlaying(st.replay.playing);
    redraw();
  }
  $('#tl-play').addEventListener('click', togglePlay);
  for (const r of document.querySelectorAll('input[name=tl-speed]')) {
    r.checked = Number(r.value) === st.speed;
    r.addEventListener('change', () => {
      st.speed = parseSpeed(r.value);
      storeSpeed(st.speed);
      st.replay?.setSpeed(st.speed);
    });
  }
  $('#tl-scrub').addEventListener('input', (e) => {
    if (!st.replay) return;
    const t = st.replay.from + (Number(e.target.value) / 1000) * (st.replay.to - st.replay.from);
    st.replay.seek(t);
    // The time beside the scrubber follows at once, not at the next frame
    // (a reader of the label right after a scrub met the old time).
    $('#tl-now').textContent = relTime(st.replay.t, st.model.from);
    if (t < st.view.from || t > st.view.to) st.view = centreOn(st.view, t, bounds());
    st.following = false;
    redraw();
  });
  $('#tl-sale').addEventListener('change', (e) => { keepChoice(); pickSale(Number(e.target.value)); });
  $('#tl-vs').addEventListener('change', (e) => {
    if (e.target.value) compareWith({ raw: e.target.value, id: Number(e.target.value) }); else endCompare();
  });
  $('#tl-vs-clear').addEventListener('click', () => { endCompare(); $('#tl-vs').focus(); });
  // A link with vs compares; a link to one sale (sale=, no vs) shows it
  // alone. Called before app.js reads the link's sale: the URL is left alone.
  onHash = (hash) => {
    const vs = vsInHash(hash);
    if (vs) compareWith(vs, { sync: false });
    else if (saleInHash(hash) && st.vs) endCompare({ sync: false });
  };
  if (bootVs) compareWith(bootVs, { sync: false });
  $('#tl-viol-n').addEventListener('click', () => {
    const box = $('#tl-pairs-box');
    box.hidden = !box.hidden;
    $('#tl-viol-n').setAttribute('aria-expanded', String(!box.hidden));
  });
  new ResizeObserver(() => { if (visible()) redraw(); }).observe(canvas.parentElement);
  // Large type (a class on <html>) rescales the canvas's text and lanes.
  new MutationObserver(() => { if (visible()) redraw(); }).observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });

  // ---- live: the running step's sale, every second ------------------------------------

  // keepChoice: a sale the reader opened (a lesson case's link, the picker)
  // stays open while the sale running now runs: the live follow moves to a
  // running sale only when a new one starts. It had moved a trainer who
  // opened a finished lesson's case to the other lesson still running.
  function keepChoice() {
    const step = liveStep();
    st.liveSale = step?.status === 'running' ? (step.sale?.id || 0) : 0;
  }

  setInterval(() => {
    if (!visible()) return;
    const step = liveStep();
    const sale = step?.sale?.id;
    const running = step?.status === 'running' ? sale : 0;
    if (st.vs?.model && (st.vs.id === running || st.vs.live)) {
      // The sale compared with, running: read again each second, and once more when it ended.
      st.vs.live = st.vs.id === running;
      loadVs(st.vs.id, { quiet: true });
    }
    if (step?.status === 'running' && sale) {
      if (st.liveSale !== sale) { st.liveSale = sale; loadSales(); pickSale(sale); return; }
      if (st.saleId === sale) load(sale, { live: true });
    } else if (st.liveSale && st.liveSale === st.saleId) {
      // The run ended: one last read, then open on its decisive moment.
      const id = st.liveSale;
      st.liveSale = 0;
      load(id);
    }
  }, 1000);

  const SPEED_TEXT = SPEEDS.map((s) => `${s}x`).join(', ');
  $('#tl-speeds').setAttribute('aria-label', SPEED_TEXT);

  return {
    show() { loadSales(); renderLegend(); renderCompare(); syncURL(); redraw(); if (st.model) onSale(st.saleId); },
    saleId: () => st.saleId,
    relabel() {
      applyLabels($('#timeline'), zh());
      renderLegend();
      renderCompare();
      if (st.model) { renderFacts(); renderNarration(); renderHistory(); setPlaying(!!st.replay?.playing); redraw(); }
    },
    openSale(id) { keepChoice(); loadSales(); pickSale(id); },
    showPairs() { $('#tl-pairs-box').hidden = false; $('#tl-viol-n').setAttribute('aria-expanded', 'true'); },
  };
}
