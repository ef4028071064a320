package load

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

// SettleStates reads each ticket until the queue has drained: no ticket
// pending and the same states on two reads a second apart (a 404 may still
// become an order a consumer is persisting), 90 s at most. Eight reads run
// at once, spread over the targets.
func SettleStates(ctx context.Context, cl *shopapi.Client, targets []string, tickets []string) (map[string]string, error) {
	states := map[string]string{}
	deadline := time.Now().Add(90 * time.Second)
	for round := 0; ; round++ {
		var todo []string
		for _, tk := range tickets {
			if s := states[tk]; s == "" || s == shopapi.TicketPending || s == shopapi.TicketLost {
				todo = append(todo, tk)
			}
		}
		before := maps.Clone(states)
		if err := readStates(ctx, cl, targets, todo, states); err != nil {
			return nil, err
		}
		pending := 0
		for _, s := range states {
			if s == shopapi.TicketPending {
				pending++
			}
		}
		if pending == 0 && round > 0 && maps.Equal(before, states) || time.Now().After(deadline) {
			return states, nil
		}
		if err := Sleep(ctx, time.Second); err != nil {
			return nil, err
		}
	}
}

// readStates reads the tickets' states into states, eight at a time.
func readStates(ctx context.Context, cl *shopapi.Client, targets, tickets []string, states map[string]string) error {
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		next     = make(chan int)
	)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				v, err := readTicket(ctx, cl, targets, i, tickets[i])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if err == nil {
					states[tickets[i]] = v.State
				}
				mu.Unlock()
			}
		}()
	}
	for i := range tickets {
		next <- i
	}
	close(next)
	wg.Wait()
	return firstErr
}

// readTicket reads one ticket from a target, trying the others when one
// does not answer.
func readTicket(ctx context.Context, cl *shopapi.Client, targets []string, i int, ticket string) (shopapi.TicketView, error) {
	var lastErr error
	for k := range targets {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		v, err := cl.Ticket(rctx, targets[(i+k)%len(targets)], ticket)
		cancel()
		if err == nil {
			return v, nil
		}
		lastErr = err
	}
	return shopapi.TicketView{}, lastErr
}
