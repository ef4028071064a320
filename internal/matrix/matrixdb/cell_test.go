package matrixdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/matrix"
)

// NewestCell: the newest run that observed the cell, past newer runs that
// have it only predicted, skipped or n/a, and past runs without it at all;
// none when no run observed it.
func TestNewestCellIsTheNewestRunThatObservedIt(t *testing.T) {
	s, _ := emptyStore(t)
	ctx := context.Background()
	run := func(cells ...matrix.Cell) uint64 {
		t.Helper()
		id, err := s.Save(ctx, matrix.Report{StartedAt: time.Now().UTC(), Machine: "test", Cells: cells})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	cell := func(row string, f faultkind.Name, kind string, ms int64) matrix.Cell {
		return matrix.Cell{Row: row, Fault: f, Kind: kind, UnavailableMS: ms}
	}
	if _, _, ok, err := s.NewestCell(ctx, "redis", faultkind.FreezeRedis); ok || err != nil {
		t.Fatalf("no run kept: ok %v err %v, want none", ok, err)
	}
	old := run(cell("redis", faultkind.FreezeRedis, matrix.Unavailable, 3000))
	want := run(cell("redis", faultkind.FreezeRedis, matrix.Unavailable, 2000), cell("zookeeper", faultkind.FreezeRedis, matrix.NA, 0))
	run(cell("redis", faultkind.FreezeRedis, matrix.Skip, 0))
	run(cell("redis", faultkind.FreezeRedis, "", 0))                    // predicted only
	run(cell("redis-2level", faultkind.FreezeRedis, matrix.Holds, 0))   // another row whose name begins alike
	run(cell("redis", faultkind.RestartRedis, matrix.Unavailable, 999)) // another fault
	rep, c, ok, err := s.NewestCell(ctx, "redis", faultkind.FreezeRedis)
	if err != nil || !ok || rep.ID != want || c.UnavailableMS != 2000 {
		t.Fatalf("run %d cell %+v ok %v err %v, want run %d (not %d, older, nor the newer ones that did not observe it)", rep.ID, c, ok, err, want, old)
	}
	if _, _, ok, err := s.NewestCell(ctx, "zookeeper", faultkind.FreezeRedis); ok || err != nil {
		t.Fatalf("a cell observed only as n/a: ok %v err %v, want none", ok, err)
	}
}
