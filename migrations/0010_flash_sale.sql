-- The flash sale's guards, per sale: the opening (orders before it are
-- refused without touching a lock or this database), the sold-out cache
-- (on by default), rate limits per user and per client IP (requests per
-- second, 0 = off) and purchase tickets. Sales made before these columns
-- existed open at once, keep no limits and need no ticket, as before.
ALTER TABLE sales
  ADD COLUMN IF NOT EXISTS opens_at        DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS sold_out_cache  BOOLEAN     NOT NULL DEFAULT 1,
  ADD COLUMN IF NOT EXISTS rate_limit_user INT         NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS rate_limit_ip   INT         NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS ticket_required BOOLEAN     NOT NULL DEFAULT 0;
UPDATE sales SET opens_at = created_at WHERE opens_at IS NULL;
ALTER TABLE sales MODIFY opens_at DATETIME(6) NOT NULL;

-- A buyer's Idempotency-Key, kept with the order it made: the unique key
-- makes a retried request unable to insert a second order, whatever path
-- it took (no key: NULL, and NULLs never collide, so duplicates without a
-- key stay a measured outcome).
ALTER TABLE orders
  ADD COLUMN IF NOT EXISTS idempotency_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL;
CREATE UNIQUE INDEX IF NOT EXISTS orders_idempotency ON orders (sale_id, user_id, idempotency_key);

-- Settings shared by every replica, made once by whichever starts first:
-- the secret that signs purchase tickets, so a ticket one replica issued
-- is valid on all of them.
CREATE TABLE IF NOT EXISTS settings (
  name  VARCHAR(64)  NOT NULL PRIMARY KEY,
  value VARCHAR(255) NOT NULL
) ENGINE=InnoDB;
