package sectionlog_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func at(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }

func section(wait, enter, exit int) sectionlog.Section {
	s := sectionlog.Section{EnterAt: at(enter), ExitAt: at(exit)}
	if wait >= 0 {
		w := at(wait)
		s.WaitAt = &w
	}
	return s
}

// mixed is a herd of three, then an idle lock, then a late buyer, plus a
// section whose wait was not recorded: hand-overs count only where a buyer
// was already waiting at the release.
var mixed = []sectionlog.Section{
	section(0, 100, 1100),        // the herd: all wait from 0
	section(0, 1600, 3600),       // 0.5 ms hand-over
	section(0, 4100, 5100),       // 0.5 ms hand-over
	section(15000, 15100, 16100), // arrived 9.9 ms after the release: idle, no hand-over
	section(-1, 16300, 17300),    // wait unknown: not a hand-over
}

func TestCycleOfCountsHandoversToWaitingBuyersOnly(t *testing.T) {
	c := sectionlog.CycleOf(mixed)
	want := sectionlog.Cycle{Sections: 5, HoldMS: 6000.0 / 5 / 1000, Handovers: 2, HandoverMS: 0.5, SpanMS: 17.2}
	if !near(c.HoldMS, want.HoldMS) || !near(c.HandoverMS, want.HandoverMS) || !near(c.SpanMS, want.SpanMS) ||
		c.Sections != want.Sections || c.Handovers != want.Handovers || c.Overlaps != 0 {
		t.Fatalf("CycleOf = %+v, want %+v", c, want)
	}
	// limit 1000/1.7 per s; 5 sections over 17.2 + 0.5 ms: the lock idled.
	if r := c.Ratio(); !near(r, 5/17.7*1.7) {
		t.Fatalf("ratio = %v, want %v", r, 5/17.7*1.7)
	}
}

// TestCycleRatioIsOneWhenTheLockNeverIdles: whatever the holds and the
// hand-overs, a lock that always had a buyer waiting ran at its limit,
// never above it.
func TestCycleRatioIsOneWhenTheLockNeverIdles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var s []sectionlog.Section
		now := 50
		for range 2 + rng.IntN(300) {
			enter := now + rng.IntN(3000)
			exit := enter + rng.IntN(5000)
			s = append(s, section(rng.IntN(50), enter, exit))
			now = exit
		}
		if r := sectionlog.CycleOf(s).Ratio(); r > 1+1e-9 || r < 1-1e-9 {
			t.Fatalf("ratio = %v for a lock that never idled: %+v", r, sectionlog.CycleOf(s))
		}
	}
}

// TestLoadCycleMatchesCycleOf: sections written and read back (with an
// overlap, and a wait left unrecorded) summarise as the ones recorded, to
// the microsecond, and the overlap is the one violation.
func TestLoadCycleMatchesCycleOf(t *testing.T) {
	db := testenv.DB(t, "sectionlog")
	ctx := context.Background()
	sale := saletest.Make(t, saletest.Service(t, lockstrategy.Backends{DB: db, Redis: testenv.Redis(t)}, nil),
		sale.Spec{Name: new("cycle"), Strategy: new("redis"), Stock: new(int64(1))})
	recorded := append(append([]sectionlog.Section(nil), mixed...), section(16000, 17000, 18000)) // overlaps the last
	log := sectionlog.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, s := range recorded {
		s.SaleID, s.ReplicaID = sale.ID, "r1"
		log.Record(s)
	}
	log.Close()
	got, err := sectionlog.LoadCycle(ctx, db, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := sectionlog.CycleOf(recorded)
	if got.Sections != want.Sections || got.Handovers != want.Handovers || got.Overlaps != want.Overlaps ||
		!near(got.HoldMS, want.HoldMS) || !near(got.HandoverMS, want.HandoverMS) || !near(got.SpanMS, want.SpanMS) {
		t.Fatalf("LoadCycle = %+v, CycleOf = %+v", got, want)
	}
	v, err := sectionlog.Violations(ctx, db, sale.ID)
	if err != nil || v != 1 || got.Overlaps != 1 {
		t.Fatalf("overlaps = %d, violations = %d (%v), want 1", got.Overlaps, v, err)
	}
	if empty, err := sectionlog.LoadCycle(ctx, db, sale.ID+1000); err != nil || empty != (sectionlog.Cycle{}) {
		t.Fatalf("no sections: %+v, %v", empty, err)
	}
}

// TestLoadCyclesMatchesLoadCycle: many sales read in one query summarise
// as each read alone, sections interleaved in time or not; a sale without
// sections has no entry.
func TestLoadCyclesMatchesLoadCycle(t *testing.T) {
	db := testenv.DB(t, "sectionlog")
	ctx := context.Background()
	sales := saletest.Service(t, lockstrategy.Backends{DB: db, Redis: testenv.Redis(t)}, nil)
	log := sectionlog.New(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var ids []uint64
	for i, secs := range [][]sectionlog.Section{mixed, mixed[1:3], nil, {section(-1, 500, 20000), section(0, 600, 700)}} {
		sale := saletest.Make(t, sales, sale.Spec{Name: new("cycles"), Strategy: new("redis"), Stock: new(int64(1))})
		ids = append(ids, sale.ID)
		for _, s := range secs {
			s.SaleID, s.ReplicaID = sale.ID, fmt.Sprint("r", i)
			log.Record(s)
		}
	}
	log.Close()
	got, err := sectionlog.LoadCycles(ctx, db, append(ids, ids[len(ids)-1]+1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d cycles for 3 sales with sections: %+v", len(got), got)
	}
	for _, id := range ids {
		one, err := sectionlog.LoadCycle(ctx, db, id)
		if err != nil || got[id] != one {
			t.Fatalf("sale %d: LoadCycles %+v, LoadCycle %+v (%v)", id, got[id], one, err)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
