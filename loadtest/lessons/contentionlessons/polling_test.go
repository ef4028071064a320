package contentionlessons

import (
	"maps"
	"strings"
	"testing"
)

// The verdict of polling-vs-subscribe passes only when, on the 30 ms herd,
// polling sent Redis the most lock commands per acquisition and ZooKeeper's
// waiters were woken by watches, at most one per node deleted, and every
// side of both herds sold exactly: each broken condition fails it.
func TestWaitingVerdictOnlyWhenItsMechanismsShow(t *testing.T) {
	poll := waitSide{strategy: "redis-no-owner", workMS: 30, orders: 48, requests: map[string]int64{"set": 2000, "getdel": 48}}
	sub := waitSide{strategy: "redisson", workMS: 30, orders: 48, requests: map[string]int64{"evalsha": 230, "psubscribe": 2}}
	fifo := waitSide{strategy: "redis", workMS: 30, orders: 48, requests: map[string]int64{"evalsha": 130, "blpop": 28}}
	zk := waitSide{strategy: "zookeeper", workMS: 30, zk: true, orders: 48, wakeups: 47,
		requests: map[string]int64{"create": 48, "getChildren": 95, "getData": 47, "exists": 48, "delete": 48, "ping": 4}}
	short := []waitSide{
		{strategy: "redis-no-owner", workMS: 5, orders: 48, requests: map[string]int64{"set": 150, "getdel": 48}},
		{strategy: "redisson", workMS: 5, orders: 48, requests: map[string]int64{"evalsha": 200}},
	}
	if ok, why := waitingVerdict(poll, sub, fifo, zk, short); !ok {
		t.Fatalf("the evidence failed: %s", why)
	}
	for _, tc := range []struct {
		name   string
		change func(p, s, f, z *waitSide, short []waitSide)
		why    string
	}{
		{"pub/sub as dear", func(p, s, f, z *waitSide, _ []waitSide) { s.requests["evalsha"] = 2046 }, "no dearer than redisson"},
		{"FIFO dearer", func(p, s, f, z *waitSide, _ []waitSide) { f.requests["blpop"] = 3000 }, "no dearer than redis"},
		{"nothing sold", func(p, s, f, z *waitSide, _ []waitSide) { p.orders = 0 }, "sold nothing"},
		{"an overlap", func(p, s, f, z *waitSide, _ []waitSide) { f.view.Violations = 1 }, "redis (30 ms of work) broke"},
		{"zookeeper sold nothing", func(p, s, f, z *waitSide, _ []waitSide) { z.orders = 0 }, "zookeeper (30 ms of work) sold nothing"},
		{"zookeeper oversold", func(p, s, f, z *waitSide, _ []waitSide) { z.view.Oversold = 1 }, "zookeeper (30 ms of work) broke"},
		{"no waiter woken", func(p, s, f, z *waitSide, _ []waitSide) { z.wakeups = 0 }, "none waited"},
		{"a herd woken", func(p, s, f, z *waitSide, _ []waitSide) { z.wakeups = 48 * 47 / 2 }, "woke more than the waiter behind it"},
		{"short herd sold nothing", func(p, s, f, z *waitSide, short []waitSide) { short[1].orders = 0 }, "redisson (5 ms of work) sold nothing"},
		{"short herd lost an update", func(p, s, f, z *waitSide, short []waitSide) { short[0].view.LostUpdates = 2 }, "redis-no-owner (5 ms of work) broke"},
	} {
		p, s, f, z := poll, sub, fifo, zk
		for _, w := range []*waitSide{&p, &s, &f, &z} {
			w.requests = maps.Clone(w.requests)
		}
		sh := append([]waitSide(nil), short...)
		tc.change(&p, &s, &f, &z, sh)
		ok, why := waitingVerdict(p, s, f, z, sh)
		if ok || !strings.Contains(why, tc.why) {
			t.Errorf("%s: ok %v, why %q; want a failure naming %q", tc.name, ok, why, tc.why)
		}
	}
}

// The short herd is not judged on cost: polling cheaper there still passes.
func TestWaitingVerdictDoesNotJudgeTheShortHerdsCost(t *testing.T) {
	poll := waitSide{strategy: "redis-no-owner", workMS: 30, orders: 48, requests: map[string]int64{"set": 2000}}
	sub := waitSide{strategy: "redisson", workMS: 30, orders: 48, requests: map[string]int64{"evalsha": 230}}
	fifo := waitSide{strategy: "redis", workMS: 30, orders: 48, requests: map[string]int64{"evalsha": 130}}
	zk := waitSide{strategy: "zookeeper", workMS: 30, zk: true, orders: 48, wakeups: 40, requests: map[string]int64{"delete": 48}}
	short := []waitSide{
		{strategy: "redis-no-owner", workMS: 5, orders: 48, requests: map[string]int64{"set": 60}},
		{strategy: "redisson", workMS: 5, orders: 48, requests: map[string]int64{"evalsha": 200}},
	}
	if ok, why := waitingVerdict(poll, sub, fifo, zk, short); !ok {
		t.Fatalf("failed on the short herd's cost: %s", why)
	}
}

// Requests are counted per acquisition and listed the most first, Redis's
// by their command names.
func TestWaitSideCountsPerAcquisition(t *testing.T) {
	w := waitSide{strategy: "redis-no-owner", orders: 48, requests: map[string]int64{"getdel": 48, "set": 2000}}
	if got := w.perAcquisition(); got < 42.66 || got > 42.67 {
		t.Errorf("per acquisition %.3f, want 2048/48", got)
	}
	if got := w.breakdown(); got != "SET 2000, GETDEL 48" {
		t.Errorf("breakdown %q", got)
	}
	if got := (waitSide{}).perAcquisition(); got != 0 {
		t.Errorf("nothing sold: %v per acquisition, want 0", got)
	}
	z := waitSide{zk: true, orders: 2, requests: map[string]int64{"create": 2, "ping": 1}}
	if got := z.breakdown(); got != "create 2, ping 1" {
		t.Errorf("ZooKeeper breakdown %q", got)
	}
}
