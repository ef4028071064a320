package catalogue

import "github.com/seckill-lab/seckill/internal/verdict"

// The outcomes a class is asked to choose from before a case runs: the
// shop's three verdicts and one more, a sale that sold nothing at all
// (every buyer waited out the lock and timed out).
const (
	OutcomeBroken         = verdict.Broken
	OutcomeOverlappedSafe = verdict.OverlappedSafe
	OutcomeHolds          = verdict.Holds
	OutcomeStopped        = "stopped"
)

// Outcomes are the choices of every question, worst first. All four are
// always offered, so whatever the run shows, one answer was right.
var Outcomes = []string{OutcomeBroken, OutcomeOverlappedSafe, OutcomeHolds, OutcomeStopped}

// Texts is a sentence in English and Chinese.
type Texts struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// CaseQuestion is one case of a lesson (one sale its scenario creates)
// asked as a question before it runs: the setup in one sentence, and, where
// the general words would say less, the outcomes in this case's terms.
type CaseQuestion struct {
	Setup Texts
	// Say words an outcome for this case (by outcome); the others keep
	// OutcomeTexts' words.
	Say map[string]Texts
}

// OutcomeTexts are the outcomes in general words.
var OutcomeTexts = map[string]Texts{
	OutcomeBroken: {En: "The data goes wrong: oversold, a lost update or a buyer over the limit",
		Zh: "数据出错：超卖、丢失更新或买家超过限购"},
	OutcomeOverlappedSafe: {En: "Two buyers hold the lock at once, but the data stays right",
		Zh: "两个买家同时持有锁，但数据仍然正确"},
	OutcomeHolds: {En: "The lock holds: one holder at a time, the data right",
		Zh: "锁守住了：同一时刻只有一个持锁者，数据正确"},
	OutcomeStopped: {En: "The sale stops: buyers wait, time out and nothing sells",
		Zh: "秒杀卖不动了：买家一直等到超时，一件也没卖出"},
}

// Choice is one outcome offered, in words.
type Choice struct {
	Outcome string `json:"outcome"`
	Texts
}

// Choices are q's outcomes in Outcomes' order, each in q's words or the
// general ones.
func (q CaseQuestion) Choices() []Choice {
	out := make([]Choice, 0, len(Outcomes))
	for _, o := range Outcomes {
		t, ok := q.Say[o]
		if !ok {
			t = OutcomeTexts[o]
		}
		out = append(out, Choice{Outcome: o, Texts: t})
	}
	return out
}

// Outcome is what a finished case showed, in the words of Outcomes: its
// verdict, or stopped when it held but sold nothing of a stock it had.
func (c Case) Outcome() string {
	if c.Verdict == verdict.Holds && c.Sold == 0 && c.InitialStock > 0 {
		return OutcomeStopped
	}
	return c.Verdict
}

// CaseQuestions are lesson's cases as questions, in the order its
// scenario creates their sales (nil for an unknown lesson).
func CaseQuestions(lesson string) []CaseQuestion { return caseQuestions[lesson] }
