package lockstrategy

import (
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBackendDown means a backend a strategy needs is configured but does not
// answer now (its probe failed, or a call failed at the transport level).
// Not the buyer's fault and usually short: retry.
var ErrBackendDown = errors.New("lockstrategy: backend down")

// The states of a backend.
const (
	StateUp            = "up"
	StateDown          = "down"
	StateNotConfigured = "not configured"
)

// BackendState is what the replica knows of one backend.
type BackendState struct {
	State  string    `json:"state"`
	Since  time.Time `json:"since,omitzero"`  // when it entered this state
	Error  string    `json:"error,omitempty"` // the last failed probe, while down
	Detail string    `json:"detail,omitempty"`
}

// Health holds each configured backend's state, kept current by a probe
// loop (cmd/shop): the clients reconnect by themselves, this says when.
type Health struct {
	mu sync.RWMutex
	m  map[Need]BackendState
}

// NewHealth returns an empty Health: every backend counts as up until Set.
func NewHealth() *Health { return &Health{m: map[Need]BackendState{}} }

// Set records a probe of n and reports whether its state changed.
func (h *Health) Set(n Need, err error, detail string) (changed bool) {
	st := BackendState{State: StateUp, Detail: detail}
	if err != nil {
		st.State, st.Error = StateDown, err.Error()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	old, seen := h.m[n]
	st.Since = old.Since
	if !seen || old.State != st.State {
		st.Since = time.Now().UTC()
	}
	h.m[n] = st
	return !seen || old.State != st.State
}

// get is n's state and whether a probe has recorded one.
func (h *Health) get(n Need) (BackendState, bool) {
	if h == nil {
		return BackendState{}, false
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	st, ok := h.m[n]
	return st, ok
}

// configured says whether b has the backend n (whatever its state).
func (b Backends) configured(n Need) bool {
	switch n {
	case NeedDB:
		return b.DB != nil
	case NeedRedis:
		return b.Redis != nil
	case NeedRedlock:
		return len(b.Redlock) > 0
	case NeedZooKeeper:
		return len(b.ZKServers) > 0
	case NeedEtcd:
		return len(b.Etcd) > 0
	case NeedSentinel:
		return b.Sentinel != nil
	}
	return false
}

// State is what the replica knows of backend n: not configured, or the last
// probe's verdict (up when nothing probes it, as in tests).
func (b Backends) State(n Need) BackendState {
	if !b.configured(n) {
		return BackendState{State: StateNotConfigured}
	}
	if st, ok := b.Health.get(n); ok {
		return st
	}
	return BackendState{State: StateUp}
}

// AllStates is State for every kind of backend.
func (b Backends) AllStates() map[Need]BackendState {
	out := map[Need]BackendState{}
	for _, n := range []Need{NeedDB, NeedRedis, NeedRedlock, NeedZooKeeper, NeedEtcd, NeedSentinel} {
		out[n] = b.State(n)
	}
	return out
}

// IsTransport reports whether err is a failure to reach a backend (refused,
// reset, closed, timed out) or a Redis that answered it cannot serve now
// (unavailableReplies): the backend is down or unreachable, which the
// caller should answer as such, not as an internal error.
func IsTransport(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, net.ErrClosed) || redisUnavailable(err)
}

// unavailableReplies are the Redis error replies of a server that is there
// but cannot serve for a while: restarting with persistence (LOADING), a
// master demoted by a failover that a client still writes to (READONLY),
// a replica without its master (MASTERDOWN), a cluster slot moving
// (TRYAGAIN, CLUSTERDOWN).
var unavailableReplies = []string{"LOADING ", "READONLY ", "MASTERDOWN ", "TRYAGAIN ", "CLUSTERDOWN "}

func redisUnavailable(err error) bool {
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	return slices.ContainsFunc(unavailableReplies, func(p string) bool { return strings.HasPrefix(re.Error(), p) })
}

// downError is the error of a strategy whose backend n is down.
func downError(s Strategy, n Need, st BackendState) error {
	return fmt.Errorf("%w: %s needs %s, down since %s: %s", ErrBackendDown, s.Name, n,
		st.Since.Format(time.RFC3339), st.Error)
}
