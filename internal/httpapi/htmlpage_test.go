package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/web"
)

// routeParam is a :name or *name segment of a route.
var routeParam = regexp.MustCompile(`[:*][a-z]+`)

// Every route of the route table that answers HTML sends nosniff and a
// Content-Security-Policy that frames, fetches and submits nothing; a
// generated page's policy allows its own inline scripts by hash, and no
// other (no 'unsafe-inline'). The walk must meet the four HTML routes, or
// it proves nothing.
func TestEveryHTMLAnswerHasCSPAndNosniff(t *testing.T) {
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"db-pessimistic","stock":3,"work_ms":1,"per_user_limit":0}`)
	e.buyAtOnce(v.ID, 4)
	var assets []string // every embedded file under assets/, for /assets/*file
	_ = fs.WalkDir(web.Files(), "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			assets = append(assets, strings.TrimPrefix(p, "assets"))
		}
		return err
	})
	html := map[string]bool{}
	for _, r := range e.srv.engine.Routes() {
		if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.Path == "/api/events" { // a stream that never ends
			continue
		}
		paths := []string{routeParam.ReplaceAllString(r.Path, fmt.Sprint(v.ID))}
		if strings.HasSuffix(r.Path, "/*file") {
			paths = nil
			for _, a := range assets {
				paths = append(paths, strings.TrimSuffix(r.Path, "/*file")+a)
			}
		}
		for _, p := range paths {
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, httptest.NewRequest(r.Method, p, nil))
			if !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
				continue
			}
			html[r.Method+" "+r.Path] = true
			checkHTMLHeaders(t, r.Method+" "+p, rec)
		}
	}
	for _, want := range []string{"GET /", "HEAD /", "GET /shop/:sale", "GET /api/sales/:id/timeline.html", "GET /api/sales/:id/history.html"} {
		if !html[want] {
			t.Errorf("%s did not answer HTML in the walk (HTML routes met: %v)", want, html)
		}
	}
}

// checkHTMLHeaders: nosniff, and a policy that denies by default, frames
// nowhere, and runs no inline script but the page's own (by hash).
func checkHTMLHeaders(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q, want nosniff", what, got)
	}
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("%s: Content-Security-Policy %q lacks %s", what, csp, want)
		}
	}
	scriptSrc := directive(csp, "script-src")
	if strings.Contains(scriptSrc, "unsafe-inline") || strings.Contains(scriptSrc, "*") {
		t.Errorf("%s: script-src %q allows any inline or remote script", what, scriptSrc)
	}
	if rec.Code != http.StatusOK || rec.Body.Len() == 0 { // HEAD, or a 304
		return
	}
	body := rec.Body.String()
	for _, m := range regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(body, -1) {
		sum := sha256.Sum256([]byte(m[1]))
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(scriptSrc, h) {
			t.Errorf("%s: its inline script (%d bytes) is not allowed by script-src %q: the page would not run", what, len(m[1]), scriptSrc)
		}
	}
	if m := regexp.MustCompile(`(?i)<[^>]+\son[a-z]+\s*=`).FindString(body); m != "" {
		t.Errorf("%s: an inline event handler the policy blocks: %s", what, m)
	}
}

// directive is one directive's sources in a policy ("" when absent).
func directive(csp, name string) string {
	for _, d := range strings.Split(csp, ";") {
		if f := strings.Fields(d); len(f) > 0 && f[0] == name {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}

// A script that data smuggled into a generated page is not one the page's
// policy allows: the hash is of the page's own script text.
func TestPageCSPAllowsOnlyItsScripts(t *testing.T) {
	page := []byte(`<p>x</p><script>draw()</script><SCRIPT type="module">more()</SCRIPT >`)
	csp := pageCSP(page)
	for _, s := range []string{"draw()", "more()"} {
		sum := sha256.Sum256([]byte(s))
		if !strings.Contains(csp, base64.StdEncoding.EncodeToString(sum[:])) {
			t.Errorf("%q not allowed: %s", s, csp)
		}
	}
	evil := sha256.Sum256([]byte("alert(1)"))
	if strings.Contains(csp, base64.StdEncoding.EncodeToString(evil[:])) || strings.Contains(directive(csp, "script-src"), "unsafe") {
		t.Errorf("allows more than the page's scripts: %s", csp)
	}
	if got := directive(pageCSP([]byte("<p>no script</p>")), "script-src"); got != "'none'" {
		t.Errorf("a page without scripts: script-src %q, want 'none'", got)
	}
}
