package lessons

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// At the class pace brokenThenHeld's broken strategy lets buyers sent
// together in at once: each round is an overlap of the whole work, which
// must last seconds; the rounds go on for 20 s, the stock covers them and
// the fix's queue stays inside the lock wait. Its verdict needs an overlap
// pairing two replicas' sections (the mutex) and a lost update: a round
// sends one buyer to each of the two replicas (burstOn alternates them),
// and both read the stock before either writes it, the work between.
func TestBrokenThenHeldClassPace(t *testing.T) {
	set := brokenThenHeldSettings(catalogue.PaceClass)
	if !set.Rounds || set.Buyers < 2 {
		t.Fatalf("class pace must send at least two buyers together, round after round: %+v", set)
	}
	if set.Buyers%2 != 0 {
		t.Errorf("%d buyers a round: want a multiple of the two replicas, so that each round puts as many on each", set.Buyers)
	}
	if overlap := ms(set.WorkMS); overlap < 2*time.Second {
		t.Errorf("the broken strategy's holders overlap for the work, %v: want >= 2 s", overlap)
	}
	if set.CaseMin < 20*time.Second {
		t.Errorf("each case lasts %v: want >= 20 s", set.CaseMin)
	}
	rounds := int64((set.CaseMin + ms(set.WorkMS) - 1) / ms(set.WorkMS)) // the broken case's, the most
	if need := rounds * int64(set.Buyers); set.Stock < need {
		t.Errorf("stock %d < %d orders of %d rounds", set.Stock, need, rounds)
	}
	if wait := time.Duration(set.Buyers-1) * ms(set.WorkMS); wait > ShopLockWait/2 {
		t.Errorf("the fix's last buyer waits %v: want well inside the %v lock wait", wait, ShopLockWait)
	}
	if n := brokenThenHeldSettings(catalogue.PaceNormal); n != (contendSettings{Stock: 40, WorkMS: 20, Buyers: 16, Orders: 4}) {
		t.Errorf("normal pace changed: %+v", n)
	}
}

// Next prints what comes next and pauses at the class pace only.
func TestNextPausesAtClassPaceOnly(t *testing.T) {
	var out bytes.Buffer
	told := 0
	sc := &ScenarioRun{Pace: catalogue.PaceNormal, out: &out, onNext: func(catalogue.Next) { told++ }}
	start := time.Now()
	if err := sc.Next(context.Background(), "the fix", "修复"); err != nil || out.Len() > 0 || told > 0 || time.Since(start) > time.Second {
		t.Errorf("normal pace: err %v, output %q, onNext told %d times after %v", err, out.String(), told, time.Since(start))
	}
	if classPause < 3*time.Second {
		t.Errorf("the pause between cases is %v: want >= 3 s to say what comes next", classPause)
	}
	sc.Pace = catalogue.PaceClass
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the pause itself is classPause; a cancelled run ends it at once
	_ = sc.Next(ctx, "the same buyers on db-pessimistic", "同样的买家改用 db-pessimistic")
	if got := out.String(); !strings.Contains(got, "next:") || !strings.Contains(got, "the same buyers on db-pessimistic") {
		t.Errorf("class pace output %q: want a next: line naming the next case", got)
	}
}

// At the class pace next hands the sentence in both languages to onNext,
// with the time the next case starts: now + classPause, as it pauses.
func TestNextTellsTheCallbackBothLanguagesAndTheStart(t *testing.T) {
	var got []catalogue.Next
	c := shopapi.NewClient(1, time.Second, "")
	defer c.Close()
	sc := NewScenarioRun(c, nil, catalogue.PaceClass, nil, func(n catalogue.Next) { got = append(got, n) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := time.Now()
	_ = sc.Next(ctx, "the same buyers with the watchdog", "同样的买家，开启看门狗")
	after := time.Now()
	if len(got) != 1 {
		t.Fatalf("onNext told %d times, want once", len(got))
	}
	n := got[0]
	if n.En != "the same buyers with the watchdog" || n.Zh != "同样的买家，开启看门狗" {
		t.Errorf("onNext got en %q zh %q", n.En, n.Zh)
	}
	if n.At.Before(before.Add(classPause)) || n.At.After(after.Add(classPause)) {
		t.Errorf("next case starts at %v: want now + classPause (%v), between %v and %v", n.At, classPause, before.Add(classPause), after.Add(classPause))
	}
	if n.At.Location() != time.UTC {
		t.Errorf("at %v: want UTC, as the shop stores it", n.At)
	}
}

// Every sentence a scenario says before its next case has its Chinese, in
// the glossary's terms: the scripts' own words are checked here, where the
// dashboard's labels are checked by e2e/browser/glossary.test.mjs.
func TestNextSentencesAreBilingual(t *testing.T) {
	for _, f := range []string{"scenario.go", "leaselessons/faults.go", "failoverlessons/hashring.go"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		calls := regexp.MustCompile(`sc\.Next\(ctx, ([^\n]*)\n\s*([^\n]*)\); err != nil`).FindAllStringSubmatch(string(src), -1)
		if len(calls) == 0 {
			t.Errorf("%s: no sc.Next call found", f)
		}
		for _, c := range calls {
			en, zh := c[1], c[2]
			if !regexp.MustCompile(`\p{Han}`).MatchString(zh) {
				t.Errorf("%s: next %s has no Chinese second argument: %s", f, en, zh)
			}
			for term, want := range map[string]string{"watchdog": "看门狗", "fencing": "防护令牌", "lease": "租约", "buyers": "买家"} {
				if strings.Contains(en, term) && !strings.Contains(zh, want) {
					t.Errorf("%s: %s says %q, its Chinese %s lacks %s", f, en, term, zh, want)
				}
			}
		}
	}
}
