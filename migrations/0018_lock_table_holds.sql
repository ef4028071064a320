-- db-lock-table is reentrant (seed 004's memo column "可用来支持重入特性,
-- 标记下当前加锁的client和加锁次数"): holds counts the nested holds of the row's
-- owner (a process and the holder its ctx names); the last Unlock deletes the
-- row. db-lock-table-plain, the teaching variant without the count, leaves it 1.
ALTER TABLE lock_table
  ADD COLUMN IF NOT EXISTS holds INT UNSIGNED NOT NULL DEFAULT 1;
