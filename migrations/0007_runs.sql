-- Load-test runs created through POST /api/runs (issue 4): a run has one step
-- per strategy, each with its own sale, and each step's buyers are split into
-- shares that load-test agents claim and report on. Everything the run view
-- shows lives here, so results survive a restart of every replica.
-- Deadlines and report times come from the database's clock, which every
-- replica shares (like replicas.last_seen).
CREATE TABLE IF NOT EXISTS runs (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  status       ENUM('queued', 'running', 'done', 'failed') NOT NULL DEFAULT 'queued',
  config       TEXT            NOT NULL,
  targets      TEXT            NOT NULL,
  current_step INT             NOT NULL DEFAULT 0,
  error        VARCHAR(255)    NOT NULL DEFAULT '',
  created_at   DATETIME(6)     NOT NULL,
  started_at   DATETIME(6)     NULL,
  finished_at  DATETIME(6)     NULL,
  KEY runs_status (status)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS run_steps (
  run_id      BIGINT UNSIGNED NOT NULL,
  step        INT             NOT NULL,
  strategy    VARCHAR(64)     NOT NULL,
  status      ENUM('pending', 'running', 'done') NOT NULL DEFAULT 'pending',
  sale_id     BIGINT UNSIGNED NULL,
  buyers      INT             NOT NULL,
  started_at  DATETIME(6)     NULL,
  deadline    DATETIME(6)     NULL,
  finished_at DATETIME(6)     NULL,
  PRIMARY KEY (run_id, step)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS run_shares (
  run_id      BIGINT UNSIGNED NOT NULL,
  step        INT             NOT NULL,
  share       INT             NOT NULL,
  buyers      INT             NOT NULL,
  user_prefix VARCHAR(32)     NOT NULL,
  agent_id    VARCHAR(64)     NULL,
  claimed_at  DATETIME(6)     NULL,
  reported_at DATETIME(6)     NULL,
  done        BOOLEAN         NOT NULL DEFAULT FALSE,
  requests    BIGINT          NOT NULL DEFAULT 0,
  orders      BIGINT          NOT NULL DEFAULT 0,
  sold_out    BIGINT          NOT NULL DEFAULT 0,
  errors      TEXT            NOT NULL,
  elapsed_ms  BIGINT          NOT NULL DEFAULT 0,
  histogram   MEDIUMTEXT      NOT NULL,
  PRIMARY KEY (run_id, step, share),
  KEY run_shares_agent (agent_id)
) ENGINE=InnoDB;
