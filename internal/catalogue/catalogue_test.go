package catalogue

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every 「quote」 the lab shows is the seeds' own words, and the words of the
// seed it names: trainees learn from these texts, and a seed reference must
// point at what that seed says. A quote is credited to the last seed named
// before it in the same text ("seed 003: 「…」; seed 001: 「…」", or
// "参考文章 000：「…」" in Chinese). Checked: the catalogue (each text of a
// lesson, in English and in Chinese), the strategy explanations
// (web/static/assets/i18n.js, one line a text), the claims
// (internal/claims, one line a text), the README and docs/ (a paragraph,
// a list item or a table row a text). Where the text says what the quote
// is about ("of redisson: 「…」"), the seed must name that system just
// before it (subjectProblem).
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
			} else if msg := subjectProblem(seeds, q); msg != "" {
				t.Errorf("%s: %s", where, msg)
			}
		}
	}
	for _, l := range Catalogue {
		for field, text := range map[string]string{"seed": l.Seed, "seed_zh": l.SeedZh, "predict": l.Predict, "fix": l.Fix, "title": l.Title,
			"predict_zh": l.PredictZh, "fix_zh": l.FixZh, "title_zh": l.TitleZh} {
			check(l.Name+" ("+field+")", text)
		}
	}
	for i, p := range NotTaught {
		for field, text := range map[string]string{"point": p.Point, "point_zh": p.PointZh, "why": p.Why, "why_zh": p.WhyZh} {
			check(fmt.Sprintf("not taught %d (%s)", i, field), text)
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
	before := n
	for _, f := range markdownFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range markdownTexts(string(b)) {
			check(fmt.Sprintf("%s:%d", filepath.ToSlash(f), tx.line), tx.text)
		}
	}
	if n-before < 3 {
		t.Errorf("%d quotes in the README and docs: the pattern missed them", n-before)
	}
}

// markdownFiles are the README and every document under docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "..", "README.md")}
	err := filepath.WalkDir(filepath.Join("..", "..", "docs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// mdText is one text of a markdown file: a paragraph, a list item or a
// table row, and the line it starts on.
type mdText struct {
	text string
	line int
}

// markdownTexts splits a markdown file into its texts: a seed named in one
// table row or list item credits nothing in the next.
func markdownTexts(doc string) []mdText {
	var out []mdText
	cur := mdText{}
	flush := func() {
		if strings.TrimSpace(cur.text) != "" {
			out = append(out, cur)
		}
		cur = mdText{}
	}
	for i, line := range strings.Split(doc, "\n") {
		trim := strings.TrimSpace(line)
		starts := trim == "" || strings.HasPrefix(trim, "|") || strings.HasPrefix(trim, "- ") || strings.HasPrefix(trim, "* ") ||
			strings.HasPrefix(trim, "#") || regexp.MustCompile(`^\d+\. `).MatchString(trim)
		if starts {
			flush()
		}
		if cur.text == "" {
			cur.line = i + 1
		}
		cur.text += line + "\n"
		if strings.HasPrefix(trim, "|") {
			flush()
		}
	}
	flush()
	return out
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

// quote is a 「quote」, the seed its text credits it to ("" for none) and
// the system the text says it is about, where the words between the seed's
// name (or the quote before) and the quote name one ("of redisson: 「…」";
// "" where they name none).
type quote struct{ text, seed, about string }

var (
	quoteOrSeed = regexp.MustCompile(`「([^」]*)」|(?:(?i:seeds?)|参考文章|文章)\s*(\d{3})|seed(?:Beside)?\("(\d{3})"`) // the last: internal/claims' c.seed("003", "「…」")
	javaConcat  = regexp.MustCompile(`"\s*\+\s*"`)
)

// creditedQuotes lists text's quotes, each with the last seed named before it.
func creditedQuotes(text string) []quote {
	var out []quote
	seed, from := "", 0
	for _, loc := range quoteOrSeed.FindAllStringSubmatchIndex(text, -1) {
		gap := text[from:loc[0]]
		from = loc[1]
		group := func(i int) string {
			if loc[2*i] < 0 {
				return ""
			}
			return text[loc[2*i]:loc[2*i+1]]
		}
		if n := group(2) + group(3); n != "" {
			seed = n
			continue
		}
		if q := group(1); strings.Trim(q, "… ") != "" {
			out = append(out, quote{text: q, seed: seed, about: lastSubject(gap)})
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

// Every lesson's "From the seed" commentary is in Chinese too (seed_zh,
// from catalogue_zh.go's zhSeeds), by seedZhProblem's rule, and zhSeeds
// names no lesson the catalogue lacks.
func TestCatalogueSeedsInChinese(t *testing.T) {
	for _, l := range Catalogue {
		if l.Seed == "" {
			continue
		}
		if p := seedZhProblem(l.Seed, l.SeedZh); p != "" {
			t.Errorf("%s: seed_zh %q: %s (catalogue_zh.go)", l.Name, l.SeedZh, p)
		}
	}
	for name := range zhSeeds {
		if _, ok := Find(name); !ok {
			t.Errorf("catalogue_zh.go's zhSeeds has %q, which the catalogue lacks", name)
		}
	}
}

// The rule for a seed_zh, given its English seed: it is not empty and has
// a Chinese character; every 「quote」 of the English is in it byte for
// byte, and it has no 「quote」 the English lacks (so 「」 cannot hide
// untranslated text). It names a seed as 参考文章 NNN, never as "seed"
// (the word the English credits with). Outside the quotes it has no run
// of 4 or more plain English words. A word is ASCII letters (an
// apostrophe inside); the words of a run are separated by spaces or
// commas only. A technical token joins letters with digits, "_", ".",
// "/" or "-" (redis-getset, slow_work, jedis.del, buyer-1, N/2): it is a
// break, not a word, so only a name of plain words can make a run, and
// the lab's (SET NX PX, SET NX EX, select ... for update, Martin
// Kleppmann) have 3 at most. One exception:
// a source outside the seeds cited in English (Kleppmann's article, etcd's
// documentation) keeps its words in 《title》 or “sentence”, which must be
// the English seed's own "…" and be followed at once by its Chinese in
// （）; such a citation is left out of the count.
var (
	seedZhQuote  = regexp.MustCompile(`「[^」]*」`)
	citation     = regexp.MustCompile(`(?:《([^》]*)》|“([^”]*)”)(（[^）]*）)?`)
	hanChar      = regexp.MustCompile(`\p{Han}`)
	techToken    = regexp.MustCompile(`[A-Za-z0-9_]+(?:[./-]+[A-Za-z0-9_]+)*`)
	seedWord     = regexp.MustCompile(`(?i)\bseeds?\b`)
	englishWords = regexp.MustCompile(`[A-Za-z][A-Za-z']*(?:[ ,]+[A-Za-z][A-Za-z']*){3,}`)
)

// seedZhProblem says what breaks the rule above in zh, the Chinese of en,
// or "".
func seedZhProblem(en, zh string) string {
	if zh == "" {
		return "empty"
	}
	if !hanChar.MatchString(zh) {
		return "no Chinese character"
	}
	enQuotes := seedZhQuote.FindAllString(en, -1)
	for _, q := range enQuotes {
		if !strings.Contains(zh, q) {
			return fmt.Sprintf("lacks the seed's own %s", q)
		}
	}
	for _, q := range seedZhQuote.FindAllString(zh, -1) {
		if !slices.Contains(enQuotes, q) {
			return fmt.Sprintf("quotes %s, which the English does not", q)
		}
	}
	rest := seedZhQuote.ReplaceAllString(zh, "·")
	if seedWord.MatchString(rest) {
		return `says "seed" where the lab's Chinese says 参考文章`
	}
	problem := ""
	rest = citation.ReplaceAllStringFunc(rest, func(c string) string {
		m := citation.FindStringSubmatch(c)
		cited := m[1] + m[2]
		if hanChar.MatchString(cited) {
			return c // Chinese in 《》 or “”: the words count as any others
		}
		switch {
		case !strings.Contains(en, `"`+cited+`"`):
			problem = fmt.Sprintf("cites %q, which the English does not quote", cited)
		case !hanChar.MatchString(m[3]):
			problem = fmt.Sprintf("cites %q without its Chinese in （） right after it", cited)
		}
		return "·"
	})
	if problem != "" {
		return problem
	}
	rest = techToken.ReplaceAllStringFunc(rest, func(w string) string {
		if strings.ContainsAny(w, "0123456789_./-") {
			return "·"
		}
		return w
	})
	if m := englishWords.FindString(rest); m != "" {
		return fmt.Sprintf("English words in a row: %q", m)
	}
	return ""
}

func TestTheSeedZhRuleCatchesEnglish(t *testing.T) {
	const en = `seed 000: 「必须要加事务」; Kleppmann, "How to do distributed locking": a pause lets a second holder in`
	for _, bad := range []string{
		"",
		"seed 000: 「必须要加事务」",
		"参考文章 000：「必须要加」",
		"参考文章 000：「必须要加事务」；a pause lets a second holder in",
		"参考文章 000：「必须要加事务」「a pause lets a second holder in」",
		"参考文章 000：「必须要加事务」；Kleppmann 的《How to do distributed locking》",
		"参考文章 000：「必须要加事务」；“a pause lets a second holder in”（暂停会放进第二个持有者）",
		"参考文章 000：「必须要加事务」；暂停会放进第二个 holder, a pause lets",
	} {
		if seedZhProblem(en, bad) == "" {
			t.Errorf("%q passes the rule", bad)
		}
	}
	for _, ok := range []string{
		"参考文章 000：「必须要加事务」；Kleppmann 的《How to do distributed locking》（《如何实现分布式锁》）：暂停会放进第二个持有者",
		"参考文章 000：「必须要加事务」；redis-getset 用 SET NX PX 加锁，select ... for update 锁，slow_work 与 jedis.del() 之后，Martin Kleppmann 说",
	} {
		if p := seedZhProblem(en, ok); p != "" {
			t.Errorf("%q: %s", ok, p)
		}
	}
}

// A lesson whose Seed says it goes beyond the seeds is predicted by the lab
// (the dashboard and `loadtest scenario` say "The lab predicts"), every
// other by a seed.
func TestBeyondSeedsIsTheLabsPrediction(t *testing.T) {
	var lab []string
	for _, l := range Catalogue {
		if l.BeyondSeeds != strings.HasPrefix(l.Seed, "beyond the seeds") {
			t.Errorf("%s: beyond_seeds %v, seed %q", l.Name, l.BeyondSeeds, l.Seed)
		}
		if l.PredictedBy() == "lab" {
			lab = append(lab, l.Name)
		}
	}
	if len(lab) == 0 || len(lab) == len(Catalogue) {
		t.Errorf("lessons predicted by the lab: %v of %d", lab, len(Catalogue))
	}
}

// A quote credited to the wrong subject fails: seed 003 says its sentence
// on listeners of ZooKeeper, not of Redisson.
func TestSeedQuoteCheckerCatchesTheWrongSubject(t *testing.T) {
	seeds := loadSeeds(t)
	for _, tc := range []struct{ text, want string }{
		{"seed 003, of redisson: 「如果獲取不到鎖,只需要添加一個監聽器就可以了,不用一直輪詢,性能消耗較小。」", "names no redisson before it"},
		{"seed 003, of ZooKeeper: 「如果獲取不到鎖,只需要添加一個監聽器就可以了,不用一直輪詢,性能消耗較小。」", ""},
		{"seed 003: 「如果獲取不到鎖,只需要添加一個監聽器就可以了,不用一直輪詢,性能消耗較小。」", ""},
	} {
		var got []string
		for _, q := range creditedQuotes(tc.text) {
			if msg := subjectProblem(seeds, q); msg != "" {
				got = append(got, msg)
			}
		}
		if tc.want == "" && len(got) > 0 || tc.want != "" && (len(got) == 0 || !strings.Contains(got[0], tc.want)) {
			t.Errorf("%s: %q, want %q", tc.text, got, tc.want)
		}
	}
}

// Each point no lesson runs says it, and why not, in both languages: the
// Chinese by seed_zh's rule (the same quotes, 参考文章 NNN, no English run).
func TestNotTaughtInBothLanguages(t *testing.T) {
	if len(NotTaught) == 0 {
		t.Fatal("NotTaught is empty: then the README and the Lessons page say nothing is left out; check they are right")
	}
	for i, p := range NotTaught {
		if p.Point == "" || p.Why == "" {
			t.Errorf("not taught %d: point %q, why %q", i, p.Point, p.Why)
		}
		if msg := seedZhProblem(p.Point, p.PointZh); msg != "" {
			t.Errorf("not taught %d: point_zh %q: %s", i, p.PointZh, msg)
		}
		if msg := seedZhProblem(p.Why, p.WhyZh); msg != "" {
			t.Errorf("not taught %d: why_zh %q: %s", i, p.WhyZh, msg)
		}
	}
}
