package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/realclientip/realclientip-go"
)

// Who a request comes from, for every per-client limit: the order routes'
// budget, a sale's rate_limit_ip, the event streams' cap. Behind a reverse
// proxy (the Ingress) every TCP peer is the proxy, so the client is read
// from the proxy's forwarding header, but only when the peer is one of the
// configured trusted proxies: anyone else could write any address there.

// Forwarding headers a trusted proxy may name the client in.
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded" // RFC 7239
)

// ClientIPs finds a request's client address. The zero value and nil
// trust no proxy: the client is the TCP peer.
type ClientIPs struct {
	trusted []net.IPNet
	header  realclientip.RightmostTrustedRangeStrategy
}

// NewClientIPs trusts the proxies in trusted (comma-separated IP addresses
// or CIDR ranges; "" for none) and reads the client from header
// (HeaderXForwardedFor, or HeaderForwarded; "" is X-Forwarded-For). The
// errors name what was wrong, for the shop's start-up message.
func NewClientIPs(trusted, header string) (*ClientIPs, error) {
	if header == "" {
		header = HeaderXForwardedFor
	}
	var nets []net.IPNet
	for _, item := range strings.Split(trusted, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		n, err := realclientip.AddressesAndRangesToIPNets(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an IP address nor a CIDR range (e.g. 10.244.0.0/16)", item)
		}
		nets = append(nets, n...)
	}
	strat, err := realclientip.NewRightmostTrustedRangeStrategy(header, nets)
	if err != nil {
		return nil, fmt.Errorf("client IP header %q: want %s or %s", header, HeaderXForwardedFor, HeaderForwarded)
	}
	return &ClientIPs{trusted: nets, header: strat}, nil
}

// Of returns the client of a request with these headers from this TCP
// peer (http.Request.RemoteAddr, "ip:port"). The peer itself unless it is a
// trusted proxy; then the rightmost address of the forwarding header that
// is not a trusted proxy, or the peer still when the header names none
// (absent, garbage, or only trusted proxies).
func (c *ClientIPs) Of(h http.Header, remoteAddr string) string {
	peer := peerIP(remoteAddr)
	if c == nil || len(c.trusted) == 0 {
		return peer
	}
	ip := net.ParseIP(peer)
	if ip == nil || !inNets(ip, c.trusted) {
		return peer // an untrusted peer's forwarding headers are ignored
	}
	if client := c.header.ClientIP(h, remoteAddr); client != "" {
		if ip := net.ParseIP(client); ip != nil {
			return ip.String() // one spelling per address: 1.2.3.4, not ::ffff:1.2.3.4
		}
		return client // with a zone: fe80::1%eth0
	}
	return peer
}

// Trusted lists the trusted proxies' ranges, for the start log.
func (c *ClientIPs) Trusted() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.trusted))
	for i, n := range c.trusted {
		out[i] = n.String()
	}
	return out
}

// peerIP is the address of "ip:port" (or of a bare ip), in its canonical
// spelling; what cannot be parsed is returned as it is.
func peerIP(remoteAddr string) string {
	host, _, err := net.SplitHostPort(strings.TrimSpace(remoteAddr))
	if err != nil {
		host = strings.TrimSpace(remoteAddr)
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.String()
	}
	return host
}

func inNets(ip net.IP, nets []net.IPNet) bool {
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// clientIP is the client of c's request: what every per-client limit keys
// on (never c.RemoteIP(), the proxy's address behind one, nor gin's
// ClientIP, whose trusted proxies are none: SetTrustedProxies(nil)).
func (s *Server) clientIP(c *gin.Context) string {
	return s.clientIPs.Of(c.Request.Header, c.Request.RemoteAddr)
}
