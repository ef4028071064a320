package shopapi_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/internal/testenv"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// Against a real `shop serve` (database seckill_test_shopapi, an admin
// token): with no run kept Matrix is the shop's predicted table; a run
// SaveMatrix keeps is the newest Matrix reads, whole, with its id; without
// the token, or with a bad cell, the shop refuses it naming why.
func TestMatrixRoundTripsThroughTheShop(t *testing.T) {
	db := testenv.DB(t, "shopapi")
	if err := db.Exec("DELETE FROM matrix_runs").Error; err != nil {
		t.Fatal(err)
	}
	shop := testenv.StartShop(t, testenv.ShopOptions{DB: "shopapi", AdminToken: "matrix-token"})
	ctx := context.Background()
	c := shopapi.NewClient(2, 30*time.Second, "matrix-token")
	defer c.Close()

	predicted, observed, err := c.Matrix(ctx, shop.URL)
	if err != nil || observed || predicted.ID != 0 || len(predicted.Rows) == 0 || len(predicted.Cells) != len(predicted.Rows)*len(predicted.Faults) {
		t.Fatalf("before any run: observed %v, id %d, %d rows, %d faults, %d cells, err %v; want the predicted table",
			observed, predicted.ID, len(predicted.Rows), len(predicted.Faults), len(predicted.Cells), err)
	}
	run := predicted
	run.StartedAt = time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)
	run.FinishedAt = run.StartedAt.Add(10 * time.Minute)
	run.Commit, run.Machine, run.Complete = "0123456789ab", "lab (2 cores)", true
	run.Cells[0].Kind, run.Cells[0].WhyEn, run.Cells[0].SaleID = matrix.Holds, "sold 10 of 10, no overlap", 3
	id, err := c.SaveMatrix(ctx, shop.URL, run)
	if err != nil || id == 0 {
		t.Fatalf("save: id %d, err %v", id, err)
	}
	got, observed, err := c.Matrix(ctx, shop.URL)
	run.ID = id
	if err != nil || !observed || !reflect.DeepEqual(got, run) {
		t.Fatalf("after the save: observed %v, err %v, the report read back differs: id %d, %d cells (want id %d, %d cells)",
			observed, err, got.ID, len(got.Cells), id, len(run.Cells))
	}

	anonymous := shopapi.NewClient(1, 30*time.Second, "")
	defer anonymous.Close()
	var se *shopapi.HTTPStatusError
	if _, err := anonymous.SaveMatrix(ctx, shop.URL, run); !errors.As(err, &se) || se.Status != http.StatusUnauthorized {
		t.Fatalf("a save without the token: %v, want 401", err)
	}
	bad := run
	bad.Cells = append([]matrix.Cell(nil), run.Cells...)
	bad.Cells[2].Kind = "fine"
	if _, err := c.SaveMatrix(ctx, shop.URL, bad); !errors.As(err, &se) || se.Status != http.StatusBadRequest ||
		se.Code != "invalid_field" || !strings.Contains(err.Error(), `cells[2].kind: "fine"`) {
		t.Fatalf("a bad cell: %v, want 400 invalid_field saying why", err)
	}
	if newest, _, err := c.Matrix(ctx, shop.URL); err != nil || newest.ID != id {
		t.Fatalf("after the refusals the newest is %d (err %v), want %d", newest.ID, err, id)
	}
}
