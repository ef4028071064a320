package timeline

import (
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// A fault's effect is read from the record, strongest evidence first:
// damage, refused writes, a holder that saw its lock lost, a renewal
// during the fault, nobody inside, an overlap that wrote nothing, nobody
// taking the lock over.
func TestFaultEffects(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC)
	ms := func(n int) Millis { return At(t0.Add(time.Duration(n) * time.Millisecond)) }
	to := ms(3000)
	pause := Fault{Kind: "pause_holder", Replica: "r1", From: ms(0), To: &to}
	restart := Fault{Kind: "restart_redis", Replica: "r1", From: ms(1000), To: &to}
	renewedAt := func(n int) []LeaseEvent {
		return []LeaseEvent{{Replica: "r1", Token: 1, Event: lockstrategy.LeaseRenewed, At: ms(n)}}
	}
	cases := []struct {
		name       string
		fault      Fault
		sections   []sectionlog.Section
		leases     []LeaseEvent
		violations int64
		damage     Damage
		want       string
	}{
		{"lost update", pause, []sectionlog.Section{section(1, "r1", 1, t0, 100, 3200, sectionlog.OutcomeCommitted)},
			nil, 1, Damage{LostUpdates: 1}, ReasonDamaged},
		{"fenced", pause, []sectionlog.Section{section(1, "r1", 1, t0, 100, 3200, sectionlog.OutcomeFenced),
			section(2, "r2", 2, t0, 1200, 1400, sectionlog.OutcomeCommitted)}, nil, 1, Damage{}, ReasonFenced},
		{"a fenced write before the fault is not its doing", pause,
			[]sectionlog.Section{section(1, "r1", 1, t0, -500, -100, sectionlog.OutcomeFenced),
				section(2, "r1", 2, t0, 100, 3200, sectionlog.OutcomeCommitted)}, renewedAt(1200), 0, Damage{}, ReasonRenewed},
		{"lock lost", restart, []sectionlog.Section{section(1, "r2", 1, t0, 500, 1500, sectionlog.OutcomeLockLost)},
			nil, 0, Damage{}, ReasonLockLost},
		{"renewed", pause, []sectionlog.Section{section(1, "r1", 1, t0, 100, 3200, sectionlog.OutcomeCommitted)},
			renewedAt(1100), 0, Damage{}, ReasonRenewed},
		{"a renewal after the fault is not one through it", pause,
			[]sectionlog.Section{section(1, "r1", 1, t0, 100, 3200, sectionlog.OutcomeCommitted)}, renewedAt(4000), 0, Damage{}, ReasonNoTaker},
		{"nobody inside on its replica", pause, []sectionlog.Section{section(1, "r2", 1, t0, 100, 2000, sectionlog.OutcomeCommitted),
			section(2, "r1", 2, t0, 3500, 3600, sectionlog.OutcomeCommitted)}, nil, 0, Damage{}, ReasonNoHolder},
		{"a shared service meets a holder on any replica", restart,
			[]sectionlog.Section{section(1, "r2", 1, t0, 900, 1100, sectionlog.OutcomeCommitted)}, nil, 0, Damage{}, ReasonNoTaker},
		{"overlapped, nothing written", pause, []sectionlog.Section{section(1, "r1", 1, t0, 100, 3200, sectionlog.OutcomeSoldOut),
			section(2, "r2", 2, t0, 1200, 1400, sectionlog.OutcomeCommitted)}, nil, 1, Damage{}, ReasonNoWrite},
	}
	for _, c := range cases {
		tl := Timeline{Faults: []Fault{c.fault}, Leases: c.leases, Violations: Violations{Count: c.violations}}
		got := faultEffects(tl, c.sections, c.damage)
		if len(got) != 1 || got[0].Reason != c.want || got[0].Damaged != (c.want == ReasonDamaged) ||
			got[0].En == "" || got[0].Zh == "" || got[0].Kind != c.fault.Kind {
			t.Errorf("%s: %+v, want reason %s", c.name, got, c.want)
		}
	}
	if got := faultEffects(Timeline{}, nil, Damage{}); got == nil || len(got) != 0 {
		t.Errorf("no fault: %v, want an empty list", got)
	}
}

// The damage is the database's: oversold past the initial stock, a lost
// update for each unit sold that the stock does not show taken.
func TestDamageOf(t *testing.T) {
	if d := damageOf(saleOf(10, 4), 7); d != (Damage{LostUpdates: 1}) {
		t.Errorf("10 units, stock 4, 7 sold: %+v", d)
	}
	if d := damageOf(saleOf(10, 0), 12); d != (Damage{Oversold: 2, LostUpdates: 2}) {
		t.Errorf("10 units, stock 0, 12 sold: %+v", d)
	}
}

func saleOf(initial, stock int64) inventory.Sale {
	return inventory.Sale{InitialStock: initial, Stock: stock}
}
