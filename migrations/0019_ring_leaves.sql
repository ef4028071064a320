-- The consistent-hash ring's departures (internal/hashring): a replica in
-- this table until `until` (the database's clock) is out of the others'
-- rings although its heartbeat goes on, as a replica a deploy drains. The
-- stale_ring fault writes it; the replica's own view stays stale meanwhile.
CREATE TABLE IF NOT EXISTS ring_leaves (
  replica_id VARCHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  until      DATETIME(6) NOT NULL
);
