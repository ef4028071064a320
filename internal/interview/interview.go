// Package interview is the interview path: the flash-sale design question
// ("design a flash sale") as the questions interviewers ask, in order, each
// with a short answer, its trade-off and the follow-up that comes next in
// English and Chinese, and the lab's runs that prove it. An answer's figures
// are never written in the text: each is a slot bound to a source (a lesson
// run's case, a sale's herd, a verdict-matrix cell), filled from the newest
// run kept on the machine that shows the page, with the run it came from, or
// said to be unmeasured here, with the run to start.
//
//   - interview.go: the types: Question, Slot, Source and what a source reads
//   - questions.go: Questions, the path in order; questions_sale.go,
//     questions_lock.go and questions_order.go: each question's texts and
//     slots
//   - fill.go: Fill, every slot from Sources, each Figure with its Provenance,
//     how a derived one was computed, a matrix cell's word where it timed no stop
//   - html.go: WriteHTML, a filled page as one self-contained file (the
//     dashboard's renderer inlined)
//
// Its subpackage interviewdb reads the sources from the shop's database;
// GET /api/interview serves the filled page and `loadtest interview`
// measures what it needs and writes the page as one file (WriteHTML).
package interview

import (
	"github.com/seckill-lab/seckill/internal/faultkind"
)

// Text is one text in both languages.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// Question is one step of the path: what the interviewer asks, a short
// strong answer, what it costs, what they ask next, and the figures that
// back the answer, measured here.
type Question struct {
	ID       string `json:"id"`
	Ask      Text   `json:"ask"`
	Answer   Text   `json:"answer"`
	TradeOff Text   `json:"trade_off"`
	FollowUp Text   `json:"follow_up"`
	Slots    []Slot `json:"-"`
}

// Slot is one figure an answer quotes: what it is, its unit, and the source
// it is read from.
type Slot struct {
	Label  Text
	Unit   Text
	Source Source
}

// Kinds of source.
const (
	// FromLesson reads a case of a lesson's newest finished run (a figure
	// of the database's count: Case*), or that case's sale's herd (Herd*).
	FromLesson = "lesson"
	// FromMatrix reads a cell of the newest verdict-matrix run that
	// observed it (Cell*), or the units its sale's dead replica left in
	// flight (Reclaim*).
	FromMatrix = "matrix"
)

// Fields a source reads.
const (
	// A lesson case's figures, as the database counted them.
	CaseSold         = "sold"
	CaseOversold     = "oversold"
	CaseLostUpdates  = "lost_updates"
	CaseDuplicates   = "duplicates"
	CaseViolations   = "violations"
	CaseFencedWrites = "fenced_writes"
	// The case's sale's herd: orders per second from the first unit sold
	// to the last (sold / that time), the time from the opening to the last
	// unit sold, the units one hold of the lock sold, the answers the shop
	// gave in the first second after the opening.
	HerdOrdersPerSecond    = "orders_per_s"
	HerdSellOutSeconds     = "sell_out_s"
	HerdUnitsPerHold       = "units_per_hold"
	HerdFirstSecondAnswers = "first_second_answers"
	// The answers the sold-out cache gave (layer sold_out_cache).
	HerdCacheAnswers = "cache_answers"
	// A matrix cell: how long its sale sold nothing while the fault
	// struck, and the database's figures after it.
	CellUnavailableSeconds = "unavailable_s"
	CellOversold           = "cell_oversold"
	CellLostUpdates        = "cell_lost_updates"
	CellDuplicates         = "cell_duplicates"
	CellSold               = "cell_sold"
	// The units the cell's killed replica had taken and not sold, given
	// back by a reconciliation, and how long after the kill the last of
	// them was back.
	ReclaimUnits   = "reclaim_units"
	ReclaimSeconds = "reclaim_s"
)

// Source is where a slot is read: a lesson's case (Lesson, and Case, the
// case's name or a part of it as the lesson's table names it:
// "combining on", "8 stock shards", "db-pessimistic") or a matrix cell (Row,
// Fault), and the Field read there.
type Source struct {
	Kind   string         `json:"kind"`
	Lesson string         `json:"lesson,omitempty"`
	Case   string         `json:"case,omitempty"`
	Row    string         `json:"row,omitempty"`
	Fault  faultkind.Name `json:"fault,omitempty"`
	Field  string         `json:"field"`
}

// herdFields are the fields read from a lesson case's herd.
var herdFields = map[string]bool{HerdOrdersPerSecond: true, HerdSellOutSeconds: true, HerdUnitsPerHold: true,
	HerdFirstSecondAnswers: true, HerdCacheAnswers: true}

// caseFields are the fields read from a lesson case's own figures.
var caseFields = map[string]bool{CaseSold: true, CaseOversold: true, CaseLostUpdates: true, CaseDuplicates: true,
	CaseViolations: true, CaseFencedWrites: true}

// cellFields are the fields read from a matrix cell and its sale.
var cellFields = map[string]bool{CellUnavailableSeconds: true, CellOversold: true, CellLostUpdates: true,
	CellDuplicates: true, CellSold: true, ReclaimUnits: true, ReclaimSeconds: true}

// Valid says whether s names a field its kind can read (not whether its
// lesson or row exists: the tests check those against the catalogue and
// the matrix's rows).
func (s Source) Valid() bool {
	switch s.Kind {
	case FromLesson:
		return s.Lesson != "" && s.Case != "" && (caseFields[s.Field] || herdFields[s.Field])
	case FromMatrix:
		return s.Row != "" && s.Fault != "" && cellFields[s.Field]
	}
	return false
}
