package verdict

import "testing"

func TestOf(t *testing.T) {
	cases := []struct {
		name string
		f    Figures
		kind string
		en   string
		zh   string
	}{
		{"nothing overlapped", Figures{}, Holds,
			"no critical sections overlapped; oversold 0, lost 0", "临界区没有重叠；超卖 0，丢失更新 0"},
		{"fenced overlap", Figures{Violations: 2, FencedWrites: 1}, OverlappedSafe,
			"2 sections overlapped; fencing refused 1 stale write; oversold 0, lost 0",
			"2 处临界区重叠；防护令牌拒绝了 1 次过期写入；超卖 0，丢失更新 0"},
		{"overlap without a collision", Figures{Violations: 1}, OverlappedSafe,
			"1 section overlapped; no stale write collided this time; oversold 0, lost 0",
			"1 处临界区重叠；这次没有过期写入相撞；超卖 0，丢失更新 0"},
		{"oversold", Figures{Oversold: 3, LostUpdates: 1, Violations: 4}, Broken,
			"4 sections overlapped; oversold 3, lost 1", "4 处临界区重叠；超卖 3，丢失更新 1"},
		{"lost update, fenced too", Figures{LostUpdates: 2, Violations: 2, FencedWrites: 1}, Broken,
			"2 sections overlapped; lost 2", "2 处临界区重叠；丢失更新 2"},
		{"a buyer over the limit without an overlap", Figures{Duplicates: 1}, Broken,
			"1 buyer over the limit", "1 位买家超过限购"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Of(c.f)
			if v.Kind != c.kind || v.ReasonEn != c.en || v.ReasonZh != c.zh {
				t.Errorf("Of(%+v) = %+v, want %s %q %q", c.f, v, c.kind, c.en, c.zh)
			}
		})
	}
}
