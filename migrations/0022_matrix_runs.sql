-- Runs of the verdict matrix (internal/matrix/matrixdb): `loadtest matrix`
-- posts its report (POST /api/matrix) and the dashboard reads the newest
-- (GET /api/matrix). report holds the whole matrix.Report as JSON, the one
-- source of what a run found; the other columns repeat what a list of runs
-- reads without parsing it: when it ran (NULL: the report has no time),
-- the commit it was built from, the machine, whether every chosen cell ran
-- and how many cells it has. created_at is the database's clock.
CREATE TABLE IF NOT EXISTS matrix_runs (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  started_at  DATETIME(3)  NULL,
  finished_at DATETIME(3)  NULL,
  commit_sha  VARCHAR(64)  NOT NULL DEFAULT '',
  machine     VARCHAR(200) NOT NULL DEFAULT '',
  complete    BOOL         NOT NULL DEFAULT FALSE,
  cells       INT          NOT NULL DEFAULT 0,
  report      JSON         NOT NULL,
  created_at  DATETIME(6)  NOT NULL DEFAULT CURRENT_TIMESTAMP(6)
) ENGINE=InnoDB;
