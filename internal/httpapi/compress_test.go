package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
)

// The API's GET answers go gzipped to a client that accepts it (the
// dashboard's load weighed 412 KB with the lessons and the fault table
// plain); a POST and the event stream never are.
func TestCompressReadsOnlyGETs(t *testing.T) {
	gin.SetMode(gin.TestMode)
	e := gin.New()
	api := e.Group("/api", compressReads())
	big := func(c *gin.Context) { c.String(http.StatusOK, "%0*d", 4096, 0) }
	api.GET("/lessons", big)
	api.POST("/sales/1/orders", big)
	api.GET("/events", big)
	for _, tc := range []struct {
		method, path, accept, want string
	}{
		{"GET", "/api/lessons", "gzip, deflate", "gzip"},
		{"GET", "/api/lessons", "", ""},
		{"GET", "/api/lessons", "gzip;q=0", ""},
		{"POST", "/api/sales/1/orders", "gzip", ""},
		{"GET", "/api/events", "gzip", ""},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.accept != "" {
			r.Header.Set("Accept-Encoding", tc.accept)
		}
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		if got := w.Header().Get("Content-Encoding"); got != tc.want {
			t.Errorf("%s %s (Accept-Encoding %q): Content-Encoding %q, want %q", tc.method, tc.path, tc.accept, got, tc.want)
		}
	}
}
