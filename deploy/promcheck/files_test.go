package promcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The board, Grafana's provisioning and the two scrape configurations agree
// with each other: no Prometheus or Grafana needed.

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Every panel, query and annotation names the data source Grafana is
// provisioned with, by its uid; and the provider reads the folder that
// compose and the cluster mount the board in.
func TestBoardUsesTheProvisionedDataSource(t *testing.T) {
	uid := provisionedUID(t)
	b, err := os.ReadFile(boardFile)
	if err != nil {
		t.Fatal(err)
	}
	var board grafanaBoard
	if err := json.Unmarshal(b, &board); err != nil {
		t.Fatal(err)
	}
	ids := map[int]bool{}
	for _, p := range board.Panels {
		if ids[p.ID] {
			t.Errorf("panel %q: id %d used twice", p.Title, p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.X+p.GridPos.W > 24 {
			t.Errorf("panel %q: wider than the board's 24 columns", p.Title)
		}
		if p.Datasource.UID != uid {
			t.Errorf("panel %q: data source %q, provisioned %q", p.Title, p.Datasource.UID, uid)
		}
		for _, tg := range p.Targets {
			if tg.Datasource.UID != uid {
				t.Errorf("panel %q: a query's data source %q, provisioned %q", p.Title, tg.Datasource.UID, uid)
			}
		}
	}
	for _, a := range board.Annotations.List {
		if a.BuiltIn == 0 && a.Datasource.UID != uid {
			t.Errorf("annotation %q: data source %q, provisioned %q", a.Name, a.Datasource.UID, uid)
		}
	}
	boardMountedWhereProvided(t)
}

// provisionedUID is the uid of the one data source Grafana is provisioned
// with, which must be Prometheus.
func provisionedUID(t *testing.T) string {
	var ds struct {
		Datasources []struct {
			UID  string `json:"uid"`
			Type string `json:"type"`
		} `json:"datasources"`
	}
	readYAML(t, root+"/deploy/grafana/provisioning/datasources/prometheus.yml", &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" {
		t.Fatalf("want one prometheus data source, got %+v", ds.Datasources)
	}
	return ds.Datasources[0].UID
}

// boardSource names a panel's, query's or annotation's data source.
type boardSource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

// grafanaBoard is what the test reads of the board: its panels (their
// place and data sources) and annotations.
type grafanaBoard struct {
	UID    string `json:"uid"`
	Panels []struct {
		ID         int         `json:"id"`
		Title      string      `json:"title"`
		Datasource boardSource `json:"datasource"`
		GridPos    struct{ X, W int }
		Targets    []struct {
			Datasource boardSource `json:"datasource"`
		} `json:"targets"`
	} `json:"panels"`
	Annotations struct {
		List []struct {
			Name       string      `json:"name"`
			Datasource boardSource `json:"datasource"`
			BuiltIn    int         `json:"builtIn"`
		} `json:"list"`
	} `json:"annotations"`
}

// boardMountedWhereProvided: the one dashboard provider reads the board
// from a path where docker-compose and the cluster both mount it.
func boardMountedWhereProvided(t *testing.T) {
	var prov struct {
		Providers []struct {
			Options struct {
				Path string `json:"path"`
			} `json:"options"`
		} `json:"providers"`
	}
	readYAML(t, root+"/deploy/grafana/provisioning/dashboards/seckill.yml", &prov)
	if len(prov.Providers) != 1 {
		t.Fatalf("want one dashboard provider, got %d", len(prov.Providers))
	}
	path := prov.Providers[0].Options.Path
	for _, f := range []string{"docker-compose.yml", "deploy/k8s/observability/grafana.yaml"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), path) {
			t.Errorf("%s mounts the board elsewhere than %s, where the provider reads it", f, path)
		}
	}
}

// The cluster's scrape configuration differs only in how it finds the
// replicas: the same job (the board filters on it), intervals and rules.
func TestScrapeConfigurationsAgree(t *testing.T) {
	type conf struct {
		Global        map[string]any `json:"global"`
		RuleFiles     []string       `json:"rule_files"`
		ScrapeConfigs []struct {
			JobName     string `json:"job_name"`
			MetricsPath string `json:"metrics_path"`
		} `json:"scrape_configs"`
	}
	var local, k8s conf
	readYAML(t, filepath.Join(promDir, "prometheus.yml"), &local)
	readYAML(t, filepath.Join(promDir, "prometheus-k8s.yml"), &k8s)
	if !reflect.DeepEqual(local, k8s) {
		t.Errorf("prometheus.yml %+v and prometheus-k8s.yml %+v differ beyond service discovery", local, k8s)
	}
	if len(local.ScrapeConfigs) != 1 || local.ScrapeConfigs[0].JobName != "seckill" {
		t.Errorf("want the one job seckill (the board's up{job=\"seckill\"}), got %+v", local.ScrapeConfigs)
	}
}

// Every alert says what broke and how badly.
func TestAlertsAreLabelled(t *testing.T) {
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `json:"alert"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	readYAML(t, filepath.Join(promDir, "rules.yml"), &rules)
	n := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			n++
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s: wants a severity label, a summary and a description", r.Alert)
			}
		}
	}
	if n < 4 {
		t.Errorf("%d alerts; the issue asks for oversold, lost update, drift and queue lag", n)
	}
}
