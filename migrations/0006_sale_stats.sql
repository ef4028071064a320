-- Live server-side figures per sale (issue 4, "live numbers"). Every shop
-- replica upserts one row per sale it served, once a second, holding its
-- CUMULATIVE HDR histograms and counters (internal/metrics/live_publish.go).
-- Readers merge the raw histograms of all rows, never averaged percentiles.
-- A row is a replica's whole history of the sale, so a replica that has died
-- keeps counting in the totals; updated_at (database clock, like replicas)
-- says how fresh each row is. No foreign key: stats are written on the hot
-- path's side and must never block or fail because of the sales table.
CREATE TABLE IF NOT EXISTS sale_stats (
  sale_id     BIGINT UNSIGNED  NOT NULL,
  replica_id  VARCHAR(64)      NOT NULL,
  updated_at  DATETIME(6)      NOT NULL,
  payload     MEDIUMBLOB       NOT NULL,
  PRIMARY KEY (sale_id, replica_id)
) ENGINE=InnoDB;
