package faults

import "github.com/seckill-lab/seckill/internal/faultkind"

// Settings that several kinds need to show a stale write.
var (
	pastTTL    = Text{"ms longer than the lock's TTL (ttl_ms)", "ms 大于锁的 TTL（ttl_ms）"}
	fencingOff = Text{"fencing off for the stale write to land (with fencing it is refused: fenced_writes)",
		"关闭防护令牌，过期的写入才会落库（开启时它被拒绝：fenced_writes）"}
	otherBuyer = Text{"a buyer on another replica that takes the expired lock", "另一个实例上的买家拿到已过期的锁"}
	// ttlLocks are the strategies whose lock ends at a TTL when nothing
	// renews it (their watchdog off, or none).
	ttlLocks = []string{"redis", "redlock", "redisson", "etcd", "redis-sentinel", "redis-setnx-expire", "db-lock-table"}
)

// off is a false switch, for Arm.Watchdog.
func off() *bool { b := false; return &b }

// ms is a duration argument of Arm.Params.
func ms(n int) map[string]any { return map[string]any{"ms": n} }

// table is every fault: adding one is an entry here and its run function.
var table = []Kind{
	{
		Name:  faultkind.PauseHolder,
		Title: Text{"Pause the lock holder", "暂停持锁者"},
		Description: Text{
			"the next locked critical section on this replica stalls ms after its lock check, before its write: " +
				"a GC pause past the lock's TTL (only fencing survives it)",
			"本实例下一个持锁的临界区在检查锁之后、写入之前停顿 ms 毫秒：相当于超过锁 TTL 的 GC 停顿（只有防护令牌能扛住）"},
		Params: []Param{millis(3000)},
		Needs: Needs{Strategies: ttlLocks, Settings: []Text{
			{"watchdog off (a live process renews its lease through the pause)", "关闭看门狗（存活的进程会在停顿期间一直续期租约）"},
			pastTTL,
			{"a buyer (on any replica) that takes the expired lock while the holder sleeps", "持锁者停顿期间，另一个买家（任意实例）拿到已过期的锁"},
			fencingOff}},
		Arm: Arm{Strategies: []string{"redis", "redlock", "redisson", "etcd"}, Watchdog: off(), TTLMS: 1000, WorkMS: 200,
			Fencing: []bool{false, true}, Params: ms(3000)},
		Chaos: Chaos{Draw: true},
		Run:   runPauseHolder,
	},
	{
		Name:  faultkind.NestedLock,
		Title: Text{"Take the held lock again (nested)", "重入加锁（嵌套）"},
		Description: Text{
			"the next locked critical section on this replica takes its lock again, as the same holder, waiting at " +
				"most ms: a non-reentrant lock waits for itself (nested_lock_timeout), a reentrant one (redisson) " +
				"counts the hold",
			"本实例下一个持锁的临界区以同一持有者身份再次加锁，最多等待 ms 毫秒：不可重入的锁会等待自己" +
				"（nested_lock_timeout），可重入的锁（redisson）则累加持有次数"},
		Params: []Param{millis(1500)},
		Needs: Needs{Settings: []Text{
			{"a strategy that takes a lock: a non-reentrant one waits for itself, redisson counts the hold",
				"一个加锁的策略：不可重入的锁会等待自己，redisson 则累加持有次数"}}},
		Arm:   Arm{Strategies: []string{"redis", "redisson"}, WorkMS: 100, Params: ms(1500)},
		Chaos: Chaos{Draw: true},
		Run:   runNestedLock,
	},
	{
		Name:  faultkind.DropReply,
		Title: Text{"Lose the reply of the next lock script", "丢失下一个加锁脚本的响应"},
		Description: Text{
			"the next lock script this replica runs on the sale's lock key runs on Redis, and its reply is lost on " +
				"the way back (seed 002: did the acquire that timed out succeed?)",
			"本实例在该秒杀活动的锁 key 上执行的下一个加锁脚本在 Redis 上执行成功，但响应在返回途中丢失" +
				"（参考文章 002：超时的加锁到底成功了没有？）"},
		Params: []Param{saleID()},
		Needs: Needs{Strategies: []string{"redisson", "redis"},
			Settings: []Text{{"the replica's default Redis (SECKILL_REDIS_ADDR) keeps the lock", "锁存放在本实例的默认 Redis（SECKILL_REDIS_ADDR）中"}}},
		Arm:   Arm{Strategies: []string{"redis", "redisson"}, WorkMS: 100, Params: map[string]any{}},
		Chaos: Chaos{Draw: true},
		Run:   runDropReply,
	},
	{
		Name:  faultkind.SlowWork,
		Title: Text{"Slow business step before the lock check", "锁检查前的慢业务步骤"},
		Description: Text{
			"the next locked critical section on this replica works ms longer, before its lock check: a long " +
				"business step that must stop if the lock is lost meanwhile (its renewal failed)",
			"本实例下一个持锁的临界区在检查锁之前多工作 ms 毫秒：一个漫长的业务步骤，若期间锁已丢失（续期失败）就必须停下"},
		Params: []Param{millis(3000)},
		Needs: Needs{Strategies: []string{"redis"},
			Settings: []Text{{"the lease lost during the step (its renewal failed: restart_redis while the step runs)",
				"业务步骤期间租约丢失（续期失败：在该步骤进行时执行 restart_redis）"}}},
		Arm:   Arm{Strategies: []string{"redis"}, TTLMS: 1500, WorkMS: 100, Params: ms(4000)},
		Chaos: Chaos{Draw: true},
		Run:   runSlowWork,
	},
	{
		Name:  faultkind.ClockSkew,
		Title: Text{"Run this replica's clock ahead (redis-getset)", "本实例时钟调快（redis-getset）"},
		Description: Text{
			"for the next 10 s, redis-getset on this replica reads its clock ms ahead: it takes a live lock whose " +
				"expiry (written by another replica's clock) it reads as past",
			"接下来 10 秒内，本实例的 redis-getset 读到的时钟快 ms 毫秒：它会把另一实例按自己时钟写下的过期时间" +
				"误读为已过期，从而抢走一把仍然有效的锁"},
		Params: []Param{millis(5000)},
		Needs: Needs{Strategies: []string{"redis-getset"},
			Settings: []Text{{"ms longer than the lock's TTL", "ms 大于锁的 TTL"},
				{"a holder on another replica, whose clock wrote the expiry", "另一个实例上的持锁者，过期时间由它的时钟写下"}}},
		Arm: Arm{Strategies: []string{"redis-getset"}, TTLMS: 2000, WorkMS: 300, Params: ms(5000), Replicas: 2},
		Run: runClockSkew,
	},
	{
		Name:  faultkind.GetSetReleaseGap,
		Title: Text{"Hold redis-getset's release between GET and DEL", "在 GET 与 DEL 之间暂停 redis-getset 的释放"},
		Description: Text{
			"the next redis-getset release on this replica waits between its GET and its DEL until another client " +
				"has taken the lock over (at most ms): the DEL deletes the new holder's lock",
			"本实例下一次 redis-getset 释放在 GET 与 DEL 之间等待，直到另一个客户端接管了这把锁（最多 ms 毫秒）：" +
				"随后的 DEL 删掉的是新持有者的锁"},
		Params: []Param{millis(4800)},
		Needs: Needs{Strategies: []string{"redis-getset"},
			Settings: []Text{{"ms longer than the lock's TTL", "ms 大于锁的 TTL"},
				{"a buyer on another replica that takes the expired lock over", "另一个实例上的买家接管已过期的锁"}}},
		Arm: Arm{Strategies: []string{"redis-getset"}, TTLMS: 500, WorkMS: 1000, Params: ms(4800), Replicas: 2},
		Run: runGetSetReleaseGap,
	},
	{
		Name:  faultkind.GetSetTakeoverGap,
		Title: Text{"Hold redis-getset's takeover between GET and GETSET", "在 GET 与 GETSET 之间暂停 redis-getset 的抢占"},
		Description: Text{
			"the next redis-getset takeover of an expired lock on this replica waits between its GET and its GETSET " +
				"until another client's GETSET has won (at most ms): its GETSET loses and writes its expiry over the " +
				"winner's, whose release is then refused",
			"本实例下一次对过期锁的 redis-getset 抢占在 GET 与 GETSET 之间等待，直到另一个客户端的 GETSET 胜出" +
				"（最多 ms 毫秒）：它的 GETSET 落败，却用自己的过期时间覆盖了胜者的，胜者随后的释放被拒绝"},
		Params: []Param{millis(8000)},
		Needs: Needs{Strategies: []string{"redis-getset"},
			Settings: []Text{{"an expired lock (its holder crashed: crash_after_setnx)", "一把已过期的锁（持有者已崩溃：crash_after_setnx）"},
				{"a buyer on another replica that takes it over meanwhile", "期间另一个实例上的买家接管了它"}}},
		Arm: Arm{Strategies: []string{"redis-getset"}, TTLMS: 1000, WorkMS: 200, Params: ms(8000), Replicas: 2},
		Run: runGetSetTakeoverGap,
	},
	{
		Name:  faultkind.ExpireZKSession,
		Title: Text{"Expire the ZooKeeper session", "让 ZooKeeper 会话过期"},
		Description: Text{
			"expire this replica's ZooKeeper session from outside: its ephemeral lock nodes vanish and every " +
				"zookeeper lease it holds is lost",
			"从外部让本实例的 ZooKeeper 会话过期：它的临时锁节点随之消失，它持有的每个 zookeeper 租约都会丢失"},
		Needs: Needs{Strategies: []string{"zookeeper"},
			Settings: []Text{{"the replica's zookeeper strategy has a session (it took a lock)", "本实例的 zookeeper 策略已有会话（它加过锁）"},
				{"a holder inside on this replica when the session expires: long work (work_ms ≥ 1000), buyers on this replica alone",
					"会话过期时本实例有持锁者在锁内：锁内业务足够长（work_ms ≥ 1000），买家只发往本实例"}}},
		Arm: Arm{Strategies: []string{"zookeeper"}, WorkMS: 1500, Fencing: []bool{false, true}, Params: map[string]any{},
			Replicas: 1},
		Chaos: Chaos{Draw: true},
		Run:   runExpireZKSession,
	},
	{
		Name:  faultkind.SlowDB,
		Title: Text{"Slow database row lock", "长时间占用数据库行锁"},
		Description: Text{
			"a separate transaction holds the sale row (SELECT ... FOR UPDATE) for ms: orders wait on the row lock, " +
				"time out and retry",
			"另一个事务持有该秒杀活动的行锁（SELECT ... FOR UPDATE）ms 毫秒：订单在行锁上等待、超时并重试"},
		Params: []Param{millis(3000), saleID()},
		Needs:  Needs{Settings: []Text{{"buyers writing the sale's row meanwhile (any strategy)", "期间有买家在写该秒杀活动的行（任意策略）"}}},
		Arm:    Arm{Strategies: []string{"db-pessimistic", "redis"}, Params: ms(3000)},
		Chaos:  Chaos{Draw: true},
		Run:    runSlowDB,
	},
	{
		Name:  faultkind.CutDB,
		Title: Text{"Cut this replica off the database", "切断本实例与数据库的连接"},
		Description: Text{
			"cut this replica off its database for ms: every connection closed (the server rolls their " +
				"transactions back), new ones refused, as a partition or a database crash looks from here",
			"切断本实例与数据库的连接 ms 毫秒：关闭所有连接（服务器回滚它们的事务），拒绝新连接，" +
				"从本实例看就像网络分区或数据库崩溃"},
		Params: []Param{millis(3000)},
		Needs: Needs{Settings: []Text{{"the replica started with faults on (SECKILL_FAULTS=on: its connections go through a link it can cut)",
			"实例以开启故障注入的方式启动（SECKILL_FAULTS=on：它的连接经过一条可以切断的链路）"}}},
		Arm:   Arm{Strategies: []string{"redis"}, WorkMS: 100, Params: ms(3000), Replicas: 2},
		Chaos: Chaos{Draw: true},
		Run:   runCutDB,
	},
	{
		Name:  faultkind.CrashAfterSetNX,
		Title: Text{"Crash right after SETNX", "SETNX 后崩溃"},
		Description: Text{
			"the next redis-setnx-expire, redis, redis-getset, db-lock-table or db-lock-table-plain lock taken on this " +
				"replica is abandoned as by a crash: setnx-expire dies before its EXPIRE (a lock held for ever), redis after " +
				"its SET NX PX (freed at the TTL), redis-getset after writing its expiry (freed when the others' clocks pass " +
				"it), the lock table after its INSERT (its row stays until a waiter deletes it past its expires_at)",
			"本实例下一次由 redis-setnx-expire、redis、redis-getset、db-lock-table 或 db-lock-table-plain 加上的锁像进程崩溃一样被遗弃：" +
				"setnx-expire 死在 EXPIRE 之前（锁永不过期），redis 死在 SET NX PX 之后（到 TTL 才释放），redis-getset 死在写入过期时间之后" +
				"（其他客户端的时钟越过它时才释放），锁表死在 INSERT 之后（那一行一直留着，直到过了 expires_at 被某个等待者删除）"},
		Needs: Needs{Strategies: CrashStrategies(),
			Settings: []Text{{"a buyer after the crash: it waits for the TTL (redis, the lock table), for ever (redis-setnx-expire)",
				"崩溃之后再来一个买家：它要等到 TTL（redis、锁表），或永远等下去（redis-setnx-expire）"}}},
		Arm:   Arm{Strategies: []string{"redis-setnx-expire", "redis", "redis-getset"}, TTLMS: 2000, Params: map[string]any{}},
		Chaos: Chaos{Draw: true},
		Run:   runCrashAfterSetNX,
	},
	{
		Name:  faultkind.StopProcess,
		Title: Text{"Stop the process (SIGSTOP)", "暂停进程"},
		Description: Text{
			"SIGSTOP this replica for ms, then SIGCONT: a real whole-process pause (GC, VM freeze) that stops lock " +
				"watchdogs too",
			"向本实例发送 SIGSTOP 暂停 ms 毫秒，然后 SIGCONT：真正的整进程停顿（GC、虚拟机冻结），锁的看门狗也一起停下"},
		Params: []Param{millis(3000)},
		Needs:  Needs{Strategies: ttlLocks, Settings: []Text{pastTTL, otherBuyer, fencingOff}},
		Arm: Arm{Strategies: []string{"redis", "redlock"}, TTLMS: 1000, WorkMS: 200, Fencing: []bool{false, true}, Params: ms(3000),
			Replicas: 2},
		Chaos: Chaos{Draw: true},
		Run:   runStopProcess,
	},
	{
		Name:  faultkind.KillProcess,
		Title: Text{"Kill the process (SIGKILL)", "杀死进程"},
		Description: Text{
			"SIGKILL this replica after ms: a crash with locks held, no unlock, no graceful shutdown",
			"ms 毫秒后向本实例发送 SIGKILL：带着锁崩溃，不解锁，也没有优雅关闭"},
		Params: []Param{millis(500)},
		Needs: Needs{Settings: []Text{{"a lock held when it dies (pause_holder first)", "进程死亡时持有锁（先注入 pause_holder）"},
			{"another replica to serve the next buyer", "另一个实例为下一个买家服务"}}},
		Arm:   Arm{Strategies: []string{"redis"}, TTLMS: 1000, WorkMS: 300, Params: ms(500), Replicas: 2},
		Chaos: Chaos{Draw: true, OwnedOnly: true},
		Run:   runKillProcess,
	},
	{
		Name:  faultkind.RestartRedis,
		Title: Text{"Restart a Redis node", "重启 Redis 节点"},
		Description: Text{
			"restart a Redis (node redis or redlock-N) as by a crash: without persistence every key, every lock on " +
				"it, is lost while its holders think they still hold it (the default Redis keeps what its durability " +
				"setting saved)",
			"像崩溃一样重启一个 Redis（节点 redis 或 redlock-N）：没有持久化时，其上的每个 key、每把锁都会丢失，" +
				"而持有者仍以为自己持有它（默认 Redis 保留其持久化设置已保存的数据）"},
		Params: []Param{replicaChoice("node", Text{"Redis node", "Redis 节点"}, (*Service).RedisNodes)},
		Needs: Needs{Strategies: []string{"redis", "redlock", "redis-lua-stock"},
			Settings: []Text{{"work longer than the restart and a watchdog renewal (work_ms ≥ ttl_ms / 3, ≥ 500): a holder inside when its key vanishes, whose renewal finds it gone",
				"锁内业务长于重启加一次看门狗续期（work_ms ≥ ttl_ms / 3，且 ≥ 500）：key 消失时有持锁者在锁内，其续期会发现锁已不在"},
				{"the node runs without persistence (a persisted key survives the restart)", "节点不做持久化（已持久化的 key 会在重启后保留）"}}},
		Arm:   Arm{Strategies: []string{"redis", "redlock", "redis-lua-stock"}, WorkMS: 1000, Params: map[string]any{"node": "redis"}},
		Chaos: Chaos{Draw: true},
		Run:   runRestartRedis,
	},
	{
		Name:  faultkind.FreezeRedis,
		Title: Text{"Freeze a Redis node", "冻结 Redis 节点"},
		Description: Text{
			"a Redis (node redis or redlock-N) answers nothing for ms (DEBUG SLEEP): to its clients a hung or " +
				"unreachable server, on which a command waits for its client's own deadline or for the thaw; it keeps " +
				"its keys and thaws by itself",
			"一个 Redis（节点 redis 或 redlock-N）在 ms 毫秒内不回答任何命令（DEBUG SLEEP）：对客户端来说就是挂住或" +
				"不可达的服务器，命令要么等到客户端自己的期限，要么等到它恢复；它保留自己的 key，到时自行恢复"},
		Params: []Param{millis(4000), replicaChoice("node", Text{"Redis node", "Redis 节点"}, (*Service).RedisNodes)},
		Needs: Needs{Strategies: []string{"redis", "redlock", "redisson", "redis-lua-stock"},
			Settings: []Text{{"orders sent while it is frozen: a lock on that one node waits until it thaws, redlock with one master of three frozen goes on",
				"在冻结期间下单：锁在这一个节点上的会一直等到它恢复，三个主节点冻结一个的 redlock 照常"},
				{"the node runs with --enable-debug-command", "节点以 --enable-debug-command 运行"}}},
		Arm:   Arm{Strategies: []string{"redis", "redlock"}, WorkMS: 50, Params: map[string]any{"node": "redis", "ms": 4000}},
		Chaos: Chaos{}, // the nemesis has no schedule for it yet (chaos.Kinds would draw it as unknown)
		Run:   runFreezeRedis,
	},
	{
		Name:  faultkind.ClockJumpRedis,
		Title: Text{"Jump a Redis node's clock forward", "让 Redis 节点的时钟向前跳"},
		Description: Text{
			"what a forward clock jump does to one Redis (node redis or redlock-N): every key with a TTL longer than ms " +
				"keeps only ms, so a lock on that node expires early while its holder, counting on its own clock, still holds it",
			"时钟向前跳变对一个 Redis（节点 redis 或 redlock-N）的影响：每个剩余 TTL 长于 ms 的 key 只剩 ms，" +
				"于是该节点上的锁提前过期，而持有者按自己的时钟计算仍然持有它"},
		Params: []Param{millis(1), replicaChoice("node", Text{"Redis node", "Redis 节点"}, (*Service).RedisNodes)},
		Needs: Needs{Strategies: []string{"redlock", "redis"},
			Settings: []Text{{"a holder inside its section (work_ms or slow_work) when the clock jumps", "时钟跳变时有持锁者在临界区内（work_ms 或 slow_work）"},
				{"for redlock: the holder's key already gone on another master (restart_redis), so that the jump leaves it a minority",
					"对 redlock：持有者在另一个主节点上的 key 已经没了（restart_redis），跳变之后它只剩少数派"}}},
		Arm:   Arm{Strategies: []string{"redlock"}, Watchdog: off(), WorkMS: 3000, TTLMS: 8000, Params: map[string]any{"node": "redlock-2", "ms": 1}},
		Chaos: Chaos{}, // as freeze_redis; and on redlock it breaks the lock by design
		Run:   runClockJumpRedis,
	},
	{
		Name:  faultkind.HoldReplication,
		Title: Text{"Hold back replication (Sentinel master)", "暂停主从复制（哨兵模式下的主节点）"},
		Description: Text{
			"for ms, the redis-sentinel master feeds no replica (its replica's link cut, PSYNC refused): a lock " +
				"taken meanwhile lives on the master only",
			"ms 毫秒内，redis-sentinel 的主节点不向任何从节点同步（切断从节点的连接并拒绝 PSYNC）：" +
				"期间加上的锁只存在于主节点上"},
		Params: []Param{millis(20000)},
		Needs: Needs{Strategies: []string{"redis-sentinel"},
			Settings: []Text{{"the replica knows the Sentinels (SECKILL_SENTINEL_ADDRS)", "实例知道哨兵的地址（SECKILL_SENTINEL_ADDRS）"},
				{"kill_redis_master while replication is held", "在复制暂停期间执行 kill_redis_master"}}},
		Arm:   Arm{Strategies: []string{"redis-sentinel"}, WorkMS: 200, Params: ms(20000)},
		Chaos: Chaos{Draw: true},
		Run:   runHoldReplication,
	},
	{
		Name:  faultkind.KillRedisMaster,
		Title: Text{"Kill the Sentinel master (failover)", "杀死 Redis 主节点（触发哨兵故障转移）"},
		Description: Text{
			"crash the redis-sentinel master, down for ms (more than the Sentinels' 1 s down-after), and wait until " +
				"the Sentinels promote the replica: locks the replica never saw are gone",
			"让 redis-sentinel 的主节点崩溃并停机 ms 毫秒（超过哨兵 1 秒的 down-after），等待哨兵把从节点提升为主节点：" +
				"从节点从未见过的锁随之消失"},
		Params: []Param{millis(3000)},
		Needs: Needs{Strategies: []string{"redis-sentinel"},
			Settings: []Text{{"the replica knows the Sentinels (SECKILL_SENTINEL_ADDRS)", "实例知道哨兵的地址（SECKILL_SENTINEL_ADDRS）"},
				{"a lock taken while replication was held (hold_replication first)", "在复制暂停期间加上的锁（先执行 hold_replication）"}}},
		Arm:   Arm{Strategies: []string{"redis-sentinel"}, WorkMS: 200, Params: ms(3000)},
		Chaos: Chaos{Draw: true},
		Run:   runKillRedisMaster,
	},
	{
		Name:  faultkind.KillZKServer,
		Title: Text{"Kill a ZooKeeper server (ensemble of three)", "杀死一台 ZooKeeper 服务器（三节点集群）"},
		Description: Text{
			"kill (SIGKILL) a follower of the three-server ZooKeeper ensemble, the one this replica's session is " +
				"on when it can, and start it again after ms: two servers of three are a quorum, the session moves " +
				"to a live server and keeps its locks",
			"杀死（SIGKILL）三节点 ZooKeeper 集群中的一个跟随者（尽量选本实例会话所在的那台），ms 毫秒后重新启动：" +
				"三台中的两台仍构成多数派，会话迁移到存活的服务器上并保住它的锁"},
		Params: []Param{millis(8000)},
		Needs: Needs{Strategies: []string{"zookeeper"},
			Settings: []Text{{"the zookeeper strategy on the three-server ensemble (SECKILL_ZK_SERVERS lists it)",
				"zookeeper 策略使用三节点集群（SECKILL_ZK_SERVERS 列出它）"}}},
		Arm:   Arm{Strategies: []string{"zookeeper"}, WorkMS: 500, Params: ms(8000)},
		Chaos: Chaos{Draw: true},
		Run:   runKillZKServer,
	},
	{
		Name:  faultkind.KillConsumer,
		Title: Text{"Kill the queue consumer", "杀死队列消费者"},
		Description: Text{
			"the next batch of queued orders this replica persists SIGKILLs the replica before its transaction " +
				"commits (before_commit) or after the commit and before the Redis ack (after_commit): the entries " +
				"stay pending and another replica reclaims them",
			"本实例持久化的下一批排队订单会让本实例被 SIGKILL：在事务提交之前（before_commit），或在提交之后、" +
				"Redis 确认之前（after_commit）：这些消息保持待确认状态，由另一个实例认领"},
		Params: []Param{choice("point", Text{"Kill point in the batch", "杀进程时机（提交前/后）"}, KillPoints())},
		Needs: Needs{Strategies: []string{"redis-lua-stock"},
			Settings: []Text{{"order_mode async (the replica's queue consumer persists the orders)", "order_mode 为 async（由实例的队列消费者持久化订单）"},
				{"another replica to reclaim the pending entries", "另一个实例认领待确认的消息"}}},
		Arm:   Arm{Strategies: []string{"redis-lua-stock"}, OrderMode: "async", Params: map[string]any{"point": "before_commit"}, Replicas: 2},
		Chaos: Chaos{Draw: true, OwnedOnly: true},
		Run:   runKillConsumer,
	},
	{
		Name:  faultkind.StaleRing,
		Title: Text{"Leave the hash ring with a stale view", "带着过期视图离开哈希环"},
		Description: Text{
			"for ms this replica is out of the other replicas' consistent-hash rings (as a deploy draining it), while " +
				"its own view stays as it is: it still believes it owns its sales, and the new owner sells them too",
			"在 ms 毫秒内，本实例从其他实例的一致性哈希环中离开（如同部署时被摘除），而它自己的环视图保持不变：" +
				"它仍以为自己拥有这些秒杀活动，新的拥有者也在卖"},
		Params: []Param{millis(3000)},
		Needs: Needs{Strategies: []string{"consistent-hash"}, Settings: []Text{
			{"this replica owns the sale (GET /api/sales/{id}/ring)", "本实例拥有该秒杀活动（GET /api/sales/{id}/ring）"},
			{"buyers on this replica and on the new owner", "买家同时落在本实例和新的拥有者上"},
			fencingOff}},
		Arm: Arm{Strategies: []string{"consistent-hash"}, WorkMS: 50, Fencing: []bool{false, true}, Params: ms(3000),
			Replicas: 2},
		Chaos: Chaos{Draw: true},
		Run:   runStaleRing,
	},
}
