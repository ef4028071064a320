package lessons

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// GetsetGaps is target's GET /api/faults getset.
type GetsetGaps struct {
	Held            int64 `json:"held"`
	Overwrites      int64 `json:"overwrites"`
	RefusedReleases int64 `json:"refused_releases"`
	FreedOthers     int64 `json:"freed_others"`
}

func (sc *ScenarioRun) GetsetGaps(ctx context.Context, target string) (GetsetGaps, error) {
	var out struct {
		GetSet *GetsetGaps `json:"getset"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/faults", nil, http.StatusOK, &out); err != nil {
		return GetsetGaps{}, err
	}
	if out.GetSet == nil {
		return GetsetGaps{}, fmt.Errorf("%s: GET /api/faults has no getset (an older shop?)", target)
	}
	return *out.GetSet, nil
}

// WaitGaps waits (30 s at most) until target's getset counts satisfy ok.
func (sc *ScenarioRun) WaitGaps(ctx context.Context, target, what string, ok func(GetsetGaps) bool) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		g, err := sc.GetsetGaps(ctx, target)
		if err == nil && ok(g) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s on %s: %w (last read: %+v, %v)", what, target, ctx.Err(), g, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// held is a waitGaps condition: n gaps held open.
func Held(n int64) func(GetsetGaps) bool { return func(g GetsetGaps) bool { return g.Held == n } }
