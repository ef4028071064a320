package matrix

import (
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Report is one run of the matrix as it is kept and served (GET
// /api/matrix) and exported (loadtest matrix --html): where and when it
// ran, its columns and rows in the order they are read, and every cell,
// observed or predicted only.
type Report struct {
	ID         uint64    `json:"id,omitempty"` // the database's; 0 before it is saved
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// Commit is the revision the load tool was built from ("" unknown);
	// Machine the host that ran it, with its cores.
	Commit  string   `json:"commit"`
	Machine string   `json:"machine"`
	Targets []string `json:"targets"`
	// Seed is the run's; each cell has its own, drawn from it.
	Seed  int64 `json:"seed"`
	Quick bool  `json:"quick"` // one configuration per strategy
	// Complete: every chosen cell ran; false when the run was interrupted
	// (the cells that ran are kept).
	Complete bool     `json:"complete"`
	Faults   []Column `json:"faults"`
	Rows     []RowRef `json:"rows"`
	Cells    []Cell   `json:"cells"`
}

// Column is one fault of the matrix, titled in both languages.
type Column struct {
	Name    faultkind.Name `json:"name"`
	TitleEn string         `json:"title_en"`
	TitleZh string         `json:"title_zh"`
}

// RowRef is one row as a report lists it: its name, its strategy and
// switches, and its group (Groups).
type RowRef struct {
	Name       string `json:"name"`
	Strategy   string `json:"strategy"`
	Group      string `json:"group"`
	Fencing    bool   `json:"fencing"`
	NoWatchdog bool   `json:"no_watchdog"`
	Combine    bool   `json:"combine"`
	Async      bool   `json:"async"`
}

// Cell is one row against one fault.
type Cell struct {
	Row       string         `json:"row"`
	Fault     faultkind.Name `json:"fault"`
	Predicted Prediction     `json:"predicted"`
	// Kind is the observed word (Kinds); "" when the cell was not run
	// (WhyEn says why).
	Kind    string `json:"kind"`
	WhyEn   string `json:"why_en"`
	WhyZh   string `json:"why_zh"`
	Finding bool   `json:"finding"` // observed, and not what was predicted
	// SaleID is the cell's sale (its timeline and history); 0 for n/a and
	// skip.
	SaleID uint64 `json:"sale_id,omitempty"`
	Seed   int64  `json:"seed,omitempty"`
	// UnavailableMS is how long the sale sold nothing while the fault
	// struck (an unavailable cell's figure).
	UnavailableMS int64   `json:"unavailable_ms,omitempty"`
	Figures       Figures `json:"figures"`
	// History is the linearizability check of the sale's orders:
	// "linearizable", "not_linearizable", "unknown" (the checker ran out
	// of time) or "" (not checked).
	History   string `json:"history,omitempty"`
	Replay    string `json:"replay,omitempty"`
	ElapsedMS int64  `json:"elapsed_ms,omitempty"`
}

// Figures are a cell's sale as the database counts it after the settle.
type Figures struct {
	Stock        int `json:"stock"`
	Sold         int `json:"sold"`
	Left         int `json:"left"` // units not sold when the cell ended (a stuck cell's could not be)
	Oversold     int `json:"oversold"`
	LostUpdates  int `json:"lost_updates"`
	Duplicates   int `json:"duplicates"`
	Violations   int `json:"violations"`    // sections that overlapped
	FencedWrites int `json:"fenced_writes"` // stale writes fencing refused
}

// Group is a band of rows: the seeds' systems (the database, Redis,
// ZooKeeper) first, then the systems beyond them, then no lock at all.
type Group struct {
	Name string `json:"name"`
	En   string `json:"en"`
	Zh   string `json:"zh"`
}

// Groups are the bands, in the order they are read.
var Groups = []Group{
	{"database", "Database (the articles' first lock)", "数据库（文章中的第一种锁）"},
	{"redis", "Redis", "Redis"},
	{"zookeeper", "ZooKeeper", "ZooKeeper"},
	{"beyond", "Beyond the articles: etcd, a hash ring", "文章之外：etcd、一致性哈希"},
	{"nolock", "No distributed lock", "没有分布式锁"},
}

// GroupOf is the band row r is read in.
func GroupOf(r Row) string {
	switch {
	case r.Strategy.Name == "consistent-hash" || r.needs(lockstrategy.NeedEtcd):
		return "beyond"
	case r.needs(lockstrategy.NeedDB):
		return "database"
	case r.needs(lockstrategy.NeedRedis) || r.needs(lockstrategy.NeedRedlock) || r.needs(lockstrategy.NeedSentinel):
		return "redis"
	case r.needs(lockstrategy.NeedZooKeeper):
		return "zookeeper"
	}
	return "nolock"
}

// Grouped are rows in the order a report reads them: band by band
// (Groups), each band in rows' own order.
func Grouped(rows []Row) []Row {
	var out []Row
	for _, g := range Groups {
		for _, r := range rows {
			if GroupOf(r) == g.Name {
				out = append(out, r)
			}
		}
	}
	return out
}

// Ref is r as a report lists it.
func (r Row) Ref() RowRef {
	return RowRef{Name: r.Name, Strategy: r.Strategy.Name, Group: GroupOf(r), Fencing: r.Fencing,
		NoWatchdog: r.NoWatchdog, Combine: r.Combine, Async: r.Async}
}

// Predicted is a report of rows against cols with every cell predicted
// and none run: the table a class reads before anything runs.
func Predicted(rows []Row, cols []Column) Report {
	rep := Report{Faults: cols}
	for _, r := range Grouped(rows) {
		rep.Rows = append(rep.Rows, r.Ref())
		for _, c := range cols {
			p := Predict(r, c.Name)
			rep.Cells = append(rep.Cells, Cell{Row: r.Name, Fault: c.Name, Predicted: p,
				WhyEn: "not run: predicted only", WhyZh: "未运行：仅有预测"})
		}
	}
	return rep
}
