package httpapi

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// countReplicaRows counts the discovery rows whose id starts with prefix.
func (e *env) countReplicaRows(t *testing.T, prefix string) int64 {
	t.Helper()
	var n int64
	if err := e.db.Raw("SELECT COUNT(*) FROM replicas WHERE id LIKE ?", prefix+"%").Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// An agent id the replicas.id column (VARCHAR(64)) cannot hold, or one
// with control characters, is a 400 naming agent_id before any write, on
// the heartbeat, both claims, a report and a lesson's result alike; 64
// characters are accepted.
func TestAgentIDRejects(t *testing.T) {
	e := runsEnv(t)
	tag := fmt.Sprintf("t-ag-%08x-", rand.Uint32())
	for _, id := range []string{
		tag + strings.Repeat("a", 65-len(tag)),
		tag + strings.Repeat("a", 1000),
		tag + strings.Repeat("é", 60), // 64 characters or fewer would fit; 124 bytes do not
		tag + "line\nbreak",
		tag + "nul\u0000",
		"",
	} {
		quoted, _ := json.Marshal(id)
		body := fmt.Sprintf(`{"agent_id":%s,"pid":1}`, quoted)
		wantError(t, e.post("/api/agents/heartbeat", body), http.StatusBadRequest, "invalid_field", "agent_id")
		for _, claim := range []string{"/api/agents/claim", "/api/agents/lesson-claim"} {
			wantError(t, e.post(claim, fmt.Sprintf(`{"agent_id":%s}`, quoted)), http.StatusBadRequest, "invalid_field", "agent_id")
		}
		wantError(t, e.post("/api/runs/1/steps/0/shares/0/report", fmt.Sprintf(`{"agent_id":%s}`, quoted)),
			http.StatusBadRequest, "invalid_field", "agent_id")
		wantError(t, e.post("/api/lesson-runs/1/result", fmt.Sprintf(`{"agent_id":%s,"verdict":"PASS"}`, quoted)),
			http.StatusBadRequest, "invalid_field", "agent_id")
	}
	if n := e.countReplicaRows(t, tag); n != 0 {
		t.Fatalf("refused heartbeats wrote %d discovery rows", n)
	}
	longest := tag + strings.Repeat("z", 64-len(tag))
	if rec := e.post("/api/agents/heartbeat", fmt.Sprintf(`{"agent_id":%q,"pid":1}`, longest)); rec.Code != http.StatusNoContent {
		t.Fatalf("a 64-character agent id: %d %s", rec.Code, rec.Body)
	}
	if rec := e.post("/api/agents/heartbeat", fmt.Sprintf(`{"agent_id":%q,"pid":1,"gone":true}`, longest)); rec.Code != http.StatusNoContent {
		t.Fatalf("gone: %d %s", rec.Code, rec.Body)
	}
	if n := e.countReplicaRows(t, tag); n != 0 {
		t.Fatalf("%d discovery rows left after gone", n)
	}
}
