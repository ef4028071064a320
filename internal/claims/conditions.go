package claims

import (
	"fmt"
	"strings"
	"time"
)

// A Text is one text in English and in simplified Chinese, built together
// from the same figures so that the two cannot drift apart.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// join joins texts: the English with sepEn, the Chinese with sepZh.
func join(ts []Text, sepEn, sepZh string) Text {
	en, zh := make([]string, len(ts)), make([]string, len(ts))
	for i, t := range ts {
		en[i], zh[i] = t.En, t.Zh
	}
	return Text{strings.Join(en, sepEn), strings.Join(zh, sepZh)}
}

// then is t and then u, as the next clause.
func (t Text) then(u Text) Text { return Text{t.En + "; " + u.En, t.Zh + "；" + u.Zh} }

// NoRunConditions are the conditions when no finished run has a figure.
func NoRunConditions() Text {
	return Text{"no finished run", "还没有已完成的压测"}
}

// RunSettings are the settings the dashboard's runs were judged on (GET
// /api/claims): the runs, newest first, and what they shared.
type RunSettings struct {
	RunIDs      []uint64
	Buyers      int
	Concurrency int     // closed model: workers
	Rate        float64 // open model: requests per second offered (> 0 wins over Concurrency)
	WorkMS      int
	Replicas    int
	Stock       int64
}

// RunConditions says how the runs' orders per second were measured, e.g.
// "run #6, run #5 (same settings; median, min-max), orders/s per step: 200
// buyers, 50 workers, work 0 ms, 1 replicas, stock 100".
func RunConditions(s RunSettings) Text {
	loadEn, loadZh := fmt.Sprintf("%d workers", s.Concurrency), fmt.Sprintf("并发数 %d", s.Concurrency)
	if s.Rate > 0 {
		loadEn, loadZh = fmt.Sprintf("%.0f req/s offered", s.Rate), fmt.Sprintf("请求速率 %.0f 次/秒", s.Rate)
	}
	runsEn, runsZh := make([]string, len(s.RunIDs)), make([]string, len(s.RunIDs))
	for i, id := range s.RunIDs {
		runsEn[i], runsZh[i] = fmt.Sprintf("run #%d", id), fmt.Sprintf("#%d", id)
	}
	return Text{
		En: fmt.Sprintf("%s (same settings; median, min-max), orders/s per step: %d buyers, %s, work %d ms, %d replicas, stock %d",
			strings.Join(runsEn, ", "), s.Buyers, loadEn, s.WorkMS, s.Replicas, s.Stock),
		Zh: fmt.Sprintf("压测 %s（设置相同；中位数、最小-最大），各步骤每秒订单数：买家数 %d，%s，锁内业务耗时 %d 毫秒，实例数 %d，库存 %d",
			strings.Join(runsZh, "、"), s.Buyers, loadZh, s.WorkMS, s.Replicas, s.Stock),
	}
}

// BenchConditions says how make bench measured the locks: contenders, the
// work inside the lock and the rounds.
func BenchConditions(contenders int, work time.Duration, rounds int) Text {
	return Text{
		En: fmt.Sprintf("%d contenders, work %v, locked sections/s over %d rounds (median, min-max)", contenders, work, rounds),
		Zh: fmt.Sprintf("%d 个竞争者，锁内业务耗时 %v，%d 轮中每秒完成的临界区数（中位数、最小-最大）", contenders, work, rounds),
	}
}

// DBTPSConditions says how make bench measured the database's own
// transactions per second: the server's flush settings (as the server
// names them), the time per round and the rounds.
func DBTPSConditions(flush string, perRound time.Duration, rounds int) Text {
	return Text{
		En: fmt.Sprintf("MariaDB on this machine, %s, %v per round, %d rounds (median, min-max)", flush, perRound, rounds),
		Zh: fmt.Sprintf("本机的 MariaDB，%s，每轮 %v，共 %d 轮（中位数、最小-最大）", flush, perRound, rounds),
	}
}

// CommandsConditions says how make bench counted the Redis commands of
// each lock: the client's own count (a hook on the lock's Redis client, so
// that other clients of the same server do not count), in the runs of
// BenchConditions.
func CommandsConditions(contenders int, work time.Duration, rounds int) Text {
	return Text{
		En: fmt.Sprintf("%d contenders, work %v, Redis commands the lock's client sent per acquisition (lock and unlock) "+
			"over %d rounds (median, min-max)", contenders, work, rounds),
		Zh: fmt.Sprintf("%d 个竞争者，锁内业务耗时 %v，%d 轮中锁的客户端每次加锁（加锁并解锁）发出的 Redis 命令数（中位数、最小-最大）",
			contenders, work, rounds),
	}
}

// RedsyncConditions says how make bench measured one Redis master against
// three: the same redsync client, the same wait (a retry every minRetry to
// maxRetry, the redlock strategy's), no work inside the lock, window per
// round, rounds.
func RedsyncConditions(minRetry, maxRetry, window time.Duration, rounds int) Text {
	return Text{
		En: fmt.Sprintf("the same client (redsync) and wait (a retry every %v-%v, as the redlock strategy's) on 1 Redis master "+
			"and on 3, work 0s, %v per round, %d rounds (median, min-max)", minRetry, maxRetry, window, rounds),
		Zh: fmt.Sprintf("同一个客户端（redsync）、同一种等待方式（每 %v-%v 重试一次，与 redlock 策略相同），分别在 1 个和 3 个 Redis 主节点上，"+
			"锁内业务耗时 0s，每轮 %v，共 %d 轮（中位数、最小-最大）", minRetry, maxRetry, window, rounds),
	}
}
