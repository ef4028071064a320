package matrix

import (
	"github.com/seckill-lab/seckill/internal/faultkind"
	"github.com/seckill-lab/seckill/internal/lockstrategy"
)

// Predict is what the lab expects when fault f strikes row r where it can
// do harm (inside a holder's section, between acquire and write, at the
// failover, during the persist): n/a where the fault cannot touch the
// configuration, broken where the configuration breaks with no fault at
// all, else the fault's own rule.
func Predict(r Row, f faultkind.Name) Prediction {
	e, ok := effects[f]
	if !ok {
		return predict(NA, "the lab has no rule for this fault yet", "实验室尚无此故障的规则")
	}
	if !e.touches(r) {
		return predict(NA, e.untouchedEn, e.untouchedZh)
	}
	if brokenAlone(r) {
		return predict(Broken, "breaks with no fault at all: two replicas' buyers are inside at once",
			"无需任何故障就会出错：两个实例的买家同时进入临界区")
	}
	return e.predict(r)
}

// effect is what one fault touches and what it does there.
type effect struct {
	touches                  func(Row) bool
	untouchedEn, untouchedZh string
	predict                  func(Row) Prediction
}

// brokenAlone: a lock that does not exclude across replicas (none, a
// process's mutex, FOR UPDATE without a transaction).
func brokenAlone(r Row) bool {
	s := r.Strategy
	return !s.Safe && r.IsLock() && (s.Expiry == lockstrategy.ExpiryNone || s.Expiry == lockstrategy.ExpiryProcess)
}

// staleHolder is the outcome when a holder outlives its lock while
// another buyer takes it: fencing refuses the stale write, else it lands.
func staleHolder(r Row, en, zh string) Prediction {
	if r.fenced() {
		return predict(OverlappedSafe, en+"; fencing refuses the stale holder's write", zh+"；防护令牌拒绝过期持锁者的写入")
	}
	return predict(Broken, en+"; the stale holder's write lands (lost update)", zh+"；过期持锁者的写入生效（丢失更新）")
}

func anyLock(r Row) bool { return r.IsLock() }
func onRedis(r Row) bool { return r.needs(lockstrategy.NeedRedis) || r.needs(lockstrategy.NeedRedlock) }
func named(names ...string) func(Row) bool {
	return func(r Row) bool {
		for _, n := range names {
			if r.Strategy.Name == n {
				return true
			}
		}
		return false
	}
}
func always(Row) bool { return true }

const (
	noLockEn = "takes no lock: there is no holder to strike"
	noLockZh = "不加锁：没有持锁者可以打击"
)

var effects = map[faultkind.Name]effect{
	faultkind.PauseHolder: {anyLock, noLockEn, noLockZh, longSection},
	faultkind.NestedLock:  {anyLock, noLockEn, noLockZh, nestedLock},
	faultkind.SlowWork:    {anyLock, noLockEn, noLockZh, slowWork},
	faultkind.DropReply: {named("redis", "redisson"),
		"only redis's and redisson's lock scripts can lose their reply here", "只有 redis 和 redisson 的加锁脚本会在这里丢失响应",
		func(r Row) Prediction {
			if r.Strategy.Name == "redis" {
				return predict(Holds, "the acquire's reply is lost; its retry finds its own token on the key, holds the lock and buys",
					"加锁的响应丢失；重试时发现 key 上是自己的令牌，于是持有锁并下单")
			}
			return predict(Unavailable, "the acquire succeeds but its reply is lost: the client gives up and nobody holds the lock until its TTL frees it",
				"加锁成功但响应丢失：客户端放弃，在 TTL 释放它之前没有人持有这把锁")
		}},
	faultkind.ClockSkew: {named("redis-getset"), getsetOnlyEn, getsetOnlyZh, func(Row) Prediction {
		return predict(Broken, "a clock ahead reads a live lock as expired and takes it", "时钟超前的实例把仍有效的锁读成已过期并抢走它")
	}},
	faultkind.GetSetReleaseGap: {named("redis-getset"), getsetOnlyEn, getsetOnlyZh, func(Row) Prediction {
		return predict(Broken, "the release's DEL deletes the next holder's lock: a third buyer enters beside it",
			"释放时的 DEL 删掉了下一个持锁者的锁：第三个买家与它同时进入")
	}},
	faultkind.GetSetTakeoverGap: {named("redis-getset"), getsetOnlyEn, getsetOnlyZh, func(Row) Prediction {
		return predict(Unavailable, "the losing GETSET overwrites the winner's expiry: its release is refused and nobody holds the lock until that expiry",
			"失败的 GETSET 覆盖了赢家的过期时间：赢家的释放被拒绝，直到该过期时间之前没有人持有锁")
	}},
	faultkind.ExpireZKSession: {named("zookeeper"), "only a ZooKeeper session can expire", "只有 ZooKeeper 会话会过期",
		func(r Row) Prediction {
			return staleHolder(r, "the holder's session expires while it is inside: its node vanishes and the next buyer takes the lock",
				"持锁者在临界区内时会话过期：它的节点消失，下一个买家拿到锁")
		}},
	faultkind.SlowDB:      {always, "", "", slowDB},
	faultkind.CutDB:       {always, "", "", cutDB},
	faultkind.StopProcess: {always, "", "", stopProcess},
	faultkind.KillProcess: {always, "", "", killProcess},
	faultkind.CrashAfterSetNX: {named("redis-setnx-expire", "redis", "redis-getset", "db-lock-table", "db-lock-table-plain"),
		"the crash point is inside the acquire of redis-setnx-expire, redis, redis-getset and the lock table only",
		"崩溃点只在 redis-setnx-expire、redis、redis-getset 和锁表的加锁过程中", crashAfterAcquire},
	faultkind.RestartRedis: {onRedis, notOnRedisEn, notOnRedisZh, restartRedis},
	faultkind.FreezeRedis:  {onRedis, notOnRedisEn, notOnRedisZh, freezeRedis},
	faultkind.ClockJumpRedis: {func(r Row) bool { return onRedis(r) && r.Strategy.Name != "redis-getset" },
		"keeps no key with a Redis TTL on the lab's Redis nodes (redis-getset's expiry is a time in its value)",
		"在实验室的 Redis 节点上没有带 Redis TTL 的 key（redis-getset 的过期时间是写在值里的时刻）", clockJumpRedis},
	faultkind.HoldReplication: {named("redis-sentinel"), sentinelOnlyEn, sentinelOnlyZh, func(Row) Prediction {
		return predict(Holds, "alone, a replica that falls behind changes nothing: the master still holds every lock",
			"单独发生时，落后的副本不改变什么：主节点仍持有每一把锁")
	}},
	faultkind.KillRedisMaster: {named("redis-sentinel"), sentinelOnlyEn, sentinelOnlyZh, func(r Row) Prediction {
		return staleHolder(r, "the promoted replica never saw the held lock: the next buyer takes it while the holder is inside",
			"被提升的副本从未见过这把锁：持锁者仍在临界区内时，下一个买家就拿到了锁")
	}},
	faultkind.KillZKServer: {named("zookeeper"), "only the zookeeper strategy runs on the ensemble", "只有 zookeeper 策略运行在集群上",
		func(Row) Prediction {
			return predict(Holds, "two servers of three are a quorum: the session moves to a live server and keeps its lock",
				"三台中的两台构成法定多数：会话迁移到存活的服务器并保住它的锁")
		}},
	faultkind.KillConsumer: {func(r Row) bool { return r.Async }, "only a queued sale has a consumer to kill", "只有排队下单的场次才有消费者可杀",
		func(Row) Prediction {
			return predict(Holds, "the batch's entries stay pending and another replica's consumer reclaims them: each becomes one order",
				"该批次的条目保持待处理，另一个实例的消费者接手它们：每个条目只成为一个订单")
		}},
	faultkind.StaleRing: {named("consistent-hash"), "only consistent-hash routes sales by a ring", "只有 consistent-hash 按哈希环路由秒杀场次",
		func(r Row) Prediction {
			return staleHolder(r, "two replicas each believe they own the sale and both sell it",
				"两个实例都认为自己拥有该场次并同时售卖")
		}},
}

const (
	getsetOnlyEn   = "only redis-getset reads a clock it wrote, and only it has these gaps"
	getsetOnlyZh   = "只有 redis-getset 读取自己写下的时钟，也只有它有这些间隙"
	notOnRedisEn   = "keeps nothing on the lab's Redis nodes"
	notOnRedisZh   = "不在实验室的 Redis 节点上保存任何东西"
	sentinelOnlyEn = "only redis-sentinel runs on the Sentinel set"
	sentinelOnlyZh = "只有 redis-sentinel 运行在哨兵集群上"
)
