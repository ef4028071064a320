package lessons

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every 「quote」 the lab shows is the seeds' own words, and the words of the
// seed it names: trainees learn from these texts, and a seed reference must
// point at what that seed says. A quote is credited to the last seed named
// before it in the same text ("seed 003: 「…」; seed 001: 「…」", or
// "参考文章 000：「…」" in Chinese). Checked: the catalogue (each text of a
// lesson), the strategy explanations (web/static/assets/i18n.js, one line
// a text) and the claims (internal/claims, one line a text).
//
// testdata/seeds holds the five seed articles as they were given, named
// by their number (000_….txt). A quote may elide with "…"; each piece
// must then appear, in order. Whitespace does not count, nor the Java
// string concatenation (" + ") that splits Redisson's lock script, which
// one article quotes from Java.
func TestSeedQuotesAreInTheSeedTheyName(t *testing.T) {
	seeds := loadSeeds(t)
	n := 0
	check := func(where, text string) {
		for _, q := range creditedQuotes(text) {
			n++
			if msg := checkQuote(seeds, q); msg != "" {
				t.Errorf("%s: %s", where, msg)
			}
		}
	}
	for _, l := range Catalogue {
		for field, text := range map[string]string{"seed": l.Seed, "predict": l.Predict, "fix": l.Fix, "title": l.Title} {
			check(l.Name+" ("+field+")", text)
		}
	}
	catalogue := n
	if catalogue < 20 {
		t.Errorf("%d quotes in the catalogue: the pattern missed them", catalogue)
	}
	files, _ := filepath.Glob(filepath.Join("..", "claims", "*.go"))
	files = append(files, filepath.Join("..", "..", "web", "static", "assets", "i18n.js"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			check(fmt.Sprintf("%s:%d", filepath.ToSlash(f), i+1), line)
		}
	}
	if n-catalogue < 3 {
		t.Errorf("%d quotes in i18n.js and the claims: the pattern missed them", n-catalogue)
	}
}

// The checker itself: a quote credited to the wrong seed fails, naming the
// seed it was found in; one in no seed fails; one naming no seed fails.
func TestSeedQuoteCheckerCatchesAMiscredit(t *testing.T) {
	seeds := loadSeeds(t)
	for _, tc := range []struct{ text, want string }{
		{"seed 000: 「必须要加事务」", ""},
		{"seed 003: 「必须要加事务」", "found in seed 000"},
		{"seed 003: 「no seed says this」", "in no seed"},
		{"「必须要加事务」", "names no seed"},
		{"seed 002: 「…」; seed 000: 「必须要加事务」", ""},
	} {
		var got []string
		for _, q := range creditedQuotes(tc.text) {
			if msg := checkQuote(seeds, q); msg != "" {
				got = append(got, msg)
			}
		}
		if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) == 0 || !strings.Contains(got[len(got)-1], tc.want)) {
			t.Errorf("%s: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// quote is a 「quote」 and the seed its text credits it to ("" for none).
type quote struct{ text, seed string }

var (
	quoteOrSeed = regexp.MustCompile(`「([^」]*)」|(?:seeds?|参考文章|文章)\s*(\d{3})`)
	javaConcat  = regexp.MustCompile(`"\s*\+\s*"`)
)

// creditedQuotes lists text's quotes, each with the last seed named before it.
func creditedQuotes(text string) []quote {
	var out []quote
	seed := ""
	for _, m := range quoteOrSeed.FindAllStringSubmatch(text, -1) {
		if m[2] != "" {
			seed = m[2]
			continue
		}
		if strings.Trim(m[1], "… ") != "" {
			out = append(out, quote{text: m[1], seed: seed})
		}
	}
	return out
}

// checkQuote says what is wrong with q ("" when it is in the seed it names).
func checkQuote(seeds map[string]string, q quote) string {
	in := func(seed string) bool { return containsInOrder(seeds[seed], q.text) }
	var found []string
	for _, s := range []string{"000", "001", "002", "003", "004"} {
		if in(s) {
			found = append(found, s)
		}
	}
	switch {
	case q.seed == "" && len(found) == 0:
		return fmt.Sprintf("「%s」 names no seed and is in no seed", q.text)
	case q.seed == "":
		return fmt.Sprintf("「%s」 names no seed (found in seed %s)", q.text, strings.Join(found, ", "))
	case seeds[q.seed] == "":
		return fmt.Sprintf("「%s」 names seed %s, which does not exist", q.text, q.seed)
	case in(q.seed):
		return ""
	case len(found) == 0:
		return fmt.Sprintf("「%s」 names seed %s but is in no seed", q.text, q.seed)
	}
	return fmt.Sprintf("「%s」 names seed %s but is not in it: found in seed %s", q.text, q.seed, strings.Join(found, ", "))
}

// containsInOrder says whether each "…"-separated piece of quote is in
// seed, in order.
func containsInOrder(seed, quote string) bool {
	if seed == "" {
		return false
	}
	rest := seed
	for _, piece := range strings.Split(quote, "…") {
		i := strings.Index(rest, normalize(piece))
		if i < 0 {
			return false
		}
		rest = rest[i:]
	}
	return true
}

// loadSeeds reads testdata/seeds: the seed's number ("000") -> its text,
// normalised.
func loadSeeds(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "seeds", "*.txt"))
	if err != nil || len(files) != 5 {
		t.Fatalf("testdata/seeds: %d files, %v; want the five seeds", len(files), err)
	}
	seeds := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds[filepath.Base(f)[:3]] = normalize(string(b))
	}
	return seeds
}

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
