package timeline

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// MaxLines bounds the narration.
const MaxLines = 20

// Of each kind of decisive event, at most this many lines; a last line
// says how many more there were.
const perKind = 4

// narrate tells the decisive moments of t in both languages, in time
// order: the faults, the leases lost or expired, the first overlap (the
// holder's grant, then the entry beside it), the writes accepted after
// their lease ended, the fenced writes and the sections that stopped on a
// lost lock; with combining, the first and the largest batch and the
// totals (batches.go); and, for a sale that never overlapped, why it is
// safe (clean.go).
func narrate(t Timeline, sections []sectionlog.Section) []Line {
	var lines []Line
	add := func(at Millis, section *uint64, en, zh string) {
		lines = append(lines, Line{At: at, En: en, Zh: zh, Section: section})
	}
	for _, f := range t.Faults {
		d := ""
		if f.To != nil && *f.To > f.From {
			d = " " + duration(float64(*f.To-f.From))
		}
		target := ""
		if f.Target != "" {
			target = " " + f.Target
		}
		if f.Kind == string(faultkind.PauseHolder) {
			add(f.From, nil, fmt.Sprintf("%s pauses its next lock holder%s (pause_holder)", f.Replica, d),
				fmt.Sprintf("%s 让下一个持锁者暂停%s（pause_holder）", f.Replica, d))
			continue
		}
		add(f.From, nil, fmt.Sprintf("fault %s on %s%s%s", f.Kind, f.Replica, target, d),
			fmt.Sprintf("故障 %s 作用于 %s%s%s", f.Kind, f.Replica, target, d))
	}
	n := 0
	for _, l := range t.Leases {
		if l.Event != "lost" && l.Event != "expired" {
			continue
		}
		if n++; n > perKind {
			continue
		}
		en, zh := "expires (its TTL ran out, nothing renewed it)", "到期（TTL 耗尽，无人续期）"
		if l.Event == "lost" {
			en, zh = "is lost", "丢失"
			// Its client learns it late (a paused holder's next renewal):
			// say when the lease had really run out, where its bar ends.
			if late := l.At - ranOut(t.Leases, l); late >= 1 {
				en = fmt.Sprintf("is lost: its client notices only now; the lease had run out %s earlier, where its bar ends", late.words())
				zh = fmt.Sprintf("丢失：客户端到此刻才发现；租约早在 %s 前就已到期（租约条结束处）", late.words())
			}
		}
		if l.Token == 0 { // a lock without tokens (redlock)
			add(l.At, nil, fmt.Sprintf("%s's lease %s", l.Replica, en), fmt.Sprintf("%s 的租约%s", l.Replica, zh))
			continue
		}
		token := t.ranks.label(l.Token)
		add(l.At, nil, fmt.Sprintf("%s's lease on token %s %s", l.Replica, token, en),
			fmt.Sprintf("%s 持有的令牌 %s 的租约%s", l.Replica, token, zh))
	}
	more(&lines, n, t.To, "more leases lost or expired", "个租约丢失或到期")
	if len(t.Overlaps) > 0 {
		o := t.Overlaps[0]
		a, b := find(sections, o.A), find(sections, o.B)
		en, zh := enters(a, t.ranks)
		add(At(a.EnterAt), &o.A, en, zh)
		en, zh = enters(b, t.ranks)
		stillEn, stillZh := stillInside(a, t.ranks)
		add(o.From, &o.B, fmt.Sprintf("%s while %s: the first overlap (%d in all)", en, stillEn, t.Violations.Count),
			fmt.Sprintf("%s，而 %s：第一次重叠（共 %d 次）", zh, stillZh, t.Violations.Count))
	}
	staleWrites(t, sections, add)
	cleanStory(t, sections, add)
	batches(t, sections, add)
	refusals(t, sections, add, &lines)
	slices.SortStableFunc(lines, func(x, y Line) int {
		switch {
		case x.At < y.At:
			return -1
		case x.At > y.At:
			return 1
		}
		return 0
	})
	if len(lines) > MaxLines {
		lines = lines[:MaxLines]
	}
	if lines == nil {
		return []Line{}
	}
	return lines
}

// enters says that s took the lock (with its token, "#4"), or, with no
// token (a strategy without one, or no lock at all), that it entered.
func enters(s sectionlog.Section, r tokenRanks) (en, zh string) {
	if s.Token == 0 {
		return s.ReplicaID + " enters its critical section (no lock token)", s.ReplicaID + " 进入临界区（没有锁令牌）"
	}
	token := r.label(s.Token)
	return fmt.Sprintf("%s gets token %s", s.ReplicaID, token), fmt.Sprintf("%s 获得令牌 %s", s.ReplicaID, token)
}

// stillInside says that s is still inside its section.
func stillInside(s sectionlog.Section, r tokenRanks) (en, zh string) {
	if s.Token == 0 {
		return "the section " + s.ReplicaID + " entered earlier is still running", s.ReplicaID + " 先前进入的临界区仍在执行"
	}
	token := r.label(s.Token)
	return fmt.Sprintf("%s still holds token %s", s.ReplicaID, token), fmt.Sprintf("%s 仍持有令牌 %s", s.ReplicaID, token)
}

// staleWrites tells the sections that committed after their client saw
// their lease expire or be lost: writes no fence stopped, the lost updates
// of an unfenced sale.
func staleWrites(t Timeline, sections []sectionlog.Section, add func(Millis, *uint64, string, string)) {
	n := 0
	for i := range sections {
		s := &sections[i]
		if s.Outcome != sectionlog.OutcomeCommitted || s.Token == 0 {
			continue
		}
		exit := At(s.ExitAt)
		gone := slices.ContainsFunc(t.Leases, func(l LeaseEvent) bool {
			return l.Replica == s.ReplicaID && l.Token == s.Token && (l.Event == "expired" || l.Event == "lost") && l.At < exit
		})
		if !gone {
			continue
		}
		if n++; n <= perKind {
			token := t.ranks.label(s.Token)
			add(exit, &s.ID, fmt.Sprintf("%s writes with token %s after its lease ended: accepted, a stale write (no fence stopped it)", s.ReplicaID, token),
				fmt.Sprintf("%s 在租约结束后用令牌 %s 写入：被接受，这是一次过期写入（没有防护令牌拦住它）", s.ReplicaID, token))
		}
	}
	if n > perKind {
		add(t.To, nil, fmt.Sprintf("... and %d more stale writes", n-perKind), fmt.Sprintf("……另有 %d 次过期写入", n-perKind))
	}
}

// more adds "... and N more" when n passed perKind.
func more(lines *[]Line, n int, at Millis, en, zh string) {
	if n > perKind {
		*lines = append(*lines, Line{At: at, En: fmt.Sprintf("... and %d %s", n-perKind, en),
			Zh: fmt.Sprintf("……另有 %d %s", n-perKind, zh)})
	}
}

func find(sections []sectionlog.Section, id uint64) sectionlog.Section {
	i := slices.IndexFunc(sections, func(s sectionlog.Section) bool { return s.ID == id })
	if i < 0 {
		return sectionlog.Section{ID: id}
	}
	return sections[i]
}

// duration says ms as "3 s", "1.5 s" or "300 ms".
func duration(ms float64) string {
	if ms >= 1000 {
		return strconv.FormatFloat(math.Round(ms/100)/10, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
}

// ranOut is when lost's lease had really run out: its replica's last grant
// or renewal of the same token before lost, plus its TTL; lost's own time
// when none is known.
func ranOut(leases []LeaseEvent, lost LeaseEvent) Millis {
	var last *LeaseEvent
	for i, e := range leases {
		if e.Replica != lost.Replica || e.Token != lost.Token || e.At > lost.At || (e.Event != "granted" && e.Event != "renewed") {
			continue
		}
		if last == nil || e.At > last.At {
			last = &leases[i]
		}
	}
	if last == nil {
		return lost.At
	}
	return min(last.At+Millis(last.TTLMS), lost.At)
}

// words is a duration in ms as a class reads it: "850 ms", "3.65 s".
func (m Millis) words() string {
	if m < 1000 {
		return fmt.Sprintf("%.0f ms", float64(m))
	}
	return fmt.Sprintf("%.2f s", float64(m)/1000)
}
