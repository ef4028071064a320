-- The per-user limit of 1 at the database's price: on the roads that sell
-- with no lock (db-conditional, db-optimistic), an order of a sale whose
-- per_user_limit is 1 carries its buyer in limit_one_user_id, and the unique
-- key below makes the order's own INSERT the check (a second order of the
-- buyer is a duplicate key: limit_reached), with no count read in the
-- transaction. Every other order leaves it NULL, which the key ignores: the
-- strategies that oversell under a lock that does not exclude still record
-- every order they made, duplicates included (they are a measured outcome).
-- Same type and collation as user_id: the key folds exactly what
-- GROUP BY user_id and the idempotency key fold.
ALTER TABLE orders
  ADD COLUMN IF NOT EXISTS limit_one_user_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL;

-- Existing data: the first order of each buyer of each sale with a limit of
-- 1 carries the key, so that an open sale goes on being checked; the later
-- orders of the same buyer (what an unsafe strategy let through) keep NULL
-- and do not stop the key from being built.
UPDATE orders o
  JOIN (SELECT MIN(f.id) AS id FROM orders f JOIN sales s ON s.id = f.sale_id AND s.per_user_limit = 1
        GROUP BY f.sale_id, f.user_id) firsts ON firsts.id = o.id
  SET o.limit_one_user_id = o.user_id
  WHERE o.limit_one_user_id IS NULL;

CREATE UNIQUE INDEX IF NOT EXISTS orders_limit_one ON orders (sale_id, limit_one_user_id);
