-- What a sale sells, as the shop page headlines it ("Mechanical keyboard").
-- Empty: the page says "Flash sale #ID" / "秒杀商品 #ID" in the reader's
-- language. Bounded like name (internal/sale.MaxProductLen).
ALTER TABLE sales
  ADD COLUMN IF NOT EXISTS product VARCHAR(100) NOT NULL DEFAULT '';
