package buyer

import "hash/fnv"

// HomeShard is the shard of n where buyer id takes its unit first when a
// sale's stock is split (stock_shards): a stable hash (FNV-1a) of the id's
// bytes, the bytes the database and Redis compare (CheckID refuses the ids
// they would fold), so one buyer always starts on one shard, whichever
// replica serves it and whichever road (a row of sale_stock_shards, a
// Redis key) the shards are.
func HomeShard(id string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(id)) // a hash.Hash never fails
	return int(h.Sum32() % uint32(n))
}
