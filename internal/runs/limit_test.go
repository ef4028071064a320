package runs

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// herd is a recorded schedule: n buyers arrive at once; each spends 0.3 ms
// in the server before asking for the lock, holds it 1 ms, and 0.5 ms after
// (unlock round trip, the answer) while the next holder, handed the lock
// 0.2 ms after the release, already runs. It returns the sections and the
// old formula's figures: mean server time, mean lock wait, client span.
func herd(n int) (sections []sectionlog.Section, meanTotal, meanWait time.Duration, span time.Duration) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	wait := t0.Add(300 * time.Microsecond)
	release := wait
	var total, waited time.Duration
	for i := range n {
		enter := release.Add(200 * time.Microsecond)
		if i == 0 {
			enter = wait.Add(100 * time.Microsecond)
		}
		exit := enter.Add(time.Millisecond)
		done := exit.Add(500 * time.Microsecond)
		sections = append(sections, sectionlog.Section{WaitAt: &wait, EnterAt: enter, ExitAt: exit})
		total += done.Sub(t0)
		waited += enter.Sub(wait)
		span, release = done.Sub(t0), exit
	}
	return sections, total / time.Duration(n), waited / time.Duration(n), span
}

// TestLimitRatioNeverExceedsOne: on the same recorded herd, the formula
// this replaced (sections/s over 1 / (mean server time - mean lock wait))
// reads 1.5, as if one lock ran faster than one section at a time; the
// limit from holds and hand-overs reads 1: the lock never idled.
func TestLimitRatioNeverExceedsOne(t *testing.T) {
	sections, meanTotal, meanWait, span := herd(500)
	oldService := (meanTotal - meanWait).Seconds()
	oldRatio := float64(len(sections)) / span.Seconds() * oldService
	if oldRatio <= 1.4 {
		t.Fatalf("the old formula read %v on the herd; the schedule no longer shows its flaw", oldRatio)
	}
	sale := &inventory.SaleView{Stats: inventory.Stats{LockCycle: sectionlog.CycleOf(sections)}}
	l := limitOf("redis", sale)
	if l == nil || l.Ratio > 1 || l.Ratio < 0.99 || l.HoldMS != 1 || l.HandoverMS != 0.2 || l.LimitPerS != 833.333 {
		t.Fatalf("limitOf(redis) = %+v (old ratio %.2f)", l, oldRatio)
	}
}

func TestLimitOfNeedsALockAndSections(t *testing.T) {
	sections, _, _, _ := herd(10)
	sale := &inventory.SaleView{Stats: inventory.Stats{LockCycle: sectionlog.CycleOf(sections)}}
	for _, name := range []string{"none", "db-conditional", "db-optimistic", "redis-lua-stock", "no-such-strategy"} {
		if l := limitOf(name, sale); l != nil {
			t.Errorf("%s takes no lock, but got a limit %+v", name, l)
		}
	}
	if l := limitOf("redis", &inventory.SaleView{}); l != nil {
		t.Errorf("no section yet, but got %+v", l)
	}
	if l := limitOf("redis", nil); l != nil {
		t.Errorf("no sale yet, but got %+v", l)
	}
}
