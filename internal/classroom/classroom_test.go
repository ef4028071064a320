package classroom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seckill-lab/seckill/internal/catalogue"
	"github.com/seckill-lab/seckill/internal/runs"
	"github.com/seckill-lab/seckill/internal/testenv"
)

// countingStarter starts nothing but counts, holding each start until
// release is closed (a slow start, while others race).
type countingStarter struct {
	starts  atomic.Int64
	release chan struct{}
	fail    error
}

func (c *countingStarter) StartLesson(ctx context.Context, lesson, pace string) (uint64, error) {
	n := c.starts.Add(1)
	if c.release != nil {
		<-c.release
	}
	return uint64(1000 + n), c.fail
}

func (c *countingStarter) StartRun(ctx context.Context, body json.RawMessage) (uint64, error) {
	return c.StartLesson(ctx, "", "")
}

func store(t *testing.T) (*Store, Question) {
	t.Helper()
	s := NewStore(testenv.DB(t, "classroom"))
	ctx := context.Background()
	sess, err := s.CreateSession(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Ask(ctx, sess.ID, Ask{Lesson: "mutex-across-replicas", Case: 1, MaxVotes: 5})
	if err != nil {
		t.Fatal(err)
	}
	return s, q
}

func voter() string { return fmt.Sprintf("%016x%016x", rand.Uint64(), rand.Uint64()) }

// Twenty phones vote at once on a question of five places: exactly five
// rows, the others refused as closed; one phone's ten taps at once stay one
// vote.
func TestConcurrentVotesKeepTheBound(t *testing.T) {
	s, q := store(t)
	ctx := context.Background()
	var ok, closed atomic.Int64
	var wg sync.WaitGroup
	me := voter()
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := voter()
			if i%3 == 0 {
				v = me // ten taps of one phone among them
			}
			_, err := s.Vote(ctx, q.ID, v, catalogue.Outcomes[i%4])
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrClosed):
				closed.Add(1)
			default:
				t.Errorf("vote: %v", err)
			}
		}()
	}
	wg.Wait()
	got, err := s.Question(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Votes != 5 || got.Status != StatusClosed || got.Tally != nil {
		t.Fatalf("after 30 concurrent votes (10 from one phone) on 5 places: %d votes, %s, tally %v; want 5, closed, hidden",
			got.Votes, got.Status, got.Tally)
	}
	if ok.Load() < 5 || closed.Load() == 0 {
		t.Fatalf("%d accepted, %d refused", ok.Load(), closed.Load())
	}
}

// Two reveals at once (two replicas, a double click): one starts the run,
// the other is refused; no vote lands after the reveal; a failed start
// gives the question back.
func TestOneRevealStartsOneRun(t *testing.T) {
	s, q := store(t)
	ctx := context.Background()
	if _, err := s.Reveal(ctx, q.ID, &countingStarter{fail: errors.New("no agent")}); err == nil || err.Error() != "no agent" {
		t.Fatalf("a failing start: %v", err)
	}
	if got, _ := s.Question(ctx, q.ID); got.Status != StatusOpen {
		t.Fatalf("after a failed start: %s, want open", got.Status)
	}
	st := &countingStarter{release: make(chan struct{})}
	errs := make(chan error, 2)
	for range 2 {
		go func() { _, err := s.Reveal(ctx, q.ID, st); errs <- err }()
	}
	testenv.WaitFor(t, time.Minute, "one reveal to start its run", func() bool { return st.starts.Load() == 1 })
	if _, err := s.Vote(ctx, q.ID, voter(), catalogue.OutcomeHolds); !errors.Is(err, ErrClosed) {
		t.Fatalf("a vote while the reveal starts the run: %v, want ErrClosed", err)
	}
	close(st.release)
	first, second := <-errs, <-errs
	if (first == nil) == (second == nil) || !(errors.Is(first, ErrRevealed) || errors.Is(second, ErrRevealed)) {
		t.Fatalf("two reveals: %v and %v; want one nil, one ErrRevealed", first, second)
	}
	got, _ := s.Question(ctx, q.ID)
	if st.starts.Load() != 1 || got.Status != StatusRevealed || got.LessonRunID == nil || *got.LessonRunID != 1001 || got.Tally == nil {
		t.Fatalf("revealed %+v after %d starts", got, st.starts.Load())
	}
}

// A run's setup names the strategy, the load and each setting that
// differs from a plain sale, in both languages.
func TestRunSetup(t *testing.T) {
	got := RunSetup(runs.Config{Strategy: "redis", Stock: 20000, Buyers: 1500, Rate: 250, WorkMS: 5, TTLMS: 800, Watchdog: false,
		Fencing: true, PerUserLimit: 0, StockShards: 4, OrderMode: "async", OpensInMS: 2500})
	for _, want := range []string{"redis sells 20,000 units to 1,500 buyers, 250 orders/s", "5 ms of work in the lock", "a TTL of 800 ms",
		"no watchdog", "fencing on", "the stock in 4 shards", "no limit per buyer", "orders queued", "opening in 2.5 s", "the sold-out cache off"} {
		if !strings.Contains(got.En, want) {
			t.Errorf("%q misses %q", got.En, want)
		}
	}
	for _, want := range []string{"20,000 件库存", "没有看门狗", "防护令牌开", "库存分 4 段", "不限购", "2.5 秒后开抢"} {
		if !strings.Contains(got.Zh, want) {
			t.Errorf("%q misses %q", got.Zh, want)
		}
	}
	plain := RunSetup(runs.Config{Strategy: "none", Stock: 1, Buyers: 2, Concurrency: 2, Watchdog: true, PerUserLimit: 1, TTLMS: 2000, SoldOutCache: true})
	if plain.En != "none sells 1 unit to 2 buyers, 2 at once." {
		t.Errorf("plain: %q", plain.En)
	}
}

// A title that opens like a formula stays text in a spreadsheet.
func TestInert(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "@SUM(A1)": "'@SUM(A1)", "-2": "'-2", "Tuesday": "Tuesday", "": ""} {
		if got := inert(in); got != want {
			t.Errorf("inert(%q) = %q, want %q", in, got, want)
		}
	}
}
