package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/herd"
)

// Eight buyers on a sale of 3 through a replica that publishes live
// figures: /herd says sold out, 3 sold, and counts the 8 answers by layer
// (the database gave them all: the orders and the sold-out reads). An unknown sale is
// a 404.
func TestGetHerd(t *testing.T) {
	e := newEnv(t)
	sale := e.createSale(t, `{"strategy":"mutex","stock":3}`)
	srv, live := liveServer(e, "herd-a")
	path := fmt.Sprintf("/api/sales/%d", sale.ID)
	for i := range 8 {
		req := httptest.NewRequest(http.MethodPost, path+"/orders", strings.NewReader(fmt.Sprintf(`{"user_id":"herd-%d"}`, i)))
		srv.ServeHTTP(httptest.NewRecorder(), req)
	}
	if err := live.Publish(context.Background(), e.db, "herd-a"); err != nil {
		t.Fatal(err)
	}
	rec := e.get(path + "/herd")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var v herd.View
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	var byLayer int64
	for _, l := range v.Layers {
		byLayer += l.Count
	}
	if v.Sold != 3 || !v.SoldOut || v.SellOutMS == nil || v.Answers != 8 || byLayer != 8 || v.Layers[0].Percent != 100 {
		t.Fatalf("herd %s", rec.Body)
	}
	if rec := e.get("/api/sales/999999999/herd"); rec.Code != http.StatusNotFound {
		t.Fatalf("unknown sale: status %d, want 404", rec.Code)
	}
}
