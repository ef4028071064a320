package lessons

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/seckill-lab/seckill/loadtest/shopapi"
)

var updateNames = flag.Bool("update", false, "rewrite testdata/case-names.json, which the dashboard's caseNames must agree with")

// caseNameGroups are lessons' sales as the result table names them; the
// dashboard names a running lesson's cases (lessons-model.js caseNames)
// from the same views, and its test reads the file this test keeps.
var caseNameGroups = [][]shopapi.SaleView{
	{{ID: 1, Name: "scenario mutex-across-replicas", Strategy: "mutex"}, {ID: 2, Name: "scenario mutex-across-replicas", Strategy: "db-pessimistic"}},
	{{ID: 1, Name: "scenario pause-past-ttl", Strategy: "redis"}, {ID: 2, Name: "scenario pause-past-ttl, buyer-2 reads first", Strategy: "redis"},
		{ID: 3, Name: "scenario pause-past-ttl", Strategy: "redis", Fencing: true}, {ID: 4, Name: "scenario pause-past-ttl, buyer-2 reads first", Strategy: "redis", Fencing: true}},
	{{ID: 1, Name: "scenario queue-durability none", Strategy: "redis-lua-stock", OrderMode: "async"},
		{ID: 2, Name: "scenario queue-durability everysec", Strategy: "redis-lua-stock", OrderMode: "async"},
		{ID: 3, Name: "scenario queue-durability always", Strategy: "redis-lua-stock", OrderMode: "async"}},
	{{ID: 1, Name: "scenario redlock-clock-jump", Strategy: "redlock", Watchdog: true}, {ID: 2, Name: "scenario redlock-clock-jump", Strategy: "redlock"},
		{ID: 3, Name: "scenario redlock-clock-jump: time to acquire", Strategy: "redlock"}},
	{{ID: 1, Name: "scenario lock-per-batch", Strategy: "redis", Fencing: true}, {ID: 2, Name: "scenario lock-per-batch", Strategy: "redis", Fencing: true, Combine: true}},
	{{ID: 1, Name: "scenario redlock-herd", Strategy: "redlock", Watchdog: true, NoQueue: true}, {ID: 2, Name: "scenario redlock-herd", Strategy: "redlock", Watchdog: true}},
	{{ID: 1, Name: "scenario split-hot-row", Strategy: "db-conditional", StockShards: 1}, {ID: 2, Name: "scenario split-hot-row", Strategy: "db-conditional", StockShards: 8}},
	{{ID: 1, Name: "scenario ttl-shorter-than-work", Strategy: "redis", TTLMS: 1000, WorkMS: 1800},
		{ID: 2, Name: "scenario ttl-shorter-than-work", Strategy: "redis", TTLMS: 1000, WorkMS: 1800, Watchdog: true}},
	{{ID: 1, Name: "scenario db-lock-crashed-holder: crashed holder", Strategy: "db-lock-table-plain", TTLMS: 600000},
		{ID: 2, Name: "scenario db-lock-crashed-holder: crashed holder", Strategy: "db-lock-table-plain", TTLMS: 1000},
		{ID: 3, Name: "scenario db-lock-crashed-holder: slow holder", Strategy: "db-lock-table-plain", TTLMS: 1000},
		{ID: 4, Name: "scenario db-lock-crashed-holder: slow holder", Strategy: "db-lock-table-plain", TTLMS: 1000, Fencing: true}},
	{{ID: 1, Name: "scenario herd-sold-out-cache", Strategy: "redis"}, {ID: 2, Name: "scenario herd-sold-out-cache", Strategy: "redis", SoldOutCache: true},
		{ID: 3, Name: "scenario herd-sold-out-cache", Strategy: "redis", SoldOutCache: true}},
}

// TestCaseNamesFile keeps testdata/case-names.json: each group's views and
// the names CaseTable gives them (go test -run TestCaseNamesFile -update
// rewrites it; e2e/browser/lessons-model.test.mjs checks caseNames against it).
func TestCaseNamesFile(t *testing.T) {
	type name struct {
		En string `json:"en"`
		Zh string `json:"zh"`
	}
	type group struct {
		Views []shopapi.SaleView `json:"views"`
		Names []name             `json:"names"`
	}
	var groups []group
	for _, views := range caseNameGroups {
		g := group{Views: views}
		for _, c := range CaseTable(views) {
			g.Names = append(g.Names, name{c.Name, c.NameZh})
		}
		groups = append(groups, g)
	}
	got, err := json.MarshalIndent(groups, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const file = "testdata/case-names.json"
	if *updateNames {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run TestCaseNamesFile -update ./loadtest/lessons/ writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: the case names changed; rewrite it with go test -run TestCaseNamesFile -update ./loadtest/lessons/ and check the dashboard's caseNames agrees", file)
	}
}
