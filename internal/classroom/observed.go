package classroom

import (
	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/runs"
)

// Observed is what a revealed question's run showed, judged in the words
// the class chose from.
type Observed struct {
	// Done: the run ended; Outcome is then set, unless it could not run
	// (Error says why).
	Done    bool   `json:"done"`
	Outcome string `json:"outcome"`
	// SaleID is the case's sale once made (its timeline shows the
	// decisive moment), 0 before.
	SaleID uint64          `json:"sale_id"`
	Reason catalogue.Texts `json:"reason"`
	Error  string          `json:"error,omitempty"`
}

// FromLessonRun is what case caseIndex (1-based) of a lesson run showed.
func FromLessonRun(run catalogue.Run, caseIndex int) *Observed {
	o := &Observed{}
	if caseIndex >= 1 && caseIndex <= len(run.Sales) {
		o.SaleID = run.Sales[caseIndex-1]
	}
	if run.Status != catalogue.StatusDone {
		return o
	}
	o.Done = true
	if caseIndex < 1 || caseIndex > len(run.Cases) {
		o.Error = run.Verdict + ": " + run.Observed
		return o
	}
	c := run.Cases[caseIndex-1]
	o.SaleID, o.Outcome = c.SaleID, c.Outcome()
	o.Reason = catalogue.Texts{En: c.Reason, Zh: c.ReasonZh}
	return o
}

// FromRun is what a run's step showed (a question's run has one
// strategy, so one step).
func FromRun(v runs.RunView) *Observed {
	o := &Observed{}
	if len(v.Steps) > 0 {
		o.SaleID = v.Steps[0].SaleID
	}
	if v.Status != runs.StatusDone && v.Status != runs.StatusFailed {
		return o
	}
	o.Done = true
	if len(v.Steps) == 0 || v.Steps[0].Sale == nil {
		o.Error = v.Status + ": " + v.Error
		return o
	}
	sv := v.Steps[0].Sale
	c := catalogue.Case{Verdict: sv.Verdict.Kind, Sold: sv.Sold, InitialStock: sv.InitialStock}
	o.Outcome = c.Outcome()
	o.Reason = catalogue.Texts{En: sv.Verdict.ReasonEn, Zh: sv.Verdict.ReasonZh}
	return o
}
