package lockstrategy

import (
	"errors"
	"io"
	"sync"
)

// Instances builds each strategy once per process and Options, over one set of
// backends, so that every sale of a strategy shares its connections (and, for
// mutex, its in-process lock table).
type Instances struct {
	backends Backends
	mu       sync.Mutex
	built    map[instanceKey]Locker
}

type instanceKey struct {
	name string
	opts Options
}

// NewInstances returns an empty cache over b.
func NewInstances(b Backends) *Instances {
	if b.Crash == nil {
		b.Crash = &CrashHook{} // one crash point per replica's strategies, armed by its faults service
	}
	return &Instances{backends: b, built: map[instanceKey]Locker{}}
}

// Backends returns the backends the instances are built over.
func (in *Instances) Backends() Backends { return in.backends }

// Get returns the strategy name built with o, building it on first use.
func (in *Instances) Get(name string, o Options) (Locker, error) {
	s, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if s.Expiry != ExpiryTTL {
		o = Options{} // TTL means nothing to it: share one instance (one ZooKeeper session)
	}
	if !s.Renews {
		o.NoRenewal = false // no watchdog to turn off: not a different instance
	}
	k := instanceKey{name, o}
	in.mu.Lock()
	defer in.mu.Unlock()
	if l, ok := in.built[k]; ok {
		return l, nil
	}
	if err := s.Configured(in.backends); err != nil {
		return nil, err
	}
	l, err := s.New(in.backends, o)
	if err != nil {
		return nil, err
	}
	in.built[k] = l
	return l, nil
}

// Close closes every built strategy that holds resources (io.Closer).
func (in *Instances) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	var errs []error
	for k, l := range in.built {
		if c, ok := l.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		delete(in.built, k)
	}
	return errors.Join(errs...)
}
