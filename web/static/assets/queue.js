// The order queue on the dashboard: the figures the runs stream does not
// carry, read once a second while the live band shows a sale that has
// them (its sale view, GET /api/sales/:id, with the queue's, the
// reservations' and the reconciliation's figures and the verdict; for an
// async sale GET /api/queue too), and the persistence of the Redis that
// holds the queue (GET and PUT /api/queue/durability; switching takes the
// admin token, like the other admin actions).
import { ApiError, getJSON, putJSON } from './api.js';
import { addLabels, label } from './i18n.js';

const $ = (sel) => document.querySelector(sel);
const MODES = ['none', 'everysec', 'always'];
// What each mode means for orders already answered with a 202.
addLabels({
  mean_none: ['a Redis restart loses the queued orders it held (their 202s become lost tickets)', 'Redis 重启会丢失其中排队的订单（它们的 202 变成丢失的凭证）'],
  mean_everysec: ['a Redis restart loses at most about a second of queued orders', 'Redis 重启最多丢失约一秒的排队订单'],
  mean_always: ['every queued order is on disk before its 202: a restart loses none', '每个排队订单在返回 202 之前已写入磁盘：重启不丢订单'],
  durNow: ['Now: {mode} on {addr}: {means}.', '当前：{addr} 上为 {mode}：{means}。'],
  durUnknown: ['The mode is not known.', '模式未知。'],
  durNoQueue: ['This replica has no order queue.', '本实例没有订单队列。'],
  durCannot: ['Cannot read the mode', '无法读取模式'],
});
// The page's language: applyLabels (i18n.js) sets it on <html>.
const zh = () => document.documentElement.lang === 'zh-CN';

// A sale whose view has more than the stream's: async, reserved, or with
// a stock in Redis to reconcile.
const hasFigures = (s) => s && (s.order_mode === 'async' || s.pay_within_ms > 0 || s.strategy === 'redis-lua-stock');

/**
 * initQueue wires the persistence form and starts reading the figures of
 * liveSale() (the sale the band shows). onFigures({sale, queue}) gets each
 * reading (a member null when its read failed); needToken() handles a 401.
 * Returns refresh(), which reads the persistence mode again.
 */
export function initQueue({ liveSale, onFigures, needToken }) {
  const now = $('#dur-now');
  const msg = $('#dur-msg');
  const show = (d) => {
    if (!MODES.includes(d?.mode)) { now.textContent = label('durUnknown', zh()); return; }
    const text = label('durNow', zh()).replace('{mode}', d.mode).replace('{addr}', d.addr).replace('{means}', label(`mean_${d.mode}`, zh()));
    if (now.textContent !== text) now.textContent = text;
    now.dataset.mode = d.mode;
    if (!$('#f-durability').dataset.touched) $('#f-durability').value = d.mode;
  };
  const refresh = async () => {
    try { show(await getJSON('/api/queue/durability')); } catch (err) {
      now.textContent = err instanceof ApiError && err.status === 404
        ? label('durNoQueue', zh()) : `${label('durCannot', zh())}: ${err.message}`;
    }
  };
  $('#f-durability').addEventListener('change', (e) => { e.target.dataset.touched = '1'; });
  $('#durability-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const mode = $('#f-durability').value;
    const btn = $('#dur-set');
    btn.disabled = true;
    msg.className = 'msg';
    msg.textContent = `switching to ${mode}… (waits for Redis to rewrite its append-only file)`;
    try {
      // Rewriting the append-only file of a large Redis takes a while.
      show(await putJSON('/api/queue/durability', { mode }, { timeoutMs: 60_000 }));
      msg.classList.add('good');
      msg.textContent = `Switched to ${mode}.`;
      delete $('#f-durability').dataset.touched;
    } catch (err) {
      msg.classList.add('bad');
      if (err instanceof ApiError && err.status === 401) {
        msg.textContent = `${err.message}. Enter the admin token (SECKILL_ADMIN_TOKEN) and switch again.`;
        needToken();
      } else {
        msg.textContent = err instanceof ApiError ? `Refused: ${err.message}` : `Failed: ${err.message}`;
      }
    } finally {
      btn.disabled = false;
    }
  });

  const read = (path) => getJSON(path, { timeoutMs: 3000 }).catch(() => null);
  let last = { sale: null, queue: null };
  const poll = async () => {
    const s = liveSale();
    if (hasFigures(s)) {
      const [sale, queue] = await Promise.all([read(`/api/sales/${s.id}`), s.order_mode === 'async' ? read('/api/queue') : null]);
      // One failed read keeps the last figures of the same sale: no flicker.
      last = { sale: sale || (last.sale?.id === s.id ? last.sale : null), queue: queue || (s.order_mode === 'async' ? last.queue : null) };
      onFigures(last);
    }
    setTimeout(poll, 1000);
  };
  refresh();
  poll();
  return { refresh };
}
