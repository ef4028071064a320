-- Orders through a queue, and reservations.
-- A sale's order mode: sync answers 201 with the order; async (a strategy
-- whose stock lives in Redis) takes the unit and queues the order in one
-- script and answers 202 with an order ticket. pay_within_ms > 0 makes every
-- order a reservation that must be paid before pay_by. drift is the last
-- reconciliation's result (Redis stock + in flight vs the database).
ALTER TABLE sales
  ADD COLUMN IF NOT EXISTS order_mode    VARCHAR(8) CHARACTER SET ascii NOT NULL DEFAULT 'sync',
  ADD COLUMN IF NOT EXISTS pay_within_ms INT         NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS drift         BIGINT      NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS reconciled_at DATETIME(6) NULL;

-- An order's life: reserved -> paid, or reserved -> expired (its unit goes
-- back to the sale; unit_returned says the strategy's own store has it back
-- too). Orders made without a reservation are paid at once. order_ticket is
-- the ticket of the unit taken in Redis (both modes of redis-lua-stock): the
-- unique key makes a redelivered queue entry unable to make a second order.
-- accepted_at is when Redis took the unit (its clock).
ALTER TABLE orders
  ADD COLUMN IF NOT EXISTS status        VARCHAR(8) CHARACTER SET ascii NOT NULL DEFAULT 'paid',
  ADD COLUMN IF NOT EXISTS pay_by        DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS paid_at       DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS expired_at    DATETIME(6) NULL,
  ADD COLUMN IF NOT EXISTS unit_returned BOOLEAN     NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS order_ticket  VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD COLUMN IF NOT EXISTS accepted_at   DATETIME(6) NULL;
CREATE UNIQUE INDEX IF NOT EXISTS orders_ticket ON orders (order_ticket);
CREATE INDEX IF NOT EXISTS orders_due ON orders (status, pay_by);
CREATE INDEX IF NOT EXISTS orders_accepted ON orders (sale_id, accepted_at);

-- Tickets whose order could not be made (sold out in the database, the
-- buyer's limit, a repeated idempotency key): settled, with the reason, and
-- the unit given back in Redis where it existed.
CREATE TABLE IF NOT EXISTS ticket_failures (
  order_ticket VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
  sale_id      BIGINT UNSIGNED NOT NULL,
  user_id      VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  reason       VARCHAR(32) NOT NULL,
  accepted_at  DATETIME(6) NULL,
  failed_at    DATETIME(6) NOT NULL,
  KEY ticket_failures_sale (sale_id)
) ENGINE=InnoDB;
