package timeline_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
	"github.com/seckill-lab/seckill/internal/sectionlog"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/internal/timeline"
)

// BenchmarkTimeline20000Sections: the timeline of a 20,000-section sale
// over four replicas, one section in 50 overlapping its predecessor (the
// target is <= 1 s per answer). Past MaxSections it is summarised.
func BenchmarkTimeline20000Sections(b *testing.B) {
	db, sale := seed(b)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		t, err := timeline.Build(ctx, db, sale, time.Time{}, time.Time{})
		if err != nil {
			b.Fatal(err)
		}
		if !t.Summarised || t.Violations.Count != 400 || len(t.Overlaps) != 400 {
			b.Fatalf("summarised %v, violations %d, overlaps %d", t.Summarised, t.Violations.Count, len(t.Overlaps))
		}
	}
}

// seed is a sale of 20,000 sections over four replicas, one in 50
// overlapping the next, inserted directly.
func seed(b testing.TB) (*gorm.DB, inventory.Sale) {
	db := testenv.DB(b, "timeline")
	sale := saletest.Make(b, saletest.Service(b, lockstrategy.Backends{DB: db, Redis: testenv.Redis(b)}, nil),
		sale.Spec{Name: new("bench"), Strategy: new("redis"), Stock: new(int64(20000))})
	t0 := time.Now().Add(-time.Hour)
	sections := make([]sectionlog.Section, 20000)
	for i := range sections {
		enter := t0.Add(time.Duration(i) * time.Millisecond)
		exit := enter.Add(800 * time.Microsecond)
		if i%50 == 0 {
			exit = enter.Add(1500 * time.Microsecond) // the next one enters beside it
		}
		sections[i] = sectionlog.Section{SaleID: sale.ID, ReplicaID: fmt.Sprint("r", i%4), Token: uint64(i + 1),
			WaitAt: &enter, EnterAt: enter, ExitAt: exit, Outcome: sectionlog.OutcomeCommitted}
	}
	if err := db.CreateInBatches(sections, 1000).Error; err != nil {
		b.Fatal(err)
	}
	return db, sale
}

// TestTimelineSummarisesPastTheBound is the benchmark's sale, checked once:
// summarised per bucket, every section counted in one.
func TestTimelineSummarisesPastTheBound(t *testing.T) {
	db, sale := seed(t)
	tl, err := timeline.Build(context.Background(), db, sale, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	n, overlaps := 0, 0
	for _, b := range tl.Buckets {
		n, overlaps = n+b.Sections, overlaps+b.Overlaps
	}
	if !tl.Summarised || tl.BucketMS <= 0 || len(tl.Sections) != 0 || n != 20000 || overlaps != 400 ||
		tl.Violations.Count != 400 || len(tl.Replicas) != 4 {
		t.Fatalf("summarised %v per %v ms, %d sections listed, %d in buckets, %d overlaps, violations %d, replicas %v",
			tl.Summarised, tl.BucketMS, len(tl.Sections), n, overlaps, tl.Violations.Count, tl.Replicas)
	}
	// A window of 1,000 sections is drawn in full.
	from := tl.From.Time().Add(5 * time.Second)
	win, err := timeline.Build(context.Background(), db, sale, from, from.Add(time.Second))
	if err != nil || win.Summarised || len(win.Sections) < 1000 || len(win.Sections) > 1002 {
		t.Fatalf("a 1 s window: summarised %v, %d sections (%v)", win.Summarised, len(win.Sections), err)
	}
}
