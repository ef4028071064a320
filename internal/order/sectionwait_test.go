package order_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/seckill-lab/seckill/internal/sale"
	"github.com/seckill-lab/seckill/internal/saletest"
)

// TestSectionsRecordTheirWait: every locked section the order flow records
// says when its buyer asked for the lock, no later than it entered: the
// hand-overs of the lock's physical limit (sectionlog.Cycle) are counted
// from it.
func TestSectionsRecordTheirWait(t *testing.T) {
	store, lockers, svc := newService(t, "wait")
	ctx := context.Background()
	sale := saletest.Make(t, sale.New(store.DB(), lockers, svc), sale.Spec{Name: new("section wait"), Strategy: new("db-pessimistic"),
		Stock: new(int64(4)), WorkMS: new(int64(2)), PerUserLimit: new(int64(1))})
	const buyers = 8
	var wg sync.WaitGroup
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = svc.Place(ctx, sale.ID, fmt.Sprintf("w%d", i)) // 4 buy, 4 read stock 0: all hold the lock
		}()
	}
	wg.Wait()
	v := settledView(t, store, svc, sale.ID)
	var sections, bad int64
	db := store.DB().WithContext(ctx).Table("critical_sections").Where("sale_id = ?", sale.ID)
	if err := db.Count(&sections).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Where("wait_at IS NULL OR wait_at > enter_at").Count(&bad).Error; err != nil {
		t.Fatal(err)
	}
	if sections != buyers || bad != 0 || v.LockCycle.Sections != buyers || v.Sold != 4 {
		t.Fatalf("%d sections, %d without a wait at or before their entry; lock_cycle %+v, sold %d",
			sections, bad, v.LockCycle, v.Sold)
	}
}
