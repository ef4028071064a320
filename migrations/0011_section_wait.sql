-- When each critical section's buyer asked for the lock: a release with a
-- buyer already waiting is a hand-over, whose gap is part of the lock's
-- physical limit (sectionlog.Cycle). NULL for sections recorded before.
ALTER TABLE critical_sections ADD COLUMN IF NOT EXISTS wait_at DATETIME(6) NULL AFTER token;
