package gather_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/gather"
)

// Many callers of two keys: each gets its own answer, every batch holds
// one key's items only and at most MaxBatch of them, and the batches do
// gather (fewer runs than calls).
func TestEveryCallGetsItsOwnAnswerInBatches(t *testing.T) {
	var mu sync.Mutex
	runs, biggest := 0, 0
	wrongKey := 0
	g := &gather.Gatherer[string, int, string]{MaxBatch: 16, MaxWait: 5 * time.Millisecond,
		Run: func(key string, items []int) []gather.Result[string] {
			mu.Lock()
			runs++
			biggest = max(biggest, len(items))
			mu.Unlock()
			out := make([]gather.Result[string], len(items))
			for i, it := range items {
				if (it%2 == 0) != (key == "even") {
					mu.Lock()
					wrongKey++
					mu.Unlock()
				}
				out[i] = gather.Result[string]{Value: fmt.Sprintf("%s-%d", key, it)}
			}
			time.Sleep(time.Millisecond) // a round trip: calls pile up behind it
			return out
		}}
	const calls = 400
	var wg sync.WaitGroup
	got := make([]string, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "odd"
			if i%2 == 0 {
				key = "even"
			}
			v, err := g.Do(context.Background(), key, i)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	wg.Wait()
	for i, v := range got {
		key := "odd"
		if i%2 == 0 {
			key = "even"
		}
		if want := fmt.Sprintf("%s-%d", key, i); v != want {
			t.Fatalf("call %d got %q, want %q", i, v, want)
		}
	}
	t.Logf("%d calls in %d runs, the biggest of %d", calls, runs, biggest)
	if biggest > 16 || wrongKey > 0 || runs >= calls {
		t.Fatalf("%d runs for %d calls, biggest batch %d (max 16), %d items under the wrong key", runs, calls, biggest, wrongKey)
	}
}

// A caller that leaves while its item waits is not in any batch and hears
// its ctx's error; the others are answered.
func TestACallerThatLeavesWhileWaitingIsNotRun(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	ran := map[int]bool{}
	g := &gather.Gatherer[int, int, int]{MaxBatch: 8, MaxWait: time.Millisecond,
		Run: func(_ int, items []int) []gather.Result[int] {
			mu.Lock()
			for _, it := range items {
				ran[it] = true
			}
			mu.Unlock()
			if items[0] == 0 {
				<-release // the first batch holds the lane while the others wait
			}
			out := make([]gather.Result[int], len(items))
			for i, it := range items {
				out[i].Value = it
			}
			return out
		}}
	first := make(chan error, 1)
	go func() { _, err := g.Do(context.Background(), 1, 0); first <- err }()
	for {
		mu.Lock()
		started := ran[0]
		mu.Unlock()
		if started {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan error, 1)
	go func() { _, err := g.Do(ctx, 1, 1); left <- err }()
	stays := make(chan error, 1)
	go func() { _, err := g.Do(context.Background(), 1, 2); stays <- err }()
	time.Sleep(5 * time.Millisecond) // both queued behind the running batch
	cancel()
	if err := <-left; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that left: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-stays; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if ran[1] || !ran[2] {
		t.Fatalf("ran %v: the item of the caller that left must not run, the other must", ran)
	}
}

// A Run that panics fails its batch's calls instead of leaving them waiting.
func TestARunThatPanicsAnswersAnError(t *testing.T) {
	g := &gather.Gatherer[int, int, int]{MaxBatch: 4, MaxWait: time.Millisecond,
		Run: func(int, []int) []gather.Result[int] { panic("boom") }}
	if _, err := g.Do(context.Background(), 1, 1); err == nil {
		t.Fatal("a panicking batch answered no error")
	}
}
