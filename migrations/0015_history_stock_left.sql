-- The stock an order's write left, where the order flow knows it: the
-- read-modify-write paths (under a lock, fenced, or a CAS) write the stock
-- they read minus one. Two orders that left the same stock are a lost
-- update, which the linearizability check (internal/history) then sees.
-- NULL where the write is a conditional decrement (the database computes
-- the stock) or for any answer that made no order.
ALTER TABLE order_history
  ADD COLUMN IF NOT EXISTS stock_left BIGINT NULL;
