package matrix_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
	"github.com/seckill-lab/seckill/internal/matrix"
	"github.com/seckill-lab/seckill/web"
)

var update = flag.Bool("update", false, "rewrite the browser tests' fixtures e2e/browser/fixtures/matrix-report.json and matrix-report.html")

const (
	fixtureJSON = "../../e2e/browser/fixtures/matrix-report.json"
	fixtureHTML = "../../e2e/browser/fixtures/matrix-report.html"
)

// remote matches anything in a page that would fetch from elsewhere: a
// src, href or url() naming a scheme or a path, an import, a fetch.
var remote = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?[a-z/]|url\(|@import|\bfetch\(|XMLHttpRequest|import\(|https?://[^"'\s]*\.(js|css)\b`)

// TestExportedPageIsSelfContainedAndCurrent renders the browser tests'
// report (fixtureReport) with WriteHTML: the page holds the report's rows,
// faults, findings and replay lines, the renderer's words in both
// languages, and names nothing to fetch; the committed fixtures the
// browser tests open (matrix-export.test.mjs offline, the dashboard's
// through the fixture server) are what the code writes today (`go test
// ./internal/matrix -run TestExported -update` rewrites them).
func TestExportedPageIsSelfContainedAndCurrent(t *testing.T) {
	rep := fixtureReport()
	var page bytes.Buffer
	if err := matrix.WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if m := remote.FindString(html); m != "" {
		t.Errorf("the exported page would fetch something: %q", m)
	}
	for _, want := range []string{
		"db-lock-table-plain+fencing+combine", "redis-lua-stock/async", // rows
		"Pause the lock holder", "暂停持锁者", "stale_ring", // columns in both languages
		`"finding":true`, "--only redis/pause_holder --seed", // a finding and its replay line
		"createMatrixView", "守住", "BROKE", // the renderer and its words
		"(2026-05-02, lab-box (8 cores))", // the title: when and where
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, banned := range []string{"import {", "export function", "</script>\n</script>"} {
		if strings.Contains(html, banned) {
			t.Errorf("the page holds %q: a module line was not inlined", banned)
		}
	}
	if *update {
		js, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		writeFixture(t, fixtureJSON, append(js, '\n'))
		writeFixture(t, fixtureHTML, page.Bytes())
	}
	for path, want := range map[string][]byte{fixtureHTML: page.Bytes()} {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what WriteHTML writes now (%v): go test ./internal/matrix -run TestExported -update", path, err)
		}
	}
	raw, err := os.ReadFile(fixtureJSON)
	if err != nil {
		t.Fatal(err)
	}
	var back matrix.Report
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Cells) != len(rep.Cells) {
		t.Errorf("%s does not hold the fixture's report (%v): go test ./internal/matrix -run TestExported -update", fixtureJSON, err)
	}
}

func writeFixture(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A report nothing ran in exports too, titled as predicted.
func TestExportedPredictedReport(t *testing.T) {
	rep := matrix.Predicted(matrix.Rows(lockstrategy.All()), columns())
	var page bytes.Buffer
	if err := matrix.WriteHTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<title>Seckill Lab: which lock survives which failure (predicted)</title>") {
		t.Errorf("the predicted page's title: %s", regexp.MustCompile(`<title>.*</title>`).FindString(page.String()))
	}
	if m := remote.FindString(page.String()); m != "" {
		t.Errorf("the exported page would fetch something: %q", m)
	}
}

// The dashboard titles the bands as internal/matrix does (Groups), in
// both languages.
func TestBandTitlesAreTheModels(t *testing.T) {
	src, err := fs.ReadFile(web.Files(), "assets/matrix-model.js")
	if err != nil {
		t.Fatal(err)
	}
	q := strings.NewReplacer(`'`, `\'`)
	for _, g := range matrix.Groups {
		want := "mxG_" + g.Name + ": ['" + q.Replace(g.En) + "', '" + q.Replace(g.Zh) + "'],"
		if !strings.Contains(string(src), want) {
			t.Errorf("matrix-model.js lacks the band %s as %s", g.Name, want)
		}
	}
}
