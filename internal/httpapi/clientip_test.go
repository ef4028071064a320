package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// The client of a request: the TCP peer unless it is a trusted proxy, then
// the rightmost address of the forwarding header that is not itself a
// trusted proxy; never an address an untrusted peer wrote.
func TestClientIPs(t *testing.T) {
	const trusted = "10.0.0.0/8, 192.0.2.1, 2001:db8:ffff::/48"
	xff, err := NewClientIPs(trusted, "")
	if err != nil {
		t.Fatal(err)
	}
	fwd, err := NewClientIPs(trusted, "forwarded") // any case, as HTTP header names
	if err != nil {
		t.Fatal(err)
	}
	none, err := NewClientIPs("", HeaderXForwardedFor)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		c       *ClientIPs
		peer    string
		headers []string // "Name: value", in order (a header may repeat)
		want    string
	}{
		{"no proxy configured: the peer, its header ignored", none, "10.1.2.3:5000", []string{"X-Forwarded-For: 198.51.100.7"}, "10.1.2.3"},
		{"nil: the peer", nil, "198.51.100.9:1", []string{"X-Forwarded-For: 198.51.100.7"}, "198.51.100.9"},
		{"untrusted peer: its X-Forwarded-For ignored", xff, "203.0.113.5:5000", []string{"X-Forwarded-For: 198.51.100.7"}, "203.0.113.5"},
		{"untrusted peer: its Forwarded ignored", fwd, "203.0.113.5:5000", []string{"Forwarded: for=198.51.100.7"}, "203.0.113.5"},
		{"trusted peer, one hop", xff, "10.244.1.7:5000", []string{"X-Forwarded-For: 198.51.100.7"}, "198.51.100.7"},
		{"a single trusted address", xff, "192.0.2.1:80", []string{"X-Forwarded-For: 198.51.100.7"}, "198.51.100.7"},
		{"the address beside it is not trusted", xff, "192.0.2.2:80", []string{"X-Forwarded-For: 198.51.100.7"}, "192.0.2.2"},
		{"chain: trusted hops skipped, the client's own claim ignored", xff, "10.0.0.1:5000",
			[]string{"X-Forwarded-For: 6.6.6.6, 198.51.100.7, 10.0.0.2, 10.0.0.3"}, "198.51.100.7"},
		{"chain over repeated headers", xff, "10.0.0.1:5000",
			[]string{"X-Forwarded-For: 6.6.6.6", "X-Forwarded-For: 198.51.100.7,10.9.9.9"}, "198.51.100.7"},
		{"trusted peer without the header: the peer", xff, "10.0.0.1:5000", nil, "10.0.0.1"},
		{"every hop trusted: the peer", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: 10.0.0.5, 10.0.0.6"}, "10.0.0.1"},
		{"garbage rightmost: the peer", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: 198.51.100.7, not-an-ip"}, "10.0.0.1"},
		{"garbage header: the peer", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: <script>, ,;;"}, "10.0.0.1"},
		{"unspecified address: the peer", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: 0.0.0.0"}, "10.0.0.1"},
		{"XFF with a port", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: 198.51.100.7:4711"}, "198.51.100.7"},
		{"IPv4-mapped IPv6 spelled as IPv4", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: ::ffff:198.51.100.7"}, "198.51.100.7"},
		{"IPv6 client", xff, "10.0.0.1:5000", []string{"X-Forwarded-For: 2001:db8:1::7"}, "2001:db8:1::7"},
		{"IPv6 trusted peer and hop", xff, "[2001:db8:ffff::1]:443", []string{"X-Forwarded-For: 2001:db8:1::7, 2001:db8:ffff::2"}, "2001:db8:1::7"},
		{"the XFF proxy's header is read, not Forwarded", xff, "10.0.0.1:5000",
			[]string{"Forwarded: for=6.6.6.6", "X-Forwarded-For: 198.51.100.7"}, "198.51.100.7"},
		{"the Forwarded proxy's header is read, not XFF", fwd, "10.0.0.1:5000",
			[]string{"X-Forwarded-For: 6.6.6.6", "Forwarded: for=198.51.100.7;proto=https;by=10.0.0.1"}, "198.51.100.7"},
		{"Forwarded: quoted IPv6 with a port", fwd, "10.0.0.1:5000",
			[]string{`Forwarded: for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::17"},
		{"Forwarded: quoted IPv4 with a port, mixed case", fwd, "10.0.0.1:5000",
			[]string{`Forwarded: For="198.51.100.7:4711"`}, "198.51.100.7"},
		{"Forwarded: chain, trusted hops skipped", fwd, "10.0.0.1:5000",
			[]string{`Forwarded: for=6.6.6.6, for=198.51.100.7;proto=http, for="[2001:db8:ffff::9]"`}, "198.51.100.7"},
		{"Forwarded: obfuscated identifier names no address", fwd, "10.0.0.1:5000",
			[]string{"Forwarded: for=_hidden, for=unknown"}, "10.0.0.1"},
		{"Forwarded: garbage", fwd, "10.0.0.1:5000", []string{`Forwarded: for="[::1`}, "10.0.0.1"},
		{"a peer that is no address stays as it is", xff, "@", []string{"X-Forwarded-For: 198.51.100.7"}, "@"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, kv := range tc.headers {
				k, v, _ := strings.Cut(kv, ": ")
				h.Add(k, v)
			}
			if got := tc.c.Of(h, tc.peer); got != tc.want {
				t.Errorf("peer %s, headers %q: client %q, want %q", tc.peer, tc.headers, got, tc.want)
			}
		})
	}
}

// Bad configuration is refused with a message naming what is wrong.
func TestClientIPsConfiguration(t *testing.T) {
	for _, tc := range []struct{ trusted, header, want string }{
		{"10.0.0.0/33", "", `"10.0.0.0/33"`},
		{"10.0.0.0/8,proxy.local", "", `"proxy.local"`},
		{"fe80::1%eth0", "", `"fe80::1%eth0"`},
		{"10.0.0.0/8", "X-Real-IP", "X-Real-IP"},
	} {
		if _, err := NewClientIPs(tc.trusted, tc.header); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewClientIPs(%q, %q): %v, want an error naming %s", tc.trusted, tc.header, err, tc.want)
		}
	}
	c, err := NewClientIPs(" 10.0.0.0/8 ,, 192.0.2.1 ", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Trusted(), " "); got != "10.0.0.0/8 192.0.2.1/32" {
		t.Errorf("trusted %q", got)
	}
}
