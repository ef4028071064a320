package matrix

import "github.com/seckill-lab/seckill/internal/lockstrategy"

// Row is one strategy configuration of the matrix.
type Row struct {
	// Name is the strategy's with its switches, as the chaos run names its
	// configurations: "redis+fencing", "redis+no-watchdog",
	// "redis+fencing+combine", "redis-lua-stock/async".
	Name     string                `json:"name"`
	Strategy lockstrategy.Strategy `json:"-"`
	// Fencing: the sale refuses writes with a stale token (a strategy with
	// tokens only).
	Fencing bool `json:"fencing"`
	// NoWatchdog: the lease does not renew itself (a strategy that renews
	// only).
	NoWatchdog bool `json:"no_watchdog"`
	// Combine: the replica's buyers are sold in batches under one lock (a
	// strategy that takes a lock).
	Combine bool `json:"combine"`
	// Async: orders are taken in Redis and queued; a consumer makes them
	// later (a strategy whose stock is in the default Redis).
	Async bool `json:"async"`
}

// Rows are the configurations of every strategy in all, in all's order:
// each strategy as it is by default; fenced where it has tokens; without
// its watchdog where it renews; combined (fenced where it has tokens)
// where it is a safe lock; queued where its stock is in Redis.
func Rows(all []lockstrategy.Strategy) []Row {
	var rows []Row
	for _, s := range all {
		rows = append(rows, Row{Name: s.Name, Strategy: s})
		if s.Tokens {
			rows = append(rows, Row{Name: s.Name + "+fencing", Strategy: s, Fencing: true})
		}
		if s.Renews {
			rows = append(rows, Row{Name: s.Name + "+no-watchdog", Strategy: s, NoWatchdog: true})
		}
		if s.Kind() == lockstrategy.KindLock && s.Safe {
			r := Row{Name: s.Name + "+combine", Strategy: s, Combine: true}
			if s.Tokens {
				r.Name, r.Fencing = s.Name+"+fencing+combine", true
			}
			rows = append(rows, r)
		}
		if s.Queues {
			rows = append(rows, Row{Name: s.Name + "/async", Strategy: s, Async: true})
		}
	}
	return rows
}

// needs says whether the row's strategy uses backend n.
func (r Row) needs(n lockstrategy.Need) bool {
	for _, have := range r.Strategy.Needs {
		if have == n {
			return true
		}
	}
	return false
}

// renewing says the lease renews itself in this configuration.
func (r Row) renewing() bool { return r.Strategy.Renews && !r.NoWatchdog }

// fenced says a stale holder's write is refused in this configuration.
func (r Row) fenced() bool { return r.Strategy.Tokens && r.Fencing }

// IsLock says the configuration takes a lock around its section.
func (r Row) IsLock() bool { return r.Strategy.Kind() == lockstrategy.KindLock }
