package leaselessons

import (
	"context"
	"strings"
)

// etcdLeaseExpiry: pause-past-ttl on etcd, the lock beyond the seeds. A's
// replica stops (SIGSTOP) past its 2 s lease: its keep-alives stop, the
// lease expires, etcd deletes A's key, and B's key (a higher create
// revision) holds the lock; A wakes and writes. Without fencing a lost
// update; with the create revision as the fencing token, A's write is
// refused. Raft keeps the lock consistent; only the token stops a paused
// holder.
func etcdLeaseExpiry(ctx context.Context, sc *scenarioRun) (string, bool, error) {
	var parts []string
	pass := true
	for _, fencing := range []bool{false, true} {
		part, ok, err := sc.pausePastTTLOnce(ctx, pauseCase{strategy: "etcd", ttlMS: 2000, stopMS: 6000}, fencing, false)
		if err != nil {
			return "", false, err
		}
		pass = pass && ok
		parts = append(parts, part)
	}
	return strings.Join(parts, " | "), pass, nil
}
