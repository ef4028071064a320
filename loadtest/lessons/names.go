package lessons

import (
	"context"
	"fmt"
	"net/http"
	"slices"
)

// ReplicaName is the id of the replica at target as GET /api/replicas
// lists it (shop-1, …): the name the timeline's lanes and narration give
// it. A target that list lacks is replica-N, N its place in the targets.
func (sc *ScenarioRun) ReplicaName(ctx context.Context, target string) string {
	var members []struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if _, err := sc.C.CallJSON(ctx, http.MethodGet, target+"/api/replicas", nil, http.StatusOK, &members); err == nil {
		for _, m := range members {
			if m.URL == target {
				return m.ID
			}
		}
	}
	return fmt.Sprintf("replica-%d", slices.Index(sc.Targets, target)+1)
}
