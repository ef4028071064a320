package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/testenv"
)

// chromium is Debian's, which make test installs (services.sh up
// --with-test-packages) before any Go test runs: missing in CI is a failure.
const chromium = "/usr/bin/chromium"

// The generated pages still draw under their policy: headless chromium
// loads each from a real server, with its headers, and the DOM it dumps
// holds what only the page's inline script writes (porcupine's SVG in its
// canvas, the timeline's facts line). Without chromium (make test installs it) the
// test is skipped.
func TestGeneratedPagesRunUnderTheirCSP(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		testenv.Unavailable(t, chromium+" (scripts/browser.sh setup installs it)", err)
	}
	e := newEnv(t)
	v := e.createSale(t, `{"strategy":"db-pessimistic","stock":3,"work_ms":1,"per_user_limit":0}`)
	e.buyAtOnce(v.ID, 4)
	srv := httptest.NewServer(e.srv)
	t.Cleanup(srv.Close)
	for path, drawn := range map[string]string{
		fmt.Sprintf("/api/sales/%d/history.html", v.ID): `<div id="canvas"><svg`, // render(data) draws the history there
		// The rows are named by replica (rowName, added to porcupine's script).
		fmt.Sprintf("/api/sales/%d/history.html?lang=zh", v.ID): `text-anchor="end">httpapi-test</text>`,
		fmt.Sprintf("/api/sales/%d/timeline.html", v.ID):        `id="facts">strategy db-pessimistic`, // the facts line
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		out, err := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--user-data-dir="+t.TempDir(), "--dump-dom", srv.URL+path).Output()
		cancel()
		if err != nil {
			t.Fatalf("chromium %s: %v", path, err)
		}
		if !strings.Contains(string(out), drawn) {
			t.Errorf("%s: the page's script did not run under its policy (no %q in the DOM):\n%.2000s", path, drawn, out)
		}
	}
}
