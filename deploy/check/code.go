package check

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// Code is what the repository says the manifests must agree with.
type Code struct {
	// Env is every SECKILL_* name the shop and the load tool read (string
	// literals in their non-test Go files, as docs' README test counts them).
	Env map[string]bool
	// Routes are the paths the shop answers GET on (internal/httpapi's
	// route table).
	Routes map[string]bool
	// Image is the image docker-compose.yml builds from the Dockerfile and
	// runs the replicas and agents from.
	Image string
	// ComposeImages are every image docker-compose.yml runs (the backends,
	// Prometheus, Grafana), by name without the tag.
	ComposeImages map[string]string
	// Binaries are the commands the Dockerfile installs; Port the port the
	// image's SECKILL_HTTP_ADDR listens on, which it EXPOSEs.
	Binaries map[string]bool
	Port     int32
}

var (
	envLiteral = regexp.MustCompile(`"(SECKILL_[A-Z][A-Z0-9_]*)"`)
	// e.GET("/healthz", ...) at the root; api.GET("/sales", ...) under /api.
	route      = regexp.MustCompile(`\b(e|api)\.GET\("([^"]+)"`)
	apiGroup   = regexp.MustCompile(`api := e\.Group\("([^"]+)"[,)]`)
	copyBins   = regexp.MustCompile(`(?m)^COPY --from=build (.+) (/\S+/)$`)
	exposeLine = regexp.MustCompile(`(?m)^EXPOSE (\d+)$`)
	envHTTP    = regexp.MustCompile(`(?m)^ENV SECKILL_HTTP_ADDR=(\S+)$`)
)

// testSupport are folders whose variables are the tests', not the programs'.
var testSupport = []string{"internal/testenv", "internal/lockstrategy/locktest"}

// ReadCode reads the facts from the repository at root.
func ReadCode(root string) (Code, error) {
	c := Code{Env: map[string]bool{}, Routes: map[string]bool{}, Binaries: map[string]bool{}}
	for _, dir := range []string{"cmd", "internal", "loadtest"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for _, s := range testSupport {
				if strings.HasPrefix(filepath.ToSlash(rel), s+"/") {
					return nil
				}
			}
			b, err := os.ReadFile(path)
			for _, m := range envLiteral.FindAllStringSubmatch(string(b), -1) {
				c.Env[m[1]] = true
			}
			return err
		})
		if err != nil {
			return c, err
		}
	}
	server, err := os.ReadFile(filepath.Join(root, "internal/httpapi/server.go"))
	if err != nil {
		return c, err
	}
	prefix := ""
	if m := apiGroup.FindSubmatch(server); m != nil {
		prefix = string(m[1])
	}
	for _, m := range route.FindAllStringSubmatch(string(server), -1) {
		p := m[2]
		if m[1] == "api" {
			p = prefix + p
		}
		c.Routes[p] = true
	}
	if err := c.readDockerfile(filepath.Join(root, "Dockerfile")); err != nil {
		return c, err
	}
	c.Image, c.ComposeImages, err = composeImages(filepath.Join(root, "docker-compose.yml"))
	return c, err
}

func (c *Code) readDockerfile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	for _, m := range copyBins.FindAllSubmatch(b, -1) {
		for _, src := range strings.Fields(string(m[1])) {
			c.Binaries[string(m[2])+filepath.Base(src)] = true
		}
	}
	addr := envHTTP.FindSubmatch(b)
	expose := exposeLine.FindSubmatch(b)
	if addr == nil || expose == nil {
		return fmt.Errorf("%s: no ENV SECKILL_HTTP_ADDR= or EXPOSE line", path)
	}
	_, port, err := net.SplitHostPort(string(addr[1]))
	if err != nil || port != string(expose[1]) {
		return fmt.Errorf("%s: SECKILL_HTTP_ADDR %s does not listen on the EXPOSEd port %s", path, addr[1], expose[1])
	}
	c.Port = int32(atoi(port))
	return nil
}

// composeImages reads the image of docker-compose.yml's shop-1 (the
// replicas and the agents share it) and every service's image by name.
func composeImages(path string) (string, map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var doc struct {
		Services map[string]struct {
			Image string `json:"image"`
		} `json:"services"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	all := map[string]string{}
	for _, s := range doc.Services {
		if s.Image != "" {
			all[imageRepo(s.Image)] = s.Image
		}
	}
	img := doc.Services["shop-1"].Image
	if img == "" {
		return "", nil, fmt.Errorf("%s: shop-1 names no image", path)
	}
	return img, all, nil
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return -1
		}
		n = n*10 + int(r-'0')
	}
	return n
}
