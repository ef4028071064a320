-- Combining (合并请求): a sale whose orders, waiting on one replica for its
-- lock, are sold as a batch under one acquisition and one transaction
-- (internal/order's combiner). combine_max_batch bounds a batch; a holder
-- waits at most combine_max_wait_us for a batch to gather before it asks
-- for the lock.
ALTER TABLE sales
  ADD COLUMN IF NOT EXISTS combine TINYINT(1) NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS combine_max_batch INT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS combine_max_wait_us INT NOT NULL DEFAULT 0;

-- A critical section that sold a batch: the buyers it served and the orders
-- it made (both 0 for a section of one order, as before).
ALTER TABLE critical_sections
  ADD COLUMN IF NOT EXISTS batch_buyers INT NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS batch_orders INT NOT NULL DEFAULT 0;
