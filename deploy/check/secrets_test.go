package check

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/seckill-lab/seckill/internal/config"
)

// The secrets nobody may ship: each deployment makes its own.
var secretNames = []string{config.EnvAdminToken, config.EnvTicketSecret}

// withSecrets copies deploy/ into a temporary folder with a secrets.env of
// generated values, as the instructions in base/kustomization.yaml make
// one, and returns the copy's deploy folder: the overlays build there.
func withSecrets(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "deploy")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "deploy"))); err != nil {
		t.Fatal(err)
	}
	var env strings.Builder
	for _, name := range secretNames {
		env.WriteString(name + "=" + randomHex(t) + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "k8s/base/secrets.env"), []byte(env.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func randomHex(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// generatedAs says whether o is what kustomize generated for id ("Secret/
// shop-secrets" named shop-secrets-<hash>).
func generatedAs(o Object, id string) bool {
	kind, _, _ := strings.Cut(id, "/")
	return (kind == "Secret" || kind == "ConfigMap") && strings.HasPrefix(o.String(), id+"-")
}

// No secret ships. The manifests alone do not build (the Secret's values
// come from a secrets.env the user makes); built with one, every overlay's
// shop-secrets holds exactly its values and passes the shop's own check;
// and no manifest nor the compose file sets a secret to a value of its own.
func TestNoSecretShips(t *testing.T) {
	if _, err := BuildJSON(filepath.Join(root, "deploy/k8s/overlays/with-backends")); err == nil {
		if _, statErr := os.Stat(filepath.Join(root, "deploy/k8s/base/secrets.env")); os.IsNotExist(statErr) {
			t.Error("the overlay builds without secrets.env: some secret ships in the manifests")
		}
	} else if !strings.Contains(err.Error(), "secrets.env") {
		t.Errorf("without secrets.env the error does not name it: %v", err)
	}

	dir := withSecrets(t)
	made, err := os.ReadFile(filepath.Join(dir, "k8s/base/secrets.env"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range overlays {
		objs, err := Build(filepath.Join(dir, "k8s/overlays", o))
		if err != nil {
			t.Fatal(err)
		}
		data := dataOf(Object{Obj: find[*corev1.Secret](t, objs, "Secret/shop-secrets")})
		for _, name := range secretNames {
			if !strings.Contains(string(made), name+"="+data[name]+"\n") {
				t.Errorf("%s: shop-secrets' %s is not the generated value", o, name)
			}
			if err := config.CheckSecret(name, data[name]); err != nil {
				t.Errorf("%s: %v", o, err)
			}
		}
	}

	// A secret's name followed by a value, in YAML (KEY: value) or env
	// (KEY=value) form; compose's required ${KEY:?...} is no value.
	assigned := regexp.MustCompile(`(?m)^\s*-?\s*(` + strings.Join(secretNames, "|") + `)\s*[:=]\s*"?([^"\s]*)`)
	files := []string{filepath.Join(root, "docker-compose.yml")}
	err = filepath.WalkDir(filepath.Join(root, "deploy"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range assigned.FindAllStringSubmatch(string(b), -1) {
			if v := m[2]; v != "" && !strings.HasPrefix(v, "${"+m[1]+":") {
				t.Errorf("%s sets %s to %q: a shipped secret is everyone's", f, m[1], v)
			}
		}
	}
}
