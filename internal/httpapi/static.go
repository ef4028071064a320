package httpapi

import (
	"bytes"
	gz "compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/gin-contrib/gzip"
	"github.com/gin-gonic/gin"

	"github.com/seckill-lab/seckill/internal/httpapi/wire"
	"github.com/seckill-lab/seckill/web"
)

// asset is one embedded dashboard file, read once at start: the files are
// small (tens of KB) and never change while the binary runs.
type asset struct {
	body  []byte
	ctype string
	etag  string
	// gz is body gzipped once at start (text files over 1 KiB), sent to a
	// client that accepts gzip: the dashboard's scripts are a few hundred
	// KB of text, a quarter of that compressed.
	gz []byte
}

// gzipped compresses body once, at start; nil where it is not worth it.
func gzipped(ctype string, body []byte) []byte {
	text := strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") || strings.Contains(ctype, "json") ||
		strings.Contains(ctype, "svg")
	if !text || len(body) < 1024 {
		return nil
	}
	var buf bytes.Buffer
	zw, _ := gz.NewWriterLevel(&buf, gz.BestCompression) // a valid level: no error
	if _, err := zw.Write(body); err != nil || zw.Close() != nil {
		return nil
	}
	return buf.Bytes()
}

// acceptsGzip says the request's Accept-Encoding names gzip (not refused
// with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(strings.TrimSpace(params), " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// dashboardCSP keeps the page to its own files: no CDN, no inline script.
// connect-src allows any http(s) origin because, when the replica that
// served the page dies, the page reconnects its event stream to another
// live replica, which is another origin (another port or host).
const dashboardCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self' http: https:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// loadAssets reads every file of fsys into memory, keyed by its path.
func loadAssets(fsys fs.FS) (map[string]asset, error) {
	out := map[string]asset{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		ctype := mime.TypeByExtension(path.Ext(p))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		sum := sha256.Sum256(body)
		out[p] = asset{body: body, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, gz: gzipped(ctype, body)}
		return nil
	})
	return out, err
}

// staticRoutes serves the dashboard (web/static, embedded) at /, the
// shopper page at /shop/:sale, a question's vote page at /vote/:question
// and the files of both at /assets/...;
// anything else that is not an API route stays a JSON 404.
func (s *Server) staticRoutes(e *gin.Engine) {
	assets, err := loadAssets(web.Files())
	if err != nil {
		// The files are compiled in: a failure here is a broken build.
		panic("httpapi: embedded dashboard: " + err.Error())
	}
	serve := func(c *gin.Context, name string) {
		a, ok := assets[name]
		if !ok {
			wire.WriteError(c, s.log, wire.ErrNoRoute)
			return
		}
		h := c.Writer.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("ETag", a.etag)
		// no-cache: revalidate every load (a 304 thanks to the ETag), so a
		// new binary's page is never mixed with an old cached script.
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		if strings.HasSuffix(name, ".html") {
			h.Set("Content-Security-Policy", dashboardCSP)
			h.Set("Referrer-Policy", "no-referrer")
		}
		body := a.body
		if a.gz != nil {
			h.Set("Vary", "Accept-Encoding")
			if acceptsGzip(c.Request) && c.GetHeader("Range") == "" {
				body = a.gz
				h.Set("Content-Encoding", "gzip")
				h.Set("ETag", strings.TrimSuffix(a.etag, `"`)+`-gz"`) // another representation, another tag
			}
		}
		// ServeContent answers If-None-Match and Range; a zero time sends
		// no Last-Modified (embedded files have none).
		http.ServeContent(c.Writer, c.Request, name, time.Time{}, bytes.NewReader(body))
	}
	e.GET("/", func(c *gin.Context) { serve(c, "index.html") })
	e.HEAD("/", func(c *gin.Context) { serve(c, "index.html") })
	// One page for every sale: it reads the id from its own URL and asks
	// the API, which says whether the sale exists.
	e.GET("/shop/:sale", func(c *gin.Context) { serve(c, "shop.html") })
	e.HEAD("/shop/:sale", func(c *gin.Context) { serve(c, "shop.html") })
	// A class question's vote page, for the phones (package classroom).
	e.GET("/vote/:question", func(c *gin.Context) { serve(c, "vote.html") })
	e.HEAD("/vote/:question", func(c *gin.Context) { serve(c, "vote.html") })
	e.GET("/assets/*file", func(c *gin.Context) {
		name := path.Clean("assets/" + strings.TrimPrefix(c.Param("file"), "/"))
		serve(c, name) // Clean keeps it under assets/ or it is simply not in the map
	})
}

// compressReads gzips the API's GET answers for a client that accepts it:
// the lessons, the fault table and the runs are tens of KiB of JSON each,
// and the dashboard reads them at load. Never the event stream (each event
// must leave at once), never a PNG, never a POST (an order's path stays as
// lean as it is).
func compressReads() gin.HandlerFunc {
	return gzip.Gzip(gzip.DefaultCompression, gzip.WithCustomShouldCompressFn(func(c *gin.Context) bool {
		r := c.Request
		return r.Method == http.MethodGet && acceptsGzip(r) && r.URL.Path != "/api/events" && !strings.HasSuffix(r.URL.Path, ".png")
	}))
}
