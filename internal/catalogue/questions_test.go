package catalogue

import (
	"slices"
	"testing"
	"unicode/utf8"
)

// Every lesson can be asked: each has its cases as questions, each setup is
// one sentence in both languages short enough for a projector's line or
// two, and a case's own words for an outcome are for an outcome offered.
func TestEveryLessonCaseCanBeAsked(t *testing.T) {
	for _, l := range Catalogue {
		qs := CaseQuestions(l.Name)
		if len(qs) == 0 {
			t.Errorf("%s: no case questions", l.Name)
		}
		for i, q := range qs {
			if q.Setup.En == "" || q.Setup.Zh == "" {
				t.Errorf("%s case %d: setup missing in a language: %+v", l.Name, i+1, q.Setup)
			}
			if n := utf8.RuneCountInString(q.Setup.En); n > 170 {
				t.Errorf("%s case %d: the setup is %d characters, a projector shows about 170 in two lines: %q", l.Name, i+1, n, q.Setup.En)
			}
			for o, say := range q.Say {
				if !slices.Contains(Outcomes, o) {
					t.Errorf("%s case %d: words for %q, which is not an outcome", l.Name, i+1, o)
				}
				if say.En == "" || say.Zh == "" {
					t.Errorf("%s case %d: the words for %s miss a language", l.Name, i+1, o)
				}
			}
			if got := q.Choices(); len(got) != len(Outcomes) {
				t.Errorf("%s case %d: %d choices, want %d", l.Name, i+1, len(got), len(Outcomes))
			}
		}
	}
	for name := range caseQuestions {
		if _, ok := Find(name); !ok {
			t.Errorf("case questions for %q, which is not a lesson", name)
		}
	}
}

// A case that held but sold nothing of its stock stopped; any other case's
// outcome is its verdict.
func TestCaseOutcome(t *testing.T) {
	for _, c := range []struct {
		c    Case
		want string
	}{
		{Case{Verdict: OutcomeHolds, InitialStock: 5, Sold: 0}, OutcomeStopped},
		{Case{Verdict: OutcomeHolds, InitialStock: 5, Sold: 1}, OutcomeHolds},
		{Case{Verdict: OutcomeHolds, InitialStock: 0, Sold: 0}, OutcomeHolds},
		{Case{Verdict: OutcomeBroken, InitialStock: 5, Sold: 0, Oversold: 1}, OutcomeBroken},
		{Case{Verdict: OutcomeOverlappedSafe, InitialStock: 5, Sold: 2}, OutcomeOverlappedSafe},
	} {
		if got := c.c.Outcome(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.c, got, c.want)
		}
	}
}
