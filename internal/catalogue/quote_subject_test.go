package catalogue

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A quote is about a system: the seed says it of ZooKeeper, of Redisson, of
// RedLock, of Redis, of the database. Where the lab's text names what a
// quote is about ("of redisson: 「…」"), the seed must name that system in
// the subjectWindow characters before the quote: seed 003's sentence on
// listeners follows its ZooKeeper section and names no Redisson near it.
var subjects = []struct {
	name string
	re   *regexp.Regexp
}{
	// Longest first: redisson and redlock before redis.
	{"redisson", regexp.MustCompile(`(?i)redisson|看门狗|看門狗|watchdog`)},
	{"redlock", regexp.MustCompile(`(?i)redlock|redsync|红锁|紅鎖`)},
	{"zookeeper", regexp.MustCompile(`(?i)zookeeper|\bzk\b|zk的|curator|znode|临时节点|臨時節點|临时顺序节点|臨時順序節點`)},
	{"etcd", regexp.MustCompile(`(?i)etcd`)},
	{"redis", regexp.MustCompile(`(?i)redis|setnx|SET NX`)},
	{"database", regexp.MustCompile(`(?i)数据库|數據庫|mysql|\bDB\b|for update|乐观锁|悲观锁`)},
}

// subjectWindow is how far before a quote the seed's subject is looked for.
const subjectWindow = 800

// lastSubject is the last system text names ("" for none).
func lastSubject(text string) string {
	best, at := "", -1
	for _, s := range subjects {
		for _, loc := range s.re.FindAllStringIndex(text, -1) {
			// A longer name starting at the same place wins (redisson over redis).
			if loc[0] > at {
				best, at = s.name, loc[0]
			}
		}
	}
	return best
}

// seedSubjects are the systems the seed names in the window before q (nil
// when q is not in it).
func seedSubjects(seed string, q quote) []string {
	first := normalize(strings.Split(q.text, "…")[0])
	i := strings.Index(seed, first)
	if i < 0 {
		return nil
	}
	start := i
	for n := 0; n < subjectWindow && start > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(seed[:start])
		start -= size
	}
	var named []string
	for _, s := range subjects {
		if s.re.MatchString(seed[start:i]) {
			named = append(named, s.name)
		}
	}
	return named
}

// subjectProblem says what is wrong with the subject q's text gives it (""
// when it names none, or the seed says it of that system).
func subjectProblem(seeds map[string]string, q quote) string {
	if q.about == "" || q.seed == "" {
		return ""
	}
	named := seedSubjects(seeds[q.seed], q)
	if named == nil || slices.Contains(named, q.about) {
		return ""
	}
	return fmt.Sprintf("「%s」 is credited as said of %s, but seed %s names no %s before it, only %s",
		q.text, q.about, q.seed, q.about, strings.Join(named, ", "))
}
