package lessons

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
)

// Paces a lesson can run at: "normal" (the scenario's own stock and work)
// or "class" (less stock, longer work: slow enough for a class to watch).
const (
	PaceNormal = "normal"
	PaceClass  = "class"
)

// ValidPace says whether p is a pace a run accepts.
func ValidPace(p string) bool { return p == PaceNormal || p == PaceClass }

// Case verdicts: what one sale of a lesson showed, the three words of the
// dashboard's verdicts.
const (
	CaseHolds      = "holds"      // no overlap, nothing broken
	CaseOverlapped = "overlapped" // sections overlapped, but no unit was oversold or lost
	CaseBroken     = "broken"     // oversold, lost updates or a buyer over the limit
)

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
	Verdict       string `json:"verdict"` // CaseHolds, CaseOverlapped or CaseBroken
}

// CaseVerdict is the verdict word of a sale's figures: broken when a unit
// was oversold or lost or a buyer got more than the limit, overlapped when
// sections overlapped (or fencing refused a stale write) without damage,
// else holds.
func CaseVerdict(c Case) string {
	switch {
	case c.Oversold > 0 || c.LostUpdates > 0 || c.Duplicates > 0:
		return CaseBroken
	case c.Violations > 0 || c.FencedWrites > 0:
		return CaseOverlapped
	}
	return CaseHolds
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
