package metrics

import "github.com/prometheus/client_golang/prometheus"

// newFaultsInjected counts the faults this replica injected, by kind: the
// board draws each increase as an annotation over the graphs it disturbed.
func newFaultsInjected() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "seckill_faults_injected_total",
		Help: "Faults this replica injected (POST /api/faults, the chaos run, the lessons), by kind.",
	}, []string{"kind"})
}

// ObserveFault counts one fault of kind injected (faults.Config.Injected).
// Kinds come from the fault table only, so the label stays bounded.
func (m *Metrics) ObserveFault(kind string) { m.faults.WithLabelValues(kind).Inc() }

// FaultKinds starts every kind's count at 0. A counter that first appears
// at 1 shows no increase (Prometheus has no earlier sample to compare), so
// the board's annotation would miss each kind's first fault.
func (m *Metrics) FaultKinds(kinds []string) {
	for _, k := range kinds {
		m.faults.WithLabelValues(k)
	}
}
