package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// ErrDBCut is the dial error of a link that is cut: the database is
// unreachable from this replica (a *net.OpError wraps it, as a refused
// connection would be).
var ErrDBCut = errors.New("faults: this replica is cut off its database (cut_db)")

// ErrNoDBLink: the replica's database connections do not go through a
// DBLink (faults were off when it started), so they cannot be cut.
var ErrNoDBLink = errors.New("faults: this replica's database connections cannot be cut")

// DBLink is the path from a replica to its database, in the replica's own
// hands: the MySQL driver dials through it, so cut_db can close every
// connection it made and refuse new ones for a while. From the replica that
// is what a partition or a crashed database looks like: each statement
// fails, and the server rolls back every transaction whose connection
// closed (and frees its row locks). Other replicas keep their own links.
type DBLink struct {
	network string // the network name registered with the driver
	mu      sync.Mutex
	until   time.Time // cut until then
	conns   map[*linkConn]struct{}
}

var linkSeq atomic.Int64

// NewDBLink registers a dialer with the MySQL driver under a network name
// of its own and returns the link with dsn rewritten to dial through it.
// Only TCP DSNs can be cut.
func NewDBLink(dsn string) (*DBLink, string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, "", err
	}
	if cfg.Net != "tcp" {
		return nil, "", fmt.Errorf("faults: a %s DSN cannot be cut, only tcp", cfg.Net)
	}
	l := &DBLink{network: fmt.Sprintf("seckill-dblink-%d", linkSeq.Add(1)), conns: map[*linkConn]struct{}{}}
	mysql.RegisterDialContext(l.network, l.dial)
	cfg.Net = l.network
	return l, cfg.FormatDSN(), nil
}

func (l *DBLink) dial(ctx context.Context, addr string) (net.Conn, error) {
	if l.Left() > 0 {
		return nil, cutError(addr)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	lc := &linkConn{Conn: c, l: l}
	l.mu.Lock()
	defer l.mu.Unlock()
	if time.Now().Before(l.until) { // cut while we dialled
		c.Close()
		return nil, cutError(addr)
	}
	l.conns[lc] = struct{}{}
	return lc, nil
}

func cutError(addr string) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: tcpAddr(addr), Err: ErrDBCut}
}

type tcpAddr string

func (a tcpAddr) Network() string { return "tcp" }
func (a tcpAddr) String() string  { return string(a) }

// Cut closes every connection the link made and refuses new ones for d.
func (l *DBLink) Cut(d time.Duration) {
	l.mu.Lock()
	l.until = time.Now().Add(d)
	conns := l.conns
	l.conns = map[*linkConn]struct{}{}
	l.mu.Unlock()
	for c := range conns {
		_ = c.Conn.Close()
	}
}

// Left is how long the cut still lasts (0: connected).
func (l *DBLink) Left() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return max(0, time.Until(l.until))
}

// linkConn forgets itself when the driver closes it.
type linkConn struct {
	net.Conn
	l *DBLink
}

func (c *linkConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// CutDB cuts this replica off its database for d (DBLink.Cut).
func (s *Service) CutDB(d time.Duration) error {
	if err := s.check(d); err != nil {
		return err
	}
	if s.cfg.DBLink == nil {
		return ErrNoDBLink
	}
	s.cfg.DBLink.Cut(d)
	return nil
}

// DBCutLeft is how long this replica's cut_db still lasts (0: none).
func (s *Service) DBCutLeft() time.Duration {
	if s.cfg.DBLink == nil {
		return 0
	}
	return s.cfg.DBLink.Left()
}
