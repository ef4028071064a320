// Package verdict is the one judgement of a sale's figures: the lock held,
// it overlapped but the data is safe, or the sale is broken. The shop's
// sale views, the run steps, the load tool and the dashboard all show it.
package verdict

import (
	"fmt"
	"strings"
)

// The three kinds.
const (
	// Holds: no two critical sections overlapped, nothing damaged.
	Holds = "holds"
	// OverlappedSafe: sections overlapped (two holders at once) but fencing
	// or the database refused every stale write: oversold 0, lost 0, no
	// buyer over the limit.
	OverlappedSafe = "overlapped_safe"
	// Broken: an oversell, a lost update or a buyer over the limit.
	Broken = "broken"
)

// Figures are the database's counts the verdict is made of.
type Figures struct {
	Oversold     int64
	LostUpdates  int64
	Duplicates   int64 // buyers over the per-user limit
	Violations   int64 // overlapping critical sections
	FencedWrites int64 // stale writes fencing refused
}

// Verdict is a kind with its one-line reason in English and Chinese.
type Verdict struct {
	Kind     string `json:"kind"`
	ReasonEn string `json:"reason_en"`
	ReasonZh string `json:"reason_zh"`
}

// Of judges f: damage first (broken), then an overlap (overlapped_safe),
// else holds.
func Of(f Figures) Verdict {
	switch {
	case f.Oversold > 0 || f.LostUpdates > 0 || f.Duplicates > 0:
		return Verdict{Kind: Broken, ReasonEn: brokenEn(f), ReasonZh: brokenZh(f)}
	case f.Violations > 0:
		return Verdict{Kind: OverlappedSafe, ReasonEn: overlapEn(f), ReasonZh: overlapZh(f)}
	}
	return Verdict{Kind: Holds,
		ReasonEn: "no critical sections overlapped; oversold 0, lost 0",
		ReasonZh: "临界区没有重叠；超卖 0，丢失更新 0"}
}

func brokenEn(f Figures) string {
	var parts []string
	if f.Oversold > 0 {
		parts = append(parts, fmt.Sprintf("oversold %d", f.Oversold))
	}
	if f.LostUpdates > 0 {
		parts = append(parts, fmt.Sprintf("lost %d", f.LostUpdates))
	}
	if f.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%d %s over the limit", f.Duplicates, plural(f.Duplicates, "buyer", "buyers")))
	}
	s := strings.Join(parts, ", ")
	if f.Violations > 0 {
		s = fmt.Sprintf("%d %s overlapped; ", f.Violations, plural(f.Violations, "section", "sections")) + s
	}
	return s
}

func brokenZh(f Figures) string {
	var parts []string
	if f.Oversold > 0 {
		parts = append(parts, fmt.Sprintf("超卖 %d", f.Oversold))
	}
	if f.LostUpdates > 0 {
		parts = append(parts, fmt.Sprintf("丢失更新 %d", f.LostUpdates))
	}
	if f.Duplicates > 0 {
		parts = append(parts, fmt.Sprintf("%d 位买家超过限购", f.Duplicates))
	}
	s := strings.Join(parts, "，")
	if f.Violations > 0 {
		s = fmt.Sprintf("%d 处临界区重叠；", f.Violations) + s
	}
	return s
}

func overlapEn(f Figures) string {
	fenced := "no stale write collided this time"
	if f.FencedWrites > 0 {
		fenced = fmt.Sprintf("fencing refused %d stale %s", f.FencedWrites, plural(f.FencedWrites, "write", "writes"))
	}
	return fmt.Sprintf("%d %s overlapped; %s; oversold 0, lost 0",
		f.Violations, plural(f.Violations, "section", "sections"), fenced)
}

func overlapZh(f Figures) string {
	fenced := "这次没有过期写入相撞"
	if f.FencedWrites > 0 {
		fenced = fmt.Sprintf("防护令牌拒绝了 %d 次过期写入", f.FencedWrites)
	}
	return fmt.Sprintf("%d 处临界区重叠；%s；超卖 0，丢失更新 0", f.Violations, fenced)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
