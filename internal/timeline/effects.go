package timeline

import (
	"fmt"
	"slices"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// FaultEffect says, for one fault of the timeline, whether the sale took
// damage and, when it did not, the likely reason, read from the record: the
// sections, the lease events, the counts.
type FaultEffect struct {
	Kind    string `json:"kind"`
	Replica string `json:"replica"`
	From    Millis `json:"from"`
	// Damaged: the sale was oversold or lost updates; Reason is then
	// "damaged", else one of the Reason* values.
	Damaged bool   `json:"damaged"`
	Reason  string `json:"reason"`
	En      string `json:"en"`
	Zh      string `json:"zh"`
}

// Why a fault left the sale whole, from the strongest evidence down.
const (
	ReasonDamaged  = "damaged"   // not whole: oversold or lost updates
	ReasonFenced   = "fenced"    // fencing refused the stale writes
	ReasonLockLost = "lock_lost" // the holder saw its lease lost and wrote nothing
	ReasonRenewed  = "renewed"   // the watchdog renewed the lease through the fault
	ReasonNoHolder = "no_holder" // nobody was inside the lock while it lasted
	ReasonNoWrite  = "no_write"  // sections overlapped, no write collided
	ReasonNoTaker  = "no_taker"  // a holder was inside, nobody took the lock over
)

// Damage is the sale's damage from the database's counts.
type Damage struct {
	Oversold, LostUpdates int64
}

// anyReplica are the faults that act on a service every replica shares:
// a holder on any replica is inside them.
var anyReplica = []string{
	string(faultkind.RestartRedis), string(faultkind.HoldReplication), string(faultkind.KillRedisMaster),
	string(faultkind.KillZKServer), string(faultkind.SlowDB),
}

// faultEffects is one FaultEffect per fault of t, from the sale's sections
// (all of them, even when t is summarised) and its damage.
func faultEffects(t Timeline, sections []sectionlog.Section, d Damage) []FaultEffect {
	out := make([]FaultEffect, 0, len(t.Faults))
	for _, f := range t.Faults {
		e := FaultEffect{Kind: f.Kind, Replica: f.Replica, From: f.From}
		e.Reason, e.En, e.Zh = effectOf(f, t, sections, d)
		e.Damaged = e.Reason == ReasonDamaged
		out = append(out, e)
	}
	return out
}

// effectOf is the rule: damage first, then the evidence that the fault
// met something and was stopped (fenced, lock lost, renewed), then that it
// met nobody.
func effectOf(f Fault, t Timeline, sections []sectionlog.Section, d Damage) (reason, en, zh string) {
	if d.Oversold > 0 || d.LostUpdates > 0 {
		return ReasonDamaged, fmt.Sprintf("the sale took damage: %d oversold, %d lost update%s", d.Oversold, d.LostUpdates, plural(int(d.LostUpdates))),
			fmt.Sprintf("秒杀受损：超卖 %d，丢失更新 %d", d.Oversold, d.LostUpdates)
	}
	from, to := f.From, f.From
	if f.To != nil && *f.To > to {
		to = *f.To
	}
	after := func(outcome string) int {
		n := 0
		for _, s := range sections {
			if s.Outcome == outcome && At(s.ExitAt) >= from {
				n++
			}
		}
		return n
	}
	if n := after(sectionlog.OutcomeFenced); n > 0 {
		return ReasonFenced, fmt.Sprintf("nothing was damaged: fencing refused %d stale write%s", n, plural(n)),
			fmt.Sprintf("没有损失：防护令牌拒绝了 %d 次过期写入", n)
	}
	if n := after(sectionlog.OutcomeLockLost); n > 0 {
		return ReasonLockLost, fmt.Sprintf("nothing was damaged: %d holder%s saw the lock lost and stopped before writing", n, plural(n)),
			fmt.Sprintf("没有损失：%d 个持锁者发现锁已丢失，在写入前停下", n)
	}
	renewed := 0
	for _, l := range t.Leases {
		if l.Event == lockstrategy.LeaseRenewed && l.At >= from && l.At <= to {
			renewed++
		}
	}
	if renewed > 0 {
		return ReasonRenewed, fmt.Sprintf("nothing was damaged: the watchdog renewed the lease %d time%s while the fault lasted", renewed, plural(renewed)),
			fmt.Sprintf("没有损失：故障期间看门狗续期了 %d 次租约", renewed)
	}
	everywhere := slices.Contains(anyReplica, f.Kind)
	inside := slices.ContainsFunc(sections, func(s sectionlog.Section) bool {
		return (everywhere || s.ReplicaID == f.Replica) && At(s.EnterAt) <= to && At(s.ExitAt) >= from
	})
	if !inside {
		return ReasonNoHolder, "nothing was damaged: no holder was inside the lock while the fault lasted",
			"没有损失：故障持续期间没有持锁者在锁内"
	}
	if t.Violations.Count > 0 {
		return ReasonNoWrite, "nothing was damaged: sections overlapped, but no stale write landed",
			"没有损失：临界区发生了重叠，但没有过期写入落库"
	}
	return ReasonNoTaker, "nothing was damaged: a holder was inside, but no other buyer took the lock meanwhile",
		"没有损失：有持锁者在锁内，但期间没有其他买家拿到锁"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
