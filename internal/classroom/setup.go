package classroom

import (
	"fmt"
	"strings"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/sale"
)

// RunSetup is a run's setup in one sentence, in English and Chinese: the
// strategy, the stock and the load, the time in the lock, and each setting
// that differs from a plain sale (a TTL of sale.DefaultTTLMS, the watchdog
// and the sold-out cache on, a limit of 1 per buyer, no fencing).
func RunSetup(cfg runs.Config) catalogue.Texts {
	en := []string{fmt.Sprintf("%s sells %s %s to %s %s", cfg.Strategy, thousands(cfg.Stock), plural(cfg.Stock, "unit", "units"),
		thousands(int64(cfg.Buyers)), plural(int64(cfg.Buyers), "buyer", "buyers"))}
	zh := []string{fmt.Sprintf("%s 把 %s 件库存卖给 %s 位买家", cfg.Strategy, thousands(cfg.Stock), thousands(int64(cfg.Buyers)))}
	if cfg.Concurrency > 0 {
		en[0] += fmt.Sprintf(", %d at once", cfg.Concurrency)
		zh[0] += fmt.Sprintf("，同时 %d 个", cfg.Concurrency)
	} else {
		en[0] += fmt.Sprintf(", %g orders/s", cfg.Rate)
		zh[0] += fmt.Sprintf("，每秒 %g 单", cfg.Rate)
	}
	add := func(cond bool, e, z string) {
		if cond {
			en, zh = append(en, e), append(zh, z)
		}
	}
	add(cfg.WorkMS > 0, fmt.Sprintf("%d ms of work in the lock", cfg.WorkMS), fmt.Sprintf("锁内业务 %d 毫秒", cfg.WorkMS))
	add(cfg.TTLMS > 0 && cfg.TTLMS != sale.DefaultTTLMS, fmt.Sprintf("a TTL of %d ms", cfg.TTLMS), fmt.Sprintf("锁过期时间 %d 毫秒", cfg.TTLMS))
	add(!cfg.Watchdog, "no watchdog", "没有看门狗")
	add(cfg.Fencing, "fencing on", "防护令牌开")
	add(cfg.Combine, "combining on", "合并开")
	add(cfg.StockShards > 1, fmt.Sprintf("the stock in %d shards", cfg.StockShards), fmt.Sprintf("库存分 %d 段", cfg.StockShards))
	add(cfg.PerUserLimit != 1, limitEn(cfg.PerUserLimit), limitZh(cfg.PerUserLimit))
	add(cfg.OrderMode == "async", "orders queued", "异步下单")
	add(!cfg.SoldOutCache, "the sold-out cache off", "售罄缓存关")
	add(cfg.OpensInMS > 0, fmt.Sprintf("opening in %g s", float64(cfg.OpensInMS)/1000), fmt.Sprintf("%g 秒后开抢", float64(cfg.OpensInMS)/1000))
	return catalogue.Texts{En: strings.Join(en, ", ") + ".", Zh: strings.Join(zh, "，") + "。"}
}

func limitEn(n int) string {
	if n == 0 {
		return "no limit per buyer"
	}
	return fmt.Sprintf("a limit of %d per buyer", n)
}

func limitZh(n int) string {
	if n == 0 {
		return "不限购"
	}
	return fmt.Sprintf("每人限购 %d", n)
}

// thousands writes n with a comma every three digits: 20,000.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
