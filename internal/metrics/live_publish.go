package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gorm.io/gorm"

	"github.com/seckill-lab/seckill/internal/salestats"
)

// PublishInterval is how often Run publishes: the live view is at most
// about one second old.
const PublishInterval = time.Second

// finalPublishTimeout bounds the publish made after Run's ctx has ended.
const finalPublishTimeout = 5 * time.Second

// payloadVersion tags the payload format, so that a reader can refuse a
// row written by a newer build instead of misreading it.
const payloadVersion = 1

// livePayload is one replica's cumulative figures for one sale, as stored
// in sale_stats.payload (JSON). Histograms are raw HDR counts in
// hdrhistogram-go's V2 compressed encoding (base64 text), so readers can
// merge them exactly.
type livePayload struct {
	Version  int              `json:"v"`
	Strategy string           `json:"strategy"`
	Requests int64            `json:"requests"`
	Outcomes map[string]int64 `json:"outcomes"`
	Layers   map[string]int64 `json:"layers,omitempty"` // absent in payloads written before layers were counted
	First    *firstPayload    `json:"first,omitempty"`  // the sale's first second; absent when nothing arrived in it
	Retries  int64            `json:"retries"`
	Quorum   quorumRounds     `json:"quorum_rounds"` // zero in payloads written before they were counted
	Fairness Fairness         `json:"fairness"`
	Latency  string           `json:"latency_us"`
	LockWait string           `json:"lock_wait_us"`
	Critical string           `json:"critical_us"`
}

// liveHists are the decoded histograms of a payload.
type liveHists struct{ latency, lockWait, critical *hdrhistogram.Histogram }

// Run publishes every PublishInterval until ctx ends, then once more with a
// fresh bounded ctx (a graceful stop keeps the last second), and returns
// that last publish's error. Failures in between are logged and retried at
// the next tick: the figures are cumulative, so a missed tick loses nothing.
func (r *LiveRecorder) Run(ctx context.Context, db *gorm.DB, replicaID string) error {
	t := time.NewTicker(PublishInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalPublishTimeout)
			defer cancel()
			return r.Publish(fctx, db, replicaID)
		case <-t.C:
			if err := r.Publish(ctx, db, replicaID); err != nil && ctx.Err() == nil {
				r.log.Warn("live metrics: publish failed; retrying next tick", "err", err)
			}
		}
	}
}

// Publish upserts this replica's row for every sale observed since the last
// publish, and drops sales idle for a minute from memory. The first time it
// publishes a sale it merges in the row this replica id already has, so a
// restarted replica (or a sale dropped when idle and then busy again)
// continues its cumulative figures instead of overwriting them with less.
func (r *LiveRecorder) Publish(ctx context.Context, db *gorm.DB, replicaID string) error {
	r.pubMu.Lock()
	defer r.pubMu.Unlock()
	var errs []error
	for id, st := range r.snapshot() {
		if err := r.publishSale(ctx, db, replicaID, id, st); err != nil {
			errs = append(errs, fmt.Errorf("metrics: publish sale %d: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

func (r *LiveRecorder) publishSale(ctx context.Context, db *gorm.DB, replicaID string, id uint64, st *saleState) error {
	st.mu.Lock()
	if !st.dirty {
		r.evictIfIdle(id, st, r.now())
		st.mu.Unlock()
		return nil
	}
	needSeed := !st.seeded
	st.mu.Unlock()

	var base *livePayload
	if needSeed { // no upsert before this succeeds: it would overwrite history
		var err error
		if base, err = loadOwn(ctx, db, id, replicaID); err != nil {
			return err
		}
	}

	st.mu.Lock()
	if needSeed {
		if base != nil {
			if err := st.merge(base); err != nil {
				st.mu.Unlock()
				return err
			}
		}
		st.seeded = true
	}
	window := st.window
	st.window = nil
	st.mu.Unlock()

	f := fairnessOf(window) // sorting outside the lock keeps the order path fast

	st.mu.Lock()
	st.fair = st.fair.Add(f)
	p := livePayload{Version: payloadVersion, Strategy: st.strategy, Requests: st.requests,
		Outcomes: make(map[string]int64, len(st.outcomes)), Retries: st.retries, Quorum: st.rounds, Fairness: st.fair}
	for k, v := range st.outcomes {
		p.Outcomes[k] = v
	}
	p.Layers = make(map[string]int64, len(st.layers))
	for k, v := range st.layers {
		p.Layers[k] = v
	}
	first, err := st.first.payload()
	if err != nil {
		st.mu.Unlock()
		return err
	}
	p.First = first
	// Export copies the counts (a memcpy); compression happens unlocked.
	lat, lw, cs := st.latency.Export(), st.lockWait.Export(), st.critical.Export()
	st.dirty = false
	st.mu.Unlock()
	if r.prom != nil {
		r.prom.AddFairness(p.Strategy, f)
	}

	body, err := encodePayload(p, liveHists{hdrhistogram.Import(lat), hdrhistogram.Import(lw), hdrhistogram.Import(cs)})
	if err == nil {
		err = salestats.Upsert(ctx, db, id, replicaID, body)
	}
	if err != nil {
		st.mu.Lock()
		st.dirty = true // try again next tick
		st.mu.Unlock()
	}
	return err
}

// merge adds an earlier payload of this replica into st; st.mu is held.
func (st *saleState) merge(p *livePayload) error {
	h, err := decodeHists(p)
	if err != nil {
		return err
	}
	st.latency.Merge(h.latency)
	st.lockWait.Merge(h.lockWait)
	st.critical.Merge(h.critical)
	st.requests += p.Requests
	for k, v := range p.Outcomes {
		st.outcomes[k] += v
	}
	for k, v := range p.Layers {
		st.layers[k] += v
	}
	if err := st.first.add(p.First); err != nil {
		return err
	}
	st.retries += p.Retries
	st.rounds = st.rounds.add(p.Quorum)
	st.fair = st.fair.Add(p.Fairness)
	return nil
}

// loadOwn reads this replica's existing row for the sale; nil when none.
func loadOwn(ctx context.Context, db *gorm.DB, saleID uint64, replicaID string) (*livePayload, error) {
	body, err := salestats.Own(ctx, db, saleID, replicaID)
	if err != nil || body == nil {
		return nil, err
	}
	p, err := decodePayload(body)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// encodePayload renders p with h's histograms as sale_stats.payload.
func encodePayload(p livePayload, h liveHists) ([]byte, error) {
	var err error
	for _, x := range []struct {
		dst *string
		h   *hdrhistogram.Histogram
	}{{&p.Latency, h.latency}, {&p.LockWait, h.lockWait}, {&p.Critical, h.critical}} {
		var b []byte
		if b, err = x.h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err != nil {
			return nil, fmt.Errorf("metrics: encode histogram: %w", err)
		}
		*x.dst = string(b)
	}
	return json.Marshal(p)
}

// ErrBadPayload reports a sale_stats row this build cannot read.
var ErrBadPayload = errors.New("metrics: unreadable sale_stats payload")

// decodePayload parses sale_stats.payload (histograms stay encoded).
func decodePayload(b []byte) (livePayload, error) {
	var p livePayload
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%w: %w", ErrBadPayload, err)
	}
	if p.Version != payloadVersion {
		return p, fmt.Errorf("%w: version %d, want %d", ErrBadPayload, p.Version, payloadVersion)
	}
	return p, nil
}

// decodeHists decodes p's histograms.
func decodeHists(p *livePayload) (liveHists, error) {
	var h liveHists
	for _, x := range []struct {
		dst **hdrhistogram.Histogram
		src string
	}{{&h.latency, p.Latency}, {&h.lockWait, p.LockWait}, {&h.critical, p.Critical}} {
		d, err := hdrhistogram.Decode([]byte(x.src))
		if err != nil {
			return h, fmt.Errorf("%w: histogram: %w", ErrBadPayload, err)
		}
		*x.dst = d
	}
	return h, nil
}
