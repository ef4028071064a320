-- A class's predictions (package classroom): a session groups questions;
-- a question asks what a lesson's case (lesson, case_index, 1-based) or a
-- run the trainer set up (run_spec, the body of POST /api/runs) will do,
-- offers catalogue.Outcomes, and is revealed once: its run then starts
-- (lesson_run_id or run_id). Votes are anonymous: a phone's random id,
-- hashed, one row per phone per question, changeable until the reveal.
CREATE TABLE IF NOT EXISTS class_sessions (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title      VARCHAR(100)    NOT NULL DEFAULT '',
  created_at DATETIME(6)     NOT NULL
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS class_questions (
  id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  session_id    BIGINT UNSIGNED NOT NULL,
  lesson        VARCHAR(64)     NULL,
  case_index    INT             NOT NULL DEFAULT 0,
  run_spec      TEXT            NULL,
  setup_en      VARCHAR(500)    NOT NULL,
  setup_zh      VARCHAR(500)    NOT NULL,
  choices       TEXT            NOT NULL,
  pace          VARCHAR(8)      NOT NULL DEFAULT 'class',
  max_votes     INT             NOT NULL,
  closes_at     DATETIME(6)     NOT NULL,
  status        ENUM('open', 'revealing', 'revealed') NOT NULL DEFAULT 'open',
  revealed_at   DATETIME(6)     NULL,
  lesson_run_id BIGINT UNSIGNED NULL,
  run_id        BIGINT UNSIGNED NULL,
  created_at    DATETIME(6)     NOT NULL,
  KEY class_questions_session (session_id, id),
  CONSTRAINT class_questions_session_fk FOREIGN KEY (session_id) REFERENCES class_sessions (id) ON DELETE CASCADE
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS class_votes (
  question_id BIGINT UNSIGNED NOT NULL,
  voter       BINARY(32)      NOT NULL,
  outcome     VARCHAR(32)     NOT NULL,
  created_at  DATETIME(6)     NOT NULL,
  updated_at  DATETIME(6)     NOT NULL,
  PRIMARY KEY (question_id, voter),
  CONSTRAINT class_votes_question_fk FOREIGN KEY (question_id) REFERENCES class_questions (id) ON DELETE CASCADE
) ENGINE=InnoDB;
