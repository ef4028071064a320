// Package matrix is the model of the verdict matrix: which lock survives
// which failure. Its rows are strategy configurations, its columns the
// fault kinds, and each cell has what the lab predicts from the strategy's
// declared properties (tokens, expiry, renewal, where the lock and the
// stock live) and the fault's effect. A cell's observation is judged with
// the same words, so a cell whose observation differs from its prediction
// is a finding: either the prediction or the code is wrong.
//
//   - matrix.go: the cell words (Kinds) and a Prediction
//   - rows.go: the rows (Rows): each strategy, fenced where it has tokens,
//     without its watchdog where it renews, combined where it takes a lock,
//     queued where its stock is in Redis
//   - predict.go: Predict, the prediction of one cell with its reason in
//     English and Chinese; which rows each fault touches
//   - rules.go: the rules of the faults that touch many strategies, each
//     by the properties that decide it
//   - report.go: Report, a run as it is kept, served and exported: its
//     columns titled, its rows in bands (Groups), its cells; Predicted, the
//     table before anything runs
//   - check.go: Check, whether a report is one this build could have made
//     (a *FieldError naming the member at fault)
//   - columns.go: FaultColumns, the columns titled as the fault table
//     titles them
//   - html.go: WriteHTML, a report as one self-contained page (the
//     dashboard's renderer inlined)
//
// Its subpackage matrixdb keeps reports in the database.
package matrix

import "github.com/seckill-lab/seckill/internal/verdict"

// The words of a cell: a sale's three verdicts, and four more for what a
// fault can do besides (or instead of) overlapping sections.
const (
	Holds          = verdict.Holds
	OverlappedSafe = verdict.OverlappedSafe
	Broken         = verdict.Broken
	// Unavailable: the sale stopped selling during the fault and sold again
	// after it (the cell says for how long).
	Unavailable = "unavailable"
	// Stuck: units neither sold nor sellable once the fault is over.
	Stuck = "stuck"
	// NA: the fault cannot touch this configuration (the reason says why).
	NA = "n/a"
	// Skip: the configuration's backend is not running (the reason says
	// what enables it).
	Skip = "skip"
)

// Kinds are the cell words, from the best outcome to the ones that are no
// outcome at all.
var Kinds = []string{Holds, OverlappedSafe, Unavailable, Stuck, Broken, NA, Skip}

// Prediction is what the lab expects of one cell, and why, in English and
// Chinese.
type Prediction struct {
	Kind  string `json:"kind"`
	WhyEn string `json:"why_en"`
	WhyZh string `json:"why_zh"`
}

func predict(kind, en, zh string) Prediction { return Prediction{Kind: kind, WhyEn: en, WhyZh: zh} }
