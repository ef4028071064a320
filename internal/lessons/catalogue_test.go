package lessons

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every 「quote」 in a lesson is the seeds' own words: trainees learn from
// these texts, and a seed reference must point at what the seed says.
// testdata/seeds holds the five seed articles as they were given. A quote
// may elide with "…"; each piece must then appear, in order. Whitespace
// does not count, nor the Java string concatenation (" + ") that splits
// Redisson's lock script, which one article quotes from Java.
func TestSeedQuotesAreVerbatim(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "seeds", "*.txt"))
	if err != nil || len(files) != 5 {
		t.Fatalf("testdata/seeds: %d files, %v; want the five seeds", len(files), err)
	}
	var all strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	seeds := normalize(all.String())
	quote := regexp.MustCompile(`「([^」]*)」`)
	n := 0
	for _, l := range Catalogue {
		for _, text := range []string{l.Seed, l.Predict, l.Fix, l.Title} {
			for _, m := range quote.FindAllStringSubmatch(text, -1) {
				n++
				rest := seeds
				for _, piece := range strings.Split(m[1], "…") {
					i := strings.Index(rest, normalize(piece))
					if i < 0 {
						t.Errorf("%s: 「%s」 is not in the seeds (the piece %q)", l.Name, m[1], piece)
						break
					}
					rest = rest[i:]
				}
			}
		}
	}
	if n < 20 {
		t.Errorf("%d quotes in the catalogue: the pattern missed them", n)
	}
}

var javaConcat = regexp.MustCompile(`"\s*\+\s*"`)

func normalize(s string) string {
	s = javaConcat.ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), "")
}

// Every lesson has its title, prediction and fix in Chinese, and the
// Chinese texts name no lesson the catalogue lacks.
func TestCatalogueHasChinese(t *testing.T) {
	for _, l := range Catalogue {
		if l.TitleZh == "" || l.PredictZh == "" || l.FixZh == "" {
			t.Errorf("%s lacks Chinese: title_zh %q, predict_zh %q, fix_zh %q (catalogue_zh.go)", l.Name, l.TitleZh, l.PredictZh, l.FixZh)
		}
	}
	for name := range zhTexts {
		if _, ok := Find(name); !ok {
			t.Errorf("catalogue_zh.go has %q, which the catalogue lacks", name)
		}
	}
}
