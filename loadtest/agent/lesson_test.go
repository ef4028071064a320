package agent

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
)

// The progress reporter never blocks the scenario, sends the newest
// progress and, at stop, the last one before it returns.
func TestReportProgressSendsTheNewest(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var sent []lessonProgress
	give, _, stop := reportProgress(context.Background(), func(_ context.Context, p lessonProgress) {
		mu.Lock()
		sent = append(sent, p)
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
	var lists [][]uint64
	for _, p := range snapshot(&mu, &sent) {
		lists = append(lists, p.Sales)
	}
	if got := fmt.Sprint(lists); got != "[[1] [1 2 3]]" {
		t.Fatalf("sent %s, want [[1] [1 2 3]]", got)
	}
}

// The next case rides with the newest sales: a report after it carries
// both, the sales are never null (the shop requires the list) and a newer
// next replaces the older one.
func TestReportProgressCarriesTheNext(t *testing.T) {
	var mu sync.Mutex
	var sent []lessonProgress
	sales, next, stop := reportProgress(context.Background(), func(_ context.Context, p lessonProgress) {
		mu.Lock()
		sent = append(sent, p)
		mu.Unlock()
	})
	at := time.Date(2026, 11, 26, 10, 0, 8, 0, time.UTC)
	next(catalogue.Next{En: "the fix", Zh: "修复", At: at})
	waitSent(t, &mu, &sent, 1)
	sales([]uint64{4})
	waitSent(t, &mu, &sent, 2)
	next(catalogue.Next{En: "the second fix", Zh: "第二个修复", At: at.Add(time.Minute)})
	stop()
	got := snapshot(&mu, &sent)
	if len(got) != 3 {
		t.Fatalf("sent %d reports, want 3: %+v", len(got), got)
	}
	if got[0].Sales == nil || len(got[0].Sales) != 0 || got[0].Next == nil || got[0].Next.Zh != "修复" || !got[0].Next.At.Equal(at) {
		t.Errorf("first report %+v: want no sales (an empty list) and the next", got[0])
	}
	if fmt.Sprint(got[1].Sales) != "[4]" || got[1].Next == nil || got[1].Next.En != "the fix" {
		t.Errorf("second report %+v: want sales [4] with the next still there", got[1])
	}
	if fmt.Sprint(got[2].Sales) != "[4]" || got[2].Next == nil || got[2].Next.En != "the second fix" {
		t.Errorf("third report %+v: want sales [4] with the newer next", got[2])
	}
}

func waitSent(t *testing.T, mu *sync.Mutex, sent *[]lessonProgress, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(snapshot(mu, sent)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d reports sent, want %d", len(snapshot(mu, sent)), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func snapshot(mu *sync.Mutex, sent *[]lessonProgress) []lessonProgress {
	mu.Lock()
	defer mu.Unlock()
	return append([]lessonProgress(nil), *sent...)
}
