package interview

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
	_ "github.com/seckill-lab/seckill/internal/lockstrategy/all" // every strategy: the matrix's rows
	"github.com/seckill-lab/seckill/internal/matrix"
)

func TestPathIsFifteenToTwentyQuestionsInBothLanguages(t *testing.T) {
	if n := len(Questions); n < 15 || n > 20 {
		t.Fatalf("%d questions, want 15-20", n)
	}
	ids := map[string]bool{}
	for _, q := range Questions {
		if q.ID == "" || ids[q.ID] {
			t.Errorf("question id %q empty or twice", q.ID)
		}
		ids[q.ID] = true
		for name, tx := range map[string]Text{"ask": q.Ask, "answer": q.Answer, "trade_off": q.TradeOff, "follow_up": q.FollowUp} {
			if strings.TrimSpace(tx.En) == "" || !hasHan(tx.Zh) {
				t.Errorf("%s: %s needs English and Chinese: %+v", q.ID, name, tx)
			}
		}
		if len(q.Slots) == 0 {
			t.Errorf("%s: no figure backs the answer", q.ID)
		}
		for _, s := range q.Slots {
			if s.Label.En == "" || !hasHan(s.Label.Zh) || !hasHan(s.Unit.Zh) {
				t.Errorf("%s: slot %+v needs its label in both languages and a Chinese unit", q.ID, s.Label)
			}
		}
	}
}

func TestEverySlotReadsASourceThatExists(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range matrix.Rows(lockstrategy.All()) {
		rows[r.Name] = true
	}
	faults := map[faultkind.Name]bool{}
	for _, f := range faultkind.All {
		faults[f] = true
	}
	for _, q := range Questions {
		for _, s := range q.Slots {
			src := s.Source
			if !src.Valid() {
				t.Errorf("%s: %+v names no field its kind reads", q.ID, src)
			}
			switch src.Kind {
			case FromLesson:
				if _, ok := catalogue.Find(src.Lesson); !ok {
					t.Errorf("%s: no lesson %q in the catalogue", q.ID, src.Lesson)
				}
			case FromMatrix:
				if !rows[src.Row] || !faults[src.Fault] {
					t.Errorf("%s: no matrix cell %s × %s", q.ID, src.Row, src.Fault)
				}
			}
		}
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// fakeSources has one lesson run and one matrix cell; nothing else ran.
type fakeSources struct{}

func (fakeSources) LessonRun(_ context.Context, lesson string) (catalogue.Run, bool, error) {
	if lesson != "split-hot-row" {
		return catalogue.Run{}, false, nil
	}
	done := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	return catalogue.Run{ID: 7, Lesson: lesson, Verdict: catalogue.VerdictPass, FinishedAt: &done, Cases: catalogue.Cases{
		{SaleID: 70, Name: "db-conditional, 1 stock shards", NameZh: "db-conditional，库存分 1 段", Sold: 200},
		{SaleID: 71, Name: "db-conditional, 8 stock shards", NameZh: "db-conditional，库存分 8 段", Sold: 200},
	}}, true, nil
}

func (fakeSources) Herd(_ context.Context, saleID uint64) (HerdFigures, error) {
	ms := map[uint64]float64{70: 400, 71: 100}[saleID]
	return HerdFigures{Sold: 200, SellOutFromFirstMS: &ms, SellOutMS: &ms}, nil
}

func (fakeSources) MatrixCell(_ context.Context, row string, fault faultkind.Name) (MatrixHit, bool, error) {
	if row == "db-pessimistic" && fault == faultkind.KillProcess {
		return MatrixHit{RunID: 4, Cell: matrix.Cell{Row: row, Fault: fault, Kind: matrix.Holds, SaleID: 40, WhyEn: "no sections overlapped", WhyZh: "临界区没有重叠"}}, true, nil
	}
	if row == "redis" && fault == faultkind.KillProcess {
		return MatrixHit{RunID: 5, Cell: matrix.Cell{Row: row, Fault: fault, Kind: matrix.Holds, SaleID: 50, WhyEn: "no sections overlapped", WhyZh: "临界区没有重叠",
			Finding: true, Predicted: matrix.Prediction{Kind: matrix.Unavailable, WhyEn: "the lock stays until its TTL", WhyZh: "锁保留到 TTL"}}}, true, nil
	}
	if row != "redis" || fault != faultkind.FreezeRedis {
		return MatrixHit{}, false, nil
	}
	return MatrixHit{RunID: 3, Cell: matrix.Cell{Row: row, Fault: fault, Kind: matrix.Unavailable, SaleID: 30, UnavailableMS: 3200}}, true, nil
}

func (fakeSources) Reclaimed(context.Context, uint64) (Reclaim, error) { return Reclaim{}, nil }

func TestFillNamesEachFiguresRunOrSaysItWasNeverMeasured(t *testing.T) {
	page, err := Fill(context.Background(), fakeSources{}, Questions)
	if err != nil {
		t.Fatal(err)
	}
	var hotRow, hotShards, freeze, rowLock, finding *Figure
	for _, q := range page.Questions {
		for i := range q.Figures {
			f := &q.Figures[i]
			switch {
			case f.Measured && (f.From == nil || f.From.ID == 0 || f.From.Kind == "" || f.Missing != nil):
				t.Errorf("%s: measured %+v names no run", q.ID, f)
			case !f.Measured && (f.Missing == nil || f.From != nil || !strings.Contains(f.Missing.En, "Never measured on this machine") || !hasHan(f.Missing.Zh)):
				t.Errorf("%s: unmeasured %+v does not say so", q.ID, f)
			}
			if q.ID == "hot-row" && i == 0 {
				hotRow = f
			}
			if q.ID == "hot-row" && i == 1 {
				hotShards = f
			}
			if q.ID == "redis-freezes" && i == 0 {
				freeze = f
			}
			if q.ID == "which-lock" && f.Source.Row == "db-pessimistic" {
				rowLock = f
			}
			if q.ID == "which-lock" && f.Source.Row == "redis" {
				finding = f
			}
		}
	}
	if hotRow == nil || !hotRow.Measured || hotRow.Value != 500 || hotRow.From.Kind != LessonRunKind || hotRow.From.ID != 7 || hotRow.From.SaleLink != "#/timeline?sale=70" {
		t.Errorf("hot row: %+v %+v, want 200 units in 0.4 s = 500 orders/s from lesson run 7's sale 70", hotRow, hotRow.From)
	}
	if d := hotRow.Detail; d == nil || d.En != "200 units from the first sold to the last in 0.400 s" || !hasHan(d.Zh) {
		t.Errorf("hot row: detail %+v, want how 500 orders/s was computed", d)
	}
	if hotShards == nil || hotShards.Value != 2000 || hotShards.From.SaleID != 71 {
		t.Errorf("8 shards: %+v, want 2000 orders/s from sale 71", hotShards)
	}
	if freeze == nil || freeze.Value != 3.2 || freeze.From.Kind != MatrixRunKind || freeze.From.ID != 3 {
		t.Errorf("redis freezes: %+v, want 3.2 s from matrix run 3", freeze)
	}
	if rowLock == nil || rowLock.Word == nil || rowLock.Word.En != "holds" || rowLock.Detail.En != "no sections overlapped" {
		t.Errorf("row lock × kill_process: %+v, want the cell's word and why: the matrix times no stop of a cell that held", rowLock)
	}
	if finding == nil || finding.Detail == nil || finding.Detail.En != "no sections overlapped. A finding: the lab predicted pause (the lock stays until its TTL)" || !strings.Contains(finding.Detail.Zh, "与预测不符") {
		t.Errorf("a finding: %+v, want its detail to say what the lab predicted", finding)
	}
	if freeze != nil && freeze.Word != nil {
		t.Errorf("redis freezes: %+v, want the stop's seconds, no word", freeze)
	}
	if page.Measured == 0 || page.Unmeasured == 0 {
		t.Errorf("measured %d, unmeasured %d: want both", page.Measured, page.Unmeasured)
	}
}
