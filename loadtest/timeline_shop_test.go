package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/load"
)

// TestTimelineFlagAgainstShop runs `loadtest run --timeline FILE` and
// `loadtest scenario --timeline FILE` against a real shop: each sale's
// timeline is saved as one HTML file that carries the sale's JSON and
// fetches nothing from the network (it must open on a projector offline).
func TestTimelineFlagAgainstShop(t *testing.T) {
	t.Parallel() // its own shop; waits on it most of the time
	shop := startShop(t, withDB("loadtest_timeline"))

	t.Run("run: one sale, one file", func(t *testing.T) {
		dir := t.TempDir()
		path, out := filepath.Join(dir, "tl.html"), filepath.Join(dir, "out.json")
		code, stdout, stderr := runTool(t, "--targets", shop, "--strategy", "redis", "--stock", "5",
			"--buyers", "12", "--concurrency", "4", "--admin-token", testToken, "--json", out, "--timeline", path)
		if code != load.ExitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		id := saleOf(t, decodeReport(t, mustRead(t, out)).Results[0]).ID
		if !strings.Contains(stderr, "timeline written to "+path) {
			t.Errorf("stderr does not name the file written:\n%s", stderr)
		}
		checkOfflineTimeline(t, path, id, "redis")
	})

	t.Run("scenario: each sale its own file", func(t *testing.T) {
		// for-update-needs-tx needs no faults: two sales (the broken
		// strategy, then the one that holds), so two files, FILE-<id>.html.
		path := filepath.Join(t.TempDir(), "sc.html")
		code, stdout, stderr := runScenario(t, "--targets", shop+","+shop, "--admin-token", testToken,
			"--timeline", path, "for-update-needs-tx")
		if code != load.ExitOK {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		files := regexp.MustCompile(`timeline written to (\S+-(\d+)\.html)`).FindAllStringSubmatch(stderr, -1)
		if len(files) != 2 {
			t.Fatalf("%d timeline files named, want 2 (one per sale):\n%s", len(files), stderr)
		}
		for i, want := range []string{"db-pessimistic-autocommit", "db-pessimistic"} {
			var id uint64
			fmt.Sscan(files[i][2], &id)
			checkOfflineTimeline(t, files[i][1], id, want)
		}
	})
}

// networkRef matches what would make a page fetch from the network: a
// script or stylesheet by reference, or any http(s) URL in a src or href.
var networkRef = regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=|<link[^>]*\shref\s*=|(src|href)\s*=\s*["']?\s*(https?:)?//`)

// checkOfflineTimeline checks that path is sale id's timeline page and
// fetches nothing.
func checkOfflineTimeline(t *testing.T, path string, id uint64, strategy string) {
	t.Helper()
	page := string(mustRead(t, path))
	if !strings.HasPrefix(page, "<!doctype html>") {
		t.Errorf("%s is not an HTML page: %.80q", path, page)
	}
	for _, want := range []string{fmt.Sprintf(`"sale_id":%d,`, id), fmt.Sprintf(`"strategy":%q`, strategy), `"sections":[{`} {
		if !strings.Contains(page, want) {
			t.Errorf("%s: the sale's JSON (%s) is not inline", path, want)
		}
	}
	if m := networkRef.FindString(page); m != "" {
		t.Errorf("%s fetches from elsewhere: %q", path, m)
	}
}
