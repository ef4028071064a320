package agent

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// The sales reporter never blocks the scenario, sends the newest list and,
// at stop, the last one before it returns.
func TestReportSalesSendsTheNewest(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var sent [][]uint64
	give, stop := reportSales(context.Background(), func(_ context.Context, list []uint64) {
		mu.Lock()
		sent = append(sent, list)
		first := len(sent) == 1
		mu.Unlock()
		if first {
			<-release // the first call is slow: the next lists wait, the newest wins
		}
	})
	give([]uint64{1})
	for len(snapshot(&mu, &sent)) == 0 {
		// the first send is under way
	}
	give([]uint64{1, 2})
	give([]uint64{1, 2, 3}) // returns at once although a call is under way
	close(release)
	stop()
	give([]uint64{9}) // after stop: dropped, no panic
	if got := fmt.Sprint(snapshot(&mu, &sent)); got != "[[1] [1 2 3]]" {
		t.Fatalf("sent %s, want [[1] [1 2 3]]", got)
	}
}

func snapshot(mu *sync.Mutex, sent *[][]uint64) [][]uint64 {
	mu.Lock()
	defer mu.Unlock()
	return append([][]uint64(nil), *sent...)
}
