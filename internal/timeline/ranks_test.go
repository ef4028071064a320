package timeline

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// Real tokens: a redis fencing counter's (16 digits) and a consistent-hash
// ring's (epoch<<seqBits plus a count: 19 digits, past 2^53).
const (
	redisToken = uint64(1795827359907586)
	ringToken  = uint64(3657291100323840001)
)

// A token's rank is its place among the sale's distinct tokens, ascending
// from #1; no token (0) and a token the sale never gave have none.
func TestTokenRanksNumberDistinctTokensAscending(t *testing.T) {
	r := newTokenRanks([]uint64{ringToken, redisToken + 4, 0, redisToken, redisToken + 4, ringToken + 1})
	for token, want := range map[uint64]int{redisToken: 1, redisToken + 4: 2, ringToken: 3, ringToken + 1: 4, 0: 0, redisToken + 1: 0} {
		if got := r.of(token); got != want {
			t.Errorf("rank of %d = %d, want %d", token, got, want)
		}
	}
	if got := r.label(ringToken); got != "#3" {
		t.Errorf("label %q, want #3", got)
	}
	if got := r.label(redisToken + 1); got != "1795827359907587" {
		t.Errorf("a token without a rank is labelled %q, want its raw value", got)
	}
	if r := newTokenRanks(nil); r.of(5) != 0 || r.of(0) != 0 {
		t.Error("no tokens: no ranks")
	}
}

// rankTokens gives each section and lease event its rank and each
// section its raw token in decimal (exact past 2^53); a hold without a
// token has neither.
func TestRankTokensSetsSectionsAndLeases(t *testing.T) {
	tl := Timeline{
		Sections: []Section{{ID: 1, Token: ringToken + 1}, {ID: 2, Token: ringToken}, {ID: 3}},
		Leases:   []LeaseEvent{{Token: ringToken, Event: "granted"}, {Token: ringToken + 1, Event: "lost"}},
	}
	tl.rankTokens(newTokenRanks([]uint64{ringToken, ringToken + 1}))
	got := []int{tl.Sections[0].TokenRank, tl.Sections[1].TokenRank, tl.Sections[2].TokenRank, tl.Leases[0].TokenRank, tl.Leases[1].TokenRank}
	if want := []int{2, 1, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("ranks %v, want %v", got, want)
	}
	if tl.Sections[0].TokenRaw != "3657291100323840002" || tl.Sections[2].TokenRaw != "" {
		t.Errorf("raw tokens %q, %q", tl.Sections[0].TokenRaw, tl.Sections[2].TokenRaw)
	}
}

// The fencing lesson in the narration, with real tokens: every line says
// "#1", "#2", "#3", never a long number, in English and Chinese; the
// fenced write names the newer token that had written before it.
func TestNarrationSaysTokensByRank(t *testing.T) {
	t0 := time.Now()
	paused := section(1, "r2", redisToken+7, t0, 0, 3000, sectionlog.OutcomeFenced)
	next := section(2, "r1", redisToken+9, t0, 600, 610, sectionlog.OutcomeCommitted)
	after := section(3, "r1", redisToken+12, t0, 611, 620, sectionlog.OutcomeCommitted)
	first := section(4, "r1", redisToken, t0, -10, -5, sectionlog.OutcomeCommitted)
	leases := []LeaseEvent{{Replica: "r2", Token: redisToken + 7, Event: "lost", At: At(t0.Add(2900 * time.Millisecond))}}
	lines := narrationOf([]sectionlog.Section{paused, next, after, first}, leases)
	en, zh := joined(lines, false), joined(lines, true)
	for _, want := range []string{
		"r2 gets token #2\n",
		"r1 gets token #3 while r2 still holds token #2: the first overlap",
		"r2's lease on token #2 is lost",
		"r2 writes with token #2: refused (fenced), the newer #4 had written before it",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("narration lacks %q:\n%s", want, en)
		}
	}
	for _, want := range []string{"r2 获得令牌 #2", "r2 持有的令牌 #2 的租约丢失", "r2 用令牌 #2 写入：被拒绝（防护令牌拦截），更新的令牌 #4 已先写入"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese narration lacks %q:\n%s", want, zh)
		}
	}
	if long := regexp.MustCompile(`\d{5,}`).FindString(en + zh); long != "" {
		t.Errorf("the narration says a long number %s:\n%s%s", long, en, zh)
	}
}

// A lease its client finds lost late (a paused holder's next renewal)
// says when it had really run out, where its bar ends: granted at 0 with a
// 500 ms TTL, noticed lost at 4.15 s, it ran out 3.65 s before the line.
func TestNarrationSaysWhenALostLeaseRanOut(t *testing.T) {
	t0 := time.Now()
	held := section(1, "r2", redisToken, t0, 0, 4200, sectionlog.OutcomeLockLost)
	leases := []LeaseEvent{
		{Replica: "r2", Token: redisToken, Event: "granted", At: At(t0), TTLMS: 500},
		{Replica: "r2", Token: redisToken, Event: "lost", At: At(t0.Add(4150 * time.Millisecond))},
	}
	lines := narrationOf([]sectionlog.Section{held}, leases)
	en, zh := joined(lines, false), joined(lines, true)
	if want := "r2's lease on token #1 is lost: its client notices only now; the lease had run out 3.65 s earlier, where its bar ends"; !strings.Contains(en, want) {
		t.Errorf("narration lacks %q:\n%s", want, en)
	}
	if want := "租约早在 3.65 s 前就已到期"; !strings.Contains(zh, want) {
		t.Errorf("Chinese narration lacks %q:\n%s", want, zh)
	}
	// Noticed at once (within a millisecond), the line stays short.
	leases[1].At = At(t0.Add(500 * time.Millisecond))
	if en := joined(narrationOf([]sectionlog.Section{held}, leases), false); strings.Contains(en, "notices only now") {
		t.Errorf("a lease lost on time says it was noticed late:\n%s", en)
	}
}
