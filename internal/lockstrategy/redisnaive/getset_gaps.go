package redisnaive

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// The gaps of redis-getset, held open on demand (faultpoint.Gap, armed by
// the getset faults) so that a lesson can show on a sale what
// getset_test.go shows on the lock: each of its two-step moves has a window
// where another client acts. gapStats counts what they did in this process.
var gapStats struct{ held, overwrites, refused, freedOthers atomic.Int64 }

// GapStats is what the two held-open moves (release, takeover) did in this
// process so far.
type GapStats struct {
	Held int64 `json:"held"` // gaps held open now
	// Overwrites: takeovers whose GETSET lost (another client's won first)
	// and so wrote their expiry over the winner's.
	Overwrites int64 `json:"overwrites"`
	// RefusedReleases: releases whose GET found another value than their
	// own: the lock was not theirs any more (taken over, or overwritten by
	// a losing GETSET), and stays until that value's expiry.
	RefusedReleases int64 `json:"refused_releases"`
	// FreedOthers: releases whose DEL, after their GET found their own
	// value, deleted another holder's lock (the release gap saw it change
	// hands in between).
	FreedOthers int64 `json:"freed_others"`
}

// GetSetGaps reports GapStats.
func GetSetGaps() GapStats {
	return GapStats{Held: gapStats.held.Load(), Overwrites: gapStats.overwrites.Load(), RefusedReleases: gapStats.refused.Load(),
		FreedOthers: gapStats.freedOthers.Load()}
}

// holdGap waits while key still holds read, if a gap of max was armed,
// polling every 5 ms, at most max or until ctx ends. It reports whether the
// value changed meanwhile.
func holdGap(ctx context.Context, rdb *redis.Client, max time.Duration, key, read string) (changed bool) {
	if max <= 0 {
		return false
	}
	gapStats.held.Add(1)
	defer gapStats.held.Add(-1)
	ctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	for {
		cur, err := rdb.Get(ctx, key).Result()
		if err == redis.Nil || (err == nil && cur != read) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(5 * time.Millisecond):
		}
	}
}
