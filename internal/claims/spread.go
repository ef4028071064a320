package claims

import (
	"fmt"
	"slices"
)

// MinRuns is how many runs a figure needs before a comparison may decide:
// with fewer, the spread says nothing about the noise and a 1% gap would
// flip the verdict.
const MinRuns = 3

// A Spread is one figure measured over repeated runs: its median and its
// range (min-max), the margin a comparison has to clear.
type Spread struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// SpreadOf is the spread of runs; the zero Spread when there are none.
func SpreadOf(runs []float64) Spread {
	if len(runs) == 0 {
		return Spread{}
	}
	s := slices.Clone(runs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{N: len(s), Median: m, Min: s[0], Max: s[len(s)-1]}
}

// String is "1234/s (1100-1300, 5 runs)".
func (s Spread) String() string {
	runs := "runs"
	if s.N == 1 {
		runs = "run"
	}
	return fmt.Sprintf("%.0f/s (%.0f-%.0f, %d %s)", s.Median, s.Min, s.Max, s.N, runs)
}

// Text is String in English and in Chinese: "1234 次/秒（1100-1300，5 次压测）".
func (s Spread) Text() Text {
	return Text{s.String(), fmt.Sprintf("%.0f 次/秒（%.0f-%.0f，%d 次压测）", s.Median, s.Min, s.Max, s.N)}
}

// Commands is the spread of a count per acquisition: "3.1 commands
// (2.9-3.4, 5 runs)", "3.1 条命令（2.9-3.4，5 次压测）".
func (s Spread) Commands() Text {
	runs := "runs"
	if s.N == 1 {
		runs = "run"
	}
	return Text{fmt.Sprintf("%.1f commands (%.1f-%.1f, %d %s)", s.Median, s.Min, s.Max, s.N, runs),
		fmt.Sprintf("%.1f 条命令（%.1f-%.1f，%d 次压测）", s.Median, s.Min, s.Max, s.N)}
}

// An Order is what the runs say about a figure against another (or
// against a bound): above, below, or inconclusive.
type Order int

// The orders.
const (
	Inside Order = iota // the ranges overlap, or too few runs: the noise could flip it
	Above               // every run of a is above every run of b
	Below               // every run of a is below every run of b
)

// Compare orders a against b: decided only when both have MinRuns runs
// and their ranges do not overlap.
func Compare(a, b Spread) Order {
	switch {
	case a.N < MinRuns || b.N < MinRuns:
		return Inside
	case a.Min > b.Max:
		return Above
	case a.Max < b.Min:
		return Below
	}
	return Inside
}

// CompareBound orders a against a fixed bound: decided when a has MinRuns
// runs and its whole range is on one side.
func CompareBound(a Spread, bound float64) Order {
	switch {
	case a.N < MinRuns:
		return Inside
	case a.Min > bound:
		return Above
	case a.Max < bound:
		return Below
	}
	return Inside
}
