// The shopper page /shop/{sale}: one product card, a countdown to the
// opening in the server's time, a Buy button and the answer in words. On
// an async sale the answer is a ticket the page follows until the order is
// confirmed or failed; a reserved order counts down to its pay-by time
// with a Pay button.
// shop-model.js decides (clock, wording, the click's Idempotency-Key);
// this module talks to the API and writes the page.
import { LABELS, addLabels } from './i18n.js';
import { Intent, ServerClock, answerOf, headline, openingState, orderPath, payAnswerOf, payBody, pollDelay, randomHex, reservationOf,
  saleIdFromPath, ticketAnswerOf, ticketUsable, unitsText } from './shop-model.js';

const $ = (sel) => document.querySelector(sel);
const USER_KEY = 'seckill.shopUser';
// The page's language: Chinese alone or English alone (a phone has no room
// for both), the dashboard's choice by default, ?lang=zh or ?lang=en from
// the students' link first.
const LANG_KEY = 'seckill.zhLabels';

addLabels({
  shopDashboard: ['Seckill Lab dashboard', '秒杀实验室控制台'],
  shopTicketNote: ['This sale needs a purchase ticket: the page gets one for you before it orders.', '本场秒杀需要购买凭证：下单前页面会自动为你领取。'],
  shopUser: ['Your user id', '你的用户 ID'],
  shopReservation: ['Your reservation', '你的预留订单'],
  shopBuy: ['Buy', '立即抢购'],
  shopBuying: ['Buying…', '抢购中…'],
  shopPay: ['Pay', '付款'],
  shopPaying: ['Paying…', '付款中…'],
  shopLoading: ['Loading the sale…', '正在加载秒杀…'],
  shopClock: ['Reading the shop’s clock…', '正在读取商店时钟…'],
  shopOpenNow: ['The sale is open: the Buy button is enabled.', '已开售：抢购按钮可以点了。'],
  shopNoAnswer: ['The shop does not answer yet: retrying…', '商店暂未应答：正在重试…'],
  shopBadUser: ['Enter a user id of 1 to 64 characters.', '请输入 1 到 64 个字符的用户 ID。'],
  shopNotOpen: ['Not open yet', '尚未开售'],
  shopPerBuyer: ['at most {n} per buyer', '每人限购 {n} 件'],
  shopNoLimit: ['no limit per buyer', '不限购'],
  shopQueued: ['orders go through a queue', '订单经队列处理'],
  shopPayWithin: ['pay within {n} s of ordering', '下单后 {n} 秒内付款'],
  shopStrategy: ['lock strategy', '并发控制策略'],
  shopTitle: ['Seckill Lab shop', '秒杀实验室商店'],
  shopNoSale: ['No such sale: sale {n} does not exist.', '没有这个秒杀：秒杀 {n} 不存在。'],
  shopBadAddress: ['No such sale: the address must be /shop/ followed by a sale number.', '没有这个秒杀：地址应为 /shop/ 加秒杀编号。'],
  shopNoSuchSale: ['No such sale', '没有这个秒杀'],
});
const langAsked = new URLSearchParams(location.search).get('lang');
let zh = langAsked ? langAsked === 'zh' : localStorage.getItem(LANG_KEY) === '1';
/** t is key's text in the page's language; {n} takes n. */
const t = (key, n) => (LABELS[key]?.[zh ? 1 : 0] ?? key).replace('{n}', n);
// Past the shop's own lock wait (10 s), so a slow answer is not cut short.
const ORDER_TIMEOUT_MS = 15_000;

const saleId = saleIdFromPath(location.pathname);
const clock = new ServerClock();
const intent = new Intent();
const clientNow = () => performance.timeOrigin + performance.now(); // monotonic, unlike Date.now()
let sale = null; // the last GET /api/sales/:id
let open = false;
let busy = false;
let ticket = null; // the last POST /api/sales/:id/ticket answer
let following = 0; // which order the page follows: a new purchase stops following the old one
let order = null; // the order whose reservation the page shows (order JSON)
let orderState = ''; // reservationOf(order).state last shown
let paying = false;
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });

/** call sends one request; it answers {status, body, header} or {network}, and feeds the clock. */
async function call(path, { method = 'GET', body, headers = {}, timeoutMs = 5000 } = {}) {
  const sent = clientNow();
  let res;
  try {
    res = await fetch(path, {
      method, cache: 'no-store', signal: AbortSignal.timeout(timeoutMs),
      headers: body ? { 'Content-Type': 'application/json', ...headers } : headers,
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (err) {
    return { network: err.name === 'TimeoutError' ? 'it timed out' : err.message };
  }
  clock.sample(res.headers.get('Date'), sent, clientNow());
  let json = null;
  try { json = await res.json(); } catch { /* an empty or non-JSON body */ }
  return { status: res.status, body: json, header: (n) => res.headers.get(n) };
}

// ---- the card ------------------------------------------------------------

function setText(sel, text) { const e = $(sel); if (e.textContent !== text) e.textContent = text; }

let missing = null; // () => the text saying there is no such sale, in the page's language
function showMissing(text) {
  missing = text;
  setText('#p-name', text());
  $('#buy-form').hidden = true;
  $('#p-opening').hidden = true;
  $('#card').setAttribute('aria-busy', 'false');
  document.title = `${t('shopNoSuchSale')} · ${t('shopTitle')}`;
}

function showSale(s) {
  sale = s;
  setText('#p-name', headline(s, zh));
  const tag = $('#p-tag');
  tag.hidden = !s.strategy;
  setText('#p-tag', `${t('shopStrategy')}: ${s.strategy}`);
  const limit = s.per_user_limit > 0 ? t('shopPerBuyer', s.per_user_limit) : t('shopNoLimit');
  const queued = s.order_mode === 'async' ? ` · ${t('shopQueued')}` : '';
  const pay = s.pay_within_ms > 0 ? ` · ${t('shopPayWithin', Math.round(s.pay_within_ms / 100) / 10)}` : '';
  setText('#p-meta', `#${s.id} · ${limit}${queued}${pay}`);
  setText('#p-units', unitsText(s, zh));
  $('#p-ticket').hidden = !s.ticket_required;
  $('#card').setAttribute('aria-busy', 'false');
  document.title = `${headline(s, zh)} · ${t('shopTitle')}`;
  tick();
}

/** applyLang writes the page's fixed texts in its language and redraws the sale. */
function applyLang() {
  document.documentElement.lang = zh ? 'zh-CN' : 'en';
  for (const e of document.querySelectorAll('[data-l]')) e.textContent = t(e.dataset.l);
  const b = $('#lang');
  b.textContent = zh ? 'English' : '中文';
  b.lang = zh ? 'en' : 'zh';
  b.setAttribute('aria-pressed', String(zh));
  if (missing) showMissing(missing);
  else if (!sale) setText('#p-name', t('shopLoading'));
  else showSale(sale);
  setButton();
}
$('#lang').addEventListener('click', () => {
  zh = !zh;
  localStorage.setItem(LANG_KEY, zh ? '1' : '0');
  applyLang();
});

/** loadSale reads the sale; false when it does not exist. */
async function loadSale() {
  const r = await call(`/api/sales/${saleId}`);
  if (r.status === 404) { showMissing(() => t('shopNoSale', saleId)); return false; }
  if (r.status === 200) showSale(r.body);
  else if (!sale) setText('#p-meta', t('shopNoAnswer'));
  return true;
}

/** refresh reads the sale about once a second, at a varying phase so that the Date headers narrow the clock. */
async function refresh() {
  if (await loadSale()) setTimeout(refresh, 700 + Math.random() * 600);
}

/** tick keeps the countdowns and the buttons' state, from the server's time. */
function tick() {
  renderOrder();
  if (!sale) return;
  const st = clock.known ? openingState(sale.opens_at, clock.now(clientNow()), zh, sale.stock <= 0) : { open: false, text: t('shopClock') };
  const el = $('#p-opening');
  setText('#p-opening', st.text);
  el.classList.toggle('open', st.open);
  el.classList.toggle('sold-out', !!st.soldOut);
  if (st.open !== open) {
    open = st.open;
    setButton();
    if (open) setText('#announce', t('shopOpenNow'));
  }
}

function setButton() {
  const b = $('#buy');
  b.setAttribute('aria-disabled', String(!open || busy));
  b.setAttribute('aria-busy', String(busy));
  b.textContent = busy ? t('shopBuying') : t('shopBuy');
}

// ---- buying -----------------------------------------------------------------

/** showAnswer says a in the live region; polled is true for what a poll found, which is not repeated while unchanged. */
function showAnswer(a, polled = false) {
  const e = $('#answer');
  if (polled && e.textContent === a.text && e.className === `answer ${a.bad ? 'bad' : 'good'}`) { e.dataset.kind = a.kind; return; }
  // The same words twice would not be announced again: clear first.
  e.textContent = '';
  e.className = `answer ${a.bad ? 'bad' : 'good'}`;
  e.dataset.kind = a.kind;
  setTimeout(() => { e.textContent = a.text; }, 50);
}

/** getTicket returns a usable ticket for user, or the refusal's answer. */
async function getTicket(user) {
  if (ticketUsable(ticket, user, clock.now(clientNow()))) return { ticket };
  const r = await call(`/api/sales/${saleId}/ticket`, { method: 'POST', body: { user_id: user }, timeoutMs: ORDER_TIMEOUT_MS });
  if (r.status === 200 && r.body?.ticket) { ticket = r.body; return { ticket }; }
  return { refused: answerOf(r, zh) };
}

async function buy(user) {
  busy = true;
  setButton();
  try {
    const body = { user_id: user };
    if (sale.ticket_required) {
      const t = await getTicket(user);
      if (t.refused) { intent.settle(t.refused); showAnswer(t.refused); return; }
      body.ticket = t.ticket.ticket;
    }
    const r = await call(`/api/sales/${saleId}/orders`, { method: 'POST', body,
      headers: { 'Idempotency-Key': intent.keyFor(user) }, timeoutMs: ORDER_TIMEOUT_MS });
    const a = answerOf(r, zh);
    if (a.kind === 'ticket') ticket = null;
    intent.settle(a);
    showAnswer(a);
    following++;
    if (a.kind === 'queued' && a.ticket) followTicket(a.ticket);
    else if (r.status === 201 || r.status === 200) showOrder(r.body);
    loadSale(); // the units left, at once
  } finally {
    busy = false;
    setButton();
  }
}

// ---- after the click: the ticket and the reservation -------------------------

/** followTicket polls GET /api/orders/:ticket until the order is confirmed, failed or lost. */
async function followTicket(t) {
  const gen = following;
  const started = clientNow();
  for (let n = 0; ; n++) {
    await sleep(pollDelay(n));
    if (gen !== following) return;
    const r = await call(`/api/orders/${encodeURIComponent(t)}`);
    if (gen !== following) return;
    const a = ticketAnswerOf(r, clientNow() - started, t, zh);
    showAnswer(a, true);
    if (a.done) {
      if (a.order) showOrder(a.order);
      loadSale();
      return;
    }
  }
}

/** showOrder follows order's reservation, when it has one (a pay-by time). */
function showOrder(o) {
  order = o?.pay_by ? o : null;
  orderState = '';
  renderOrder();
}

/** renderOrder writes the reservation's state; past its pay-by time it asks the server what became of it. */
function renderOrder() {
  const box = $('#order');
  const st = order && reservationOf(order, clock.now(clientNow()), zh);
  box.hidden = !st;
  if (!st) return;
  setText('#o-state', st.text);
  box.dataset.state = st.state;
  const pay = $('#pay');
  pay.hidden = !st.canPay;
  pay.setAttribute('aria-busy', String(paying));
  pay.textContent = paying ? t('shopPaying') : t('shopPay');
  if (st.state === orderState) return;
  const was = orderState;
  orderState = st.state;
  if (st.state === 'expiring') awaitExpiry(following);
  // A change the person did not cause by a click: say it in the answer region.
  if (was && (st.state === 'expired' || (st.state === 'paid' && !paying))) {
    showAnswer({ kind: st.state, text: st.said, bad: st.state === 'expired' });
  }
}

/** awaitExpiry re-reads an order past its pay-by time until the server says expired (or paid). */
async function awaitExpiry(gen) {
  const id = order.order_id;
  for (let n = 0; gen === following && order?.order_id === id && order.status === 'reserved'; n++) {
    const r = await call(orderPath(order));
    if (gen !== following || order?.order_id !== id) return;
    if (r.status === 200 && r.body?.order) order = r.body.order;
    if (order.status !== 'reserved') break;
    await sleep(pollDelay(n + 1));
  }
  renderOrder();
  loadSale(); // an expired unit is back in the stock
}

async function payOrder() {
  if (paying || !order) return;
  paying = true;
  renderOrder();
  const o = order;
  try {
    const r = await call(`/api/orders/${o.order_id}/pay`, { method: 'POST', body: payBody(o), timeoutMs: ORDER_TIMEOUT_MS });
    const a = payAnswerOf(r, zh);
    if (order === o) {
      if (a.order) order = a.order;
      else if (a.kind === 'expired') order = { ...o, pay_by: new Date(0).toISOString() }; // the server says it is over: ask what became of it
      orderState = order.status === 'paid' ? 'paid' : orderState;
    }
    showAnswer(a);
  } finally {
    paying = false;
    renderOrder();
  }
}

$('#pay').addEventListener('click', payOrder);

$('#buy-form').addEventListener('submit', (e) => {
  e.preventDefault();
  if (busy || !sale) return;
  if (!open) {
    showAnswer({ kind: 'not_open', text: `${t('shopNotOpen')}: ${$('#p-opening').textContent}.`, bad: true });
    return;
  }
  const input = $('#user');
  const user = input.value.trim();
  const ok = user.length > 0 && user.length <= 64;
  input.setAttribute('aria-invalid', String(!ok));
  if (!ok) { showAnswer({ kind: 'refused', text: t('shopBadUser'), bad: true }); input.focus(); return; }
  buy(user);
});

// ---- start --------------------------------------------------------------------

const user = $('#user');
user.value = sessionStorage.getItem(USER_KEY) || `buyer-${randomHex(4)}`;
sessionStorage.setItem(USER_KEY, user.value);
user.addEventListener('change', () => sessionStorage.setItem(USER_KEY, user.value.trim()));

applyLang();
if (saleId === null) {
  showMissing(() => t('shopBadAddress'));
} else {
  refresh();
  setInterval(tick, 200);
}
