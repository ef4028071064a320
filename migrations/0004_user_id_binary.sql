-- User ids compare byte for byte: "Alice" and "alice " are different buyers
-- for per_user_limit and duplicates (the default collation folds case and
-- trailing spaces).
ALTER TABLE orders MODIFY user_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL;
