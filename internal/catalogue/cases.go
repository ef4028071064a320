package catalogue

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"

	"github.com/seckill-lab/seckill/internal/verdict"
)

// Paces a lesson can run at: "normal" (the scenario's own stock and work)
// or "class" (seconds-long overlaps and cases of 20 s or more: slow enough for a class to watch).
const (
	PaceNormal = "normal"
	PaceClass  = "class"
)

// ValidPace says whether p is a pace a run accepts.
func ValidPace(p string) bool { return p == PaceNormal || p == PaceClass }

// Case is one row of a lesson's result: one sale the scenario ran (the
// unsafe setup or its fix), with the database's figures.
type Case struct {
	SaleID        uint64 `json:"sale_id"`
	Name          string `json:"name"`    // strategy and what differs from the other cases: "redis, fencing on"
	NameZh        string `json:"name_zh"` // the same in Chinese
	Strategy      string `json:"strategy"`
	InitialStock  int64  `json:"initial_stock"`
	Sold          int64  `json:"sold"`
	ExpectedStock int64  `json:"expected_stock"` // initial stock - sold
	StockLeft     int64  `json:"stock_left"`     // the database's stock
	Oversold      int64  `json:"oversold"`
	LostUpdates   int64  `json:"lost_updates"`
	Duplicates    int64  `json:"duplicates"`
	Violations    int64  `json:"violations"`
	FencedWrites  int64  `json:"fenced_writes"`
	// Verdict is the shop's one judgement of the figures (package
	// verdict: holds, overlapped_safe, broken) and its reason.
	Verdict  string `json:"verdict"`
	Reason   string `json:"reason"`
	ReasonZh string `json:"reason_zh"`
}

// Judge sets c's verdict and reason from its figures.
func (c *Case) Judge() {
	v := verdict.Of(verdict.Figures{Oversold: c.Oversold, LostUpdates: c.LostUpdates, Duplicates: c.Duplicates,
		Violations: c.Violations, FencedWrites: c.FencedWrites})
	c.Verdict, c.Reason, c.ReasonZh = v.Kind, v.ReasonEn, v.ReasonZh
}

// Cases is a run's table, kept as a JSON column (NULL: none yet).
type Cases []Case

// Value writes the table as JSON.
func (c Cases) Value() (driver.Value, error) {
	if c == nil {
		return nil, nil
	}
	b, err := json.Marshal(c)
	return string(b), err
}

// Scan reads the table from its JSON column.
func (c *Cases) Scan(src any) error { return scanJSON(src, c) }

// SaleIDs are the sales a run created so far, kept as a JSON column.
type SaleIDs []uint64

// Value writes the ids as JSON.
func (s SaleIDs) Value() (driver.Value, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// Scan reads the ids from their JSON column.
func (s *SaleIDs) Scan(src any) error { return scanJSON(src, s) }

// scanJSON decodes a JSON column (NULL leaves dst as it is).
func scanJSON(src, dst any) error {
	switch v := src.(type) {
	case nil:
		return nil
	case []byte:
		return json.Unmarshal(v, dst)
	case string:
		return json.Unmarshal([]byte(v), dst)
	}
	return fmt.Errorf("lessons: cannot read %T as JSON", src)
}
