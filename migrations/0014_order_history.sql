-- Every order request the shop's order flow answered, from its arrival to its
-- answer (order.Service.Buy): the history the linearizability check reads
-- (internal/history). outcome: ok (order_id set), sold_out, refused (a
-- definite no: limit, lock timeout, fenced...), unknown (5xx, timeout, the
-- buyer gone: it may or may not have happened), or capped (a marker: this
-- replica stopped recording the sale at its cap, the history is incomplete).
CREATE TABLE IF NOT EXISTS order_history (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sale_id    BIGINT UNSIGNED NOT NULL,
  replica_id VARCHAR(64) NOT NULL,
  call_at    DATETIME(6) NOT NULL,
  return_at  DATETIME(6) NOT NULL,
  outcome    VARCHAR(16) CHARACTER SET ascii NOT NULL,
  order_id   BIGINT UNSIGNED NULL,
  KEY order_history_sale (sale_id, call_at)
) ENGINE=InnoDB;
