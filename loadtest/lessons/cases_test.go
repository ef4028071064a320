package lessons

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// A lesson's table comes from the sales it made, read from a real shop's
// database: one row per sale, named by what differs, with the figures; and
// each sale is reported as soon as it is created.
func TestCaseTableFromRealSales(t *testing.T) {
	testenv.SkipInShort(t)
	shop := testenv.StartShop(t, testenv.ShopOptions{DB: "lessons_cases"})
	c := shopapi.NewClient(8, 10*time.Second, "")
	defer c.Close()
	var mu sync.Mutex
	var reported [][]uint64
	sc := NewScenarioRun(c, []string{shop.URL}, catalogue.PaceNormal, func(list []uint64) {
		mu.Lock()
		reported = append(reported, list)
		mu.Unlock()
	}, nil)
	ctx := context.Background()
	var ids []uint64
	for i, fencing := range []bool{false, true} {
		v, _, err := sc.C.CreateSale(ctx, shop.URL, shopapi.SaleRequest{Name: "cases test", Strategy: "redis", Stock: 5, Fencing: fencing})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, v.ID)
		for u := 0; u < 3+4*i; u++ { // 3 orders, then 7 (2 of them sold out)
			sc.C.Order(ctx, shopapi.OrdersURL(shop.URL, v.ID), fmt.Sprintf("u%d", u))
		}
		if _, err := sc.Settled(ctx, v.ID); err != nil { // read again: noted once
			t.Fatal(err)
		}
	}
	mu.Lock()
	if want := [][]uint64{ids[:1], ids}; fmt.Sprint(reported) != fmt.Sprint(want) {
		t.Errorf("reported %v, want %v (each sale once, when created)", reported, want)
	}
	mu.Unlock()
	if got := sc.Sales(); !slices.Equal(got, ids) {
		t.Errorf("Sales() = %v, want %v", got, ids)
	}
	got := sc.Cases(ctx)
	want := catalogue.Cases{
		{SaleID: ids[0], Name: "redis, fencing off", NameZh: "redis，防护令牌 关", Strategy: "redis", InitialStock: 5, Sold: 3,
			ExpectedStock: 2, StockLeft: 2},
		{SaleID: ids[1], Name: "redis, fencing on", NameZh: "redis，防护令牌 开", Strategy: "redis", InitialStock: 5, Sold: 5,
			ExpectedStock: 0, StockLeft: 0},
	}
	for i := range want {
		want[i].Judge()
	}
	if want[0].Verdict != "holds" || want[0].Reason == "" || want[0].ReasonZh == "" {
		t.Fatalf("a clean case judged %+v", want[0])
	}
	if !slices.Equal(got, want) {
		t.Errorf("cases\n got %+v\nwant %+v", got, want)
	}
}

// Names met twice are numbered; damage is broken, an overlap without
// damage is overlapped_safe (package verdict's one judgement); the verdict
// follows the figures, not the strategy.
func TestCaseTableNamesAndVerdicts(t *testing.T) {
	views := []shopapi.SaleView{
		{ID: 1, Strategy: "redis", InitialStock: 10, Sold: 6, Stock: 5, LostUpdates: 1, Violations: 1},
		{ID: 2, Strategy: "redis", Fencing: true, InitialStock: 10, Sold: 5, Stock: 5, Violations: 1, FencedWrites: 1},
		{ID: 3, Strategy: "redis", InitialStock: 10, Sold: 5, Stock: 5},
		{ID: 5, Strategy: "redis", InitialStock: 10, Sold: 5, Stock: 5},
		{ID: 4, Strategy: "mutex", InitialStock: 10, Sold: 12, Stock: 0, Oversold: 2},
	}
	got := CaseTable(views)
	var names, namesZh, verdicts []string
	for _, c := range got {
		names, namesZh, verdicts = append(names, c.Name), append(namesZh, c.NameZh), append(verdicts, c.Verdict)
	}
	if want := []string{"redis，防护令牌 关", "redis，防护令牌 开", "redis，防护令牌 关（2）", "redis，防护令牌 关（3）", "mutex，防护令牌 关"}; !slices.Equal(namesZh, want) {
		t.Errorf("Chinese names %q, want %q", namesZh, want)
	}
	if want := []string{"redis, fencing off", "redis, fencing on", "redis, fencing off (2)", "redis, fencing off (3)", "mutex, fencing off"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if want := []string{"broken", "overlapped_safe", "holds", "holds", "broken"}; !slices.Equal(verdicts, want) {
		t.Errorf("verdicts %q, want %q", verdicts, want)
	}
	if got[4].ExpectedStock != -2 {
		t.Errorf("expected stock of an oversold sale: %d, want -2", got[3].ExpectedStock)
	}
	if len(CaseTable(nil)) != 0 {
		t.Error("no sales: rows")
	}
	// What a sale's name adds to the lesson's common name tells cases apart.
	named := CaseTable([]shopapi.SaleView{{ID: 1, Name: "scenario p", Strategy: "redis"},
		{ID: 2, Name: "scenario p, buyer-2 reads first", Strategy: "redis"}})
	words := CaseTable([]shopapi.SaleView{{ID: 1, Name: "herd cache on", Strategy: "redis"}, {ID: 2, Name: "herd cache off", Strategy: "redis"}})
	if words[0].Name != "redis, on" || words[1].Name != "redis, off" {
		t.Errorf("whole words: %q, %q", words[0].Name, words[1].Name)
	}
	if named[0].Name != "redis" || named[1].Name != "redis, buyer-2 reads first" || named[1].NameZh != "redis，buyer-2 先读库存" {
		t.Errorf("named by the sale names: %q, %q / %q", named[0].Name, named[1].Name, named[1].NameZh)
	}
	// Every name a scenario adds reads in Chinese in a Chinese case name.
	var rounds []shopapi.SaleView
	for i, mode := range shopapi.DurabilityModes {
		rounds = append(rounds, shopapi.SaleView{ID: uint64(i + 1), Name: "scenario queue-durability " + mode, Strategy: "redis-lua-stock"})
	}
	for i, c := range CaseTable(rounds) {
		mode := shopapi.DurabilityModes[i]
		if c.Name != "redis-lua-stock, persistence "+mode || c.NameZh != "redis-lua-stock，持久化 "+mode {
			t.Errorf("queue round %s named %q / %q", mode, c.Name, c.NameZh)
		}
	}
	clock := CaseTable([]shopapi.SaleView{{ID: 1, Name: "scenario redlock-clock-jump", Strategy: "redlock"},
		{ID: 2, Name: "scenario redlock-clock-jump: time to acquire", Strategy: "redlock"}})
	if clock[1].NameZh != "redlock，加锁耗时" {
		t.Errorf("redlock-clock-jump's second case in Chinese: %q", clock[1].NameZh)
	}
	// Two herds that differ in combining alone are named by it.
	herds := CaseTable([]shopapi.SaleView{{ID: 1, Name: "scenario lock-per-batch", Strategy: "redis"},
		{ID: 2, Name: "scenario lock-per-batch", Strategy: "redis", Combine: true}})
	if herds[0].Name != "redis, combining off" || herds[1].NameZh != "redis，合并 开" {
		t.Errorf("herds named %q / %q", herds[0].Name, herds[1].NameZh)
	}
}

// Each lesson that says it has a class pace runs a scenario that reads the
// pace; RunOne says so for the others (the catalogue's flag is the API's).
func TestClassPaceLessonsUseThePace(t *testing.T) {
	var paced []string
	for _, l := range catalogue.Catalogue {
		if l.ClassPace {
			paced = append(paced, l.Name)
		}
	}
	if want := []string{"mutex-across-replicas", "ttl-shorter-than-work", "for-update-needs-tx", "consistent-hashing-ring-change"}; !slices.Equal(paced, want) {
		t.Errorf("class pace lessons %q, want %q (brokenThenHeld, ttlShorterThanWork and consistentHashingRingChange read the pace; add a lesson here when its scenario does)", paced, want)
	}
}
