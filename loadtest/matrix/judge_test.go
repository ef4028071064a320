package matrix

import (
	"strings"
	"testing"
	"time"

	model "github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// judge's words from the database's figures, the history and the times
// the probers sold at: broken and overlapped first, then stuck, then a
// stop of a second or more, else holds; a killed replica's history is no
// evidence.
func TestJudge(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	at := func(ms ...int) *probers {
		p := &probers{}
		for _, m := range ms {
			p.sold = append(p.sold, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return p
	}
	for _, tc := range []struct {
		name    string
		got     shopapi.SaleView
		history string
		w       window
		want    string
		wantMS  int64
	}{
		{"sold throughout", shopapi.SaleView{}, "linearizable", window{p: at(100, 600, 1100), again: t0.Add(1100 * time.Millisecond)}, model.Holds, 0},
		{"a 2.5 s stop", shopapi.SaleView{}, "linearizable", window{p: at(100, 2600), again: t0.Add(2600 * time.Millisecond)}, model.Unavailable, 2500},
		{"never again, units left", shopapi.SaleView{Stock: 5}, "linearizable", window{p: at()}, model.Stuck, 0},
		{"lost update", shopapi.SaleView{LostUpdates: 1, Violations: 1}, "not_linearizable", window{p: at(100), again: t0.Add(100 * time.Millisecond)}, model.Broken, 0},
		{"fenced overlap", shopapi.SaleView{Violations: 2, FencedWrites: 1}, "linearizable", window{p: at(4000), again: t0.Add(4 * time.Second)}, model.OverlappedSafe, 0},
		{"history alone", shopapi.SaleView{}, "not_linearizable", window{p: at(100), again: t0.Add(100 * time.Millisecond)}, model.Broken, 0},
		{"killed replica's history", shopapi.SaleView{}, "not_linearizable", window{p: at(3000), again: t0.Add(3 * time.Second), killed: true}, model.Unavailable, 3000},
	} {
		tc.w.from = t0
		cell := &model.Cell{History: tc.history}
		judge(cell, tc.got, tc.w)
		if cell.Kind != tc.want || cell.UnavailableMS != tc.wantMS {
			t.Errorf("%s: %s (%d ms), want %s (%d ms): %s", tc.name, cell.Kind, cell.UnavailableMS, tc.want, tc.wantMS, cell.WhyEn)
		}
		if tc.w.killed && (cell.History != "unknown" || !strings.Contains(cell.WhyEn, "killed")) {
			t.Errorf("%s: history %q, why %q: want it set aside, and said", tc.name, cell.History, cell.WhyEn)
		}
	}
}
