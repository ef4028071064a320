-- Sales, orders, and the tables the DB lock strategies need.
CREATE TABLE IF NOT EXISTS sales (
  id              BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name            VARCHAR(100)    NOT NULL,
  strategy        VARCHAR(64)     NOT NULL,
  initial_stock   BIGINT          NOT NULL,
  stock           BIGINT          NOT NULL,
  -- version: bumped by every CAS write (db-optimistic).
  version         BIGINT          NOT NULL DEFAULT 0,
  -- fence: the newest fencing token that wrote the stock (fencing on).
  fence           BIGINT UNSIGNED NOT NULL DEFAULT 0,
  work_ms         INT             NOT NULL DEFAULT 0,
  ttl_ms          INT             NOT NULL DEFAULT 2000,
  fencing         BOOLEAN         NOT NULL DEFAULT FALSE,
  per_user_limit  INT             NOT NULL DEFAULT 1,
  status          VARCHAR(16)     NOT NULL DEFAULT 'open',
  created_at      DATETIME(6)     NOT NULL,
  updated_at      DATETIME(6)     NOT NULL
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS orders (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  sale_id      BIGINT UNSIGNED NOT NULL,
  user_id      VARCHAR(64)     NOT NULL,
  replica_id   VARCHAR(64)     NOT NULL,
  fence_token  BIGINT UNSIGNED NOT NULL DEFAULT 0,
  created_at   DATETIME(6)     NOT NULL,
  -- Not unique on purpose: duplicates are a measured outcome, not prevented here.
  KEY orders_sale_user (sale_id, user_id)
) ENGINE=InnoDB;

-- db-pessimistic: one row per lock key, held with SELECT ... FOR UPDATE.
CREATE TABLE IF NOT EXISTS lock_rows (
  name VARCHAR(191) NOT NULL PRIMARY KEY
) ENGINE=InnoDB;

-- db-lock-table: holding the lock = owning the row with this unique key.
-- id (auto-increment) is the fencing token: every acquisition gets a larger one.
CREATE TABLE IF NOT EXISTS lock_table (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  lock_key    VARCHAR(191)    NOT NULL,
  owner       VARCHAR(64)     NOT NULL,
  expires_at  DATETIME(6)     NOT NULL,
  UNIQUE KEY lock_table_key (lock_key)
) ENGINE=InnoDB;
