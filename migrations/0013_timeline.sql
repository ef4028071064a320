-- The timeline of a sale (GET /api/sales/{id}/timeline): what each critical
-- section ended in, the faults injected and healed, and the lock leases as
-- their clients saw them. NULL outcome: a section recorded before.
ALTER TABLE critical_sections
  ADD COLUMN IF NOT EXISTS order_id BIGINT UNSIGNED NULL,
  ADD COLUMN IF NOT EXISTS outcome  VARCHAR(16) CHARACTER SET ascii NULL;

-- A fault from its injection to its healing (from_at = to_at: a fault
-- without a duration, or one armed for the next section). sale_id is set
-- for the faults aimed at one sale, NULL for a whole replica's.
CREATE TABLE IF NOT EXISTS fault_events (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  kind       VARCHAR(32) CHARACTER SET ascii NOT NULL,
  replica_id VARCHAR(64) NOT NULL,
  target     VARCHAR(64) NOT NULL DEFAULT '',
  sale_id    BIGINT UNSIGNED NULL,
  from_at    DATETIME(6) NOT NULL,
  to_at      DATETIME(6) NULL,
  KEY fault_events_from (from_at)
) ENGINE=InnoDB;

-- A lock lease as its client saw it (granted with its TTL, renewed by the
-- watchdog, lost, expired, released), for the strategies that report them;
-- each replica records at most eventlog.MaxLeaseEventsPerSale rows per sale.
CREATE TABLE IF NOT EXISTS lease_events (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sale_id    BIGINT UNSIGNED NOT NULL,
  replica_id VARCHAR(64) NOT NULL,
  token      BIGINT UNSIGNED NOT NULL DEFAULT 0,
  event      VARCHAR(16) CHARACTER SET ascii NOT NULL,
  at         DATETIME(6) NOT NULL,
  ttl_ms     BIGINT NOT NULL DEFAULT 0,
  KEY lease_events_sale_at (sale_id, at)
) ENGINE=InnoDB;
