// The Herd panel's figures, from GET /api/sales/:id/herd: the time to sell
// out, the first second after the opening and the answers per layer, as
// texts and bar widths. Pure: herd.js draws what this returns.
import { addLabels } from './i18n.js';
import { fmt } from './dom.js';

// The layers in the order a request meets them (internal/herd.Layers).
export const HERD_LAYERS = ['opening', 'ticket', 'rate_limit', 'idempotency', 'sold_out_cache', 'lock', 'database', 'store', 'queue'];

addLabels({
  herdTitle: ['The herd', '抢购洪峰'],
  herdSale: ['sale', '秒杀'],
  herdNone: ['No sale yet: start a run and the herd shows here.', '还没有秒杀：发起压测后抢购洪峰在这里显示。'],
  herdSellOut: ['Sold out in', '售罄用时'],
  herdNotSoldOut: ['not sold out', '尚未售罄'],
  herdFromOpening: ['from the opening', '从开售算起'],
  herdFromFirst: ['first to last unit', '首单到末单'],
  herdFirstSecond: ['First second', '开售第一秒'],
  herdAnswers: ['answers, of them', '次应答，其中'],
  herdOrders: ['orders (201)', '成交（201）'],
  herdSoldOutAnswers: ['sold out', '售罄应答'],
  herdLatency: ['Answer time p50 / p99', '响应耗时 p50 / p99'],
  herdLayers: ['Who answered', '由哪一层应答'],
  herdLayersNone: ['No answers counted yet.', '尚未统计到应答。'],
  herdL_opening: ['not open yet', '未开售'],
  herdL_ticket: ['ticket', '购买凭证'],
  herdL_rate_limit: ['rate limit', '限流'],
  herdL_idempotency: ['idempotency', '幂等重放'],
  herdL_sold_out_cache: ['sold-out cache', '售罄缓存'],
  herdL_lock: ['lock', '锁'],
  herdL_database: ['database', '数据库'],
  herdL_store: ['Redis stock', 'Redis 库存'],
  herdL_queue: ['queue', '队列'],
});

/** duration is ms for people: "435 ms" under a second, "1.24 s" above. */
export function duration(msValue) {
  if (msValue === null || msValue === undefined || Number.isNaN(msValue)) return '–';
  if (msValue < 1) return `${Math.max(1, Math.round(msValue * 1000))} µs`; // the sold-out cache answers in microseconds
  if (msValue < 1000) return `${fmt(msValue, msValue < 10 ? 1 : 0)} ms`;
  return `${fmt(msValue / 1000, 2)} s`;
}

/** layerRows are bars: the label key, the count and percent as text, and the width in percent of the largest. */
function layerRows(layers) {
  const list = layers || [];
  const top = Math.max(1, ...list.map((l) => l.count));
  return list.map((l) => ({
    layer: l.layer,
    key: HERD_LAYERS.includes(l.layer) ? `herdL_${l.layer}` : null,
    text: `${fmt(l.count)} · ${fmt(l.percent, 1)}%`,
    width: Math.max(1, Math.round((l.count / top) * 100)),
  }));
}

/**
 * herdModel is what the panel shows of view (null: no sale yet): the
 * sell-out time (null when not sold out), the first second and the bars.
 */
export function herdModel(view) {
  if (!view) return null;
  const fs = view.first_second || {};
  return {
    saleId: view.sale_id,
    sellOut: view.sold_out && view.sell_out_ms !== null ? duration(view.sell_out_ms) : null,
    fromFirst: view.sold_out && view.sell_out_from_first_ms !== null ? duration(view.sell_out_from_first_ms) : null,
    first: {
      answers: fmt(fs.answers || 0),
      orders: fmt(fs.orders || 0),
      soldOut: fmt(fs.sold_out || 0),
      latency: fs.answers ? `${duration(fs.p50_ms)} / ${duration(fs.p99_ms)}` : '–',
    },
    layers: layerRows(view.layers),
  };
}
