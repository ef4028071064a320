package matrix_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix"
)

// columns are the fault table's kinds titled as the fault table titles
// them: the columns a report carries.
func columns() []matrix.Column {
	var cols []matrix.Column
	for _, k := range faults.Kinds() {
		cols = append(cols, matrix.Column{Name: k.Name, TitleEn: k.Title.En, TitleZh: k.Title.Zh})
	}
	return cols
}

// findings are the fixture's cells observed otherwise than predicted:
// row/fault -> the kind seen.
var findings = map[string]string{
	"redis/pause_holder":             matrix.Broken,
	"zookeeper/kill_zk_server":       matrix.Unavailable,
	"db-lock-table/cut_db":           matrix.Stuck,
	"redlock+combine/restart_redis":  matrix.Broken,
	"etcd+fencing/kill_process":      matrix.Holds,
	"consistent-hash+fencing/cut_db": matrix.Holds,
}

// fixtureReport is a realistic observed report for the dashboard's
// browser tests and the exported page: every row against every fault,
// mostly as predicted, a few findings, unavailable cells with their time,
// the Sentinel rows skipped (their backend down), the rows of no lock not
// run (the run was interrupted), sale ids, seeds and replay lines.
func fixtureReport() matrix.Report {
	rep := matrix.Predicted(matrix.Rows(lockstrategy.All()), columns())
	start := time.Date(2026, 5, 2, 14, 3, 0, 0, time.UTC)
	rep.ID, rep.StartedAt, rep.FinishedAt = 7, start, start.Add(38*time.Minute+12*time.Second)
	rep.Commit, rep.Machine, rep.Seed = "6508bc7", "lab-box (8 cores)", 42
	rep.Targets = []string{"http://127.0.0.1:8080", "http://127.0.0.1:8081"}
	group := map[string]string{}
	for _, r := range rep.Rows {
		group[r.Name] = r.Group
	}
	sale := uint64(1200)
	for i := range rep.Cells {
		c := &rep.Cells[i]
		if group[c.Row] == "nolock" {
			continue // not run: the run was interrupted before its last band
		}
		key := c.Row + "/" + string(c.Fault)
		switch {
		case c.Predicted.Kind == matrix.NA:
			c.Kind, c.WhyEn, c.WhyZh = matrix.NA, c.Predicted.WhyEn, c.Predicted.WhyZh
			continue
		case strings.HasPrefix(c.Row, "redis-sentinel"):
			c.Kind = matrix.Skip
			c.WhyEn = "redis-sentinel's backend is not running: make services-up starts the Sentinel set"
			c.WhyZh = "redis-sentinel 的后端没有运行：make services-up 会启动哨兵集群"
			continue
		}
		sale++
		c.SaleID, c.Seed = sale, 42*1000+int64(i)
		c.Replay = fmt.Sprintf("loadtest matrix --targets %s --only %s --seed %d", strings.Join(rep.Targets, ","), key, c.Seed)
		c.ElapsedMS = 9000 + int64(i%7)*1100
		c.Kind = c.Predicted.Kind
		if seen, ok := findings[key]; ok {
			c.Kind, c.Finding = seen, seen != c.Predicted.Kind
		}
		observe(c, i)
	}
	return rep
}

// observe fills c's figures, reasons and history as its kind would have
// them.
func observe(c *matrix.Cell, i int) {
	c.Figures = matrix.Figures{Stock: 20, Sold: 20}
	c.History = "linearizable"
	switch c.Kind {
	case matrix.Holds:
		c.WhyEn, c.WhyZh = "no sections overlapped; oversold 0, lost 0", "临界区没有重叠；超卖 0，丢失更新 0"
	case matrix.OverlappedSafe:
		c.Figures.Violations, c.Figures.FencedWrites = 1, 1
		c.WhyEn, c.WhyZh = "sections overlapped 1 time; fencing refused 1 stale write", "临界区重叠 1 次；防护令牌拒绝了 1 次过期写入"
	case matrix.Unavailable:
		c.UnavailableMS = 1500 + int64(i%9)*730
		c.WhyEn = fmt.Sprintf("sold nothing for %.1f s while the fault struck, then sold out", float64(c.UnavailableMS)/1000)
		c.WhyZh = fmt.Sprintf("故障期间 %.1f 秒没有卖出，之后售罄", float64(c.UnavailableMS)/1000)
	case matrix.Stuck:
		c.Figures.Sold, c.Figures.Left = 17, 3
		c.WhyEn, c.WhyZh = "3 units neither sold nor sellable after the fault", "故障结束后有 3 件既没卖出也不能再卖"
	case matrix.Broken:
		c.Figures.Sold, c.Figures.Oversold, c.Figures.LostUpdates, c.Figures.Violations = 21, 1, 1, 2
		c.History = "not_linearizable"
		c.WhyEn, c.WhyZh = "oversold 1, lost 1: two holders wrote the same stock", "超卖 1，丢失更新 1：两个持有者写了同一个库存"
	}
	if c.Row == "redis" && c.Fault == faultkind.KillProcess {
		c.History = "unknown"
	}
}
