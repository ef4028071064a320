-- Runs of the lessons (internal/lessons): the dashboard asks for one, a
-- load-test agent executes it against the live replicas and writes the
-- verdict back. At most one is 'running' at a time: lessons inject faults
-- into whole replicas ("the next section on this replica stalls"), so two at
-- once would spoil each other. Times come from the database's clock.
CREATE TABLE IF NOT EXISTS lesson_runs (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  lesson      VARCHAR(64)     NOT NULL,
  status      ENUM('pending', 'running', 'done') NOT NULL DEFAULT 'pending',
  verdict     VARCHAR(8)      NOT NULL DEFAULT '',
  observed    TEXT            NOT NULL,
  output      MEDIUMTEXT      NOT NULL,
  agent_id    VARCHAR(64)     NULL,
  created_at  DATETIME(6)     NOT NULL,
  started_at  DATETIME(6)     NULL,
  deadline    DATETIME(6)     NULL,
  finished_at DATETIME(6)     NULL,
  KEY lesson_runs_status (status),
  KEY lesson_runs_lesson (lesson, id)
) ENGINE=InnoDB;
