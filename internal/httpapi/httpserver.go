package httpapi

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
)

// Bounds of the http.Server that serves the API (HTTPServer).
const (
	// ReadHeaderTimeout: slow-header clients do not pin connections.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading one whole request, headers and body: a
	// body still arriving then is refused with 408 body_timeout.
	ReadTimeout = wire.ReadTimeout
	// IdleTimeout closes kept-alive connections left unused.
	IdleTimeout = 2 * time.Minute
)

// HTTPServer is the http.Server a replica serves h with. It has no
// WriteTimeout: an order may legitimately wait lock-wait + work_ms. The
// server logs its own errors (a failed TLS handshake, a panic it caught)
// to log at Warn.
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		IdleTimeout:       IdleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
