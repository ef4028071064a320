// Package faultkind names the kinds of fault, as the API takes them (POST
// /api/faults {"kind": ...}). It imports nothing of the project: the fault
// table (internal/faults), the lessons, the chaos run and the timeline all
// say a kind with these constants.
//
//   - Name (faultkind.go): a kind's name, and one constant per kind.
package faultkind

// Name is a kind of fault as the API names it; on the wire it is the
// string itself.
type Name string

// The kinds of fault.
const (
	// PauseHolder stalls the next locked critical section after its lock check, past the lock's TTL.
	PauseHolder Name = "pause_holder"
	// NestedLock has the next locked critical section take its lock again, as the same holder.
	NestedLock Name = "nested_lock"
	// DropReply loses the reply of the next lock script on the sale's lock key.
	DropReply Name = "drop_reply"
	// SlowWork makes the next locked critical section work longer before its lock check.
	SlowWork Name = "slow_work"
	// ClockSkew runs this replica's clock ahead (redis-getset's expiry).
	ClockSkew Name = "clock_skew"
	// GetSetReleaseGap holds redis-getset's release between its GET and its DEL.
	GetSetReleaseGap Name = "getset_release_gap"
	// GetSetTakeoverGap holds redis-getset's takeover between its GET and its GETSET.
	GetSetTakeoverGap Name = "getset_takeover_gap"
	// ExpireZKSession expires the replica's ZooKeeper session.
	ExpireZKSession Name = "expire_zk_session"
	// SlowDB holds the sale's row lock in the database for a while.
	SlowDB Name = "slow_db"
	// CutDB cuts this replica off the database.
	CutDB Name = "cut_db"
	// CrashAfterSetNX crashes the holder right after its SETNX, before the EXPIRE.
	CrashAfterSetNX Name = "crash_after_setnx"
	// StopProcess stops the replica's process (SIGSTOP) for a while.
	StopProcess Name = "stop_process"
	// KillProcess kills the replica's process (SIGKILL).
	KillProcess Name = "kill_process"
	// RestartRedis restarts a Redis node.
	RestartRedis Name = "restart_redis"
	// FreezeRedis freezes a Redis node: it answers nothing for a while.
	FreezeRedis Name = "freeze_redis"
	// ClockJumpRedis jumps a Redis node's clock forward.
	ClockJumpRedis Name = "clock_jump_redis"
	// HoldReplication holds back the Sentinel master's replication.
	HoldReplication Name = "hold_replication"
	// KillRedisMaster kills the Sentinel master, so that a replica is promoted.
	KillRedisMaster Name = "kill_redis_master"
	// KillZKServer kills one server of the ZooKeeper ensemble of three.
	KillZKServer Name = "kill_zk_server"
	// KillConsumer kills the queue consumer at a point of its work.
	KillConsumer Name = "kill_consumer"
	// StaleRing takes the replica out of the others' hash ring, leaving it a stale view.
	StaleRing Name = "stale_ring"
)

// All is every kind, in the fault table's order.
var All = []Name{
	PauseHolder, NestedLock, DropReply, SlowWork, ClockSkew, GetSetReleaseGap, GetSetTakeoverGap,
	ExpireZKSession, SlowDB, CutDB, CrashAfterSetNX, StopProcess, KillProcess, RestartRedis, FreezeRedis,
	ClockJumpRedis, HoldReplication, KillRedisMaster, KillZKServer, KillConsumer, StaleRing,
}
