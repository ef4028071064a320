package faults

import (
	"context"
	"time"

	"github.com/seckill-lab/seckill/internal/eventlog"
)

// Inject runs kind k with validated arguments a and records the fault for
// the timeline (eventlog.Fault): from its injection to its healing. A run
// that answers once the fault is over (restart_redis) heals when it
// returns; a fault with a duration (ms) heals that long after its
// injection (for the faults armed for the next critical section, such as
// pause_holder, the window begins at the arming: the section follows);
// any other heals at once (from == to). A fault that failed to run is not
// recorded. Each fault that ran is also counted (Config.Injected).
func (s *Service) Inject(ctx context.Context, k Kind, a Args) (Result, error) {
	from := time.Now()
	res, err := k.Run(ctx, s, a)
	if err == nil && s.cfg.Injected != nil {
		s.cfg.Injected(string(k.Name))
	}
	if err != nil || s.cfg.Events == nil {
		return res, err
	}
	to := time.Now()
	if d := a.Duration("ms"); d > 0 && from.Add(d).After(to) {
		to = from.Add(d)
	}
	f := eventlog.Fault{Kind: string(k.Name), ReplicaID: s.cfg.ReplicaID, FromAt: from, ToAt: &to}
	for _, p := range []string{"node", "point"} {
		if t := a.Choice(p); t != "" {
			f.Target = t
		}
	}
	if id := a.ID("sale_id"); id != 0 {
		f.SaleID = &id
	}
	s.cfg.Events.Fault(f)
	return res, err
}
