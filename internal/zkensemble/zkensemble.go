// Package zkensemble knows the three-server ZooKeeper ensemble that
// `scripts/services.sh up --zk-ensemble` runs: where each server keeps its
// pid file, how to ask a server its role (the four-letter word srvr), how
// to kill one and start it again with the very command line it ran, and the
// lock that keeps two killers apart. Two servers of three are a quorum; two
// killers at once (the zklock ensemble test and the kill_zk_server fault of
// a shop under another package's test) would take the quorum from both.
package zkensemble

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"time"

	"github.com/seckill-lab/seckill/internal/config"
)

// Ensemble is the ensemble's servers (client addresses; server i+1 is
// Servers[i], as services.sh numbers them) and the services folder where
// services.sh keeps zk-ensemble-N/{zookeeper.pid,zoo.cfg,zookeeper.log}.
type Ensemble struct {
	Servers []string
	Dir     string
}

// FromEnv is the ensemble of SECKILL_ZK_ENSEMBLE_SERVERS and
// SECKILL_SERVICES_DIR (services.sh's own variable; default ".run", which
// is right for a process started at the repository's root).
func FromEnv() Ensemble {
	return Ensemble{
		Servers: config.List(config.Get(config.EnvZKEnsembleServers, config.DefaultZKEnsembleServers)),
		Dir:     config.Get(config.EnvServicesDir, ".run"),
	}
}

// Errors of this package.
var (
	// ErrBusy: another process holds the ensemble's kill lock (it has a
	// server down, or is about to).
	ErrBusy = errors.New("zkensemble: another process is killing a server of the ensemble")
	// ErrNotMember: the address is not a server of the ensemble.
	ErrNotMember = errors.New("zkensemble: not a server of the ensemble")
)

// Index is addr's server number (1-based), or false.
func (e Ensemble) Index(addr string) (int, bool) {
	i := slices.Index(e.Servers, addr)
	return i + 1, i >= 0
}

func (e Ensemble) serverDir(i int) string {
	return filepath.Join(e.Dir, fmt.Sprintf("zk-ensemble-%d", i))
}

// PidFile is where services.sh keeps server i's pid.
func (e Ensemble) PidFile(i int) string { return filepath.Join(e.serverDir(i), "zookeeper.pid") }

var modeLine = regexp.MustCompile(`Mode: (\w+)`)

// Mode asks the server at addr its role: "leader", "follower",
// "standalone", or an error when it does not serve (down, or between
// leaders: a server without a quorum answers srvr without a mode).
func Mode(ctx context.Context, addr string) (string, error) {
	var d net.Dialer
	dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write([]byte("srvr")); err != nil {
		return "", err
	}
	out, err := io.ReadAll(io.LimitReader(c, 4096))
	if err != nil {
		return "", err
	}
	m := modeLine.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("zkensemble: %s does not serve: %q", addr, clip(out))
	}
	return string(m[1]), nil
}

func clip(b []byte) string {
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}

// Whole says whether every server serves as a member of a quorum (leader
// or follower), and which is the leader.
func (e Ensemble) Whole(ctx context.Context) (leader string, err error) {
	for _, s := range e.Servers {
		m, err := Mode(ctx, s)
		if err != nil {
			return "", err
		}
		switch m {
		case "leader":
			leader = s
		case "follower":
		default:
			return "", fmt.Errorf("zkensemble: %s is %s, not a member of an ensemble", s, m)
		}
	}
	if leader == "" {
		return "", errors.New("zkensemble: no leader")
	}
	return leader, nil
}

// WaitWhole polls Whole until it holds or ctx ends.
func (e Ensemble) WaitWhole(ctx context.Context) error {
	for {
		_, err := e.Whole(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("zkensemble: not whole again: %w (%w)", err, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Lock takes the ensemble's kill lock (an flock on a file in Dir, which
// the kernel frees if the holder dies), polling until ctx ends: ErrBusy
// then. Call unlock once every server you killed serves again.
func (e Ensemble) Lock(ctx context.Context) (unlock func(), err error) {
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(e.Dir, "zk-ensemble.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the file drops the lock
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ErrBusy
		case <-time.After(100 * time.Millisecond):
		}
	}
}
