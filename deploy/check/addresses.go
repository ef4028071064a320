package check

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// addressVars are the variables that name backends, comma-separated
// host:port lists; the DSN's address is inside tcp(...).
var addressVars = []string{"SECKILL_REDIS_ADDR", "SECKILL_REDLOCK_ADDRS", "SECKILL_ZK_SERVERS",
	"SECKILL_ETCD_ENDPOINTS", "SECKILL_SENTINEL_ADDRS", "SECKILL_MYSQL_DSN"}

var dsnAddr = regexp.MustCompile(`@tcp\(([^)]+)\)`)

// podName is a StatefulSet pod's stable name under its headless Service:
// <statefulset>-<ordinal>.<service>.
var podName = regexp.MustCompile(`^([a-z0-9-]+)-([0-9]+)\.([a-z0-9-]+)$`)

// CheckAddresses holds a build that runs its own backends to them: every
// backend address in the shop's ConfigMaps and Secrets is a pod a
// StatefulSet of the build has (ordinal below its replicas, under its
// headless Service) or a Service of the build, on a port it serves.
func CheckAddresses(objs []Object) []error {
	b := index(objs)
	var errs []error
	for _, o := range objs {
		data := dataOf(o)
		for _, name := range addressVars {
			v, ok := data[name]
			if !ok {
				continue
			}
			var addrs []string
			if name == "SECKILL_MYSQL_DSN" {
				m := dsnAddr.FindStringSubmatch(v)
				if m == nil {
					errs = append(errs, fmt.Errorf("%s: %s has no @tcp(host:port)", o, name))
					continue
				}
				addrs = []string{m[1]}
			} else {
				addrs = strings.Split(v, ",")
			}
			for _, a := range addrs {
				if err := b.reaches(strings.TrimSpace(a)); err != nil {
					errs = append(errs, fmt.Errorf("%s: %s: %w", o, name, err))
				}
			}
		}
	}
	return errs
}

func (b built) reaches(addr string) error {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return fmt.Errorf("%q: port %q", addr, p)
	}
	if m := podName.FindStringSubmatch(host); m != nil {
		o, ok := b.byKind["StatefulSet/"+m[1]]
		if !ok {
			return fmt.Errorf("%s: no StatefulSet %s in the build", addr, m[1])
		}
		s := o.Obj.(*appsv1.StatefulSet)
		n, _ := strconv.Atoi(m[2])
		if s.Spec.ServiceName != m[3] {
			return fmt.Errorf("%s: StatefulSet %s's pods are under %s, not %s", addr, m[1], s.Spec.ServiceName, m[3])
		}
		if s.Spec.Replicas == nil || int32(n) >= *s.Spec.Replicas {
			return fmt.Errorf("%s: StatefulSet %s has no pod %d", addr, m[1], n)
		}
		for _, ct := range s.Spec.Template.Spec.Containers {
			if portIn(intstr.FromInt(port), ct.Ports) {
				return nil
			}
		}
		return fmt.Errorf("%s: no container of StatefulSet %s serves port %d", addr, m[1], port)
	}
	svc := b.services[host]
	if svc == nil {
		return fmt.Errorf("%s: neither a StatefulSet's pod nor a Service of the build", addr)
	}
	for _, sp := range svc.Spec.Ports {
		if int(sp.Port) == port {
			return nil
		}
	}
	return fmt.Errorf("%s: Service %s has no port %d", addr, host, port)
}
