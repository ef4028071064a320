package zklock

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Expiring a session from outside (tests, the faults package) is the classic
// trick: a second connection presents the session's id and password, which
// moves the session to it, then closes it. The server deletes the session's
// ephemeral nodes and drops the first connection; that client reconnects,
// learns StateExpired, and Lost closes. The password is the session's secret,
// which go-zookeeper keeps private, so the dialer below reads it from the
// server's connect response.

// credentials of the current session, read off the wire.
type credentials struct {
	mu      sync.Mutex
	id      int64
	passwd  []byte
	timeout time.Duration // negotiated; until the first response, the requested one
}

func (c *credentials) sessionTimeout() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timeout
}

// dial is the client's zk.Dialer: a plain TCP dial whose connection notes
// the connect response, the first frame the server sends on it.
func (c *credentials) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	conn, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	return &sniffConn{Conn: conn, creds: c}, nil
}

// sniffConn parses the connect response out of the bytes the client reads.
// Reads come from one goroutine at a time (the handshake, then the receive
// loop it starts), so buf needs no lock.
type sniffConn struct {
	net.Conn
	creds *credentials
	buf   []byte
	done  bool
}

func (s *sniffConn) Read(p []byte) (int, error) {
	n, err := s.Conn.Read(p)
	if !s.done && n > 0 {
		s.buf = append(s.buf, p[:n]...)
		if r, ok := parseConnectResponse(s.buf); ok {
			s.done, s.buf = true, nil
			s.creds.mu.Lock()
			s.creds.id, s.creds.passwd = r.id, r.passwd
			if r.id != 0 {
				s.creds.timeout = r.timeout
			}
			s.creds.mu.Unlock()
		}
	}
	return n, err
}

type connectResponse struct {
	id      int64
	passwd  []byte
	timeout time.Duration
}

// parseConnectResponse decodes a length-prefixed connect response:
// protocolVersion int32, timeOut int32 (ms), sessionId int64, passwd buffer.
func parseConnectResponse(b []byte) (connectResponse, bool) {
	if len(b) < 4 {
		return connectResponse{}, false
	}
	n := int(binary.BigEndian.Uint32(b))
	if n < 20 || len(b) < 4+n {
		return connectResponse{}, false
	}
	f := b[4 : 4+n]
	r := connectResponse{
		timeout: time.Duration(int32(binary.BigEndian.Uint32(f[4:]))) * time.Millisecond,
		id:      int64(binary.BigEndian.Uint64(f[8:])),
	}
	if pl := int(int32(binary.BigEndian.Uint32(f[16:]))); pl > 0 && 20+pl <= len(f) {
		r.passwd = append([]byte(nil), f[20:20+pl]...)
	}
	return r, true
}

// SessionID returns the id of the current session (0 while there is none).
func (l *Locker) SessionID() int64 { return l.conn.SessionID() }

// Server is the server the session is connected to (or was last, or is
// trying), and whether the session is connected now.
func (l *Locker) Server() (addr string, connected bool) {
	return l.conn.Server(), l.conn.State() == zk.StateHasSession
}

// SessionPassword returns the current session's password, for ExpireSession.
func (l *Locker) SessionPassword() []byte {
	l.creds.mu.Lock()
	defer l.creds.mu.Unlock()
	return append([]byte(nil), l.creds.passwd...)
}

// ExpireSession expires this Locker's current session from outside, as a
// crashed or partitioned holder's session would expire: every lease it holds
// is lost and its nodes deleted; the Locker then opens a new session.
func (l *Locker) ExpireSession(ctx context.Context) error {
	l.creds.mu.Lock()
	id, pw := l.creds.id, l.creds.passwd // read together: one session's pair
	l.creds.mu.Unlock()
	if id == 0 {
		return errors.New("zklock: no session to expire")
	}
	server := l.conn.Server()
	if server == "" {
		server = l.servers[0]
	}
	return ExpireSession(ctx, server, id, pw)
}

// ExpireSession connects to server with session id and passwd, then closes
// that session. A session already gone is not an error.
func ExpireSession(ctx context.Context, server string, id int64, passwd []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return fmt.Errorf("zklock: expire session: %w", err)
	}
	defer conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	if dl, ok := ctx.Deadline(); ok {
		deadline = dl
	}
	_ = conn.SetDeadline(deadline)

	// ConnectRequest: protocolVersion, lastZxidSeen, timeOut (ms), sessionId, passwd.
	req := binary.BigEndian.AppendUint32(nil, 0)
	req = binary.BigEndian.AppendUint64(req, 0) // 0: a server never refuses us as "ahead"
	req = binary.BigEndian.AppendUint32(req, uint32(DefaultSessionTimeout/time.Millisecond))
	req = binary.BigEndian.AppendUint64(req, uint64(id))
	req = binary.BigEndian.AppendUint32(req, uint32(len(passwd)))
	req = append(req, passwd...)
	if err := writeFrame(conn, req); err != nil {
		return fmt.Errorf("zklock: expire session: %w", err)
	}
	resp, err := readFrame(conn)
	if err != nil {
		return fmt.Errorf("zklock: expire session: %w", err)
	}
	r, ok := parseConnectResponse(resp)
	if !ok {
		return errors.New("zklock: expire session: short connect response")
	}
	if r.id == 0 {
		return nil // already expired
	}
	// RequestHeader{xid 1, type closeSession (-11)}; the reply confirms it.
	closeReq := binary.BigEndian.AppendUint32(nil, 1)
	closeReq = binary.BigEndian.AppendUint32(closeReq, uint32(0xFFFFFFF5)) // int32(-11)
	if err := writeFrame(conn, closeReq); err != nil {
		return fmt.Errorf("zklock: expire session: %w", err)
	}
	if _, err := readFrame(conn); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("zklock: expire session: close: %w", err)
	}
	return nil
}

func writeFrame(w io.Writer, body []byte) error {
	_, err := w.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...))
	return err
}

// readFrame returns one frame, length prefix included (parseConnectResponse
// expects it).
func readFrame(r io.Reader) ([]byte, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > 1<<20 {
		return nil, fmt.Errorf("frame of %d bytes", n)
	}
	body := make([]byte, 4+n)
	copy(body, head[:])
	_, err := io.ReadFull(r, body[4:])
	return body, err
}
