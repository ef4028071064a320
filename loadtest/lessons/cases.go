package lessons

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// NewScenarioRun is a run against targets at pace (catalogue.PaceNormal or
// PaceClass) whose every sale, from its creation on, is recorded in order;
// onSales, when set, is told the whole list each time it grows, and
// onNext, when set, what the next case shows (in English and Chinese) and
// when it starts, as the class pace's pause before it begins (the agent
// reports both, so that the dashboard follows the lesson while it runs).
func NewScenarioRun(c *shopapi.Client, targets []string, pace string, onSales func([]uint64), onNext func(catalogue.Next)) *ScenarioRun {
	sc := &ScenarioRun{C: c, Targets: targets, Pace: pace, onSales: onSales, onNext: onNext}
	c.SaleCreated = sc.Note
	return sc
}

// Note records sale id once, in the order the scenario met it.
func (sc *ScenarioRun) Note(id uint64) {
	sc.mu.Lock()
	if slices.Contains(sc.sales, id) {
		sc.mu.Unlock()
		return
	}
	sc.sales = append(sc.sales, id)
	list := slices.Clone(sc.sales)
	sc.mu.Unlock()
	if sc.onSales != nil {
		sc.onSales(list)
	}
}

// Sales is every sale the scenario created or read, in order.
func (sc *ScenarioRun) Sales() []uint64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return slices.Clone(sc.sales)
}

// Cases reads every sale of the run from the database (through the
// targets still answering) and returns the lesson's result table: one row
// per sale. A sale no target can read is left out.
func (sc *ScenarioRun) Cases(ctx context.Context) catalogue.Cases {
	var views []shopapi.SaleView
	for _, id := range sc.Sales() {
		if v, _, err := sc.C.SettledSale(ctx, sc.Targets, id); err == nil {
			views = append(views, v)
		}
	}
	return CaseTable(views)
}

// CaseTable is the result table of the sales views, in their order: each
// row named by its strategy, the settings that differ between the sales
// ("redis, fencing on") and what a sale's name adds to the name every
// sale of the lesson starts with ("scenario pause-past-ttl, buyer-2 reads
// first"); a name still met twice is numbered ("(2)").
func CaseTable(views []shopapi.SaleView) catalogue.Cases {
	common := ""
	if len(views) > 0 {
		common = views[0].Name
		for _, v := range views[1:] {
			for !strings.HasPrefix(v.Name, common) {
				common = common[:len(common)-1]
			}
		}
		// Whole words only: "herd cache on" and "herd cache off" share
		// "herd cache ", not "herd cache o".
		for _, v := range views {
			if len(v.Name) > len(common) && !strings.ContainsRune(" ,;:", rune(v.Name[len(common)])) &&
				(common == "" || !strings.ContainsRune(" ,;:", rune(common[len(common)-1]))) {
				common = common[:strings.LastIndexAny(common, " ,;:")+1]
			}
		}
	}
	var differ []setting
	for _, s := range settings {
		for _, v := range views[min(1, len(views)):] {
			if s.value(v) != s.value(views[0]) {
				differ = append(differ, s)
				break
			}
		}
	}
	seen := map[string]int{}
	out := make(catalogue.Cases, 0, len(views))
	for _, v := range views {
		en, zh := []string{v.Strategy}, []string{v.Strategy}
		for _, s := range differ {
			e, z := s.name(v)
			en, zh = append(en, e), append(zh, z)
		}
		if extra := strings.Trim(strings.TrimPrefix(v.Name, common), " ,;:"); extra != "" && common != "" {
			e, z := extraName(extra)
			en, zh = append(en, e), append(zh, z)
		}
		c := catalogue.Case{SaleID: v.ID, Name: strings.Join(en, ", "), NameZh: strings.Join(zh, "，"), Strategy: v.Strategy,
			InitialStock: v.InitialStock, Sold: v.Sold, ExpectedStock: v.InitialStock - v.Sold, StockLeft: v.Stock,
			Oversold: v.Oversold, LostUpdates: v.LostUpdates, Duplicates: v.Duplicates, Violations: v.Violations,
			FencedWrites: v.FencedWrites}
		seen[c.Name]++
		if n := seen[c.Name]; n > 1 {
			c.Name += fmt.Sprintf(" (%d)", n)
			c.NameZh += fmt.Sprintf("（%d）", n)
		}
		c.Judge()
		out = append(out, c)
	}
	return out
}

// setting is a sale's setting that may tell two cases of a lesson apart.
type setting struct {
	value func(shopapi.SaleView) string
	name  func(shopapi.SaleView) (en, zh string)
}

var settings = []setting{
	onOff(func(v shopapi.SaleView) bool { return v.Fencing }, "fencing", "防护令牌"),
	onOff(func(v shopapi.SaleView) bool { return v.Combine }, "combining", "合并"),
	number(func(v shopapi.SaleView) int { return max(v.StockShards, 1) }, "%d stock shards", "库存分 %d 段"),
	onOff(func(v shopapi.SaleView) bool { return v.Watchdog }, "watchdog", "看门狗"),
	onOff(func(v shopapi.SaleView) bool { return !v.NoQueue }, "local queue", "本地排队"),
	number(func(v shopapi.SaleView) int { return v.WorkMS }, "work %d ms", "锁内业务耗时 %d 毫秒"),
	number(func(v shopapi.SaleView) int { return v.TTLMS }, "ttl %d ms", "锁过期时间 %d 毫秒"),
	onOff(func(v shopapi.SaleView) bool { return v.SoldOutCache }, "sold-out cache", "售罄缓存"),
	number(func(v shopapi.SaleView) int { return v.RateLimitIP }, "%d orders/s per IP", "每 IP 限流 %d 次/秒"),
	number(func(v shopapi.SaleView) int { return v.PerUserLimit }, "limit %d per buyer", "每人限购 %d"),
	{value: func(v shopapi.SaleView) string { return v.OrderMode },
		name: func(v shopapi.SaleView) (string, string) {
			return v.OrderMode + " orders", "下单模式 " + v.OrderMode
		}},
}

func onOff(get func(shopapi.SaleView) bool, en, zh string) setting {
	return setting{
		value: func(v shopapi.SaleView) string { return fmt.Sprint(get(v)) },
		name: func(v shopapi.SaleView) (string, string) {
			if get(v) {
				return en + " on", zh + " 开"
			}
			return en + " off", zh + " 关"
		},
	}
}

func number(get func(shopapi.SaleView) int, en, zh string) setting {
	return setting{
		value: func(v shopapi.SaleView) string { return fmt.Sprint(get(v)) },
		name:  func(v shopapi.SaleView) (string, string) { return fmt.Sprintf(en, get(v)), fmt.Sprintf(zh, get(v)) },
	}
}

// extraNames are what the scenarios' sale names add to their lesson's
// common name, as a case name says them in English and in Chinese: a
// queue-durability round is named by its persistence mode alone.
var extraNames = map[string][2]string{
	"buyer-2 reads first":      {"buyer-2 reads first", "buyer-2 先读库存"},
	"time to acquire":          {"time to acquire", "加锁耗时"},
	"crashed holder":           {"crashed holder", "持锁者崩溃"},
	"slow holder":              {"slow holder", "持锁者太慢"},
	shopapi.DurabilityNone:     {"persistence " + shopapi.DurabilityNone, "持久化 " + shopapi.DurabilityNone},
	shopapi.DurabilityEverysec: {"persistence " + shopapi.DurabilityEverysec, "持久化 " + shopapi.DurabilityEverysec},
	shopapi.DurabilityAlways:   {"persistence " + shopapi.DurabilityAlways, "持久化 " + shopapi.DurabilityAlways},
}

// extraName is extra in English and in Chinese (as it is, when unknown).
func extraName(extra string) (en, zh string) {
	if n, ok := extraNames[extra]; ok {
		return n[0], n[1]
	}
	return extra, extra
}
