-- What a class-paced lesson shows next (internal/lessons Next): during the
-- pause between two cases the agent reports the sentence, in English and
-- Chinese, and when the next case starts, as JSON {"en", "zh", "at"}, so
-- that every replica's dashboard says it while the run runs. NULL when
-- there is none; a finished run's is cleared.
ALTER TABLE lesson_runs
  ADD COLUMN IF NOT EXISTS next JSON NULL;
