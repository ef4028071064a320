package buyer

import "testing"

// HomeShard is FNV-1a of the id's bytes (values computed outside Go): pinned, so that a change of hash
// (which would move every buyer of a running sale to another shard) is
// seen; in range; and one shard for n <= 1.
func TestHomeShardIsStableAndInRange(t *testing.T) {
	for _, c := range []struct {
		id   string
		n    int
		want int
	}{{"alice", 8, 7}, {"bob", 8, 4}, {"用户-1", 8, 7}, {"alice", 1, 0}, {"alice", 0, 0}} { // FNV-1a 32 of the UTF-8 bytes, mod 8
		if got := HomeShard(c.id, c.n); got != c.want {
			t.Errorf("HomeShard(%q, %d) = %d, want %d", c.id, c.n, got, c.want)
		}
	}
	seen := map[int]int{}
	for i := range 8000 {
		s := HomeShard("buyer-"+string(rune('a'+i%26))+string(rune('0'+i%10))+string(rune(i)), 8)
		if s < 0 || s >= 8 {
			t.Fatalf("shard %d out of 0..7", s)
		}
		seen[s]++
	}
	if len(seen) != 8 {
		t.Errorf("8000 ids reached %d shards of 8: %v", len(seen), seen)
	}
}
