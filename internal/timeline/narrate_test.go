package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// section is a section of replica with token, inside from enter to exit
// (ms after t0), ending with outcome.
func section(id uint64, replica string, token uint64, t0 time.Time, enter, exit int, outcome string) sectionlog.Section {
	return sectionlog.Section{ID: id, ReplicaID: replica, Token: token, Outcome: outcome,
		EnterAt: t0.Add(time.Duration(enter) * time.Millisecond), ExitAt: t0.Add(time.Duration(exit) * time.Millisecond)}
}

// ranksOf are the ranks of the tokens of sections and leases, as Build
// reads them from the sale.
func ranksOf(sections []sectionlog.Section, leases []LeaseEvent) tokenRanks {
	var tokens []uint64
	for _, s := range sections {
		tokens = append(tokens, s.Token)
	}
	for _, l := range leases {
		tokens = append(tokens, l.Token)
	}
	return newTokenRanks(tokens)
}

// narrationOf builds the narration of sections, each overlapping the
// first, with leases.
func narrationOf(sections []sectionlog.Section, leases []LeaseEvent) []Line {
	t := Timeline{Leases: leases, Violations: Violations{Count: int64(len(sections) - 1)}, ranks: ranksOf(sections, leases)}
	for _, s := range sections[1:] {
		t.Overlaps = append(t.Overlaps, Overlap{A: sections[0].ID, B: s.ID, From: At(s.EnterAt)})
	}
	t.From, t.To = At(sections[0].EnterAt), At(sections[0].ExitAt)
	return narrate(t, sections)
}

func joined(lines []Line, zh bool) string {
	var b strings.Builder
	for _, l := range lines {
		if zh {
			b.WriteString(l.Zh + "\n")
		} else {
			b.WriteString(l.En + "\n")
		}
	}
	return b.String()
}

// A paused holder whose lease expired and whose write was accepted (no
// fencing) is the lost update the class must see: the narration says it.
func TestNarrationTellsTheStaleWrite(t *testing.T) {
	t0 := time.Now()
	paused := section(1, "r2", 41, t0, 0, 3000, sectionlog.OutcomeCommitted)
	next := section(2, "r1", 42, t0, 600, 610, sectionlog.OutcomeCommitted)
	expired := LeaseEvent{Replica: "r2", Token: 41, Event: "expired", At: At(t0.Add(500 * time.Millisecond))}
	lines := narrationOf([]sectionlog.Section{paused, next}, []LeaseEvent{expired})
	en, zh := joined(lines, false), joined(lines, true)
	for _, want := range []string{"r1 gets token #2 while r2 still holds token #1", "r2 writes with token #1 after its lease ended: accepted"} {
		if !strings.Contains(en, want) {
			t.Errorf("narration lacks %q:\n%s", want, en)
		}
	}
	if !strings.Contains(zh, "r2 在租约结束后用令牌 #1 写入：被接受") {
		t.Errorf("Chinese narration lacks the stale write:\n%s", zh)
	}
	if last := lines[len(lines)-1]; last.Section == nil || *last.Section != 1 || last.At != At(paused.ExitAt) {
		t.Errorf("last line %+v, want the stale write of section 1 at its exit", last)
	}
	// The section after it holds a live lease: no stale write of its own.
	if strings.Count(en, "stale write") != 1 {
		t.Errorf("want exactly one stale write:\n%s", en)
	}
}

// Fenced, the same pause is refused, not a stale write.
func TestNarrationFencedIsNoStaleWrite(t *testing.T) {
	t0 := time.Now()
	paused := section(1, "r2", 41, t0, 0, 3000, sectionlog.OutcomeFenced)
	next := section(2, "r1", 42, t0, 600, 610, sectionlog.OutcomeCommitted)
	expired := LeaseEvent{Replica: "r2", Token: 41, Event: "expired", At: At(t0.Add(500 * time.Millisecond))}
	en := joined(narrationOf([]sectionlog.Section{paused, next}, []LeaseEvent{expired}), false)
	if strings.Contains(en, "stale write") || !strings.Contains(en, "r2 writes with token #1: refused (fenced), the newer #2 had written before it") {
		t.Errorf("fenced narration:\n%s", en)
	}
}

// With no lock (none) there is no token: the narration says so rather than
// "gets token 0".
func TestNarrationWithoutTokens(t *testing.T) {
	t0 := time.Now()
	en := joined(narrationOf([]sectionlog.Section{
		section(1, "r2", 0, t0, 0, 60, sectionlog.OutcomeCommitted),
		section(2, "r1", 0, t0, 6, 60, sectionlog.OutcomeCommitted),
	}, nil), false)
	if strings.Contains(en, "token 0") {
		t.Errorf("narration names token 0:\n%s", en)
	}
	if !strings.Contains(en, "r1 enters its critical section (no lock token) while the section r2 entered earlier is still running: the first overlap (1 in all)") {
		t.Errorf("narration of a tokenless overlap:\n%s", en)
	}
}

// A sale whose holders never overlapped gets a story too: the first
// holder, the first hand-over to a waiting buyer with its wait and gap,
// the longest wait, and the smallest gap between holders, never below 0.
func TestNarrationTellsACleanSale(t *testing.T) {
	t0 := time.Now()
	waitAt := func(ms int) *time.Time { w := t0.Add(time.Duration(ms) * time.Millisecond); return &w }
	a := section(1, "r1", 1795827359907586, t0, 0, 10, sectionlog.OutcomeCommitted)
	b := section(2, "r2", 1795827359907590, t0, 11, 20, sectionlog.OutcomeCommitted)
	b.WaitAt = waitAt(2) // waiting while r1 held the lock: a hand-over
	c := section(3, "r3", 1795827359907600, t0, 20, 30, sectionlog.OutcomeCommitted)
	c.WaitAt = waitAt(1)
	sections := []sectionlog.Section{c, a, b} // in any order
	tl := Timeline{ranks: ranksOf(sections, nil), From: At(t0), To: At(t0.Add(30 * time.Millisecond))}
	lines := narrate(tl, sections)
	en, zh := joined(lines, false), joined(lines, true)
	for _, want := range []string{
		"r1 takes token #1 first",
		"r2 had waited 9 ms for the lock; it got token #2 1 ms after r1 released token #1: a hand-over",
		"the longest wait: r3 waited 19 ms for token #3",
		"3 holds, one at a time: the smallest gap between one holder leaving and the next entering was 0 ms, never below zero",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("narration lacks %q:\n%s", want, en)
		}
	}
	if !strings.Contains(zh, "共 3 次持锁，一次一个") || !strings.Contains(zh, "交接，一次只有一个持锁者") {
		t.Errorf("Chinese narration lacks the clean story:\n%s", zh)
	}
	// An overlapping sale tells its overlap, not this story.
	tl.Violations.Count = 1
	if got := joined(narrate(tl, sections), false); strings.Contains(got, "one at a time") {
		t.Errorf("an overlapping sale told the clean story:\n%s", got)
	}
}
