package check

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

const root = "../.."

var overlays = []string{"with-backends", "external-backends"}

func readCode(t *testing.T) Code {
	t.Helper()
	c, err := ReadCode(root)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func build(t *testing.T, overlay string) []Object {
	t.Helper()
	objs, err := Build(filepath.Join(withSecrets(t), "k8s/overlays", overlay))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// Each overlay builds, every object decodes strictly, and the manifests
// agree with the code. The objects are logged: the list is the overlay.
func TestOverlaysAgreeWithTheCode(t *testing.T) {
	c := readCode(t)
	for _, o := range overlays {
		t.Run(o, func(t *testing.T) {
			objs := build(t, o)
			var names []string
			for _, ob := range objs {
				names = append(names, ob.String())
			}
			sort.Strings(names)
			t.Logf("%d objects: %s", len(objs), strings.Join(names, " "))
			for _, err := range Check(objs, c) {
				t.Error(err)
			}
			if o == "with-backends" { // its own backends: the shop's addresses are pods of the build
				for _, err := range CheckAddresses(objs) {
					t.Error(err)
				}
			}
		})
	}
}

// The facts read from the code are the ones the manifests are held to: a
// reader that found nothing would let every check pass.
func TestReadCode(t *testing.T) {
	c := readCode(t)
	for _, name := range []string{"SECKILL_MYSQL_DSN", "SECKILL_HTTP_ADDR", "SECKILL_ADMIN_TOKEN", "SECKILL_LOCK_WAIT", "SECKILL_REPLICA_ID"} {
		if !c.Env[name] {
			t.Errorf("%s not among the variables read: %v", name, keys(c.Env))
		}
	}
	if c.Env["SECKILL_TEST_BIN_DIR"] {
		t.Error("SECKILL_TEST_BIN_DIR (a test's) counted as the programs'")
	}
	for _, r := range []string{"/healthz", "/metrics", "/api/sales", "/api/replicas"} {
		if !c.Routes[r] {
			t.Errorf("route %s not found: %v", r, keys(c.Routes))
		}
	}
	for _, img := range []string{"mariadb:10.11", "redis:7-bookworm", "zookeeper:3.8", "quay.io/coreos/etcd:v3.4.23"} {
		if c.ComposeImages[imageRepo(img)] != img {
			t.Errorf("compose's %s: %q", imageRepo(img), c.ComposeImages[imageRepo(img)])
		}
	}
	if c.Image != "seckill-lab:dev" || c.Port != 8080 ||
		!c.Binaries["/usr/local/bin/shop"] || !c.Binaries["/usr/local/bin/loadtest"] {
		t.Errorf("image %q port %d binaries %v", c.Image, c.Port, keys(c.Binaries))
	}
}

// Each check fails on a broken object: one change to a good build, and the
// problem it must report.
func TestChecksCatchBrokenObjects(t *testing.T) {
	c := readCode(t)
	cases := brokenObjectCases(t)
	docs, err := BuildJSON(filepath.Join(withSecrets(t), "k8s/overlays/with-backends"))
	if err != nil {
		t.Fatal(err)
	}
	fresh := func(t *testing.T) []Object { // a good build's objects, decoded anew for each case
		t.Helper()
		objs, err := DecodeAll(docs)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	if errs := append(Check(fresh(t), c), CheckAddresses(fresh(t))...); len(errs) > 0 {
		t.Fatalf("the good build already fails: %v", errs)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs := fresh(t)
			tc.break_(objs)
			errs := append(Check(objs, c), CheckAddresses(objs)...)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Errorf("no error containing %q; got %v", tc.want, errs)
		})
	}
}

// brokenCase is one way to break a good build's objects, and what the
// checks' error then says.
type brokenCase struct {
	name   string
	break_ func(objs []Object)
	want   string
}

// brokenObjectCases are the ways TestChecksCatchBrokenObjects breaks the
// with-backends overlay, one per check.
func brokenObjectCases(t *testing.T) []brokenCase {
	shop := func(objs []Object) *corev1.Container {
		return &find[*appsv1.Deployment](t, objs, "Deployment/shop").Spec.Template.Spec.Containers[0]
	}
	// Names the shop does not read, spelt in two pieces so that docs'
	// README test does not take them for variables the repository reads.
	lockWaitMS, redis := "SECKILL_"+"LOCK_WAIT_MS", "SECKILL_"+"REDIS"
	return []brokenCase{
		{"a variable the shop does not read", func(o []Object) {
			shop(o).Env = append(shop(o).Env, corev1.EnvVar{Name: lockWaitMS, Value: "10"})
		}, lockWaitMS + " is none the shop"},
		{"a ConfigMap key the shop does not read", func(o []Object) {
			find[*corev1.ConfigMap](t, o, "ConfigMap/shop-config").Data[redis] = "x:6379"
		}, redis + " (from ConfigMap/shop-config) is none"},
		{"envFrom a missing ConfigMap", func(o []Object) {
			shop(o).EnvFrom[0].ConfigMapRef.Name = "shop-conf"
		}, "envFrom ConfigMap/shop-conf"},
		{"a secret key that is not there", func(o []Object) {
			ag := &find[*appsv1.Deployment](t, o, "Deployment/agent").Spec.Template.Spec.Containers[0]
			ag.Env[0].ValueFrom.SecretKeyRef.Key = "ADMIN_TOKEN"
		}, "key ADMIN_TOKEN of Secret/shop-secrets"},
		{"a probe on a route the shop does not serve", func(o []Object) {
			shop(o).ReadinessProbe.HTTPGet.Path = "/health"
		}, "asks /health"},
		{"a containerPort the shop does not listen on", func(o []Object) {
			shop(o).Ports[0].ContainerPort = 9090
		}, "containerPort 9090"},
		{"SECKILL_HTTP_ADDR moved, the port not", func(o []Object) {
			shop(o).Env[1].Value = "$(POD_IP):8081"
		}, "the shop serves on 8081"},
		{"a Service selecting nothing", func(o []Object) {
			find[*corev1.Service](t, o, "Service/shop").Spec.Selector["app.kubernetes.io/name"] = "shops"
		}, "Service/shop: its selector"},
		{"a Service port reaching no container port", func(o []Object) {
			find[*corev1.Service](t, o, "Service/shop-pods").Spec.Ports[0].TargetPort.StrVal = "web"
		}, "reaches web"},
		{"an image compose does not build", func(o []Object) {
			shop(o).Image = "seckill-lab:latest"
		}, "image seckill-lab:latest"},
		{"a backend image other than compose's", func(o []Object) {
			find[*appsv1.StatefulSet](t, o, "StatefulSet/zookeeper").Spec.Template.Spec.Containers[0].Image = "zookeeper:3.9"
		}, "image zookeeper:3.9, but docker-compose.yml runs zookeeper:3.8"},
		{"a command the Dockerfile does not install", func(o []Object) {
			find[*appsv1.Deployment](t, o, "Deployment/agent").Spec.Template.Spec.Containers[0].Command[0] = "/usr/bin/loadtest"
		}, "command /usr/bin/loadtest"},
		{"an Ingress to a missing Service", func(o []Object) {
			find[*networkingv1.Ingress](t, o, "Ingress/shop").Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "dashboard"
		}, "Service dashboard"},
		{"an address of a pod the StatefulSet does not have", func(o []Object) {
			find[*corev1.ConfigMap](t, o, "ConfigMap/shop-config").Data["SECKILL_REDLOCK_ADDRS"] += ",redlock-3.redlock:6379"
		}, "StatefulSet redlock has no pod 3"},
		{"an address under another Service", func(o []Object) {
			find[*corev1.ConfigMap](t, o, "ConfigMap/shop-config").Data["SECKILL_ETCD_ENDPOINTS"] = "etcd-0.etcd-headless:2379"
		}, "are under etcd, not etcd-headless"},
		{"an address on a port the backend does not serve", func(o []Object) {
			find[*corev1.Secret](t, o, "Secret/shop-secrets").Data["SECKILL_MYSQL_DSN"] = []byte("root:x@tcp(mariadb-0.mariadb:3307)/seckill")
		}, "serves port 3307"},
		{"an address of no backend", func(o []Object) {
			find[*corev1.ConfigMap](t, o, "ConfigMap/shop-config").Data["SECKILL_SENTINEL_ADDRS"] = "sentinels:26379"
		}, "sentinels:26379: neither"},
		{"no trusted proxies behind the Ingress", func(o []Object) {
			delete(find[*corev1.ConfigMap](t, o, "ConfigMap/shop-config").Data, "SECKILL_TRUSTED_PROXIES")
		}, "behind Ingress/shop, yet SECKILL_TRUSTED_PROXIES is unset"},
		{"a trusted proxy that is no address", func(o []Object) {
			find[*corev1.ConfigMap](t, o, "ConfigMap/shop-config").Data["SECKILL_TRUSTED_PROXIES"] = "10.244.0.0/16,ingress-nginx"
		}, `item "ingress-nginx" is neither`},
		{"a StatefulSet without its headless Service", func(o []Object) {
			find[*appsv1.StatefulSet](t, o, "StatefulSet/redlock").Spec.ServiceName = "redlocks"
		}, `serviceName "redlocks"`},
	}
}

// Strict decoding refuses what the API server would: an unknown field, a
// field in the wrong case, a duplicate key, an unknown kind.
func TestDecodeIsStrict(t *testing.T) {
	cases := map[string]string{
		"unknown field": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replica: 3}\n",
		"wrong case":    "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {clusterIp: None}\n",
		"duplicate key": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {A: \"1\", A: \"2\"}\n",
		"unknown kind":  "apiVersion: apps/v1\nkind: Deployments\nmetadata: {name: x}\n",
		"wrong type":    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: three}\n",
	}
	for name, doc := range cases {
		if _, err := Decode([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	if _, err := Decode([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {A: \"1\"}\n")); err != nil {
		t.Errorf("a good object: %v", err)
	}
}

func find[T any](t *testing.T, objs []Object, id string) T {
	t.Helper()
	for _, o := range objs {
		if o.String() == id || generatedAs(o, id) {
			if v, ok := o.Obj.(T); ok {
				return v
			}
		}
	}
	t.Fatalf("%s not in the build", id)
	var zero T
	return zero
}

// Every inline script of the manifests (a container started as `sh -c` or
// `bash -c`) parses: the images' shells are Debian's, as here.
func TestInlineScriptsParse(t *testing.T) {
	n := 0
	for _, o := range overlays {
		for _, ob := range build(t, o) {
			var pod *corev1.PodSpec
			switch v := ob.Obj.(type) {
			case *appsv1.Deployment:
				pod = &v.Spec.Template.Spec
			case *appsv1.StatefulSet:
				pod = &v.Spec.Template.Spec
			default:
				continue
			}
			for _, ct := range pod.Containers {
				argv := append(append([]string{}, ct.Command...), ct.Args...)
				if len(argv) < 3 || argv[1] != "-c" || (argv[0] != "/bin/sh" && argv[0] != "/bin/bash") {
					continue
				}
				n++
				if out, err := exec.Command(argv[0], "-n", "-c", argv[2]).CombinedOutput(); err != nil {
					t.Errorf("%s container %s: %s -n: %v\n%s", ob, ct.Name, argv[0], err, out)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no inline script found: the check checked nothing")
	}
}
