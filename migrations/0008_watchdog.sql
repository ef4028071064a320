-- Per-sale watchdog switch (issue 5/5, "TTL shorter than the work"): with
-- watchdog = 0 a strategy whose lease renews itself (redis, redlock) lets the
-- lease expire after ttl_ms even while it is held. Default on: every sale made
-- before this column existed keeps the behaviour it had.
-- A run's watchdog lives in runs.config (JSON, like its ttl_ms and fencing),
-- so the runs table needs no column.
ALTER TABLE sales ADD COLUMN IF NOT EXISTS watchdog BOOLEAN NOT NULL DEFAULT 1;
