package guard

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// Through Redis the limit is cluster-wide: two limiters (two replicas) over
// one Redis share the budget of a user; another user and another IP have
// budgets of their own. Refusals say when to come back.
func TestRateLimitIsClusterWide(t *testing.T) {
	rdb := testenv.Redis(t)
	keyspace := fmt.Sprintf("guard_test_%d", time.Now().UnixNano())
	a, b := NewLimiter(rdb, keyspace), NewLimiter(rdb, keyspace)
	ctx := context.Background()
	sale := inventory.Sale{ID: 1, RateLimitUser: 4}
	allowed := 0
	var refused *RateLimitedError
	start := time.Now()
	for i := 0; i < 10 || refused == nil && i < 1000; i++ { // ten, and on until one is refused
		l := a
		if i%2 == 1 {
			l = b
		}
		switch err := l.Check(ctx, sale, "alice", "10.0.0.1"); {
		case err == nil:
			allowed++
		case errors.As(err, &refused):
		default:
			t.Fatalf("check %d: %v", i, err)
		}
	}
	// GCRA lets the burst (4) through at once, then one per 250 ms: a slow
	// machine that took longer over the loop earns more, never more than that.
	if most := 4 + int(time.Since(start)/(250*time.Millisecond)); allowed < 4 || allowed > most {
		t.Fatalf("allowed %d requests of one user at 4/s over two replicas, want 4 to %d", allowed, most)
	}
	if refused == nil || refused.Limit != "user" || refused.RetryAfter <= 0 || refused.RetryAfterSeconds() != 1 {
		t.Fatalf("refusal %+v: want the user limit and a wait", refused)
	}
	if err := a.Check(ctx, sale, "bob", "10.0.0.1"); err != nil {
		t.Fatalf("another user shares alice's budget: %v", err)
	}
	if a.Fallbacks() != 0 || b.Fallbacks() != 0 {
		t.Fatal("a live Redis answered, yet the local limiters were used")
	}

	// Many users behind one IP share the IP's budget.
	ipSale := inventory.Sale{ID: 2, RateLimitIP: 2}
	refused, allowed, start = nil, 0, time.Now()
	for i := 0; refused == nil && i < 1000; i++ {
		switch err := []*Limiter{a, b}[i%2].Check(ctx, ipSale, fmt.Sprintf("u%d", i), "10.0.0.2"); {
		case err == nil:
			allowed++
		case !errors.As(err, &refused) || refused.Limit != "ip":
			t.Fatalf("request %d of one IP: %v, want the ip limit", i, err)
		}
	}
	if most := 2 + int(time.Since(start)/(500*time.Millisecond)); refused == nil || allowed < 2 || allowed > most {
		t.Fatalf("one IP at 2/s: %d allowed before a refusal (%v), want 2 to %d", allowed, refused, most)
	}
	if err := b.Check(ctx, ipSale, "u9", "10.0.0.3"); err != nil {
		t.Fatalf("another IP: %v", err)
	}
	if err := a.Check(ctx, inventory.Sale{ID: 3}, "alice", "10.0.0.1"); err != nil {
		t.Fatalf("a sale without limits: %v", err)
	}
}

// With Redis down, each replica limits on its own, and says so in its count.
func TestRateLimitFallsBackWhenRedisIsDown(t *testing.T) {
	testenv.SkipInShort(t)
	dead := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { dead.Close() })
	l := NewLimiter(dead, "guard_test_down")
	sale := inventory.Sale{ID: 1, RateLimitUser: 3}
	allowed := 0
	start := time.Now()
	for range 10 {
		if err := l.Check(context.Background(), sale, "alice", ""); err == nil {
			allowed++
		} else if !errors.Is(err, ErrRateLimited) {
			t.Fatalf("with Redis down: %v, want a local answer", err)
		}
	}
	if most := 3 + int(time.Since(start)/(time.Second/3)); allowed < 3 || allowed > most {
		t.Fatalf("allowed %d of 10 at 3/s with the local limiter, want 3 to %d", allowed, most)
	}
	if l.Fallbacks() != 10 {
		t.Fatalf("%d checks counted as answered locally, want 10", l.Fallbacks())
	}
}

// A shop-wide limit per client IP (the order routes' limit) is
// cluster-wide too, has a budget per scope and per IP, and shares nothing
// with a sale's own IP limit; 0 per second is no limit.
func TestClientLimit(t *testing.T) {
	rdb := testenv.Redis(t)
	keyspace := fmt.Sprintf("guard_test_%d", time.Now().UnixNano())
	a, b := NewLimiter(rdb, keyspace), NewLimiter(rdb, keyspace)
	ctx := context.Background()
	var refused *RateLimitedError
	allowed, start := 0, time.Now()
	for i := 0; refused == nil && i < 1000; i++ {
		switch err := []*Limiter{a, b}[i%2].CheckClient(ctx, "orders", 2, "10.0.0.1"); {
		case err == nil:
			allowed++
		case !errors.As(err, &refused) || refused.Limit != "ip":
			t.Fatalf("request %d: %v, want the ip limit", i, err)
		}
	}
	if most := 2 + int(time.Since(start)/(500*time.Millisecond)); refused == nil || allowed < 2 || allowed > most {
		t.Fatalf("one IP at 2/s over two replicas: %d allowed before a refusal (%v), want 2 to %d", allowed, refused, most)
	}
	if refused.RetryAfter <= 0 || !errors.Is(refused, ErrRateLimited) {
		t.Fatalf("refusal %+v: want a wait", refused)
	}
	for name, check := range map[string]func() error{
		"another IP":            func() error { return a.CheckClient(ctx, "orders", 2, "10.0.0.2") },
		"another scope":         func() error { return a.CheckClient(ctx, "other", 2, "10.0.0.1") },
		"no limit":              func() error { return a.CheckClient(ctx, "orders", 0, "10.0.0.1") },
		"a sale's own IP limit": func() error { return a.Check(ctx, inventory.Sale{ID: 1, RateLimitIP: 2}, "u", "10.0.0.1") },
	} {
		if err := check(); err != nil {
			t.Errorf("%s shares the exhausted budget: %v", name, err)
		}
	}
	var none *Limiter
	if err := none.CheckClient(ctx, "orders", 2, "10.0.0.1"); err != nil {
		t.Fatalf("no limiter: %v", err)
	}
}
