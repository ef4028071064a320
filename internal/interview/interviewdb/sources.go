// Package interviewdb reads the interview path's sources from the shop's
// database: lesson runs (lessondb), verdict-matrix runs (matrixdb), a
// sale's herd (herd) and the units reconciliations gave back (inventory,
// with the kill's time from the fault events). It is apart from package
// interview so that the model carries no gorm.
package interviewdb

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/catalogue/lessondb"
	"github.com/seckill-lab/seckill/internal/eventlog"
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/herd"
	"github.com/seckill-lab/seckill/internal/interview"
	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/matrix/matrixdb"
)

// Sources reads interview.Sources from one database.
type Sources struct {
	db      *gorm.DB
	lessons *lessondb.Store
	matrix  *matrixdb.Store
	sales   *inventory.Store
}

// New returns the sources of db (migrated).
func New(db *gorm.DB) *Sources {
	return &Sources{db: db, lessons: lessondb.NewStore(db), matrix: matrixdb.NewStore(db), sales: inventory.NewStore(db)}
}

// LessonRun is the lesson's newest measured run.
func (s *Sources) LessonRun(ctx context.Context, lesson string) (catalogue.Run, bool, error) {
	return s.lessons.NewestMeasured(ctx, lesson)
}

// MatrixCell is the newest kept run that observed row × fault.
func (s *Sources) MatrixCell(ctx context.Context, row string, fault faultkind.Name) (interview.MatrixHit, bool, error) {
	rep, cell, ok, err := s.matrix.NewestCell(ctx, row, fault)
	if err != nil || !ok {
		return interview.MatrixHit{}, false, err
	}
	return interview.MatrixHit{RunID: rep.ID, At: rep.StartedAt, Machine: rep.Machine, Cell: cell}, true, nil
}

// Herd is the sale's herd as GET /api/sales/{id}/herd serves it;
// interview.ErrNoSale when the sale is gone.
func (s *Sources) Herd(ctx context.Context, saleID uint64) (interview.HerdFigures, error) {
	sale, err := s.sales.GetSale(ctx, saleID)
	if errors.Is(err, inventory.ErrSaleNotFound) {
		return interview.HerdFigures{}, interview.ErrNoSale
	}
	if err != nil {
		return interview.HerdFigures{}, err
	}
	v, err := herd.Load(ctx, s.db, sale)
	if err != nil {
		return interview.HerdFigures{}, err
	}
	h := interview.HerdFigures{Sold: v.Sold, SellOutMS: v.SellOutMS, SellOutFromFirstMS: v.SellOutFromFirstMS,
		UnitsPerHold: v.UnitsPerHold, Holds: v.Holds, HoldUnits: v.HoldUnits, FirstSecondAnswers: v.FirstSecond.Answers}
	for _, l := range v.Layers {
		if l.Layer == "sold_out_cache" {
			h.CacheAnswers = l.Count
		}
	}
	return h, nil
}

// Reclaimed is the units given back of the sale, and how long after the
// newest kill_process recorded between the sale's creation and the last
// return that return came.
func (s *Sources) Reclaimed(ctx context.Context, saleID uint64) (interview.Reclaim, error) {
	n, last, err := inventory.GivenBack(ctx, s.db, saleID)
	if err != nil || last == nil {
		return interview.Reclaim{Units: n}, err
	}
	sale, err := s.sales.GetSale(ctx, saleID)
	if errors.Is(err, inventory.ErrSaleNotFound) {
		return interview.Reclaim{Units: n}, nil // no creation time to bound the kill by
	}
	if err != nil {
		return interview.Reclaim{}, err
	}
	kill, ok, err := eventlog.NewestFault(ctx, s.db, string(faultkind.KillProcess), sale.CreatedAt, *last)
	if err != nil || !ok {
		return interview.Reclaim{Units: n}, err
	}
	ms := float64(last.Sub(kill.FromAt)) / float64(time.Millisecond)
	return interview.Reclaim{Units: n, BackAfterMS: &ms}, nil
}
