package interview

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/matrix"
)

// Sources is where Fill reads the runs kept on this machine (package
// interviewdb reads them from the shop's database).
type Sources interface {
	// LessonRun is the newest finished run of lesson with a result table
	// (PASS or FAIL); ok is false when there is none.
	LessonRun(ctx context.Context, lesson string) (run catalogue.Run, ok bool, err error)
	// Herd is the herd figures of a sale.
	Herd(ctx context.Context, saleID uint64) (HerdFigures, error)
	// MatrixCell is the newest kept matrix run that observed row × fault,
	// with that cell; ok is false when none did.
	MatrixCell(ctx context.Context, row string, fault faultkind.Name) (hit MatrixHit, ok bool, err error)
	// Reclaimed is what reconciliations gave back of a sale's units.
	Reclaimed(ctx context.Context, saleID uint64) (Reclaim, error)
}

// ErrNoSale is Sources.Herd's answer for a sale no longer kept: its
// figures are said unmeasured, the rest of the page is filled.
var ErrNoSale = errors.New("interview: the sale is no longer kept")

// HerdFigures are what a slot reads of a sale's herd (package herd's
// View, the dashboard's Herd panel).
type HerdFigures struct {
	Sold int64
	// SellOutMS runs from the opening to the last unit sold,
	// SellOutFromFirstMS from the first unit sold to the last; nil until
	// the sale sold out.
	SellOutMS, SellOutFromFirstMS *float64
	UnitsPerHold                  float64 // HoldUnits / Holds; 0 without a lock or before a hold
	Holds, HoldUnits              int64
	FirstSecondAnswers            int64
	CacheAnswers                  int64 // the answers of layer sold_out_cache
}

// MatrixHit is one observed cell and the run it is kept in.
type MatrixHit struct {
	RunID   uint64
	At      time.Time // the run's start
	Machine string
	Cell    matrix.Cell
}

// Reclaim is what reconciliations gave back of a sale's units a dead
// replica had taken: how many, and how long after the replica was killed
// the last of them was back (nil when none was, or the kill's time was not
// recorded).
type Reclaim struct {
	Units       int64
	BackAfterMS *float64
}

// Page is the filled path: every question with its figures.
type Page struct {
	Questions []Filled `json:"questions"`
	// Measured and Unmeasured count the figures.
	Measured   int `json:"measured"`
	Unmeasured int `json:"unmeasured"`
}

// Filled is a question with its figures read.
type Filled struct {
	ID       string   `json:"id"`
	Ask      Text     `json:"ask"`
	Answer   Text     `json:"answer"`
	TradeOff Text     `json:"trade_off"`
	FollowUp Text     `json:"follow_up"`
	Figures  []Figure `json:"figures"`
}

// Figure is one slot filled: its value and the run it came from, or
// (Measured false) why there is none and which run to start.
type Figure struct {
	Label    Text        `json:"label"`
	Unit     Text        `json:"unit"`
	Source   Source      `json:"source"`
	Measured bool        `json:"measured"`
	Value    float64     `json:"value"`
	From     *Provenance `json:"from,omitempty"`
	Missing  *Text       `json:"missing,omitempty"`
	// Detail says how a figure computed from others was: "200 units from
	// the first sold to the last in 0.120 s" beside 1,667 orders/s.
	Detail *Text `json:"detail,omitempty"`
	// Word, where set, is the figure instead of Value: a matrix cell's
	// observed word ("holds") where the matrix times no stop.
	Word *Text `json:"word,omitempty"`
	// Rerun: an unmeasured figure a new run of its source may measure (no
	// run kept, or a lesson run that could not give it); false where the
	// kept run measured that there is nothing to quote (no unit given back).
	Rerun bool `json:"rerun,omitempty"`
}

// Kinds of provenance.
const (
	LessonRunKind = "lesson_run"
	MatrixRunKind = "matrix_run"
)

// Provenance names the run a figure came from: its kind and id, what it
// was (the lesson and its case, or the matrix cell), when it ran, the
// sale it measured, and where the dashboard shows it.
type Provenance struct {
	Kind     string    `json:"kind"`
	ID       uint64    `json:"id"`
	Name     string    `json:"name"`
	Case     Text      `json:"case"`
	Verdict  string    `json:"verdict,omitempty"`
	At       time.Time `json:"at"`
	SaleID   uint64    `json:"sale_id,omitempty"`
	Link     string    `json:"link"`
	SaleLink string    `json:"sale_link,omitempty"`
}

// Fill reads every slot of qs from src. A figure no run on this machine
// measured says so; an error is a source that could not be read (the
// database), never a missing run.
func Fill(ctx context.Context, src Sources, qs []Question) (Page, error) {
	var page Page
	lessons := map[string]lessonHit{}
	for _, q := range qs {
		f := Filled{ID: q.ID, Ask: q.Ask, Answer: q.Answer, TradeOff: q.TradeOff, FollowUp: q.FollowUp, Figures: []Figure{}}
		for _, s := range q.Slots {
			fig, err := fill(ctx, src, s, lessons)
			if err != nil {
				return Page{}, fmt.Errorf("interview: %s: %w", q.ID, err)
			}
			if fig.Measured {
				page.Measured++
			} else {
				page.Unmeasured++
			}
			f.Figures = append(f.Figures, fig)
		}
		page.Questions = append(page.Questions, f)
	}
	return page, nil
}

// lessonHit is a lesson's newest run, read once per Fill.
type lessonHit struct {
	run catalogue.Run
	ok  bool
}

// fill reads one slot.
func fill(ctx context.Context, src Sources, s Slot, lessons map[string]lessonHit) (Figure, error) {
	fig := Figure{Label: s.Label, Unit: s.Unit, Source: s.Source}
	if s.Source.Kind == FromMatrix {
		return fillCell(ctx, src, fig)
	}
	hit, seen := lessons[s.Source.Lesson]
	if !seen {
		run, ok, err := src.LessonRun(ctx, s.Source.Lesson)
		if err != nil {
			return fig, err
		}
		hit = lessonHit{run, ok}
		lessons[s.Source.Lesson] = hit
	}
	if !hit.ok {
		return unmeasured(fig, neverLesson(s.Source.Lesson)), nil
	}
	return fillCase(ctx, src, fig, hit.run)
}

// fillCase reads a lesson case's figure, or its sale's herd's.
func fillCase(ctx context.Context, src Sources, fig Figure, run catalogue.Run) (Figure, error) {
	c, ok := findCase(run.Cases, fig.Source.Case)
	if !ok {
		return unmeasured(fig, Text{
			fmt.Sprintf("Lesson run %d of %s has no case %q: run the lesson again with this build.", run.ID, run.Lesson, fig.Source.Case),
			fmt.Sprintf("%s 的第 %d 次运行没有“%s”这一项：请用当前版本重新运行这节课。", run.Lesson, run.ID, fig.Source.Case),
		}), nil
	}
	at := run.CreatedAt
	if run.FinishedAt != nil {
		at = *run.FinishedAt
	}
	from := &Provenance{Kind: LessonRunKind, ID: run.ID, Name: run.Lesson, Case: Text{c.Name, c.NameZh}, Verdict: run.Verdict,
		At: at, SaleID: c.SaleID, Link: "#/lessons", SaleLink: saleLink(c.SaleID)}
	if v, ok := caseValue(c, fig.Source.Field); ok {
		return measured(fig, v, from), nil
	}
	h, err := src.Herd(ctx, c.SaleID)
	if errors.Is(err, ErrNoSale) {
		return unmeasured(fig, Text{
			fmt.Sprintf("Lesson run %d of %s: its sale %d is no longer kept; run the lesson again.", run.ID, run.Lesson, c.SaleID),
			fmt.Sprintf("%s 的第 %d 次运行：它的秒杀 %d 已不在库中；请重新运行这节课。", run.Lesson, run.ID, c.SaleID),
		}), nil
	}
	if err != nil {
		return fig, err
	}
	v, ok := herdValue(h, fig.Source.Field)
	fig.Detail = herdDetail(h, fig.Source.Field)
	if !ok {
		return unmeasured(fig, Text{
			fmt.Sprintf("Lesson run %d of %s: its sale %d did not sell out, so it has no time to sell out.", run.ID, run.Lesson, c.SaleID),
			fmt.Sprintf("%s 的第 %d 次运行：它的秒杀 %d 没有卖完，所以没有卖完用时。", run.Lesson, run.ID, c.SaleID),
		}), nil
	}
	return measured(fig, v, from), nil
}

// fillCell reads a matrix cell's figure, or its sale's reclaimed units.
func fillCell(ctx context.Context, src Sources, fig Figure) (Figure, error) {
	s := fig.Source
	hit, ok, err := src.MatrixCell(ctx, s.Row, s.Fault)
	if err != nil || !ok {
		return unmeasured(fig, neverCell(s.Row, s.Fault)), err
	}
	c := hit.Cell
	from := &Provenance{Kind: MatrixRunKind, ID: hit.RunID, Name: s.Row + " × " + string(s.Fault), Case: Text{c.Kind, c.Kind},
		Verdict: c.Kind, At: hit.At, SaleID: c.SaleID, Link: "#/matrix", SaleLink: saleLink(c.SaleID)}
	switch s.Field {
	case CellUnavailableSeconds:
		// The matrix times the stop of an unavailable cell only: another
		// cell shows its word and why, never a 0 it did not measure.
		fig.Detail = &Text{c.WhyEn, c.WhyZh}
		if c.Finding {
			p := cellWords[c.Predicted.Kind]
			fig.Detail = &Text{fmt.Sprintf("%s. A finding: the lab predicted %s (%s)", c.WhyEn, p.En, c.Predicted.WhyEn),
				fmt.Sprintf("%s。与预测不符：实验室预测为%s（%s）", c.WhyZh, p.Zh, c.Predicted.WhyZh)}
		}
		if c.Kind != matrix.Unavailable {
			w := cellWords[c.Kind]
			fig.Word = &w
		}
		return measured(fig, float64(c.UnavailableMS)/1000, from), nil
	case CellOversold:
		return measured(fig, float64(c.Figures.Oversold), from), nil
	case CellLostUpdates:
		return measured(fig, float64(c.Figures.LostUpdates), from), nil
	case CellDuplicates:
		return measured(fig, float64(c.Figures.Duplicates), from), nil
	case CellSold:
		return measured(fig, float64(c.Figures.Sold), from), nil
	}
	r, err := src.Reclaimed(ctx, c.SaleID)
	if err != nil {
		return fig, err
	}
	if s.Field == ReclaimUnits {
		return measured(fig, float64(r.Units), from), nil
	}
	if r.BackAfterMS == nil {
		fig = unmeasured(fig, Text{
			fmt.Sprintf("Matrix run %d's cell %s × %s: %d units given back, but no time to quote (none given back, or the kill's time not recorded).", hit.RunID, s.Row, s.Fault, r.Units),
			fmt.Sprintf("故障矩阵第 %d 次运行的 %s × %s：退回 %d 件，但没有时间可说（没有退回，或没有记录被杀的时刻）。", hit.RunID, s.Row, s.Fault, r.Units),
		})
		fig.Rerun = false
		return fig, nil
	}
	return measured(fig, *r.BackAfterMS/1000, from), nil
}

// cellWords are the matrix's cell words as the dashboard's Matrix says them.
var cellWords = map[string]Text{
	matrix.Holds: {"holds", "守住"}, matrix.OverlappedSafe: {"fence", "拦截"}, matrix.Unavailable: {"pause", "停售"},
	matrix.Stuck: {"stuck", "卡住"}, matrix.Broken: {"broke", "损坏"},
}

// findCase is the first case whose name has every part of want
// ("redis-sentinel, fencing on": the strategy and a setting).
func findCase(cases catalogue.Cases, want string) (catalogue.Case, bool) {
	for _, c := range cases {
		parts := map[string]bool{}
		for _, p := range strings.Split(c.Name, ", ") {
			parts[p] = true
		}
		all := true
		for _, w := range strings.Split(want, ", ") {
			all = all && parts[w]
		}
		if all {
			return c, true
		}
	}
	return catalogue.Case{}, false
}

func caseValue(c catalogue.Case, field string) (float64, bool) {
	switch field {
	case CaseSold:
		return float64(c.Sold), true
	case CaseOversold:
		return float64(c.Oversold), true
	case CaseLostUpdates:
		return float64(c.LostUpdates), true
	case CaseDuplicates:
		return float64(c.Duplicates), true
	case CaseViolations:
		return float64(c.Violations), true
	case CaseFencedWrites:
		return float64(c.FencedWrites), true
	}
	return 0, false
}

// herdValue is a herd's figure; ok is false for a time (or a speed) of a
// sale that did not sell out.
func herdValue(h HerdFigures, field string) (float64, bool) {
	switch field {
	case HerdOrdersPerSecond:
		if h.SellOutFromFirstMS == nil || *h.SellOutFromFirstMS <= 0 {
			return 0, false
		}
		return float64(h.Sold) / (*h.SellOutFromFirstMS / 1000), true
	case HerdSellOutSeconds:
		if h.SellOutMS == nil {
			return 0, false
		}
		return *h.SellOutMS / 1000, true
	case HerdUnitsPerHold:
		return h.UnitsPerHold, true
	case HerdFirstSecondAnswers:
		return float64(h.FirstSecondAnswers), true
	case HerdCacheAnswers:
		return float64(h.CacheAnswers), true
	}
	return 0, false
}

// herdDetail says how a herd's derived figure was computed, nil for a
// figure read as it is.
func herdDetail(h HerdFigures, field string) *Text {
	switch {
	case field == HerdOrdersPerSecond && h.SellOutFromFirstMS != nil:
		s := *h.SellOutFromFirstMS / 1000
		return &Text{fmt.Sprintf("%d units from the first sold to the last in %.3f s", h.Sold, s),
			fmt.Sprintf("从第一件到最后一件卖出 %d 件，用时 %.3f 秒", h.Sold, s)}
	case field == HerdUnitsPerHold && h.Holds > 0:
		return &Text{fmt.Sprintf("%d units sold in %d holds of the lock", h.HoldUnits, h.Holds),
			fmt.Sprintf("%d 次持锁卖出 %d 件", h.Holds, h.HoldUnits)}
	}
	return nil
}

func measured(fig Figure, v float64, from *Provenance) Figure {
	fig.Measured, fig.Value, fig.From = true, v, from
	return fig
}

func unmeasured(fig Figure, why Text) Figure {
	fig.Measured, fig.Missing, fig.Rerun = false, &why, true
	return fig
}

func saleLink(id uint64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("#/timeline?sale=%d", id)
}

// neverLesson says a lesson never ran here, and how to run it.
func neverLesson(lesson string) Text {
	return Text{
		fmt.Sprintf("Never measured on this machine: run the lesson %s (Lessons, or loadtest interview).", lesson),
		fmt.Sprintf("本机从未测过：请运行课程 %s（“课程”页，或 loadtest interview）。", lesson),
	}
}

// neverCell says a matrix cell was never observed here, and how to.
func neverCell(row string, fault faultkind.Name) Text {
	return Text{
		fmt.Sprintf("Never measured on this machine: run loadtest matrix --only %s/%s (or loadtest interview).", row, fault),
		fmt.Sprintf("本机从未测过：请运行 loadtest matrix --only %s/%s（或 loadtest interview）。", row, fault),
	}
}
