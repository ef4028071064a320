package timeline

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// cleanStory tells a sale whose sections never overlapped why it is safe,
// so that "this one holds, and here is why" has words on the screen too:
// who held the lock first, the first hand-over to a buyer who was waiting
// (the wait, and the gap between one holder's release and the next one's
// grant), the longest wait, and a last line with the holds and the
// smallest gap between holders, which is never below zero: nobody entered
// before the previous holder left. Nothing for a sale that overlapped (the
// overlap is its story) or has no section.
func cleanStory(t Timeline, sections []sectionlog.Section, add func(Millis, *uint64, string, string)) {
	if t.Violations.Count > 0 || len(sections) == 0 {
		return
	}
	held := slices.Clone(sections)
	slices.SortStableFunc(held, func(a, b sectionlog.Section) int { return a.EnterAt.Compare(b.EnterAt) })
	first := held[0]
	add(At(first.EnterAt), &held[0].ID, fmt.Sprintf("%s takes %s first", first.ReplicaID, tokenWord(first, t.ranks, false)),
		fmt.Sprintf("%s 第一个拿到%s", first.ReplicaID, tokenWord(first, t.ranks, true)))
	if len(held) < 2 {
		return
	}
	if i := firstHandOver(held); i > 0 {
		prev, next := held[i-1], held[i]
		waited := ms(next.EnterAt.Sub(*next.WaitAt).Seconds() * 1000)
		gap := ms(next.EnterAt.Sub(prev.ExitAt).Seconds() * 1000)
		add(At(next.EnterAt), &held[i].ID,
			fmt.Sprintf("%s had waited %s for the lock; it got %s %s after %s released %s: a hand-over, one holder at a time",
				next.ReplicaID, waited, tokenWord(next, t.ranks, false), gap, prev.ReplicaID, tokenWord(prev, t.ranks, false)),
			fmt.Sprintf("%s 等锁 %s；%s 释放%s后 %s，它获得%s：交接，一次只有一个持锁者",
				next.ReplicaID, waited, prev.ReplicaID, tokenWord(prev, t.ranks, true), gap, tokenWord(next, t.ranks, true)))
	}
	if i, wait := longestWait(held); i >= 0 && wait > 0 {
		s := held[i]
		add(At(s.EnterAt), &held[i].ID,
			fmt.Sprintf("the longest wait: %s waited %s for %s", s.ReplicaID, ms(wait), tokenWord(s, t.ranks, false)),
			fmt.Sprintf("最长的等待：%s 为%s等了 %s", s.ReplicaID, tokenWord(s, t.ranks, true), ms(wait)))
	}
	gap := smallestGap(held)
	add(t.To, nil,
		fmt.Sprintf("%d holds, one at a time: the smallest gap between one holder leaving and the next entering was %s, never below zero, so no two buyers were ever inside together",
			len(held), ms(gap)),
		fmt.Sprintf("共 %d 次持锁，一次一个：上一个持锁者离开到下一个进入的最小间隔是 %s，从未小于零，所以从没有两个买家同时在临界区内",
			len(held), ms(gap)))
}

// firstHandOver is the index of the first section whose buyer was already
// waiting when the section before it left; 0 when none was.
func firstHandOver(held []sectionlog.Section) int {
	for i := 1; i < len(held); i++ {
		if w := held[i].WaitAt; w != nil && w.Before(held[i-1].ExitAt) {
			return i
		}
	}
	return 0
}

// longestWait is the section that waited longest for the lock, and how
// long in ms; -1 when no section knows when it asked.
func longestWait(held []sectionlog.Section) (int, float64) {
	best, wait := -1, 0.0
	for i, s := range held {
		if s.WaitAt == nil {
			continue
		}
		if w := s.EnterAt.Sub(*s.WaitAt).Seconds() * 1000; w > wait || best < 0 {
			best, wait = i, w
		}
	}
	return best, wait
}

// smallestGap is the least time in ms between a section's entry and the
// latest exit of the sections before it (0 for a single section).
func smallestGap(held []sectionlog.Section) float64 {
	gap, last := math.Inf(1), held[0].ExitAt
	for _, s := range held[1:] {
		gap = min(gap, s.EnterAt.Sub(last).Seconds()*1000)
		if s.ExitAt.After(last) {
			last = s.ExitAt
		}
	}
	if math.IsInf(gap, 1) {
		return 0
	}
	return gap
}

// tokenWord names s's token ("token #4", 令牌 #4), or "the lock" (锁)
// when it has none.
func tokenWord(s sectionlog.Section, r tokenRanks, zh bool) string {
	switch {
	case s.Token == 0 && zh:
		return "锁"
	case s.Token == 0:
		return "the lock"
	case zh:
		return "令牌 " + r.label(s.Token)
	}
	return "token " + r.label(s.Token)
}

// ms says a short duration to the tenth of a millisecond below 10 ms
// ("0.8 ms"), else as duration does.
func ms(v float64) string {
	if v < 10 {
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " ms"
	}
	return duration(v)
}
