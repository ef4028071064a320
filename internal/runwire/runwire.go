// Package runwire is the wire format between the shop's runs API and the
// load-test agents that execute a run's shares: the share an agent claimed,
// its report, and the answer to a report. Only the standard library, so that
// both sides import the one definition.
package runwire

import "time"

// Assignment is a claimed share: what one agent must do (the answer of
// POST /api/agents/claim).
type Assignment struct {
	RunID       uint64    `json:"run_id"`
	Step        int       `json:"step"`
	Share       int       `json:"share"`
	Strategy    string    `json:"strategy"`
	SaleID      uint64    `json:"sale_id"`
	Targets     []string  `json:"targets"` // base URLs of the shop replicas to send orders to
	Buyers      int       `json:"buyers"`
	UserPrefix  string    `json:"user_prefix"`
	Concurrency int       `json:"concurrency"` // closed model workers; 0 in the open model
	Rate        float64   `json:"rate"`        // open model requests/s of this share
	Deadline    time.Time `json:"deadline"`
	// OpensAt, when set, is the sale's opening: the agent connects before it
	// and its buyers wait for it. Absent from shops that do not send it.
	OpensAt time.Time `json:"opens_at,omitzero"`
	// TicketRequired: each buyer asks for a purchase ticket before its
	// order. Absent from shops that do not send it.
	TicketRequired bool `json:"ticket_required,omitempty"`
}

// Report is an agent's cumulative figures for its share, sent every second
// and once more with Done at the end (the body of POST
// /api/runs/:id/steps/:step/shares/:share/report). It carries the raw
// histogram, never percentiles: the shop merges histograms.
type Report struct {
	// RunID, Step and Share name the share; they travel in the URL path,
	// not in the body.
	RunID uint64 `json:"-"`
	Step  int    `json:"-"`
	Share int    `json:"-"`

	AgentID  string `json:"agent_id"`
	Requests int64  `json:"requests"`
	Orders   int64  `json:"orders"` // 201s, and the 202s of an async sale
	// Accepted are the 202s among Orders (an async sale: units taken, orders
	// queued). Absent from older agents.
	Accepted  int64            `json:"accepted,omitempty"`
	SoldOut   int64            `json:"sold_out"`
	Errors    map[string]int64 `json:"errors"`     // by kind: refusals and hard errors
	ElapsedMS int64            `json:"elapsed_ms"` // first send to now (or to the last answer when done)
	Histogram string           `json:"histogram"`  // hdrhistogram V2 compressed, base64, microseconds
	// Layers counts the answers by the shop layer that gave them (the
	// Seckill-Layer header; "unknown" without one). Absent from older agents.
	Layers map[string]int64 `json:"layers,omitempty"`
	Done   bool             `json:"done"`
}

// Ack answers a report: the step's deadline as it stands after the report,
// which the agent keeps as its own (progress pushes it on).
type Ack struct {
	Deadline time.Time `json:"deadline"`
}
