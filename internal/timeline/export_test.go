package timeline_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"testing"

	"github.com/seckill-lab/seckill/internal/timeline"
)

var update = flag.Bool("update", false, "rewrite the exported fixture e2e/browser/fixtures/timeline-redis-pause.html")

const (
	fixtureJSON = "../../e2e/browser/fixtures/timeline-redis-pause.json"
	fixtureHTML = "../../e2e/browser/fixtures/timeline-redis-pause.html"
)

// remote matches anything in a page that would fetch from elsewhere: a
// src, href or url() naming a scheme or a path, an import, a fetch.
var remote = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?[a-z/]|url\(|@import|\bfetch\(|XMLHttpRequest|import\(`)

// TestExportedFixtureIsCurrentAndSelfContained renders the browser tests'
// timeline fixture with WriteHTML: the page names nothing to fetch, and
// the committed copy the browser opens offline (timeline-export.test.mjs)
// is what WriteHTML writes today (`go test ./internal/timeline -run
// TestExported -update` rewrites it).
func TestExportedFixtureIsCurrentAndSelfContained(t *testing.T) {
	raw, err := os.ReadFile(fixtureJSON)
	if err != nil {
		t.Fatal(err)
	}
	var tl timeline.Timeline
	if err := json.Unmarshal(raw, &tl); err != nil {
		t.Fatalf("the fixture does not follow the contract: %v", err)
	}
	var page bytes.Buffer
	if err := timeline.WriteHTML(&page, tl); err != nil {
		t.Fatal(err)
	}
	if m := remote.Find(page.Bytes()); m != nil {
		t.Errorf("the exported page would fetch something: %q", m)
	}
	if *update {
		if err := os.WriteFile(fixtureHTML, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	committed, err := os.ReadFile(fixtureHTML)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(committed, page.Bytes()) {
		t.Errorf("%s is not what WriteHTML writes now: run go test ./internal/timeline -run TestExported -update", fixtureHTML)
	}
}
