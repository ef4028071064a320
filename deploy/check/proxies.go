package check

import (
	"fmt"
	"net"
	"sort"
	"strings"
)

// checkTrustedProxies: a shop behind an Ingress trusts the proxies' range
// (SECKILL_TRUSTED_PROXIES), or every shopper reaching it through the
// Ingress is one client to its per-client limits; each item is an IP
// address or a CIDR range, or the shop refuses to start.
func checkTrustedProxies(where string, env map[string]string, b built) []error {
	v, set := env["SECKILL_TRUSTED_PROXIES"]
	var errs []error
	if strings.TrimSpace(v) == "" {
		if ing := b.ingresses(); len(ing) > 0 {
			errs = append(errs, fmt.Errorf("%s: behind %s, yet SECKILL_TRUSTED_PROXIES is unset: every shopper "+
				"would be the Ingress controller's one address to the per-client limits; set it to the pod network's range", where, strings.Join(ing, ", ")))
		}
		if !set {
			return errs
		}
	}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if _, _, err := net.ParseCIDR(item); err != nil && net.ParseIP(item) == nil {
			errs = append(errs, fmt.Errorf("%s: SECKILL_TRUSTED_PROXIES item %q is neither an IP address nor a CIDR range", where, item))
		}
	}
	return errs
}

// ingresses names the build's Ingresses.
func (b built) ingresses() []string {
	var out []string
	for id := range b.byKind {
		if strings.HasPrefix(id, "Ingress/") {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
