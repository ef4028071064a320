package redislock

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/lockstrategy/locktest"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// shape is the reply layout a queue script promises (luaPrelude): its
// length, and what each element must be.
type shape struct {
	result  int64  // -1: any positive token
	localID string // the local waiter handed the lock, or ""
	tok     bool   // the local token is positive (else 0)
	age     bool   // a fourth element, a non-negative age in ms
}

// checkReply fails unless v has the layout s: 3 or 4 elements, integers
// and a string where parseQueueReply reads them.
func checkReply(t *testing.T, what string, v []any, s shape) {
	t.Helper()
	want := 3
	if s.age {
		want = 4
	}
	if len(v) != want {
		t.Fatalf("%s: reply %v has %d elements, want %d", what, v, len(v), want)
	}
	res, ok1 := v[0].(int64)
	id, ok2 := v[1].(string)
	tok, ok3 := v[2].(int64)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("%s: reply %v is %T %T %T, want integer, string, integer", what, v, v[0], v[1], v[2])
	}
	switch {
	case s.result == -1 && res <= 0, s.result != -1 && res != s.result:
		t.Errorf("%s: result %d, want %s", what, res, describe(s.result))
	case id != s.localID:
		t.Errorf("%s: local id %q, want %q", what, id, s.localID)
	case s.tok != (tok > 0):
		t.Errorf("%s: local token %d, want positive=%v", what, tok, s.tok)
	}
	if s.age {
		if age, ok := v[3].(int64); !ok || age < 0 {
			t.Errorf("%s: age %v (%T), want a non-negative integer", what, v[3], v[3])
		}
	}
}

func describe(result int64) string {
	if result == -1 {
		return "a positive token"
	}
	return fmt.Sprint(result)
}

// Every script of the `redis` strategy, run against the real Redis in its
// normal and refusal cases, replies with the layout its Go reader expects.
func TestScriptReplyShapes(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	key := locktest.RedisKey(t, rdb)
	l := New(rdb, lockstrategy.Options{TTL: 5 * time.Second})
	k := keysOf(key)
	a, b := holderID(l.proc, l.ttl), holderID(l.proc, l.ttl)
	run := func(what string, s *redis.Script, id string, want shape) queueReply {
		t.Helper()
		v, err := l.runQueueRaw(ctx, s, k, id)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkReply(t, what, v, want)
		r, err := parseQueueReply(v)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return r
	}

	run("acquire, lock free", acquireScript, a, shape{result: -1})
	run("acquire again by its holder", acquireScript, a, shape{result: -1})
	run("acquire, lock held: queued", acquireScript, b, shape{result: 0})
	run("requeue of a queued waiter", requeueScript, b, shape{result: 0})
	run("poll, lock held by a local id", pollScript, "", shape{result: 1, localID: a, tok: true, age: true})
	run("release by a non-holder", releaseScript, b, shape{result: 0})
	r := run("release with a local waiter", releaseScript, a, shape{result: 2, localID: b, tok: true})
	run("requeue of the new holder", requeueScript, b, shape{result: int64(r.localTok), age: true})
	run("leave by a waiter not holding", leaveScript, a, shape{result: 0})

	for _, tc := range []struct {
		what string
		id   string
		want int64
	}{{"renew by the holder", b, 1}, {"renew by a non-holder", a, 0}} {
		v, err := renewScript.Run(ctx, rdb, []string{k.lock}, tc.id, l.ttl.Milliseconds()).Result()
		if n, ok := v.(int64); err != nil || !ok || n != tc.want {
			t.Errorf("%s: reply %v (%T), err %v; want the integer %d", tc.what, v, v, err, tc.want)
		}
	}

	run("leave by the holder", leaveScript, b, shape{result: 1})
	run("release of a free lock", releaseScript, b, shape{result: 0})
	run("poll, lock free, queue empty", pollScript, "", shape{result: 1})
}
