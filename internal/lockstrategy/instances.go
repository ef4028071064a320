package lockstrategy

import (
	"errors"
	"fmt"
	"io"
	"sync"
)

// Instances builds each strategy once per process and normalised Options, over one set of
// backends, so that every sale of a strategy shares its connections (and, for
// mutex, its in-process lock table).
type Instances struct {
	backends Backends
	mu       sync.Mutex
	built    map[instanceKey]Instance
}

type instanceKey struct {
	name string
	opts Options
}

// NewInstances returns an empty cache over b.
func NewInstances(b Backends) *Instances {
	return &Instances{backends: b, built: map[instanceKey]Instance{}}
}

// Backends returns the backends the instances are built over.
func (in *Instances) Backends() Backends { return in.backends }

// Get returns the strategy name built with o, building it on first use: a
// Locker, a LockFree or a Reserver, as the strategy's Kind says. Options the strategy ignores
// (Strategy.Normalize) do not build a second instance.
func (in *Instances) Get(name string, o Options) (Instance, error) {
	s, err := Lookup(name)
	if err != nil {
		return Instance{}, err
	}
	k := instanceKey{name, s.Normalized(o)}
	in.mu.Lock()
	defer in.mu.Unlock()
	if l, ok := in.built[k]; ok {
		return l, nil
	}
	if err := s.Configured(in.backends); err != nil {
		return Instance{}, err
	}
	l, err := s.build(in.backends, k.opts)
	if err != nil {
		return Instance{}, err
	}
	in.built[k] = l
	return l, nil
}

// Locker returns the strategy name built with o, which must be a lock
// (ErrNotALock otherwise): for callers that take a lock themselves.
func (in *Instances) Locker(name string, o Options) (Locker, error) {
	inst, err := in.Get(name, o)
	if err != nil {
		return nil, err
	}
	if inst.Locker == nil {
		return nil, fmt.Errorf("%w: %s", ErrNotALock, name)
	}
	return inst.Locker, nil
}

// Close closes every built strategy that holds resources (io.Closer).
func (in *Instances) Close() error {
	in.mu.Lock()
	defer in.mu.Unlock()
	var errs []error
	for k, l := range in.built {
		errs = append(errs, closeInstance(l))
		delete(in.built, k)
	}
	return errors.Join(errs...)
}

// closeInstance closes l if it holds resources (io.Closer).
func closeInstance(l Instance) error {
	if c, ok := As[io.Closer](l); ok {
		return c.Close()
	}
	return nil
}
