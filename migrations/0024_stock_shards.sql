-- Split stock (库存分段): a sale's stock split into stock_shards rows, so
-- that as many buyers hold a row lock at once. Shard 0 is the sale's own
-- sales.stock (a sale of one shard is exactly what it was before); shards
-- 1..stock_shards-1 are rows of sale_stock_shards. The sale's stock is the
-- sum of its shards (inventory's stock.go is the one place that sums it).
ALTER TABLE sales
  ADD COLUMN IF NOT EXISTS stock_shards INT NOT NULL DEFAULT 1;

CREATE TABLE IF NOT EXISTS sale_stock_shards (
  sale_id BIGINT UNSIGNED NOT NULL,
  shard   INT             NOT NULL,
  stock   BIGINT          NOT NULL,
  -- sold: the units this shard sold; moved_in: those of them sold to
  -- buyers whose home shard was empty and who moved on to this one (the
  -- remainder gathered at the end). The lesson's per-shard figures.
  sold     BIGINT NOT NULL DEFAULT 0,
  moved_in BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (sale_id, shard)
) ENGINE=InnoDB;
