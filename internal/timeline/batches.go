package timeline

import (
	"fmt"
	"sort"

	"github.com/seckill-lab/seckill/internal/sectionlog"
)

// batches tells the holds that sold a batch (combining, 合并请求): the
// first one of more than one buyer and the largest, each as "vm:1 held
// the lock once for 37 buyers: 30 orders (token 12)" with what the other
// buyers got, and a last line with the totals: the buyers who reached the
// lock (the others were answered before it, by the sold-out cache or a
// guard), the holds, the orders and the orders per hold. Nothing for a
// sale without batches.
func batches(t Timeline, sections []sectionlog.Section, add func(Millis, *uint64, string, string)) {
	first, largest := -1, -1
	var holds, orders, buyers int64
	var last Millis
	for i := range sections {
		s := &sections[i]
		holds++
		orders += s.Orders()
		if s.BatchBuyers == 0 { // one buyer's section
			buyers++
			continue
		}
		buyers += int64(s.BatchBuyers)
		last = max(last, At(s.ExitAt))
		if s.Outcome != sectionlog.OutcomeCommitted {
			continue // a refused batch has its own line (narrate's fenced and lock-lost lines)
		}
		if first < 0 && s.BatchBuyers > 1 { // the first that combined buyers
			first = i
		}
		if largest < 0 || s.BatchBuyers > sections[largest].BatchBuyers {
			largest = i
		}
	}
	if last == 0 {
		return
	}
	told := []int{first, largest}
	if largest == first {
		told = told[:1]
	}
	for _, i := range told {
		if i < 0 {
			continue
		}
		s := &sections[i]
		en, zh := heldOnce(s, t.ranks.label(s.Token), stockAfter(t.Stock, At(s.ExitAt)))
		add(At(s.ExitAt), &s.ID, en, zh)
	}
	per := float64(orders) / float64(holds)
	add(last, nil, fmt.Sprintf("in all, %d buyer%s reached the lock: %d hold%s of it sold them %d order%s, %.1f per hold",
		buyers, plural(int(buyers)), holds, plural(int(holds)), orders, plural(int(orders)), per),
		fmt.Sprintf("合计：%d 位买家进入加锁环节，%d 次持锁卖出 %d 单，每次持锁 %.1f 单", buyers, holds, orders, per))
}

// heldOnce says that s held the lock once for its batch, what it sold and
// what the other buyers got: sold out when the stock read 0 after it
// (stockLeft 0), else refused by the per-user limit or a repeated key.
// token is s's token as the class reads it ("#4").
func heldOnce(s *sectionlog.Section, token string, stockLeft int64) (en, zh string) {
	tokenEn, tokenZh := "", ""
	if s.Token != 0 {
		tokenEn, tokenZh = fmt.Sprintf(" (token %s)", token), fmt.Sprintf("（令牌 %s）", token)
	}
	en = fmt.Sprintf("%s held the lock once for %d buyer%s: %d order%s%s", s.ReplicaID, s.BatchBuyers, plural(s.BatchBuyers),
		s.BatchOrders, plural(s.BatchOrders), tokenEn)
	zh = fmt.Sprintf("%s 持锁一次服务 %d 位买家：%d 个订单%s", s.ReplicaID, s.BatchBuyers, s.BatchOrders, tokenZh)
	if rest := s.BatchBuyers - s.BatchOrders; rest > 0 {
		if stockLeft == 0 {
			en += fmt.Sprintf(", the other %d: sold out", rest)
			zh += fmt.Sprintf("，其余 %d 位：售罄", rest)
		} else {
			en += fmt.Sprintf(", the other %d refused (per-user limit or a repeated key)", rest)
			zh += fmt.Sprintf("，其余 %d 位被拒绝（限购或重复请求）", rest)
		}
	}
	return en, zh
}

// stockAfter is the stock the line held at at (its last step at or
// before it), -1 before the first step.
func stockAfter(stock []StockPoint, at Millis) int64 {
	i := sort.Search(len(stock), func(i int) bool { return stock[i].At > at })
	if i == 0 {
		return -1
	}
	return stock[i-1].Stock
}
