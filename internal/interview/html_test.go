package interview

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestWriteHTMLIsOnePageWithTheDashboardsRenderer(t *testing.T) {
	page, err := Fill(context.Background(), fakeSources{}, Questions)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, page, time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC), "lab-host, 2 cores"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"<title>Seckill Lab: design a flash sale (2026-11-29, lab-host, 2 cores)</title>",
		`<script type="application/json" id="page">`,
		"function createInterviewView", "function pageView", ".iv-q{", // the dashboard's renderer and stylesheet, inlined
		"lesson_run", "Never measured on this machine",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, never := range []string{`src="`, `href="http`, "\nimport ", "\nexport "} {
		if strings.Contains(out, never) {
			t.Errorf("the page has %q: it must stand alone", never)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the browser tests' fixture e2e/browser/fixtures/interview-page.html")

const (
	fixtureJSON = "../../e2e/browser/fixtures/interview-page.json"
	fixtureHTML = "../../e2e/browser/fixtures/interview-page.html"
)

// remote matches anything in a page that would fetch from elsewhere.
var remote = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?[a-z/]|url\(|@import|\bfetch\(|XMLHttpRequest|import\(|https?://[^"'\s]*\.(js|css)\b`)

// TestExportedPageIsCurrent writes the browser tests' page (a page filled
// on a demo, fixtures/interview-page.json) with WriteHTML: it names nothing
// to fetch, and the committed fixtures/interview-page.html that
// interview-export.test.mjs opens offline is what the code writes today
// (`go test ./internal/interview -run TestExported -update` rewrites it).
func TestExportedPageIsCurrent(t *testing.T) {
	raw, err := os.ReadFile(fixtureJSON)
	if err != nil {
		t.Fatal(err)
	}
	var page Page
	if err := json.Unmarshal(raw, &page); err != nil || len(page.Questions) == 0 {
		t.Fatalf("%s: %v", fixtureJSON, err)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, page, time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC), "lab-box, 2 cores"); err != nil {
		t.Fatal(err)
	}
	if m := remote.FindString(buf.String()); m != "" {
		t.Errorf("the exported page would fetch something: %q", m)
	}
	if *update {
		if err := os.WriteFile(fixtureHTML, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(fixtureHTML); err != nil || !bytes.Equal(got, buf.Bytes()) {
		t.Errorf("%s is not what WriteHTML writes now (%v): go test ./internal/interview -run TestExported -update", fixtureHTML, err)
	}
}
