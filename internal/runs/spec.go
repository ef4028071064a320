package runs

import (
	"errors"

	"github.com/seckill-lab/seckill/internal/inventory"
	"github.com/seckill-lab/seckill/internal/sale"
)

// Bounds and defaults of a run. GET /api/limits publishes them.
const (
	MaxBuyers          = 1_000_000
	MaxConcurrency     = 10_000
	MaxRate            = 1_000_000 // requests/s
	MaxReplicas        = 1000
	DefaultConcurrency = 50
	// AllStrategies as the strategy runs one step per strategy the replica
	// can run.
	AllStrategies = "all"
)

// ErrNoAgents means no load-test agent is alive to take a run's shares.
var ErrNoAgents = errors.New("runs: no load-test agent alive")

// Spec is what a new run asks for: the members of its steps' sales (but
// the name: a run names its sales itself) and the load. Pointers tell an
// absent member from a zero one.
type Spec struct {
	Sale        sale.Spec
	Buyers      *int64
	Concurrency *int64
	Rate        *float64
	Replicas    *int64
}

// SaleValidator checks a step's sale exactly as POST /api/sales does, and
// lists the strategies AllStrategies stands for: the sale service.
type SaleValidator interface {
	Validate(spec sale.Spec) (inventory.Sale, error)
	Available() []string
}

// Validate checks spec and resolves AllStrategies into the strategies sales
// can run. Each step's sale goes through sales' own validation, so a run
// fails here rather than at its third step. The error is a
// *sale.FieldError naming the first wrong member.
func Validate(spec Spec, sales SaleValidator) (Config, error) {
	cfg, err := steps(spec.Sale, sales)
	if err != nil {
		return cfg, err
	}
	if spec.Buyers == nil {
		return cfg, sale.FieldErrorf("buyers", "buyers is required (1..%d)", MaxBuyers)
	}
	if *spec.Buyers < 1 || *spec.Buyers > MaxBuyers {
		return cfg, sale.FieldErrorf("buyers", "buyers must be between 1 and %d", MaxBuyers)
	}
	cfg.Buyers = int(*spec.Buyers)
	switch {
	case spec.Rate != nil && spec.Concurrency != nil:
		return cfg, sale.FieldErrorf("rate", "give concurrency (closed model) or rate (open model), not both")
	case spec.Rate != nil:
		if !(*spec.Rate > 0 && *spec.Rate <= MaxRate) {
			return cfg, sale.FieldErrorf("rate", "rate must be above 0 and at most %d requests/s", MaxRate)
		}
		cfg.Rate = *spec.Rate
	default:
		if cfg.Concurrency, err = sale.IntIn("concurrency", spec.Concurrency, DefaultConcurrency, 1, MaxConcurrency); err != nil {
			return cfg, err
		}
	}
	cfg.Replicas, err = sale.IntIn("replicas", spec.Replicas, 0, 0, MaxReplicas)
	return cfg, err
}

// steps resolves the strategy member into the run's steps and validates
// the sale of each.
func steps(spec sale.Spec, sales SaleValidator) (Config, error) {
	var cfg Config
	if spec.Strategy == nil || *spec.Strategy == "" {
		return cfg, sale.FieldErrorf("strategy", "strategy is required: a name or %q", AllStrategies)
	}
	cfg.Strategy = *spec.Strategy
	cfg.Strategies = []string{cfg.Strategy}
	if cfg.Strategy == AllStrategies {
		cfg.Strategies = sales.Available()
	}
	cfg.Watchdog = spec.Watchdog == nil || *spec.Watchdog
	for _, name := range cfg.Strategies {
		step := spec
		step.Strategy = &name
		if cfg.Strategy == AllStrategies {
			// Named, a strategy without a watchdog refuses watchdog:false;
			// among "all" it is simply left as it is.
			step.Watchdog = sale.LenientWatchdog(name, cfg.Watchdog)
			if spec.OrderMode != nil {
				step.OrderMode = sale.LenientOrderMode(name, *spec.OrderMode)
			}
			if spec.Combine != nil {
				mode := ""
				if step.OrderMode != nil {
					mode = *step.OrderMode
				}
				if step.Combine = sale.LenientCombine(name, mode, *spec.Combine); step.Combine == nil {
					step.CombineMaxBatch, step.CombineMaxWaitUS = nil, nil
				}
			}
			if spec.StockShards != nil {
				step.StockShards = sale.LenientStockShards(name, step.OrderMode, *spec.StockShards)
			}
		}
		valid, err := sales.Validate(step)
		if err != nil {
			return cfg, err
		}
		cfg.Stock, cfg.WorkMS, cfg.TTLMS = valid.InitialStock, valid.WorkMS, valid.TTLMS
		cfg.Fencing, cfg.PerUserLimit = valid.Fencing, valid.PerUserLimit
		cfg.SoldOutCache, cfg.RateLimitUser, cfg.RateLimitIP = valid.SoldOutCache, valid.RateLimitUser, valid.RateLimitIP
		cfg.TicketRequired, cfg.PayWithinMS = valid.TicketRequired, valid.PayWithinMS
		if valid.OrderMode == inventory.OrderAsync {
			cfg.OrderMode = inventory.OrderAsync
		}
		if valid.Combine {
			cfg.Combine, cfg.CombineMaxBatch, cfg.CombineMaxWaitUS = true, valid.CombineMaxBatch, valid.CombineMaxWaitUS
		}
		cfg.StockShards = max(cfg.StockShards, valid.StockShards)
	}
	if spec.OpensInMS != nil {
		cfg.OpensInMS = int(*spec.OpensInMS) // in range: the sale's validation checked it
	}
	return cfg, nil
}

// Targets picks the shop replicas a run of cfg drives among the live ones
// (listed by id, so every replica picks the same), or says why it cannot
// start: no agent alive, or fewer replicas alive than it asks for.
func Targets(cfg Config, agents, shops []string) ([]string, error) {
	if len(agents) == 0 {
		return nil, ErrNoAgents
	}
	if cfg.Replicas > len(shops) {
		return nil, sale.FieldErrorf("replicas", "replicas is %d but only %d shop replicas are alive", cfg.Replicas, len(shops))
	}
	if cfg.Replicas > 0 {
		shops = shops[:cfg.Replicas]
	}
	return shops, nil
}
