package locktest

import (
	"context"
	"io"
	"net"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// CutProxy forwards TCP connections to upstream. Once Armed, it lets the
// next request through to Redis but drops its reply and closes the client's
// connection: the command ran, the client only saw the connection die (as
// with a cut cable or a proxy restart), the case where go-redis re-sends.
type CutProxy struct {
	Addr  string
	Armed atomic.Bool
}

// NewCutProxy listens on a free local port until the test ends.
func NewCutProxy(t *testing.T, upstream string) *CutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &CutProxy{Addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c, upstream)
		}
	}()
	return p
}

func (p *CutProxy) serve(c net.Conn, upstream string) {
	defer c.Close()
	u, err := net.Dial("tcp", upstream)
	if err != nil {
		return
	}
	defer u.Close()
	go io.Copy(u, c)
	buf := make([]byte, 64<<10)
	for {
		n, err := u.Read(buf)
		if err != nil {
			return
		}
		if p.Armed.CompareAndSwap(true, false) {
			return // the reply is dropped, both connections close
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
	}
}

// CutClient is a client through a CutProxy to the Redis at addr, with the
// options the shop gives its lock clients.
func CutClient(t *testing.T, addr string) (*redis.Client, *CutProxy) {
	t.Helper()
	p := NewCutProxy(t, addr)
	c := redis.NewClient(lockstrategy.RedisOptions(p.Addr, 16))
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	return c, p
}
