package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// batch is a section of replica with token that served buyers and made
// orders (combining).
func batch(id uint64, replica string, token uint64, t0 time.Time, enter, exit, buyers, orders int, outcome string) sectionlog.Section {
	s := section(id, replica, token, t0, enter, exit, outcome)
	s.BatchBuyers, s.BatchOrders = buyers, orders
	if orders > 0 {
		first := id * 100
		s.OrderID = &first
	}
	return s
}

// A combining sale's narration names its first and largest batch (buyers,
// orders, token), what the buyers left over got, and the totals, in
// English and Chinese.
func TestNarrationTellsTheBatches(t *testing.T) {
	t0 := time.Now()
	sections := []sectionlog.Section{
		batch(4, "vm:2", 10, t0, 0, 1, 1, 1, sectionlog.OutcomeCommitted), // a batch of one: not told
		batch(1, "vm:1", 11, t0, 1, 5, 3, 3, sectionlog.OutcomeCommitted),
		batch(2, "vm:1", 12, t0, 6, 20, 37, 30, sectionlog.OutcomeCommitted),
		section(3, "vm:2", 13, t0, 21, 22, sectionlog.OutcomeSoldOut),
	}
	tl := Timeline{From: At(t0), To: At(t0.Add(30 * time.Millisecond)),
		// The stock reads 0 once the batch of 37 has committed.
		Stock: []StockPoint{{At: At(t0), Stock: 33}, {At: At(t0.Add(4 * time.Millisecond)), Stock: 30}, {At: At(t0.Add(19 * time.Millisecond)), Stock: 0}}}
	tl.ranks = ranksOf(sections, nil)
	lines := narrate(tl, sections)
	en, zh := joined(lines, false), joined(lines, true)
	for _, want := range []string{
		"vm:1 held the lock once for 3 buyers: 3 orders (token #2)\n",
		"vm:1 held the lock once for 37 buyers: 30 orders (token #3), the other 7: sold out",
		"in all, 42 buyers reached the lock: 4 holds of it sold them 34 orders, 8.5 per hold",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("narration lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"vm:1 持锁一次服务 37 位买家：30 个订单（令牌 #3），其余 7 位：售罄", "合计：42 位买家进入加锁环节，4 次持锁卖出 34 单，每次持锁 8.5 单"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese narration lacks %q:\n%s", want, zh)
		}
	}
	if i := strings.Index(en, "37 buyers"); i < strings.Index(en, "3 buyers") {
		t.Errorf("lines out of time order:\n%s", en)
	}
	if strings.Contains(en, "1 buyer") {
		t.Errorf("a batch of one buyer is told:\n%s", en)
	}
}

// Buyers left over while units remain were refused by the limit or a
// repeated key, not "sold out"; a strategy without tokens names none.
func TestNarrationBatchRefusedWithoutTokens(t *testing.T) {
	t0 := time.Now()
	tl := Timeline{From: At(t0), To: At(t0.Add(30 * time.Millisecond)), Stock: []StockPoint{{At: At(t0), Stock: 100}}}
	en := joined(narrate(tl, []sectionlog.Section{batch(1, "r1", 0, t0, 0, 5, 10, 8, sectionlog.OutcomeCommitted)}), false)
	if !strings.Contains(en, "r1 held the lock once for 10 buyers: 8 orders, the other 2 refused (per-user limit or a repeated key)") {
		t.Errorf("narration:\n%s", en)
	}
	if strings.Contains(en, "token") || strings.Contains(en, "sold out") {
		t.Errorf("narration names a token or a sell-out:\n%s", en)
	}
}

// A stale holder's batch is refused whole: the fenced line says so with
// its size, and it is not told as a batch that sold.
func TestNarrationFencedBatchRefusedWhole(t *testing.T) {
	t0 := time.Now()
	stale := batch(1, "r2", 41, t0, 0, 3000, 25, 0, sectionlog.OutcomeFenced)
	next := batch(2, "r1", 42, t0, 600, 610, 5, 5, sectionlog.OutcomeCommitted)
	lines := narrationOf([]sectionlog.Section{stale, next}, nil)
	en, zh := joined(lines, false), joined(lines, true)
	if !strings.Contains(en, "r2 writes a batch of 25 buyers with token #1: refused whole (fenced), the newer #2 had written before it") {
		t.Errorf("narration lacks the refused batch:\n%s", en)
	}
	if !strings.Contains(zh, "r2 用令牌 #1 写入 25 位买家的批次：整批被拒绝（防护令牌拦截），更新的令牌 #2 已先写入") {
		t.Errorf("Chinese narration lacks the refused batch:\n%s", zh)
	}
	if strings.Contains(en, "held the lock once for 25") {
		t.Errorf("the fenced batch is told as a sale:\n%s", en)
	}
}

// Without combining nothing about batches is said.
func TestNarrationWithoutBatchesSaysNoneOfThem(t *testing.T) {
	t0 := time.Now()
	en := joined(narrate(Timeline{From: At(t0), To: At(t0)}, []sectionlog.Section{
		section(1, "r1", 1, t0, 0, 5, sectionlog.OutcomeCommitted),
	}), false)
	if strings.Contains(en, "held the lock once") || strings.Contains(en, "in all") {
		t.Errorf("narration of a sale without batches:\n%s", en)
	}
}

// One order is "1 order", not "1 orders".
func TestNarrationBatchSingular(t *testing.T) {
	t0 := time.Now()
	tl := Timeline{From: At(t0), To: At(t0.Add(30 * time.Millisecond)), Stock: []StockPoint{{At: At(t0), Stock: 1}, {At: At(t0.Add(4 * time.Millisecond)), Stock: 0}}}
	sections := []sectionlog.Section{batch(1, "r1", 7, t0, 0, 5, 2, 1, sectionlog.OutcomeCommitted)}
	tl.ranks = ranksOf(sections, nil)
	en := joined(narrate(tl, sections), false)
	if !strings.Contains(en, "r1 held the lock once for 2 buyers: 1 order (token #1), the other 1: sold out") || !strings.Contains(en, "in all, 2 buyers reached the lock: 1 hold of it sold them 1 order,") {
		t.Errorf("narration:\n%s", en)
	}
}
