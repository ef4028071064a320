package load

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ParseTargets splits and checks --targets.
func ParseTargets(s string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimRight(strings.TrimSpace(t), "/")
		if t == "" {
			continue
		}
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%q is not an http(s) base URL like http://127.0.0.1:8080", t)
		}
		if u.Path != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("%q: give the base URL only, without a path or query", t)
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New("at least one shop URL is required, e.g. --targets http://127.0.0.1:8080")
	}
	return out, nil
}
