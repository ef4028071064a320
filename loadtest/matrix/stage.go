package matrix

import (
	"time"

	"github.com/seckill-lab/seckill/internal/faultkind"
	model "github.com/seckill-lab/seckill/internal/matrix"
)

// stage is how one fault is put where it can do harm, the way the lessons
// do it: the sale's settings, what is armed before buyer A's order, whether
// A is held inside its section when the fault strikes, and the fault
// itself. Every cell of a column runs the same stage.
type stage struct {
	// ttlMS and workMS are the sale's lock TTL and its work per section.
	ttlMS, workMS int
	// before are armed on the holder's replica before A's order (a
	// one-shot fault point, a fault that must precede the lock).
	before func(c cellRun) []map[string]any
	// holdMS > 0: A is stalled inside its section (pause_holder) for that
	// long when the fault strikes (a lock strategy only). waitStall: A's
	// own fault (slow_work) stalls it; the stage waits for that.
	holdMS    int
	waitStall bool
	// aFirst: the probers start once A has its answer, so that the
	// one-shot fault armed before strikes A, not a prober.
	aFirst bool
	// during strike once A is inside (or at once, without a holder), on
	// the holder's replica (onOther: on the other one).
	during  func(c cellRun) []map[string]any
	onOther bool
	// everywhere: during strikes every replica.
	everywhere bool
	// holderLegit: waiting for a live holder is the lock working, not the
	// sale stopping: the time it takes is not counted as unavailable.
	holderLegit bool
	// lastsMS is how long the fault lasts once struck (0: until A's
	// answer); the sale must sell again after it.
	lastsMS int
	// victim: the fault kills the holder's replica; the cell runs it on a
	// replica of the matrix's own (a killed demo replica is not restarted).
	victim bool
}

// stages is the stage of each fault kind.
var stages = map[faultkind.Name]stage{
	// Past the TTL, a 2 s lease renewed every third of it: a loaded
	// machine's late renewal does not pass for the fault.
	faultkind.PauseHolder: {ttlMS: 2000, holdMS: 4500, holderLegit: true},
	faultkind.SlowWork: {ttlMS: 2000, waitStall: true, holderLegit: true,
		before: one(faultkind.SlowWork, "ms", 4500)},
	// Nested inside the TTL: the holder waits for itself, its lease lives.
	faultkind.NestedLock: {ttlMS: 2000, aFirst: true, before: one(faultkind.NestedLock, "ms", 1500)},
	faultkind.DropReply: {ttlMS: 2000, aFirst: true, before: func(c cellRun) []map[string]any {
		return []map[string]any{{"kind": faultkind.DropReply, "sale_id": c.sale}}
	}},
	// redis-getset's own faults, as their lessons set them: a clock ahead
	// on the replica where B asks while A holds on the other.
	faultkind.ClockSkew: {ttlMS: 2000, holdMS: 4000, holderLegit: true, onOther: true,
		during: one(faultkind.ClockSkew, "ms", 5000)},
	// A's release held between its GET and its DEL until its lock has
	// expired and a buyer on another replica has taken it over and stalls
	// inside: A's DEL deletes that buyer's lock and a third walks in.
	faultkind.GetSetReleaseGap: {ttlMS: 2500, workMS: 300, lastsMS: 4800, onOther: true,
		before: one(faultkind.GetSetReleaseGap, "ms", 4800), during: one(faultkind.PauseHolder, "ms", 2000)},
	// A dies holding the lock; a buyer on another replica reads its expiry
	// as past and waits before its GETSET while another takes the lock
	// over: the loser's GETSET writes its expiry over the winner's.
	faultkind.GetSetTakeoverGap: {ttlMS: 2000, workMS: 300, onOther: true,
		before: one(faultkind.CrashAfterSetNX), during: one(faultkind.GetSetTakeoverGap, "ms", 8000)},
	// Inside the TTL (15 s): only the fault can take the lock away.
	faultkind.ExpireZKSession: {ttlMS: 15000, holdMS: 3000, holderLegit: true,
		during: one(faultkind.ExpireZKSession)},
	faultkind.SlowDB: {ttlMS: 2000, lastsMS: 3000, during: func(c cellRun) []map[string]any {
		return []map[string]any{{"kind": faultkind.SlowDB, "ms": 3000, "sale_id": c.sale}}
	}},
	// The database cut off from every replica while A is inside: the
	// single point every road writes to.
	faultkind.CutDB: {ttlMS: 2000, holdMS: 500, holderLegit: true, lastsMS: 3000, everywhere: true,
		during: one(faultkind.CutDB, "ms", 3000)},
	faultkind.CrashAfterSetNX: {ttlMS: 2000, aFirst: true, before: one(faultkind.CrashAfterSetNX)},
	// The stop outlasts the 1 s lease: nothing renews in a stopped process.
	faultkind.StopProcess: {ttlMS: 1000, holdMS: 1500, holderLegit: true, lastsMS: 3000,
		during: one(faultkind.StopProcess, "ms", 3000)},
	faultkind.KillProcess: {ttlMS: 3000, holdMS: 30000, holderLegit: true, victim: true,
		during: one(faultkind.KillProcess, "ms", 50)},
	faultkind.RestartRedis: {ttlMS: 15000, holdMS: 4000, holderLegit: true,
		during: func(c cellRun) []map[string]any {
			return []map[string]any{{"kind": faultkind.RestartRedis, "node": redisNode(c.row)}}
		}},
	// Frozen with no holder inside: a holder would wait for the thaw too
	// and its wait would hide the sale's.
	faultkind.FreezeRedis: {ttlMS: 2000, lastsMS: 3000, during: func(c cellRun) []map[string]any {
		return []map[string]any{{"kind": faultkind.FreezeRedis, "ms": 3000, "node": redisNode(c.row)}}
	}},
	faultkind.ClockJumpRedis: {ttlMS: 15000, holdMS: 4000, holderLegit: true,
		during: func(c cellRun) []map[string]any {
			return []map[string]any{{"kind": faultkind.ClockJumpRedis, "ms": 1, "node": redisNode(c.row)}}
		}},
	faultkind.HoldReplication: {ttlMS: 2000, lastsMS: 3000, during: one(faultkind.HoldReplication, "ms", 3000)},
	// The lock taken while replication is held lives on the master only;
	// the master then dies and the replica that never saw it is promoted.
	faultkind.KillRedisMaster: {ttlMS: 15000, holdMS: 6000, holderLegit: true,
		before: one(faultkind.HoldReplication, "ms", 20000), during: one(faultkind.KillRedisMaster, "ms", 3000)},
	faultkind.KillZKServer: {ttlMS: 15000, holdMS: 3000, holderLegit: true, lastsMS: 5000,
		during: one(faultkind.KillZKServer, "ms", 5000)},
	// The consumer's kill is its process's: on a replica of the matrix's
	// own, whose consumer takes the queued orders A and the probers place
	// there.
	faultkind.KillConsumer: {ttlMS: 2000, victim: true, before: one(faultkind.KillConsumer, "point", "before_commit")},
	// The sale's owner out of the others' rings for 3 s while its holder
	// is inside: a new owner sells beside it.
	faultkind.StaleRing: {ttlMS: 2000, holdMS: 3000, holderLegit: true, lastsMS: 3000,
		during: one(faultkind.StaleRing, "ms", 3000)},
}

// one is a stage's fault list of one fault of kind with its parameters
// (name, value, name, value...).
func one(kind faultkind.Name, params ...any) func(cellRun) []map[string]any {
	return func(cellRun) []map[string]any {
		f := map[string]any{"kind": kind}
		for i := 0; i+1 < len(params); i += 2 {
			f[params[i].(string)] = params[i+1]
		}
		return []map[string]any{f}
	}
}

// redisNode is the Redis node a row's lock or stock lives on: one master of
// RedLock's three (the other two are its quorum), else the default Redis.
func redisNode(r model.Row) string {
	if r.Strategy.Name == "redlock" {
		return "redlock-1"
	}
	return "redis"
}

// lasts is how long the stage's fault lasts once struck.
func (s stage) lasts() time.Duration { return time.Duration(s.lastsMS) * time.Millisecond }
