-- A lesson run's result as a table and its progress (internal/lessons):
-- cases holds one row per sale the scenario ran (its figures from the
-- database, as JSON), sales the ids of the sales it created so far (the
-- agent reports them while the lesson runs, so that the dashboard can
-- follow them), pace the pace it was asked for ('normal' or 'class').
ALTER TABLE lesson_runs
  ADD COLUMN IF NOT EXISTS cases JSON NULL,
  ADD COLUMN IF NOT EXISTS sales JSON NULL,
  ADD COLUMN IF NOT EXISTS pace  VARCHAR(8) CHARACTER SET ascii NOT NULL DEFAULT 'normal';
