-- Replica discovery (replicas find each other through the shared
-- store, never through hard-coded lists). Every shop replica and load-test
-- agent upserts its row once a second; a row whose last_seen is older than the
-- expiry (5 s) belongs to a dead process. Both times come from the database's
-- clock (UTC_TIMESTAMP(6)), never a replica's, so that replicas whose clocks
-- disagree still agree on who is alive.
CREATE TABLE IF NOT EXISTS replicas (
  id          VARCHAR(64)            NOT NULL PRIMARY KEY,
  kind        ENUM('shop', 'agent')  NOT NULL,
  url         VARCHAR(255)           NOT NULL DEFAULT '',
  pid         INT UNSIGNED           NOT NULL DEFAULT 0,
  started_at  DATETIME(6)            NOT NULL,
  last_seen   DATETIME(6)            NOT NULL,
  KEY replicas_last_seen (last_seen)
) ENGINE=InnoDB;
