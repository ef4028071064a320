package guard

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"golang.org/x/time/rate"

	"github.com/seckill-lab/seckill/internal/inventory"
)

// Rate limiter timings.
const (
	// redisLimitTimeout bounds one cluster-wide check: a Redis that does
	// not answer must not hold buyers; the local limiter answers instead.
	redisLimitTimeout = 250 * time.Millisecond
	// fallbackFor: after a failed Redis check, the local limiters answer
	// for this long before Redis is tried again.
	fallbackFor = time.Second
	// localIdle: a local limiter unused this long is dropped.
	localIdle = time.Minute
)

// Limiter enforces a sale's rate limits per user and per client IP:
// cluster-wide through Redis (GCRA, redis_rate), and, while Redis does not
// answer, per replica (a token bucket each, x/time/rate): each replica then
// lets the full rate through, so the cluster lets up to replicas times it.
type Limiter struct {
	redis     *redis_rate.Limiter // nil: local only
	prefix    string
	downUntil atomic.Int64 // unix nanos: use the local limiters until then
	fallbacks atomic.Int64 // checks the local limiters answered
	mu        sync.Mutex
	local     map[string]*localLimit
	swept     time.Time
}

type localLimit struct {
	lim  *rate.Limiter
	used time.Time
}

// NewLimiter returns a limiter over rdb (nil: local limiters only). Keys
// start with keyspace, so that databases sharing one Redis do not share
// their sales' limits.
func NewLimiter(rdb *redis.Client, keyspace string) *Limiter {
	l := &Limiter{prefix: "seckill:" + keyspace + ":rate:", local: map[string]*localLimit{}}
	if rdb != nil {
		l.redis = redis_rate.NewLimiter(rdb)
	}
	return l
}

// Fallbacks is how many checks the local limiters answered because Redis
// did not.
func (l *Limiter) Fallbacks() int64 {
	if l == nil {
		return 0
	}
	return l.fallbacks.Load()
}

// Check applies sale's limits to one request of userID from clientIP:
// nil, or a *RateLimitedError.
func (l *Limiter) Check(ctx context.Context, sale inventory.Sale, userID, clientIP string) error {
	if l == nil {
		return nil
	}
	if sale.RateLimitUser > 0 {
		if err := l.allow(ctx, fmt.Sprintf("%d:u:%s", sale.ID, userID), sale.RateLimitUser, "user"); err != nil {
			return err
		}
	}
	if sale.RateLimitIP > 0 && clientIP != "" {
		return l.allow(ctx, fmt.Sprintf("%d:ip:%s", sale.ID, clientIP), sale.RateLimitIP, "ip")
	}
	return nil
}

// CheckClient applies a shop-wide limit of perSecond requests per client IP
// (0: none) to one request of the routes scope names: nil, or a
// *RateLimitedError (limit "ip"). Each scope has budgets of its own, apart
// from the sales' limits.
func (l *Limiter) CheckClient(ctx context.Context, scope string, perSecond int, clientIP string) error {
	if l == nil || perSecond <= 0 {
		return nil
	}
	return l.allow(ctx, scope+":ip:"+clientIP, perSecond, "ip")
}

func (l *Limiter) allow(ctx context.Context, key string, perSecond int, kind string) error {
	if l.redis != nil && time.Now().UnixNano() >= l.downUntil.Load() {
		rctx, cancel := context.WithTimeout(ctx, redisLimitTimeout)
		res, err := l.redis.Allow(rctx, l.prefix+key, redis_rate.PerSecond(perSecond))
		cancel()
		if err == nil {
			if res.Allowed > 0 {
				return nil
			}
			return &RateLimitedError{Limit: kind, RetryAfter: res.RetryAfter}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		l.downUntil.Store(time.Now().Add(fallbackFor).UnixNano())
	}
	l.fallbacks.Add(1)
	r := l.localFor(key, perSecond).Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel() // refused: the token is not taken
		return &RateLimitedError{Limit: kind, RetryAfter: d}
	}
	return nil
}

// localFor returns key's local token bucket (rate and burst perSecond).
func (l *Limiter) localFor(key string, perSecond int) *rate.Limiter {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > localIdle {
		for k, v := range l.local {
			if now.Sub(v.used) > localIdle {
				delete(l.local, k)
			}
		}
		l.swept = now
	}
	e := l.local[key]
	if e == nil || e.lim.Burst() != perSecond {
		e = &localLimit{lim: rate.NewLimiter(rate.Limit(perSecond), perSecond)}
		l.local[key] = e
	}
	e.used = now
	return e.lim
}
