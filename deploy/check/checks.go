package check

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Check runs every check on one build's objects and returns every problem
// found, each naming its object.
func Check(objs []Object, c Code) []error {
	b := index(objs)
	var errs []error
	for _, w := range b.workloads {
		errs = append(errs, checkWorkload(w, b, c)...)
	}
	for _, o := range objs {
		switch v := o.Obj.(type) {
		case *corev1.Service:
			errs = append(errs, checkService(v, b)...)
		case *policyv1.PodDisruptionBudget:
			if len(b.selected(v.Spec.Selector)) == 0 {
				errs = append(errs, fmt.Errorf("%s: its selector %v selects no workload's pods", o, labelsOf(v.Spec.Selector)))
			}
		case *autoscalingv2.HorizontalPodAutoscaler:
			ref := v.Spec.ScaleTargetRef
			if _, ok := b.byKind[ref.Kind+"/"+ref.Name]; !ok {
				errs = append(errs, fmt.Errorf("%s: it scales %s/%s, which the build does not have", o, ref.Kind, ref.Name))
			}
		case *networkingv1.Ingress:
			errs = append(errs, checkIngress(v, b)...)
		}
	}
	return errs
}

// workload is a Deployment's or a StatefulSet's pods.
type workload struct {
	Object
	selector *metav1.LabelSelector
	pod      corev1.PodTemplateSpec
}

// built indexes a build's objects.
type built struct {
	workloads []workload
	byKind    map[string]Object // "Kind/name"
	services  map[string]*corev1.Service
}

func index(objs []Object) built {
	b := built{byKind: map[string]Object{}, services: map[string]*corev1.Service{}}
	for _, o := range objs {
		b.byKind[o.String()] = o
		switch v := o.Obj.(type) {
		case *appsv1.Deployment:
			b.workloads = append(b.workloads, workload{o, v.Spec.Selector, v.Spec.Template})
		case *appsv1.StatefulSet:
			b.workloads = append(b.workloads, workload{o, v.Spec.Selector, v.Spec.Template})
		case *corev1.Service:
			b.services[o.Name] = v
		}
	}
	return b
}

func labelsOf(s *metav1.LabelSelector) map[string]string {
	if s == nil {
		return nil
	}
	return s.MatchLabels
}

// matches: every pair of the selector is among the labels (an empty
// selector matches nothing here: the manifests never mean "everything").
func matches(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (b built) selected(s *metav1.LabelSelector) []workload {
	var out []workload
	for _, w := range b.workloads {
		if matches(labelsOf(s), w.pod.Labels) {
			out = append(out, w)
		}
	}
	return out
}

func checkWorkload(w workload, b built, c Code) []error {
	var errs []error
	if !matches(labelsOf(w.selector), w.pod.Labels) {
		errs = append(errs, fmt.Errorf("%s: its selector %v does not select its own pods %v", w, labelsOf(w.selector), w.pod.Labels))
	}
	if s, ok := w.Obj.(*appsv1.StatefulSet); ok {
		if svc := b.services[s.Spec.ServiceName]; svc == nil || svc.Spec.ClusterIP != corev1.ClusterIPNone {
			errs = append(errs, fmt.Errorf("%s: serviceName %q is no headless Service of the build", w, s.Spec.ServiceName))
		}
	}
	for _, ct := range w.pod.Spec.Containers {
		if imageRepo(ct.Image) == imageRepo(c.Image) {
			errs = append(errs, checkShopContainer(w, ct, b, c)...)
		} else if want, ok := c.ComposeImages[imageRepo(ct.Image)]; ok && want != ct.Image {
			// The same backend, Prometheus or Grafana as compose: a
			// lesson that works in one works in the other.
			errs = append(errs, fmt.Errorf("%s container %s: image %s, but docker-compose.yml runs %s", w, ct.Name, ct.Image, want))
		}
	}
	return errs
}

// imageRepo is an image's name without its tag.
func imageRepo(image string) string {
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[:i]
	}
	return image
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// checkShopContainer checks a container of the shop's image: the image
// compose builds, a binary the Dockerfile installs, variables the programs
// read, the port it serves on and the routes its probes ask.
func checkShopContainer(w workload, ct corev1.Container, b built, c Code) []error {
	var errs []error
	where := fmt.Sprintf("%s container %s", w, ct.Name)
	if ct.Image != c.Image {
		errs = append(errs, fmt.Errorf("%s: image %s, but docker-compose.yml builds %s", where, ct.Image, c.Image))
	}
	serves := true // the image's entrypoint is shop, its default command serve
	if len(ct.Command) > 0 {
		if !c.Binaries[ct.Command[0]] {
			errs = append(errs, fmt.Errorf("%s: command %s is none the Dockerfile installs %v", where, ct.Command[0], keys(c.Binaries)))
		}
		serves = strings.HasSuffix(ct.Command[0], "/shop")
	}
	if serves && len(ct.Args) > 0 && ct.Args[0] != "serve" {
		serves = false
	}
	// Variables: each one the programs read, or one another's value uses as $(NAME).
	env := map[string]string{}
	used := map[string]bool{}
	for _, e := range ct.Env {
		for _, m := range envRef.FindAllStringSubmatch(e.Value, -1) {
			used[m[1]] = true
		}
	}
	for _, e := range ct.Env {
		env[e.Name] = e.Value
		if !c.Env[e.Name] && !used[e.Name] {
			errs = append(errs, fmt.Errorf("%s: variable %s is none the shop or the load tool reads", where, e.Name))
		}
		if e.ValueFrom != nil {
			errs = append(errs, checkKeyRef(where, e.ValueFrom, b)...)
		}
	}
	for _, from := range ct.EnvFrom {
		data, err := sourceData(from, b)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			continue
		}
		for k, v := range data {
			if !c.Env[k] {
				errs = append(errs, fmt.Errorf("%s: variable %s (from %s) is none the shop or the load tool reads", where, k, sourceName(from)))
			}
			if _, set := env[k]; !set {
				env[k] = v
			}
		}
	}
	if serves {
		errs = append(errs, checkServing(where, ct, env, c)...)
		errs = append(errs, checkTrustedProxies(where, env, b)...)
	} else if len(ct.Ports) > 0 || httpProbe(ct.ReadinessProbe) != nil || httpProbe(ct.LivenessProbe) != nil {
		errs = append(errs, fmt.Errorf("%s: it does not run shop serve, yet declares ports or HTTP probes", where))
	}
	return errs
}

// checkServing: the container's ports are the one SECKILL_HTTP_ADDR
// listens on, and its HTTP probes ask routes the shop serves on it.
func checkServing(where string, ct corev1.Container, env map[string]string, c Code) []error {
	var errs []error
	port := c.Port
	if addr, ok := env["SECKILL_HTTP_ADDR"]; ok {
		i := strings.LastIndex(addr, ":")
		port = int32(atoi(addr[i+1:]))
		if i < 0 || port <= 0 {
			return []error{fmt.Errorf("%s: SECKILL_HTTP_ADDR %q has no port", where, addr)}
		}
	}
	if len(ct.Ports) == 0 {
		errs = append(errs, fmt.Errorf("%s: no containerPort, and the shop serves on %d", where, port))
	}
	for _, p := range ct.Ports {
		if p.ContainerPort != port {
			errs = append(errs, fmt.Errorf("%s: containerPort %d, but the shop serves on %d (SECKILL_HTTP_ADDR)", where, p.ContainerPort, port))
		}
	}
	probes := map[string]*corev1.Probe{"readinessProbe": ct.ReadinessProbe, "livenessProbe": ct.LivenessProbe}
	for name, p := range probes {
		h := httpProbe(p)
		if h == nil {
			errs = append(errs, fmt.Errorf("%s: no HTTP %s", where, name))
			continue
		}
		if !c.Routes[h.Path] {
			errs = append(errs, fmt.Errorf("%s: %s asks %s, which the shop does not serve", where, name, h.Path))
		}
		if !portIn(h.Port, ct.Ports) {
			errs = append(errs, fmt.Errorf("%s: %s asks port %s, which is no port of the container", where, name, h.Port.String()))
		}
	}
	return errs
}

func httpProbe(p *corev1.Probe) *corev1.HTTPGetAction {
	if p == nil {
		return nil
	}
	return p.HTTPGet
}

func portIn(p intstr.IntOrString, ports []corev1.ContainerPort) bool {
	for _, cp := range ports {
		if (p.Type == intstr.String && p.StrVal == cp.Name) || (p.Type == intstr.Int && p.IntVal == cp.ContainerPort) {
			return true
		}
	}
	return false
}

func checkKeyRef(where string, from *corev1.EnvVarSource, b built) []error {
	switch {
	case from.SecretKeyRef != nil:
		return keyIn(where, "Secret", from.SecretKeyRef.Name, from.SecretKeyRef.Key, b)
	case from.ConfigMapKeyRef != nil:
		return keyIn(where, "ConfigMap", from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key, b)
	}
	return nil
}

func keyIn(where, kind, name, key string, b built) []error {
	o, ok := b.byKind[kind+"/"+name]
	if !ok {
		return []error{fmt.Errorf("%s: it reads %s/%s, which the build does not have", where, kind, name)}
	}
	if _, ok := dataOf(o)[key]; !ok {
		return []error{fmt.Errorf("%s: it reads key %s of %s/%s, which has no such key", where, key, kind, name)}
	}
	return nil
}

func sourceName(from corev1.EnvFromSource) string {
	if from.ConfigMapRef != nil {
		return "ConfigMap/" + from.ConfigMapRef.Name
	}
	if from.SecretRef != nil {
		return "Secret/" + from.SecretRef.Name
	}
	return "?"
}

func sourceData(from corev1.EnvFromSource, b built) (map[string]string, error) {
	o, ok := b.byKind[sourceName(from)]
	if !ok {
		return nil, fmt.Errorf("envFrom %s, which the build does not have", sourceName(from))
	}
	return dataOf(o), nil
}

func dataOf(o Object) map[string]string {
	out := map[string]string{}
	switch v := o.Obj.(type) {
	case *corev1.ConfigMap:
		for k, s := range v.Data {
			out[k] = s
		}
	case *corev1.Secret: // stringData over data, as the API server merges them
		for k, s := range v.Data {
			out[k] = string(s)
		}
		for k, s := range v.StringData {
			out[k] = s
		}
	}
	return out
}

// checkService: it selects some workload's pods, and each of its ports
// reaches a port of theirs.
func checkService(s *corev1.Service, b built) []error {
	where := "Service/" + s.Name
	ws := b.selected(&metav1.LabelSelector{MatchLabels: s.Spec.Selector})
	if len(ws) == 0 {
		return []error{fmt.Errorf("%s: its selector %v selects no workload's pods", where, s.Spec.Selector)}
	}
	var errs []error
	for _, p := range s.Spec.Ports {
		target := p.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(p.Port)
		}
		found := false
		for _, w := range ws {
			for _, ct := range w.pod.Spec.Containers {
				found = found || portIn(target, ct.Ports)
			}
		}
		if !found {
			errs = append(errs, fmt.Errorf("%s: port %s reaches %s, which no selected container declares", where, p.Name, target.String()))
		}
	}
	return errs
}

func checkIngress(in *networkingv1.Ingress, b built) []error {
	var errs []error
	for _, r := range in.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			svc := p.Backend.Service
			if svc == nil {
				continue
			}
			s := b.services[svc.Name]
			if s == nil {
				errs = append(errs, fmt.Errorf("Ingress/%s: path %s goes to Service %s, which the build does not have", in.Name, p.Path, svc.Name))
				continue
			}
			ok := false
			for _, sp := range s.Spec.Ports {
				ok = ok || (svc.Port.Name != "" && svc.Port.Name == sp.Name) || (svc.Port.Number != 0 && svc.Port.Number == sp.Port)
			}
			if !ok {
				errs = append(errs, fmt.Errorf("Ingress/%s: path %s goes to a port Service %s does not have", in.Name, p.Path, svc.Name))
			}
		}
	}
	return errs
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
