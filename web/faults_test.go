package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/seckill-lab/seckill/internal/faults"
)

// The Faults page lists what GET /api/faults serves (the fault table): no
// file of the dashboard names a fault kind or a parameter's label, so that
// a new fault needs no edit here.
func TestFaultsPageReadsTheTable(t *testing.T) {
	var labels []string
	for _, k := range faults.Kinds() {
		labels = append(labels, k.Title.En, k.Title.Zh)
		for _, p := range k.Params {
			labels = append(labels, p.Label.En, p.Label.Zh)
		}
	}
	kind := regexp.MustCompile(`\b(` + strings.Join(faults.Names(), "|") + `)\b`)
	files := 0
	err := fs.WalkDir(Files(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path, "assets/vendor/") ||
			!(strings.HasSuffix(path, ".js") || strings.HasSuffix(path, ".html")) {
			return err
		}
		files++
		b, err := fs.ReadFile(Files(), path)
		if err != nil {
			return err
		}
		if m := kind.Find(b); m != nil {
			t.Errorf("%s names the fault kind %s: the page must take it from GET /api/faults", path, m)
		}
		for _, l := range labels {
			if strings.Contains(string(b), "'"+l+"'") {
				t.Errorf("%s holds the fault table's label %q", path, l)
			}
		}
		return nil
	})
	if err != nil || files < 5 {
		t.Fatalf("walked %d files: %v", files, err)
	}
}
