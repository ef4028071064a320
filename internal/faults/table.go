package faults

// Kinds of fault, as the API names them.
const (
	KindPauseHolder       = "pause_holder"
	KindNestedLock        = "nested_lock"
	KindDropReply         = "drop_reply"
	KindSlowWork          = "slow_work"
	KindClockSkew         = "clock_skew"
	KindGetSetReleaseGap  = "getset_release_gap"
	KindGetSetTakeoverGap = "getset_takeover_gap"
	KindExpireZKSession   = "expire_zk_session"
	KindSlowDB            = "slow_db"
	KindCutDB             = "cut_db"
	KindCrashAfterSetNX   = "crash_after_setnx"
	KindStopProcess       = "stop_process"
	KindKillProcess       = "kill_process"
	KindRestartRedis      = "restart_redis"
	KindHoldReplication   = "hold_replication"
	KindKillRedisMaster   = "kill_redis_master"
	KindKillZKServer      = "kill_zk_server"
	KindKillConsumer      = "kill_consumer"
)

// Settings that several kinds need to show a stale write.
const (
	pastTTL    = "ms longer than the lock's TTL (ttl_ms)"
	fencingOff = "fencing off for the stale write to land (with fencing it is refused: fenced_writes)"
)

// table is every fault: adding one is an entry here and its run function.
var table = []Kind{
	{
		Name:  KindPauseHolder,
		Title: Text{"Pause the lock holder", "暂停持锁者"},
		Description: Text{
			"the next locked critical section on this replica stalls ms after its lock check, before its write: " +
				"a GC pause past the lock's TTL (only fencing survives it)",
			"本实例下一个持锁的临界区在检查锁之后、写入之前停顿 ms 毫秒：相当于超过锁 TTL 的 GC 停顿（只有防护令牌能扛住）"},
		Params: []Param{millis(3000)},
		Needs: Needs{Settings: []string{pastTTL,
			"watchdog off (a live process renews its lease through the pause)", fencingOff}},
		Chaos: Chaos{Draw: true},
		Run:   runPauseHolder,
	},
	{
		Name:  KindNestedLock,
		Title: Text{"Take the held lock again (nested)", "重入加锁（嵌套）"},
		Description: Text{
			"the next locked critical section on this replica takes its lock again, as the same holder, waiting at " +
				"most ms: a non-reentrant lock waits for itself (nested_lock_timeout), a reentrant one (redisson) " +
				"counts the hold",
			"本实例下一个持锁的临界区以同一持有者身份再次加锁，最多等待 ms 毫秒：不可重入的锁会等待自己" +
				"（nested_lock_timeout），可重入的锁（redisson）则累加持有次数"},
		Params: []Param{millis(1500)},
		Chaos:  Chaos{Draw: true},
		Run:    runNestedLock,
	},
	{
		Name:  KindDropReply,
		Title: Text{"Lose the reply of the next lock script", "丢失下一个加锁脚本的响应"},
		Description: Text{
			"the next lock script this replica runs on the sale's lock key runs on Redis, and its reply is lost on " +
				"the way back (seed 002: did the acquire that timed out succeed?)",
			"本实例在该秒杀活动的锁 key 上执行的下一个加锁脚本在 Redis 上执行成功，但响应在返回途中丢失" +
				"（参考文章 002：超时的加锁到底成功了没有？）"},
		Params: []Param{saleID()},
		Needs: Needs{Strategies: []string{"redisson", "redis"},
			Settings: []string{"the replica's default Redis (SECKILL_REDIS_ADDR) keeps the lock"}},
		Chaos: Chaos{Draw: true},
		Run:   runDropReply,
	},
	{
		Name:  KindSlowWork,
		Title: Text{"Slow business step before the lock check", "锁检查前的慢业务步骤"},
		Description: Text{
			"the next locked critical section on this replica works ms longer, before its lock check: a long " +
				"business step that must stop if the lock is lost meanwhile (its renewal failed)",
			"本实例下一个持锁的临界区在检查锁之前多工作 ms 毫秒：一个漫长的业务步骤，若期间锁已丢失（续期失败）就必须停下"},
		Params: []Param{millis(3000)},
		Needs: Needs{Strategies: []string{"redis"},
			Settings: []string{"the lease lost during the step (its renewal failed: the Redis restarted)"}},
		Chaos: Chaos{Draw: true},
		Run:   runSlowWork,
	},
	{
		Name:  KindClockSkew,
		Title: Text{"Run this replica's clock ahead (redis-getset)", "本实例时钟调快（redis-getset）"},
		Description: Text{
			"for the next 10 s, redis-getset on this replica reads its clock ms ahead: it takes a live lock whose " +
				"expiry (written by another replica's clock) it reads as past",
			"接下来 10 秒内，本实例的 redis-getset 读到的时钟快 ms 毫秒：它会把另一实例按自己时钟写下的过期时间" +
				"误读为已过期，从而抢走一把仍然有效的锁"},
		Params: []Param{millis(5000)},
		Needs: Needs{Strategies: []string{"redis-getset"},
			Settings: []string{"ms longer than the lock's TTL", "a holder on another replica, whose clock wrote the expiry"}},
		Run: runClockSkew,
	},
	{
		Name:  KindGetSetReleaseGap,
		Title: Text{"Hold redis-getset's release between GET and DEL", "在 GET 与 DEL 之间暂停 redis-getset 的释放"},
		Description: Text{
			"the next redis-getset release on this replica waits between its GET and its DEL until another client " +
				"has taken the lock over (at most ms): the DEL deletes the new holder's lock",
			"本实例下一次 redis-getset 释放在 GET 与 DEL 之间等待，直到另一个客户端接管了这把锁（最多 ms 毫秒）：" +
				"随后的 DEL 删掉的是新持有者的锁"},
		Params: []Param{millis(4800)},
		Needs: Needs{Strategies: []string{"redis-getset"},
			Settings: []string{"ms longer than the lock's TTL", "a buyer on another replica that takes the expired lock over"}},
		Run: runGetSetReleaseGap,
	},
	{
		Name:  KindGetSetTakeoverGap,
		Title: Text{"Hold redis-getset's takeover between GET and GETSET", "在 GET 与 GETSET 之间暂停 redis-getset 的抢占"},
		Description: Text{
			"the next redis-getset takeover of an expired lock on this replica waits between its GET and its GETSET " +
				"until another client's GETSET has won (at most ms): its GETSET loses and writes its expiry over the " +
				"winner's, whose release is then refused",
			"本实例下一次对过期锁的 redis-getset 抢占在 GET 与 GETSET 之间等待，直到另一个客户端的 GETSET 胜出" +
				"（最多 ms 毫秒）：它的 GETSET 落败，却用自己的过期时间覆盖了胜者的，胜者随后的释放被拒绝"},
		Params: []Param{millis(8000)},
		Needs: Needs{Strategies: []string{"redis-getset"},
			Settings: []string{"an expired lock (its holder crashed: crash_after_setnx)",
				"a buyer on another replica that takes it over meanwhile"}},
		Run: runGetSetTakeoverGap,
	},
	{
		Name:  KindExpireZKSession,
		Title: Text{"Expire the ZooKeeper session", "让 ZooKeeper 会话过期"},
		Description: Text{
			"expire this replica's ZooKeeper session from outside: its ephemeral lock nodes vanish and every " +
				"zookeeper lease it holds is lost",
			"从外部让本实例的 ZooKeeper 会话过期：它的临时锁节点随之消失，它持有的每个 zookeeper 租约都会丢失"},
		Needs: Needs{Strategies: []string{"zookeeper"},
			Settings: []string{"the replica's zookeeper strategy has a session (it took a lock)"}},
		Chaos: Chaos{Draw: true},
		Run:   runExpireZKSession,
	},
	{
		Name:  KindSlowDB,
		Title: Text{"Slow database row lock", "长时间占用数据库行锁"},
		Description: Text{
			"a separate transaction holds the sale row (SELECT ... FOR UPDATE) for ms: orders wait on the row lock, " +
				"time out and retry",
			"另一个事务持有该秒杀活动的行锁（SELECT ... FOR UPDATE）ms 毫秒：订单在行锁上等待、超时并重试"},
		Params: []Param{millis(3000), saleID()},
		Chaos:  Chaos{Draw: true},
		Run:    runSlowDB,
	},
	{
		Name:  KindCutDB,
		Title: Text{"Cut this replica off the database", "切断本实例与数据库的连接"},
		Description: Text{
			"cut this replica off its database for ms: every connection closed (the server rolls their " +
				"transactions back), new ones refused, as a partition or a database crash looks from here",
			"切断本实例与数据库的连接 ms 毫秒：关闭所有连接（服务器回滚它们的事务），拒绝新连接，" +
				"从本实例看就像网络分区或数据库崩溃"},
		Params: []Param{millis(3000)},
		Needs:  Needs{Settings: []string{"the replica started with faults on (SECKILL_FAULTS=on: its connections go through a link it can cut)"}},
		Chaos:  Chaos{Draw: true},
		Run:    runCutDB,
	},
	{
		Name:  KindCrashAfterSetNX,
		Title: Text{"Crash right after SETNX", "SETNX 后崩溃"},
		Description: Text{
			"the next redis-setnx-expire, redis or redis-getset lock taken on this replica is abandoned as by a " +
				"crash: setnx-expire dies before its EXPIRE (a lock held for ever), redis after its SET NX PX (freed " +
				"at the TTL), redis-getset after writing its expiry (freed when the others' clocks pass it)",
			"本实例下一次由 redis-setnx-expire、redis 或 redis-getset 加上的锁像进程崩溃一样被遗弃：setnx-expire 死在 " +
				"EXPIRE 之前（锁永不过期），redis 死在 SET NX PX 之后（到 TTL 才释放），redis-getset 死在写入过期时间之后" +
				"（其他客户端的时钟越过它时才释放）"},
		Needs: Needs{Strategies: CrashStrategies()},
		Chaos: Chaos{Draw: true},
		Run:   runCrashAfterSetNX,
	},
	{
		Name:  KindStopProcess,
		Title: Text{"Stop the process (SIGSTOP)", "暂停进程"},
		Description: Text{
			"SIGSTOP this replica for ms, then SIGCONT: a real whole-process pause (GC, VM freeze) that stops lock " +
				"watchdogs too",
			"向本实例发送 SIGSTOP 暂停 ms 毫秒，然后 SIGCONT：真正的整进程停顿（GC、虚拟机冻结），锁的看门狗也一起停下"},
		Params: []Param{millis(3000)},
		Needs:  Needs{Settings: []string{pastTTL, "a buyer on another replica that takes the expired lock", fencingOff}},
		Chaos:  Chaos{Draw: true},
		Run:    runStopProcess,
	},
	{
		Name:  KindKillProcess,
		Title: Text{"Kill the process (SIGKILL)", "杀死进程"},
		Description: Text{
			"SIGKILL this replica after ms: a crash with locks held, no unlock, no graceful shutdown",
			"ms 毫秒后向本实例发送 SIGKILL：带着锁崩溃，不解锁，也没有优雅关闭"},
		Params: []Param{millis(500)},
		Needs:  Needs{Settings: []string{"a lock held when it dies (pause_holder first)", "another replica to serve the next buyer"}},
		Chaos:  Chaos{Draw: true, OwnedOnly: true},
		Run:    runKillProcess,
	},
	{
		Name:  KindRestartRedis,
		Title: Text{"Restart a Redis node", "重启 Redis 节点"},
		Description: Text{
			"restart a Redis (node redis or redlock-N) as by a crash: without persistence every key, every lock on " +
				"it, is lost while its holders think they still hold it (the default Redis keeps what its durability " +
				"setting saved)",
			"像崩溃一样重启一个 Redis（节点 redis 或 redlock-N）：没有持久化时，其上的每个 key、每把锁都会丢失，" +
				"而持有者仍以为自己持有它（默认 Redis 保留其持久化设置已保存的数据）"},
		Params: []Param{replicaChoice("node", Text{"Redis node", "Redis 节点"}, (*Service).RedisNodes)},
		Needs: Needs{Strategies: []string{"redis", "redlock", "redis-lua-stock"},
			Settings: []string{"the node runs without persistence (a persisted key survives the restart)"}},
		Chaos: Chaos{Draw: true},
		Run:   runRestartRedis,
	},
	{
		Name:  KindHoldReplication,
		Title: Text{"Hold back replication (Sentinel master)", "暂停主从复制（哨兵模式下的主节点）"},
		Description: Text{
			"for ms, the redis-sentinel master feeds no replica (its replica's link cut, PSYNC refused): a lock " +
				"taken meanwhile lives on the master only",
			"ms 毫秒内，redis-sentinel 的主节点不向任何从节点同步（切断从节点的连接并拒绝 PSYNC）：" +
				"期间加上的锁只存在于主节点上"},
		Params: []Param{millis(20000)},
		Needs: Needs{Strategies: []string{"redis-sentinel"},
			Settings: []string{"the replica knows the Sentinels (SECKILL_SENTINEL_ADDRS)"}},
		Chaos: Chaos{Draw: true},
		Run:   runHoldReplication,
	},
	{
		Name:  KindKillRedisMaster,
		Title: Text{"Kill the Sentinel master (failover)", "杀死 Redis 主节点（触发哨兵故障转移）"},
		Description: Text{
			"crash the redis-sentinel master, down for ms (more than the Sentinels' 1 s down-after), and wait until " +
				"the Sentinels promote the replica: locks the replica never saw are gone",
			"让 redis-sentinel 的主节点崩溃并停机 ms 毫秒（超过哨兵 1 秒的 down-after），等待哨兵把从节点提升为主节点：" +
				"从节点从未见过的锁随之消失"},
		Params: []Param{millis(3000)},
		Needs: Needs{Strategies: []string{"redis-sentinel"},
			Settings: []string{"the replica knows the Sentinels (SECKILL_SENTINEL_ADDRS)",
				"a lock taken while replication was held (hold_replication first)"}},
		Chaos: Chaos{Draw: true},
		Run:   runKillRedisMaster,
	},
	{
		Name:  KindKillZKServer,
		Title: Text{"Kill a ZooKeeper server (ensemble of three)", "杀死一台 ZooKeeper 服务器（三节点集群）"},
		Description: Text{
			"kill (SIGKILL) a follower of the three-server ZooKeeper ensemble, the one this replica's session is " +
				"on when it can, and start it again after ms: two servers of three are a quorum, the session moves " +
				"to a live server and keeps its locks",
			"杀死（SIGKILL）三节点 ZooKeeper 集群中的一个跟随者（尽量选本实例会话所在的那台），ms 毫秒后重新启动：" +
				"三台中的两台仍构成多数派，会话迁移到存活的服务器上并保住它的锁"},
		Params: []Param{millis(8000)},
		Needs: Needs{Strategies: []string{"zookeeper"},
			Settings: []string{"the zookeeper strategy on the three-server ensemble (SECKILL_ZK_SERVERS lists it)"}},
		Chaos: Chaos{Draw: true},
		Run:   runKillZKServer,
	},
	{
		Name:  KindKillConsumer,
		Title: Text{"Kill the queue consumer", "杀死队列消费者"},
		Description: Text{
			"the next batch of queued orders this replica persists SIGKILLs the replica before its transaction " +
				"commits (before_commit) or after the commit and before the Redis ack (after_commit): the entries " +
				"stay pending and another replica reclaims them",
			"本实例持久化的下一批排队订单会让本实例被 SIGKILL：在事务提交之前（before_commit），或在提交之后、" +
				"Redis 确认之前（after_commit）：这些消息保持待确认状态，由另一个实例认领"},
		Params: []Param{choice("point", Text{"Kill point in the batch", "杀进程时机（提交前/后）"}, KillPoints())},
		Needs: Needs{Strategies: []string{"redis-lua-stock"},
			Settings: []string{"order_mode async (the replica's queue consumer persists the orders)",
				"another replica to reclaim the pending entries"}},
		Chaos: Chaos{Draw: true, OwnedOnly: true},
		Run:   runKillConsumer,
	},
}
