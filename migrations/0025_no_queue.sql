-- A redlock sale whose contenders all poll the masters themselves, without
-- the per-process queue and the backoff after a split round
-- (lockstrategy.Options.NoQueue): RedLock's herd livelock, kept for the
-- lesson redlock-herd. 0 for every other sale.
ALTER TABLE sales
  ADD COLUMN IF NOT EXISTS no_queue TINYINT(1) NOT NULL DEFAULT 0;
