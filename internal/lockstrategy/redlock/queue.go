package redlock

import (
	"context"
	"sync"

	"golang.org/x/sync/semaphore"
)

// queue is a Locker's local queue in front of the masters: per key, its
// contenders wait in line in the process (FIFO) and only the first of them
// sends rounds to the masters, so that a herd of hundreds per process puts
// one contender per process on the masters. The one in front leaves the
// line when its lease's Unlock has released the keys (or its Lock gave
// up): the next one sends its first round at once, while the other
// processes' contenders are asleep between two polls.
type queue struct {
	mu    sync.Mutex
	lines map[string]*line
}

// line is one key's queue; users counts the goroutines in it or in front,
// so that an idle key's line is forgotten.
type line struct {
	sem   *semaphore.Weighted
	users int
}

func newQueue() *queue { return &queue{lines: map[string]*line{}} }

// enter waits for key's turn in the process (ctx's error if it ends
// first); leave must follow a nil error.
func (q *queue) enter(ctx context.Context, key string) error {
	q.mu.Lock()
	ln := q.lines[key]
	if ln == nil {
		ln = &line{sem: semaphore.NewWeighted(1)}
		q.lines[key] = ln
	}
	ln.users++
	q.mu.Unlock()
	if err := ln.sem.Acquire(ctx, 1); err != nil {
		q.forget(key, ln)
		return err
	}
	return nil
}

// leave lets the next contender for key to the front.
func (q *queue) leave(key string) {
	q.mu.Lock()
	ln := q.lines[key]
	q.mu.Unlock()
	ln.sem.Release(1)
	q.forget(key, ln)
}

func (q *queue) forget(key string, ln *line) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ln.users--; ln.users == 0 {
		delete(q.lines, key)
	}
}
