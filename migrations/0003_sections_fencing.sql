-- Exclusion-violation detection: every critical section a replica ran, with the
-- wall-clock times it held the lock. Two sections of one sale that overlap in
-- time are a violation, whatever the strategy claimed.
CREATE TABLE IF NOT EXISTS critical_sections (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sale_id     BIGINT UNSIGNED NOT NULL,
  replica_id  VARCHAR(64)     NOT NULL,
  token       BIGINT UNSIGNED NOT NULL DEFAULT 0,
  enter_at    DATETIME(6)     NOT NULL,
  exit_at     DATETIME(6)     NOT NULL,
  KEY critical_sections_sale_enter (sale_id, enter_at)
) ENGINE=InnoDB;

-- Writes of a stale fencing token, rejected and rolled back.
ALTER TABLE sales ADD COLUMN IF NOT EXISTS fenced_writes BIGINT NOT NULL DEFAULT 0;
