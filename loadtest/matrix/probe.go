package matrix

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/loadtest/load"
	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// probers are the buyers that keep ordering on every replica while a
// fault strikes and after it: their answers say when the sale sold and
// when it sold nothing. Each buyer orders once; a prober waits a little
// after an order so that the stock lasts the cell.
type probers struct {
	mu   sync.Mutex
	sold []time.Time // answer times of the orders placed (or accepted)
	// soldOut is when a prober first heard the sale is sold out.
	soldOut time.Time
	kinds   map[string]int
	stop    chan struct{}
	wg      sync.WaitGroup
}

// perTarget is how many probers order on each replica at once: two, so
// that a lock that does not exclude shows it on one replica too.
const perTarget = 2

// startProbers starts perTarget probers on each target; first is ordered
// first, so that the buyer after A is on another replica.
func startProbers(ctx context.Context, c *shopapi.Client, targets []string, sale uint64) *probers {
	p := &probers{kinds: map[string]int{}, stop: make(chan struct{})}
	for i, t := range targets {
		for j := 0; j < perTarget; j++ {
			p.wg.Add(1)
			go p.run(ctx, c, t, sale, fmt.Sprintf("probe-%d-%d", i+1, j+1))
		}
	}
	return p
}

func (p *probers) run(ctx context.Context, c *shopapi.Client, target string, sale uint64, name string) {
	defer p.wg.Done()
	for n := 1; ; n++ {
		select {
		case <-p.stop:
			return
		default:
		}
		kind := c.Order(ctx, shopapi.OrdersURL(target, sale), fmt.Sprintf("%s-%d", name, n))
		pause := 100 * time.Millisecond
		p.mu.Lock()
		p.kinds[kind]++
		switch kind {
		case shopapi.KindOrder, shopapi.KindAccepted:
			p.sold = append(p.sold, time.Now())
			pause = 500 * time.Millisecond
		case "sold_out":
			if p.soldOut.IsZero() {
				p.soldOut = time.Now()
			}
			pause = 500 * time.Millisecond
		}
		p.mu.Unlock()
		select {
		case <-p.stop:
			return
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
	}
}

// soldSince is the first order placed at or after t (zero when none).
func (p *probers) soldSince(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sold {
		if !s.Before(t) {
			return s
		}
	}
	return time.Time{}
}

// waitSold waits until an order is placed at or after t, or the sale is
// sold out (it cannot sell again, and nothing is stuck), or until
// deadline; it returns the time of that order, or the last order before
// the sale sold out (zero at the deadline).
func (p *probers) waitSold(ctx context.Context, t, deadline time.Time) time.Time {
	for {
		if s := p.soldSince(t); !s.IsZero() {
			return s
		}
		if last := p.lastBeforeSoldOut(); !last.IsZero() {
			return last
		}
		if time.Now().After(deadline) || load.Sleep(ctx, 50*time.Millisecond) != nil {
			return time.Time{}
		}
	}
}

// lastBeforeSoldOut is the last order placed once the sale is sold out
// (zero while it is not).
func (p *probers) lastBeforeSoldOut() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.soldOut.IsZero() || len(p.sold) == 0 {
		return p.soldOut
	}
	return p.sold[len(p.sold)-1]
}

// longestGap is the longest time in [from, to] with no order placed.
func (p *probers) longestGap(from, to time.Time) time.Duration {
	p.mu.Lock()
	times := slices.Clone(p.sold)
	p.mu.Unlock()
	gap, last := time.Duration(0), from
	for _, s := range times {
		if s.Before(from) {
			continue
		}
		if s.After(to) {
			break
		}
		gap = max(gap, s.Sub(last))
		last = s
	}
	return max(gap, to.Sub(last))
}

// halt stops the probers and waits for their last orders' answers.
func (p *probers) halt() map[string]int {
	close(p.stop)
	p.wg.Wait()
	return p.kinds
}
