package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/faults"
)

// servedKind is a kind as GET /api/faults lists it.
type servedKind struct {
	Kind         string      `json:"kind"`
	Params       []string    `json:"params"`
	Description  string      `json:"description"`
	Title        faults.Text `json:"title"`
	Descriptions faults.Text `json:"descriptions"`
	Parameters   []struct {
		Name      string      `json:"name"`
		Type      string      `json:"type"`
		Required  bool        `json:"required"`
		Min       int64       `json:"min"`
		Max       int64       `json:"max"`
		Suggested int64       `json:"suggested"`
		Choices   []string    `json:"choices"`
		Label     faults.Text `json:"label"`
	} `json:"parameters"`
	Needs *faults.Needs `json:"needs"`
	Arm   *faults.Arm   `json:"arm"`
	Chaos *faults.Chaos `json:"chaos"`
}

// GET /api/faults serves the fault table, in its order, as the Faults page
// builds itself from it: each kind's texts in both languages, its
// parameters with their bounds and this replica's choices, its
// prerequisites (in both languages), the run settings that arm it and
// whether the chaos run draws it.
func TestFaultsServeTheTable(t *testing.T) {
	e, _ := faultsRedisEnv(t, "")
	var got struct {
		Kinds      []servedKind `json:"kinds"`
		ChaosKinds []string     `json:"chaos_kinds"`
	}
	rec := e.get("/api/faults")
	mustJSON(t, rec, &got)
	table := faults.Kinds()
	if rec.Code != http.StatusOK || len(got.Kinds) != len(table) {
		t.Fatalf("GET /api/faults: %d, %d kinds, want %d", rec.Code, len(got.Kinds), len(table))
	}
	for i, k := range got.Kinds {
		want := table[i]
		if k.Kind != string(want.Name) || k.Description != want.Description.En || k.Descriptions != want.Description ||
			k.Title != want.Title || k.Needs == nil || k.Chaos == nil || *k.Chaos != want.Chaos {
			t.Errorf("kind %d: %+v, want %s", i, k, want.Name)
		}
		if k.Needs != nil && !slices.Equal(k.Needs.Settings, want.Needs.Settings) {
			t.Errorf("%s: needs %+v, want %+v", k.Kind, k.Needs.Settings, want.Needs.Settings)
		}
		if k.Arm == nil || !slices.Equal(k.Arm.Strategies, want.Arm.Strategies) || k.Arm.WorkMS != want.Arm.WorkMS ||
			k.Arm.TTLMS != want.Arm.TTLMS || !slices.Equal(k.Arm.Fencing, want.Arm.Fencing) || len(k.Arm.Params) != len(want.Arm.Params) {
			t.Errorf("%s: arm %+v, want %+v", k.Kind, k.Arm, want.Arm)
		}
		if len(k.Params) != len(want.Params) || len(k.Parameters) != len(want.Params) {
			t.Fatalf("%s: params %v, parameters %+v", k.Kind, k.Params, k.Parameters)
		}
		for j, p := range k.Parameters {
			w := want.Params[j]
			if k.Params[j] != w.Name || p.Name != w.Name || p.Type != string(w.Type) || !p.Required ||
				p.Min != w.Min || p.Max != w.Max ||
				p.Suggested != w.Suggested || p.Label.En != w.Label.En || p.Label.Zh != w.Label.Zh {
				t.Errorf("%s: parameter %+v, want %+v", k.Kind, p, w)
			}
		}
	}
	node := got.Kinds[slices.IndexFunc(got.Kinds, func(k servedKind) bool {
		return k.Kind == string(faultkind.RestartRedis)
	})].Parameters[0]
	if !slices.Equal(node.Choices, []string{"redis"}) {
		t.Errorf("restart_redis's nodes here %v, want this replica's [redis]", node.Choices)
	}
	if !slices.Equal(got.ChaosKinds, faults.ChaosKinds()) {
		t.Errorf("chaos_kinds %v, want %v", got.ChaosKinds, faults.ChaosKinds())
	}
}

// POST /api/faults validates every kind by its table entry: each parameter
// missing is refused naming it, and a parameter of another kind is refused
// naming that one, before anything runs.
func TestFaultsValidatedByTheTable(t *testing.T) {
	faultsOn(t)
	e := newEnv(t)
	for _, k := range faults.Kinds() {
		if len(k.Params) == 0 {
			wantError(t, e.post("/api/faults", fmt.Sprintf(`{"kind":%q,"ms":5}`, k.Name)), http.StatusBadRequest, "invalid_field", "ms")
			continue
		}
		given := map[string]any{"kind": k.Name}
		for _, p := range k.Params {
			body, _ := json.Marshal(given)
			wantError(t, e.post("/api/faults", string(body)), http.StatusBadRequest, "invalid_field", p.Name)
			switch p.Type {
			case faults.TypeMillis:
				given[p.Name] = p.Max + 1
				body, _ := json.Marshal(given)
				wantError(t, e.post("/api/faults", string(body)), http.StatusBadRequest, "invalid_field", p.Name)
				given[p.Name] = p.Suggested
			case faults.TypeID:
				given[p.Name] = 0
				body, _ := json.Marshal(given)
				wantError(t, e.post("/api/faults", string(body)), http.StatusBadRequest, "invalid_field", p.Name)
				given[p.Name] = 1
			default:
				given[p.Name] = "not-a-choice"
				body, _ := json.Marshal(given)
				wantError(t, e.post("/api/faults", string(body)), http.StatusBadRequest, "invalid_field", p.Name)
				delete(given, p.Name) // a valid one would run it
			}
		}
		other := "ms"
		if slices.ContainsFunc(k.Params, func(p faults.Param) bool { return p.Name == "ms" }) {
			other = "point"
		}
		given[other] = "x"
		if other == "ms" {
			given[other] = 5
		}
		body, _ := json.Marshal(given)
		wantError(t, e.post("/api/faults", string(body)), http.StatusBadRequest, "invalid_field", other)
	}
}
