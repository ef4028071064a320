package hashring

import (
	"fmt"
	"testing"
)

func members(ids ...string) []Member {
	var out []Member
	for _, id := range ids {
		out = append(out, Member{ID: id, URL: "http://" + id})
	}
	return out
}

func TestOwnerIsTheSameForTheSameMembersInAnyOrder(t *testing.T) {
	a, b := New(members("shop-1", "shop-2", "shop-3")), New(members("shop-3", "shop-1", "shop-2"))
	for i := 0; i < 200; i++ {
		key := fmt.Sprintf("sale:%d", i)
		oa, _ := a.Owner(key)
		ob, _ := b.Owner(key)
		if oa != ob {
			t.Fatalf("%s: owner %s in one order, %s in another", key, oa.ID, ob.ID)
		}
	}
}

// A member that joins takes keys only for itself: every key that changes
// owner moves to the newcomer (the point of consistent hashing), and it
// takes about its share.
func TestJoinMovesKeysOnlyToTheNewcomer(t *testing.T) {
	before, after := New(members("shop-1", "shop-2")), New(members("shop-1", "shop-2", "shop-3"))
	moved := 0
	const keys = 3000
	for i := 0; i < keys; i++ {
		key := fmt.Sprintf("seckill:lock:sale:%d", i)
		ob, _ := before.Owner(key)
		oa, _ := after.Owner(key)
		if ob != oa {
			moved++
			if oa.ID != "shop-3" {
				t.Fatalf("%s moved from %s to %s, not to the newcomer", key, ob.ID, oa.ID)
			}
		}
	}
	if moved < keys/6 || moved > keys/2 {
		t.Fatalf("%d of %d keys moved to the third member; want about a third", moved, keys)
	}
}

func TestEmptyRingOwnsNothing(t *testing.T) {
	if _, ok := New(nil).Owner("k"); ok {
		t.Fatal("an empty ring named an owner")
	}
}

// Consecutive sales spread over the members: their keys differ only in
// the last digits, which a weak hash maps next to each other on the ring.
func TestConsecutiveSalesSpread(t *testing.T) {
	r := New(members("shop-1", "shop-2"))
	owned := map[string]int{}
	for id := 1; id <= 40; id++ {
		o, _ := r.Owner(fmt.Sprintf("seckill:sale:%d", id))
		owned[o.ID]++
	}
	if owned["shop-1"] < 10 || owned["shop-2"] < 10 {
		t.Fatalf("sales 1-40 on two members: %v; want each to own at least a quarter", owned)
	}
}
