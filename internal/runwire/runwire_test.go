package runwire

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// keys returns the JSON member names v encodes to, sorted.
func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// The member names are the contract between the shop and older or newer
// agents; the share's address stays in the URL path, out of the body.
func TestWireNames(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want []string
	}{
		{Assignment{}, []string{"buyers", "concurrency", "deadline", "rate", "run_id", "sale_id", "share", "step",
			"strategy", "targets", "user_prefix"}},
		{Report{RunID: 1, Step: 2, Share: 3}, []string{"agent_id", "done", "elapsed_ms", "errors", "histogram",
			"orders", "requests", "sold_out"}},
		{Ack{Deadline: time.Unix(0, 0)}, []string{"deadline"}},
		// Optional members, present only when set, so that older peers see
		// the same documents as before.
		{Assignment{OpensAt: time.Unix(1, 0)}, []string{"buyers", "concurrency", "deadline", "opens_at", "rate", "run_id",
			"sale_id", "share", "step", "strategy", "targets", "user_prefix"}},
		{Report{Layers: map[string]int64{"database": 1}}, []string{"agent_id", "done", "elapsed_ms", "errors", "histogram",
			"layers", "orders", "requests", "sold_out"}},
	} {
		if got := keys(t, tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("%T encodes %v, want %v", tc.v, got, tc.want)
		}
	}
}
