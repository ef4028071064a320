package discovery

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// fast timings keep the tests short; the production expiry (5 s) is the same
// code with a different number.
var fast = Options{Interval: 100 * time.Millisecond, Expiry: time.Second, Gone: 3 * time.Second}

// member returns a member with an id no other test (or earlier run) uses.
func member(t *testing.T, kind Kind) Member {
	return Member{ID: fmt.Sprintf("%s-%08x", strings.ToLower(t.Name()), rand.Uint32()), Kind: kind,
		URL: "http://127.0.0.1:1", PID: 4242}
}

// find returns m's entry in list.
func find(list []Member, id string) (Member, bool) {
	for _, m := range list {
		if m.ID == id {
			return m, true
		}
	}
	return Member{}, false
}

func listed(t *testing.T, db *gorm.DB, o Options, id string, recent bool) (Member, bool) {
	t.Helper()
	list, err := o.List(context.Background(), db)
	if recent {
		list, err = o.Recent(context.Background(), db)
	}
	if err != nil {
		t.Fatal(err)
	}
	return find(list, id)
}

// A heartbeat shows up in List, alive, with the fields it wrote and the
// database's times; a graceful stop removes the row at once.
func TestHeartbeatAppearsAndGracefulStopRemoves(t *testing.T) {
	db := testenv.DB(t, "discovery")
	m := member(t, KindShop)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fast.Heartbeat(ctx, db, m) }()

	var got Member
	testenv.WaitFor(t, 3*time.Second, "heartbeat listed", func() bool {
		var ok bool
		got, ok = listed(t, db, fast, m.ID, false)
		return ok
	})
	if !got.Alive || got.Kind != KindShop || got.URL != m.URL || got.PID != m.PID {
		t.Fatalf("listed as %+v, want alive %+v", got, m)
	}
	var nowUS int64
	db.Raw("SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))").Scan(&nowUS)
	dbNow := time.UnixMicro(nowUS).UTC()
	if got.StartedAt.After(got.LastSeen) || dbNow.Sub(got.LastSeen) > 2*time.Second || got.Age < 0 || got.Age > time.Second {
		t.Fatalf("times off the database clock (now %v): started %v, last seen %v, age %v",
			dbNow, got.StartedAt, got.LastSeen, got.Age)
	}
	// The loop keeps refreshing: last_seen moves, started_at does not.
	testenv.WaitFor(t, 3*time.Second, "last_seen refreshed", func() bool {
		again, ok := listed(t, db, fast, m.ID, false)
		if ok && !again.StartedAt.Equal(got.StartedAt) {
			t.Fatalf("a beat moved started_at from %v to %v", got.StartedAt, again.StartedAt)
		}
		return ok && again.LastSeen.After(got.LastSeen)
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("graceful stop: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Heartbeat did not return within 5s of cancel")
	}
	var rows int64
	db.Raw("SELECT COUNT(*) FROM replicas WHERE id = ?", m.ID).Scan(&rows)
	if rows != 0 {
		t.Fatal("graceful stop left the row behind")
	}
}

// A member that stops beating without removing its row (a killed process)
// drops out of List within the expiry, stays in Recent as not alive until
// Gone, then leaves Recent too.
func TestStoppedBeatingDropsOut(t *testing.T) {
	db := testenv.DB(t, "discovery")
	m := member(t, KindAgent)
	if err := Register(context.Background(), db, m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Remove(context.Background(), db, m) })
	if got, ok := listed(t, db, fast, m.ID, false); !ok || !got.Alive {
		t.Fatalf("just registered, not alive: %+v %v", got, ok)
	}
	took := testenv.WaitFor(t, fast.Expiry+time.Second, "dropped out of List", func() bool {
		_, ok := listed(t, db, fast, m.ID, false)
		return !ok
	})
	t.Logf("dropped out of List %v after its last beat (expiry %v)", took, fast.Expiry)
	if got, ok := listed(t, db, fast, m.ID, true); !ok || got.Alive || got.Age < fast.Expiry {
		t.Fatalf("Recent should show it gone (alive=false, age > expiry): %+v %v", got, ok)
	}
	testenv.WaitFor(t, fast.Gone+time.Second, "dropped out of Recent", func() bool {
		_, ok := listed(t, db, fast, m.ID, true)
		return !ok
	})
}

// Register starts afresh (a restarted process), Beat keeps started_at; one
// row per id either way. Remove deletes only the row of the same pid.
func TestRegisterBeatRemove(t *testing.T) {
	db := testenv.DB(t, "discovery")
	ctx := context.Background()
	m := member(t, KindShop)
	if err := Beat(ctx, db, m); err != nil { // a beat with no row inserts it
		t.Fatal(err)
	}
	first, _ := listed(t, db, fast, m.ID, false)
	time.Sleep(10 * time.Millisecond)
	if err := Beat(ctx, db, m); err != nil {
		t.Fatal(err)
	}
	beat, _ := listed(t, db, fast, m.ID, false)
	if !beat.StartedAt.Equal(first.StartedAt) || !beat.LastSeen.After(first.LastSeen) {
		t.Fatalf("beat: started %v -> %v, last seen %v -> %v", first.StartedAt, beat.StartedAt, first.LastSeen, beat.LastSeen)
	}
	restarted := m
	restarted.PID, restarted.URL = 4343, "http://127.0.0.1:2"
	if err := Register(ctx, db, restarted); err != nil {
		t.Fatal(err)
	}
	got, _ := listed(t, db, fast, m.ID, false)
	if !got.StartedAt.After(first.StartedAt) || got.PID != 4343 || got.URL != restarted.URL {
		t.Fatalf("re-register did not start afresh: %+v", got)
	}
	if err := Remove(ctx, db, m); err != nil { // the old pid: not its row any more
		t.Fatal(err)
	}
	if _, ok := listed(t, db, fast, m.ID, false); !ok {
		t.Fatal("the stale process removed the restarted one's row")
	}
	if err := Remove(ctx, db, restarted); err != nil {
		t.Fatal(err)
	}
	if _, ok := listed(t, db, fast, m.ID, true); ok {
		t.Fatal("Remove left the row")
	}
}

func TestInvalidMember(t *testing.T) {
	good := Member{ID: "x", Kind: KindShop}
	for name, m := range map[string]Member{
		"empty id":  {Kind: KindShop},
		"long id":   {ID: strings.Repeat("x", 65), Kind: KindShop},
		"bad kind":  {ID: "x", Kind: "db"},
		"long url":  {ID: "x", Kind: KindAgent, URL: strings.Repeat("u", 256)},
		"negative":  {ID: "x", Kind: KindAgent, PID: -1},
		"zero kind": {ID: "x"},
	} {
		// No database is needed: validation comes first.
		if err := Beat(context.Background(), nil, m); !errors.Is(err, ErrInvalidMember) {
			t.Errorf("%s: Beat = %v, want ErrInvalidMember", name, err)
		}
		if err := fast.Heartbeat(context.Background(), nil, m); !errors.Is(err, ErrInvalidMember) {
			t.Errorf("%s: Heartbeat = %v, want ErrInvalidMember", name, err)
		}
	}
	if err := good.validate(); err != nil {
		t.Fatal(err)
	}
}
