package lockstrategy

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/faultpoint"
	"github.com/seckill-lab/seckill/internal/hashring"
)

// Need names a backend a strategy depends on.
type Need string

// The backends a strategy may need.
const (
	NeedDB        Need = "db"
	NeedRedis     Need = "redis"
	NeedRedlock   Need = "redlock"
	NeedZooKeeper Need = "zookeeper"
	NeedEtcd      Need = "etcd"
	NeedSentinel  Need = "sentinel"
)

// Backends holds the shared connections strategies are built from. Fields a
// strategy does not need may be nil.
type Backends struct {
	DB *gorm.DB
	// Redis is the single Redis of the redis strategies (SECKILL_REDIS_ADDR).
	Redis *redis.Client
	// Redlock holds one client per independent master (SECKILL_REDLOCK_ADDRS).
	Redlock []*redis.Client
	// ZKServers lists the ZooKeeper ensemble (SECKILL_ZK_SERVERS); the
	// zookeeper strategy opens its own session over it.
	ZKServers []string
	// ZKSessionTimeout is the ZooKeeper session timeout; 0 means 4s.
	ZKSessionTimeout time.Duration
	// Etcd lists the etcd endpoints (SECKILL_ETCD_ENDPOINTS); the etcd
	// strategy opens its own client and lease over them.
	Etcd []string
	// Sentinel is a go-redis failover client of the replicated Redis that
	// Sentinels watch (SECKILL_SENTINEL_ADDRS, SECKILL_SENTINEL_MASTER): it
	// follows the master through a failover.
	Sentinel *redis.Client
	// Health, when set, says which configured backends answer now (a probe
	// loop keeps it current); a strategy whose backend is down is
	// unavailable until it answers again. Nil: configured means up.
	Health *Health
	// Ring is this replica's view of the consistent-hash ring (the
	// consistent-hash strategy); nil: a ring of this process alone.
	Ring *hashring.Membership
	// Faults are the replica's fault points, which the strategies call
	// where a fault can strike them (a crash right after the acquire, the
	// clock, redis-getset's gaps); nil in production.
	Faults faultpoint.Hooks
}

// Options are the per-sale settings a strategy is built with.
type Options struct {
	// TTL is how long the lock outlives a holder that stops renewing it
	// (redis, redlock, db-lock-table); 0 means the strategy's default.
	TTL time.Duration
	// NoRenewal turns off the watchdog renewal (redis, redlock): the lease
	// then expires after TTL even while held, which is the pitfall of a TTL
	// shorter than the work. Strategies without renewal ignore it.
	NoRenewal bool
	// NoQueue turns off redlock's defences against a herd (the per-process
	// queue in front of the masters and the backoff after a round whose
	// votes split): every contender then polls the masters itself, 5-20 ms
	// apart, as redsync does, which livelocks under a herd (the lesson
	// redlock-herd). Other strategies ignore it.
	NoQueue bool
	// StockShards is the sale's stock_shards: the keys a strategy that
	// splits the stock in its own store keeps it in (redis-lua-stock).
	StockShards int
}

// Expiry says what frees the lock of a holder that died without unlocking.
type Expiry string

// The ways a dead holder's lock is freed.
const (
	ExpiryNone       Expiry = "none"       // nothing to free: the lock does not exclude (none, lock-free)
	ExpiryProcess    Expiry = "process"    // the lock lives in the holder's process (mutex)
	ExpiryTTL        Expiry = "ttl"        // after Options.TTL (redis, redlock, db-lock-table)
	ExpirySession    Expiry = "session"    // at ZooKeeper session expiry
	ExpiryConnection Expiry = "connection" // when the database sees the connection close (db-pessimistic)
	ExpiryNever      Expiry = "never"      // a broken lock that stays held forever (redis-setnx-expire after a crash)
)

// Strategy describes one registered strategy.
type Strategy struct {
	Name        string // registry name: what sales, runs and the API call it; never renamed
	Description string // one line for the API and dashboard
	Needs       []Need
	// Safe says whether the strategy is meant to hold the invariants on many
	// replicas; the tests assert that the unsafe ones do break them.
	Safe bool
	// Tokens says Lease.Token is a fencing token that grows with every
	// acquisition of a key.
	Tokens bool
	// Expiry says what frees a dead holder's lock.
	Expiry Expiry
	// Renews says a held lease renews itself (a watchdog), so that
	// Options.NoRenewal means something to it: redis and redlock. The
	// others have nothing to turn off (ZooKeeper's session heart-beats on
	// its own; db-lock-table and the teaching variants never renew).
	Renews bool
	// GoesOnWhenLost is the holder's policy for a lease lost under it
	// (Lost closed: a renewal failed): true is seed 002's aggressive
	// policy, the order flow's check before the write sees the loss and
	// writes anyway, recording that it went on (LeaseWentOn); false, the
	// conservative one, stops the work (ErrLockLost). The lease signals
	// the loss either way: the policy is the holder's, not the lock's.
	GoesOnWhenLost bool
	// Reentrant says a holder may take the lock it holds again (the ctx
	// names the holder: WithHolder) and frees it on its last Unlock.
	Reentrant bool
	// Queues says the strategy's stock lives in the default Redis, so that
	// one script can take the unit and queue the order (order_mode async).
	Queues bool
	// SplitsStock says the strategy can sell a sale's stock from
	// stock_shards > 1 shards at once (库存分段): db-conditional's rows,
	// redis-lua-stock's keys. The others read the one stock they write.
	SplitsStock bool
	// Normalize keeps of o what makes a difference to this strategy and
	// zeroes the rest (NoOptions, TTLOnly), so that sales that differ only
	// in options it ignores share one instance: one ZooKeeper session, one
	// mutex table. Nil keeps every option (a TTL and a watchdog to turn off).
	Normalize func(o Options) Options
	// Exactly one of these builds the strategy over b with o, and says its
	// Kind: a lock, a safe write without a lock, or a stock of its own.
	// Instances calls it once per process and normalised Options.
	NewLocker   func(b Backends, o Options) (Locker, error)
	NewLockFree func(b Backends, o Options) (LockFree, error)
	NewReserver func(b Backends, o Options) (Reserver, error)
}

// Kind is the kind the strategy builds (which New* it sets).
func (s Strategy) Kind() Kind {
	switch {
	case s.NewLocker != nil:
		return KindLock
	case s.NewLockFree != nil:
		return KindLockFree
	}
	return KindReserve
}

// build builds the strategy over b with o.
func (s Strategy) build(b Backends, o Options) (Instance, error) {
	var i Instance
	var err error
	switch s.Kind() {
	case KindLock:
		i.Locker, err = s.NewLocker(b, o)
	case KindLockFree:
		i.LockFree, err = s.NewLockFree(b, o)
	default:
		i.Reserver, err = s.NewReserver(b, o)
	}
	if err == nil && i.impl() == nil {
		err = fmt.Errorf("lockstrategy: %s built nothing", s.Name)
	}
	return i, err
}

// NoOptions is the Normalize of a strategy that uses no option: no TTL, no
// watchdog (mutex, ZooKeeper's session, a row lock, no lock at all).
func NoOptions(Options) Options { return Options{} }

// TTLOnly is the Normalize of a strategy with a TTL and no watchdog to turn
// off: NoRenewal changes nothing about it.
func TTLOnly(o Options) Options { return Options{TTL: o.TTL} }

// Normalized is o as s sees it (Normalize): what Instances keys its cache on.
func (s Strategy) Normalized(o Options) Options {
	if s.Normalize == nil {
		return o
	}
	return s.Normalize(o)
}

var (
	mu       sync.RWMutex
	registry = map[string]Strategy{}
)

// Register makes a strategy available by name. It panics on a duplicate or
// empty name, as database/sql.Register does: both are programming errors.
func Register(s Strategy) {
	mu.Lock()
	defer mu.Unlock()
	builders := 0
	for _, set := range []bool{s.NewLocker != nil, s.NewLockFree != nil, s.NewReserver != nil} {
		if set {
			builders++
		}
	}
	if s.Name == "" || builders != 1 {
		panic("lockstrategy: Register needs a name and exactly one of NewLocker, NewLockFree, NewReserver")
	}
	if _, dup := registry[s.Name]; dup {
		panic("lockstrategy: Register called twice for " + s.Name)
	}
	registry[s.Name] = s
}

// Names returns the registered names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the strategy registered under name.
func Lookup(name string) (Strategy, error) {
	mu.RLock()
	defer mu.RUnlock()
	s, ok := registry[name]
	if !ok {
		return Strategy{}, fmt.Errorf("%w %q (known: %v)", ErrUnknownStrategy, name, namesLocked())
	}
	return s, nil
}

// All returns every registered strategy, sorted by name.
func All() []Strategy {
	out := []Strategy{}
	for _, n := range Names() {
		s, _ := Lookup(n)
		out = append(out, s)
	}
	return out
}

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Renewing returns the names of the strategies whose lease renews itself,
// sorted: the ones a sale may run without its watchdog.
func Renewing() []string {
	var out []string
	for _, s := range All() {
		if s.Renews {
			out = append(out, s.Name)
		}
	}
	return out
}

// Available reports whether b has every backend s needs, and each answers
// now as far as the last probe knows (ErrMissingBackend, ErrBackendDown):
// what GET /api/strategies shows.
func (s Strategy) Available(b Backends) error {
	if err := s.Configured(b); err != nil {
		return err
	}
	for _, n := range s.Needs {
		if st := b.State(n); st.State == StateDown {
			return downError(s, n, st)
		}
	}
	return nil
}

// Configured reports whether b has every backend s needs, whatever their
// state (ErrMissingBackend). Building and using a strategy only needs that:
// a backend that is down fails the call itself (a transport error, which
// the order flow answers as ErrBackendDown), and works again the moment it
// is back, without waiting for the next probe to say so.
func (s Strategy) Configured(b Backends) error {
	for _, n := range s.Needs {
		if !b.configured(n) {
			return fmt.Errorf("%w: %s needs %s", ErrMissingBackend, s.Name, n)
		}
	}
	return nil
}

// RedisOptions are the options of every Redis client a lock strategy uses
// (the shop's and the tests'). MaxRetries is off: go-redis re-sends a
// command after a read timeout, and a lock's commands are not idempotent (a
// re-sent acquire script queues its waiter twice, a re-sent SETNX finds the
// key it set itself and gives up on it, a re-sent DECR takes two units). A
// failed call surfaces to the strategy, which knows how to clean up.
func RedisOptions(addr string, poolSize int) *redis.Options {
	return &redis.Options{Addr: addr, PoolSize: poolSize, MaxRetries: -1}
}

// RedlockOptions are RedisOptions for one RedLock master, whose commands
// also end at their ctx's deadline: a master that hangs (answers nothing)
// must cost a round its deadline (redlock's pool.go), not the whole hang,
// and go-redis honours a ctx's deadline on the socket only when told to.
// Measured with one master of three frozen for 7 s (redis-single-point):
// without it every acquisition waited for the thaw.
func RedlockOptions(addr string, poolSize int) *redis.Options {
	o := RedisOptions(addr, poolSize)
	o.ContextTimeoutEnabled = true
	return o
}

// SentinelOptions is a go-redis failover client's options over the
// Sentinels at addrs watching master: it asks them for the master and
// follows it through a failover (+switch-master), as RedisOptions would
// one address.
func SentinelOptions(master string, addrs []string, poolSize int) *redis.FailoverOptions {
	return &redis.FailoverOptions{MasterName: master, SentinelAddrs: addrs, PoolSize: poolSize, MaxRetries: -1}
}

// Locking names the strategies that take a lock (KindLock): the ones a
// sale can combine (sell the orders waiting for the lock as a batch).
func Locking() []string {
	var out []string
	for _, s := range All() {
		if s.Kind() == KindLock {
			out = append(out, s.Name)
		}
	}
	return out
}

// Queueing returns the names of the strategies an async sale may use: their
// stock lives in the default Redis, beside the order queue.
func Queueing() []string {
	return namesWhere(func(s Strategy) bool { return s.Queues })
}

// Splitting lists the strategies that can split a sale's stock into
// shards (SplitsStock).
func Splitting() []string {
	return namesWhere(func(s Strategy) bool { return s.SplitsStock })
}

// namesWhere lists the names of the strategies for which keep is true.
func namesWhere(keep func(Strategy) bool) []string {
	var out []string
	for _, s := range All() {
		if keep(s) {
			out = append(out, s.Name)
		}
	}
	return out
}
