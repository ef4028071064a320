-- db-lock-table's fencing tokens: one counter per lock key, bumped by each new
-- holder while it holds the lock. (lock_table's auto-increment id is not
-- monotonic in acquisition order: InnoDB allocates it before an INSERT waits
-- on the unique key, so a waiter can win with an older id.)
CREATE TABLE IF NOT EXISTS lock_fences (
  lock_key VARCHAR(191)    NOT NULL PRIMARY KEY,
  n        BIGINT UNSIGNED NOT NULL
) ENGINE=InnoDB;
