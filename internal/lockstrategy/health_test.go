package lockstrategy

import (
	"errors"
	"fmt"
	"testing"
)

// redisReply is a Redis error reply as go-redis returns it (redis.Error).
type redisReply string

func (e redisReply) Error() string { return string(e) }
func (redisReply) RedisError()     {}

// A Redis that answers it cannot serve now is a backend down (503
// backend_down, retry), as one that does not answer: the chaos run's
// restart of a Redis with persistence answered LOADING, and the orders of
// that second were 500s. A reply that is the caller's own fault is not.
func TestIsTransportRedisUnavailable(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{redisReply("LOADING Redis is loading the dataset in memory"), true},
		{fmt.Errorf("acquire: %w", redisReply("READONLY You can't write against a read only replica.")), true},
		{redisReply("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."), true},
		{redisReply("TRYAGAIN Multiple keys request during rehashing of slot"), true},
		{redisReply("NOSCRIPT No matching script. Please use EVAL."), false},
		{redisReply("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{errors.New("LOADING but not a Redis reply"), false},
		{nil, false},
	} {
		if got := IsTransport(c.err); got != c.want {
			t.Errorf("IsTransport(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
