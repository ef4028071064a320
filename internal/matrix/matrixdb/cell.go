package matrixdb

import (
	"context"
	"fmt"
	"strconv"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/matrix"
)

// cellScan bounds how many kept runs that name a cell NewestCell reads.
const cellScan = 20

// NewestCell is the newest kept run that observed row × fault (a cell with
// a word other than skip or n/a, not only predicted), with that cell; ok is false
// when none of the newest runs naming the cell did. A run of one cell
// (loadtest matrix --only) counts as much as a whole matrix.
func (s *Store) NewestCell(ctx context.Context, row string, fault faultkind.Name) (r matrix.Report, c matrix.Cell, ok bool, err error) {
	// The report is kept as JSON with a cell's row then its fault first: a
	// LIKE on that pair skips the runs that do not have the cell at all.
	pair := `%"row":` + strconv.Quote(row) + `,"fault":` + strconv.Quote(string(fault)) + `,%`
	var kept []run
	if err := s.db.WithContext(ctx).Where("report LIKE ?", pair).Order("id DESC").Limit(cellScan).Find(&kept).Error; err != nil {
		return matrix.Report{}, matrix.Cell{}, false, fmt.Errorf("matrixdb: newest cell: %w", err)
	}
	for _, k := range kept {
		rep, err := k.report()
		if err != nil {
			return matrix.Report{}, matrix.Cell{}, false, err
		}
		for _, cell := range rep.Cells {
			if cell.Row == row && cell.Fault == fault && cell.Kind != "" && cell.Kind != matrix.Skip && cell.Kind != matrix.NA {
				return rep, cell, true, nil
			}
		}
	}
	return matrix.Report{}, matrix.Cell{}, false, nil
}
