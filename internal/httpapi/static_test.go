package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/web"
)

// TestDashboardServed: / is the embedded page, every file it references is
// served from this replica (no CDN: the page works offline), and caching
// revalidates by ETag.
func TestDashboardServed(t *testing.T) {
	e := newEnv(t)
	wantPageServed(t, e, "/")

	etag := e.get("/assets/app.js").Header().Get("ETag")
	if etag == "" {
		t.Fatal("GET /assets/app.js: no ETag")
	}
	if r := e.do(http.MethodGet, "/assets/app.js", nil, "If-None-Match: "+etag); r.Code != http.StatusNotModified {
		t.Errorf("GET /assets/app.js with its ETag: %d, want 304", r.Code)
	}
}

// wantPageServed checks that path is an embedded HTML page under the
// dashboard's CSP that loads nothing from elsewhere, and that every file
// it references is served from this replica.
func wantPageServed(t *testing.T, e *env, path string) string {
	t.Helper()
	rec := e.get(path)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("GET %s: %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("GET %s: Content-Security-Policy %q, want scripts from this replica only", path, csp)
	}
	page := rec.Body.String()
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Errorf("GET %s names an absolute URL: the page must load nothing from elsewhere", path)
	}
	// What the page loads (scripts, stylesheets, icon), not its links.
	refs := regexp.MustCompile(`<(?:script|link)[^>]*?(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 3 {
		t.Fatalf("GET %s references %d files; want the CSS and JS at least", path, len(refs))
	}
	for _, m := range refs {
		ref := m[1]
		if strings.HasPrefix(ref, "data:") {
			continue
		}
		if !strings.HasPrefix(ref, "/assets/") {
			t.Errorf("GET %s references %q: everything must come from /assets/ of this replica", path, ref)
			continue
		}
		// The vendored chart library is copied in by `make web`; a build
		// without it must still serve the page (it then shows tables only).
		if _, err := fs.Stat(web.Files(), strings.TrimPrefix(ref, "/")); err != nil && strings.Contains(ref, "/vendor/") {
			wantError(t, e.get(ref), http.StatusNotFound, "not_found", "")
			continue
		}
		r := e.get(ref)
		if r.Code != http.StatusOK || r.Body.Len() == 0 {
			t.Errorf("GET %s: %d, %d bytes", ref, r.Code, r.Body.Len())
		}
		if ct := r.Header().Get("Content-Type"); strings.HasSuffix(ref, ".js") && !strings.Contains(ct, "javascript") {
			t.Errorf("GET %s: Content-Type %q: a module script needs a JavaScript type", ref, ct)
		}
	}
	return page
}

// TestShopPageServed: /shop/{sale} is one embedded page for every sale id
// (the page reads the id from its URL and asks the API), under the same
// rules as the dashboard; other paths under /shop stay the JSON 404.
func TestShopPageServed(t *testing.T) {
	e := newEnv(t)
	page := wantPageServed(t, e, "/shop/42")
	if !strings.Contains(page, "/assets/shop.js") {
		t.Error("GET /shop/42 is not the shopper page (no /assets/shop.js)")
	}
	if other := e.get("/shop/7").Body.String(); other != page {
		t.Error("GET /shop/7 and /shop/42 differ: one page serves every sale")
	}
	if r := e.do(http.MethodHead, "/shop/42", nil); r.Code != http.StatusOK {
		t.Errorf("HEAD /shop/42: %d", r.Code)
	}
	for _, p := range []string{"/shop", "/shop/", "/shop/42/x"} {
		wantError(t, e.get(p), http.StatusNotFound, "not_found", "")
	}
}

// TestDashboardNotFound: unknown files, folders and escapes are the API's
// JSON 404, never a directory listing or a file outside the embedded tree.
func TestDashboardNotFound(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"/assets/nope.js", "/assets/", "/assets", "/assets/../embed.go", "/assets/%2e%2e/embed.go", "/index.html/x"} {
		wantError(t, e.get(p), http.StatusNotFound, "not_found", "")
	}
}

// A client that accepts gzip gets the dashboard's text files compressed
// (the same bytes once inflated, their own ETag); one that does not gets
// them as they are.
func TestDashboardFilesGzipped(t *testing.T) {
	e := newEnv(t)
	plain := e.get("/assets/app.js")
	zipped := e.do(http.MethodGet, "/assets/app.js", nil, "Accept-Encoding: br, gzip;q=0.8")
	if plain.Header().Get("Content-Encoding") != "" || zipped.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q without gzip, %q with it", plain.Header().Get("Content-Encoding"), zipped.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(body, plain.Body.Bytes()) {
		t.Fatalf("inflated body differs (%v): %d bytes vs %d", err, len(body), plain.Body.Len())
	}
	if zipped.Body.Len() >= plain.Body.Len() || zipped.Header().Get("ETag") == plain.Header().Get("ETag") {
		t.Errorf("gzip %d bytes vs %d, ETags %q and %q", zipped.Body.Len(), plain.Body.Len(), zipped.Header().Get("ETag"), plain.Header().Get("ETag"))
	}
	if r := e.do(http.MethodGet, "/assets/app.js", nil, "Accept-Encoding: gzip;q=0"); r.Header().Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 still got %q", r.Header().Get("Content-Encoding"))
	}
}
