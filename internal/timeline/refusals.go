package timeline

import (
	"fmt"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// refusal is how the narration tells one kind of write that did not land.
type refusal struct {
	outcome, en, zh, batchEn, batchZh, moreEn, moreZh string
}

// refusalKinds: a fenced write, a section stopped on a lost lock. A batch
// (combining) is refused whole: its line says how many buyers. Tokens are
// written as the class reads them ("#3").
var refusalKinds = []refusal{
	{sectionlog.OutcomeFenced, "%s writes with token %s: refused (fenced)", "%s 用令牌 %s 写入：被拒绝（防护令牌拦截）",
		"%s writes a batch of %d buyers with token %s: refused whole (fenced)", "%s 用令牌 %s 写入 %d 位买家的批次：整批被拒绝（防护令牌拦截）",
		"more fenced writes", "次写入被防护令牌拒绝"},
	{sectionlog.OutcomeLockLost, "%s stops before its write with token %s: lock lost",
		"%s 在用令牌 %s 写入前停下：锁已丢失",
		"%s stops before writing a batch of %d buyers with token %s: lock lost, none of them written",
		"%s 在用令牌 %s 写入 %d 位买家的批次前停下：锁已丢失，整批未写入",
		"more sections stopped on a lost lock", "个临界区因锁丢失而停下"},
}

// refusals tells, per kind, the first perKind refused writes and how many
// more; a fenced write also names the newer token that had written before
// it ("the newer #4 had written before it"), when one in the window had.
func refusals(t Timeline, sections []sectionlog.Section, add func(Millis, *uint64, string, string), lines *[]Line) {
	for _, c := range refusalKinds {
		n := 0
		for i := range sections {
			s := &sections[i]
			if s.Outcome != c.outcome {
				continue
			}
			if n++; n > perKind {
				continue
			}
			token := t.ranks.label(s.Token)
			en, zh := fmt.Sprintf(c.en, s.ReplicaID, token), fmt.Sprintf(c.zh, s.ReplicaID, token)
			if s.BatchBuyers > 0 {
				en, zh = fmt.Sprintf(c.batchEn, s.ReplicaID, s.BatchBuyers, token), fmt.Sprintf(c.batchZh, s.ReplicaID, token, s.BatchBuyers)
			}
			if newer := newerWriter(sections, s); c.outcome == sectionlog.OutcomeFenced && newer != 0 {
				label := t.ranks.label(newer)
				en += fmt.Sprintf(", the newer %s had written before it", label)
				zh += fmt.Sprintf("，更新的令牌 %s 已先写入", label)
			}
			add(At(s.ExitAt), &s.ID, en, zh)
		}
		more(lines, n, t.To, c.moreEn, c.moreZh)
	}
}

// newerWriter is the largest token above s's that committed before s
// left its section (0: none among sections): the fence s ran into.
func newerWriter(sections []sectionlog.Section, s *sectionlog.Section) uint64 {
	var newest uint64
	for i := range sections {
		o := &sections[i]
		if o.Outcome == sectionlog.OutcomeCommitted && o.Token > s.Token && o.Token > newest && !o.ExitAt.After(s.ExitAt) {
			newest = o.Token
		}
	}
	return newest
}
