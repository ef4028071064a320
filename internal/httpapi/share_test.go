package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/order"
	"github.com/seckill-lab/seckill/internal/share"
)

// shareServer is an API over e's database listening (as far as it knows)
// on listen, with the admin token token, on a machine whose LAN address is
// 192.168.1.23.
func shareServer(e *env, listen, token string) *Server {
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	orders := order.NewService(order.Config{ReplicaID: "share-test", Faults: hooksOf(e.lockers)}, e.store, e.lockers, nil, log)
	return newServer(Deps{Store: e.store, Orders: orders, Lockers: e.lockers, AdminToken: token, ListenAddr: listen,
		LANIP: func() net.IP { return net.IPv4(192, 168, 1, 23) }, Log: log})
}

func serveGet(srv *Server, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// On loopback the link is refused with the way to share; on every
// interface it is the LAN address's shop page, in the language asked, with
// the admin token said to be set and never shown; its QR code is a PNG.
func TestShareLinkAndQR(t *testing.T) {
	e := newEnv(t)
	sale := e.createSale(t, `{"strategy":"mutex","stock":3}`)
	path := fmt.Sprintf("/api/sales/%d", sale.ID)

	local := shareServer(e, "127.0.0.1:8080", "")
	var info share.Info
	rec := serveGet(local, path+"/share")
	if err := json.Unmarshal(rec.Body.Bytes(), &info); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if info.Shared || info.URL != "" || !strings.Contains(info.Message.En, "Only this computer") {
		t.Fatalf("loopback: %+v", info)
	}
	wantError(t, serveGet(local, path+"/qr.png"), http.StatusConflict, "not_shared", "")

	const token = "s3cret-token"
	lan := shareServer(e, "0.0.0.0:8080", token)
	rec = serveGet(lan, path+"/share?lang=zh")
	if err := json.Unmarshal(rec.Body.Bytes(), &info); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	want := fmt.Sprintf("http://192.168.1.23:8080/shop/%d?lang=zh", sale.ID)
	if !info.Shared || info.URL != want || !info.AdminToken || strings.Contains(rec.Body.String(), token) {
		t.Fatalf("shared: %s, want url %s, admin_token true, no token", rec.Body, want)
	}
	rec = serveGet(lan, path+"/qr.png")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("qr: status %d, type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if img, err := png.Decode(bytes.NewReader(rec.Body.Bytes())); err != nil || img.Bounds().Dx() != share.QRSize {
		t.Fatalf("qr: not a %d px PNG: %v", share.QRSize, err)
	}

	wantError(t, serveGet(lan, path+"/share?lang=fr"), http.StatusBadRequest, "invalid_field", "lang")
	wantError(t, serveGet(lan, path+"/qr.png?lang=https://evil.example"), http.StatusBadRequest, "invalid_field", "lang")
	wantError(t, serveGet(lan, "/api/sales/999999999/qr.png"), http.StatusNotFound, "not_found", "")
}
