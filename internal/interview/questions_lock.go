package interview

import "github.com/seckill-lab/seckill/internal/faultkind"

// The questions of the lock: which one, and what each failure does to it.

var qWhichLock = Question{
	ID:  "which-lock",
	Ask: Text{"Redis, ZooKeeper or the database: which lock?", "Redis、ZooKeeper 还是数据库：用哪种锁？"},
	Answer: Text{
		"The database's row lock when the stock is in that database: no other system, and it dies with the transaction. Redis (SET NX PX, an owner token, a watchdog) when the lock must be fast and apart from the database: a dead holder's lock stays until its TTL. ZooKeeper (ephemeral sequential nodes) when correctness comes first: a dead holder's lock goes when its session expires, no sooner. Below: how long each stopped the sale when its holder was killed, here.",
		"库存就在数据库里时，用数据库的行锁：不引入别的系统，事务结束锁就没了。锁要快、要和数据库分开时，用 Redis（SET NX PX、持有者令牌、看门狗）：死掉的持锁者的锁要等 TTL 才释放。正确性优先时，用 ZooKeeper（临时顺序节点）：死掉的持锁者的锁在会话过期时消失，不会更早。下面是本机测得的：持锁者被杀后，每种锁让秒杀停了多久。",
	},
	TradeOff: Text{
		"Redis is fastest but its lock can be lost (expiry, failover); ZooKeeper is slower per lock and one more ensemble to run; the database adds load to the one thing every order needs already.",
		"Redis 最快，但锁可能丢（过期、主从切换）；ZooKeeper 每次加锁更慢，还要多运维一个集群；数据库的锁把负载加在每个订单本来就要用的那个系统上。",
	},
	FollowUp: Text{"What if the Redis lock expires while its holder still works?", "如果 Redis 的锁在持有者还在干活时过期了呢？"},
	Slots: []Slot{
		fromCell("sale stopped, Redis lock, its holder killed", "停售时长，Redis 锁，持锁者被杀", seconds, "redis", faultkind.KillProcess, CellUnavailableSeconds),
		fromCell("sale stopped, ZooKeeper lock, its holder killed", "停售时长，ZooKeeper 锁，持锁者被杀", seconds, "zookeeper", faultkind.KillProcess, CellUnavailableSeconds),
		fromCell("sale stopped, row lock, its holder killed", "停售时长，数据库行锁，持锁者被杀", seconds, "db-pessimistic", faultkind.KillProcess, CellUnavailableSeconds),
	},
}

var qLockExpires = Question{
	ID:  "lock-expires",
	Ask: Text{"The lock's TTL is shorter than the work. What happens?", "锁的 TTL 比业务耗时短。会怎样？"},
	Answer: Text{
		"The key expires under its holder, a second buyer takes the lock and both are inside the critical section. A watchdog renews the TTL (every third of it) while the holder works, so the TTL only bounds how long a dead holder blocks the sale.",
		"key 在持有者手里过期，第二个买家拿到锁，两人同时在临界区里。看门狗在持有者干活期间续期 TTL（每过三分之一续一次），于是 TTL 只决定一个死掉的持有者会挡住秒杀多久。",
	},
	TradeOff: Text{
		"A renewal is one more Redis command per third of the TTL per holder, and a renewal that fails must stop the holder's write.",
		"每个持有者每过三分之一 TTL 多一条 Redis 命令，而续期失败时必须阻止持有者的写入。",
	},
	FollowUp: Text{"The watchdog renews; what if the holder itself is paused past the TTL (a GC pause)?", "看门狗会续期；如果持有者自己被暂停超过 TTL（GC 停顿）呢？"},
	Slots: []Slot{
		fromCase("overlapping critical sections, watchdog off", "临界区重叠，看门狗关", times, "ttl-shorter-than-work", "watchdog off", CaseViolations),
		fromCase("overlapping critical sections, watchdog on", "临界区重叠，看门狗开", times, "ttl-shorter-than-work", "watchdog on", CaseViolations),
	},
}

var qPausedHolder = Question{
	ID:  "paused-holder",
	Ask: Text{"The holder is paused past its TTL, then wakes and writes. How do you stop that write?", "持有者被暂停超过 TTL，醒来后写入。怎样拦住这次写？"},
	Answer: Text{
		"No lock can: the holder does not know it lost it. Fencing does: each grant carries a token that grows, the database keeps the highest it has seen and refuses a write with an older one. The stale holder's write fails instead of overwriting the stock.",
		"没有哪种锁能做到：持有者不知道锁已经丢了。防护令牌能：每次授予带一个递增的令牌，数据库记住见过的最大值，拒绝带旧令牌的写入。过期持有者的写入失败，而不是覆盖库存。",
	},
	TradeOff: Text{
		"The store must check the token (one more column and condition), and the lock must issue one that grows: Redis INCR, ZooKeeper's czxid, etcd's revision.",
		"存储要检查令牌（多一列、多一个条件），锁要能发出递增的令牌：Redis 的 INCR、ZooKeeper 的 czxid、etcd 的 revision。",
	},
	FollowUp: Text{"What happens to the Redis lock when its master fails over?", "Redis 主节点故障切换时，锁会怎样？"},
	Slots: []Slot{
		fromCase("lost updates, fencing off", "丢失更新，防护令牌关", times, "pause-past-ttl", "fencing off", CaseLostUpdates),
		fromCase("stale writes refused, fencing on", "被拦截的写入，防护令牌开", times, "pause-past-ttl", "fencing on", CaseFencedWrites),
		fromCase("lost updates, fencing on", "丢失更新，防护令牌开", times, "pause-past-ttl", "fencing on", CaseLostUpdates),
	},
}

var qFailover = Question{
	ID:  "failover",
	Ask: Text{"Redis's master fails over before it replicated the lock. Then?", "Redis 主节点在把锁复制出去之前就故障切换了。然后呢？"},
	Answer: Text{
		"Replication is asynchronous: the promoted replica never saw the key, a second buyer takes the same lock and two holders sell. Fencing refuses the older holder's write; RedLock needs a majority of independent masters, so one lost master does not give the lock twice.",
		"复制是异步的：被提升的从节点从没见过这个 key，第二个买家拿到同一把锁，两个持有者同时卖。防护令牌拒绝较早持有者的写入；RedLock 需要多数独立主节点同意，丢一个主节点不会把锁给出两次。",
	},
	TradeOff: Text{
		"Fencing needs the store's help; RedLock needs three or five masters and more round trips per lock.",
		"防护令牌需要存储配合；RedLock 需要三个或五个主节点，每次加锁的往返更多。",
	},
	FollowUp: Text{"So is RedLock safe?", "那么 RedLock 安全吗？"},
	Slots: []Slot{
		fromCase("overlapping critical sections, Sentinel, fencing off", "临界区重叠，Sentinel，防护令牌关", times, "sentinel-failover", "redis-sentinel, fencing off", CaseViolations),
		fromCase("stale writes refused, Sentinel, fencing on", "被拦截的写入，Sentinel，防护令牌开", times, "sentinel-failover", "redis-sentinel, fencing on", CaseFencedWrites),
		fromCase("overlapping critical sections, RedLock", "临界区重叠，RedLock", times, "sentinel-failover", "redlock", CaseViolations),
	},
}

var qRedLock = Question{
	ID:  "redlock",
	Ask: Text{"Is RedLock safe?", "RedLock 安全吗？"},
	Answer: Text{
		"Not by itself. It assumes the masters' clocks move alike: a key that expires early on one master (a clock jump) while another restarted empty leaves a majority for a second buyer, and two holders write. Its watchdog's failed renewal stops the first; fencing is the cure.",
		"单靠它不安全。它假设各主节点的时钟走得一样：一个主节点上的 key 提前过期（时钟跳变），另一个主节点重启后是空的，第二个买家就凑够了多数，两个持有者都写入。看门狗续期失败会让第一个停下；根本的办法是防护令牌。",
	},
	TradeOff: Text{
		"RedLock needs two masters of three, so one that freezes or dies costs it less than a single Redis (the next question measures how much), at the price of three masters and a majority per lock.",
		"RedLock 只需要三个主节点中的两个，所以一个冻结或宕机对它的影响比单个 Redis 小（下一题测出小多少），代价是三个主节点、每次加锁都要多数同意。",
	},
	FollowUp: Text{"And if the one Redis freezes, how long does the sale stop?", "如果唯一的 Redis 卡住了，秒杀要停多久？"},
	Slots: []Slot{
		fromCase("lost updates, clock jump, watchdog off", "丢失更新，时钟跳变，看门狗关", times, "redlock-clock-jump", "redlock, watchdog off", CaseLostUpdates),
		fromCase("lost updates, clock jump, watchdog on", "丢失更新，时钟跳变，看门狗开", times, "redlock-clock-jump", "redlock, watchdog on", CaseLostUpdates),
	},
}

var qRedisFreezes = Question{
	ID:  "redis-freezes",
	Ask: Text{"Redis freezes for a few seconds. How long does the sale stop selling?", "Redis 卡住几秒。秒杀要停售多久？"},
	Answer: Text{
		"As long as the freeze, plus the lock wait of the buyers caught in it: no lock, no order. Nothing is oversold, the sale is unavailable. RedLock over three independent masters needs only two of them, but a buyer caught on the frozen one still waits: the cell below says how long here.",
		"和卡住的时间一样长，再加上被卡住的买家的等锁时间：拿不到锁，就没有订单。不会超卖，只是停售。三个独立主节点上的 RedLock 只需要其中两个，但卡在冻结节点上的买家仍要等：下面的格子给出本机测得的时长。",
	},
	TradeOff: Text{
		"A lock service is a single point of the sale unless it is replicated, and replicating Redis asynchronously brings back the failover question.",
		"锁服务不做冗余就是秒杀的单点，而 Redis 的异步复制又带回了主从切换的问题。",
	},
	FollowUp: Text{"And if the database itself goes away?", "如果数据库本身不可用了呢？"},
	Slots: []Slot{
		fromCell("sale stopped, one Redis frozen", "停售时长，一个 Redis 冻结", seconds, "redis", faultkind.FreezeRedis, CellUnavailableSeconds),
		fromCell("sale stopped, RedLock, one master of three frozen", "停售时长，RedLock，三个主节点之一冻结", seconds, "redlock", faultkind.FreezeRedis, CellUnavailableSeconds),
		fromCell("oversold, one Redis frozen", "超卖，一个 Redis 冻结", units, "redis", faultkind.FreezeRedis, CellOversold),
	},
}

var qDatabaseDown = Question{
	ID:  "database-down",
	Ask: Text{"The database is cut off from every replica. What does the sale do?", "数据库和所有实例断开了。秒杀会怎样？"},
	Answer: Text{
		"It stops, cleanly: every order answers 503, nothing is half written, and it sells again when the database is back. The database is the truth of the stock, so it is the one single point you cannot lock around: replicate it and fail over behind one address.",
		"停下来，而且干净：每个订单都返回 503，没有写了一半的数据，数据库回来后继续卖。数据库是库存的真相，所以它是绕不开的单点：做主从复制，在一个地址后面故障切换。",
	},
	TradeOff: Text{
		"A failover of the database has the same asynchronous-replication window as Redis's, and a semi-synchronous replica costs every commit a round trip.",
		"数据库的故障切换和 Redis 一样有异步复制的窗口，半同步复制则让每次提交多一次往返。",
	},
	FollowUp: Text{"A buyer's request times out and the app retries. Two orders?", "买家的请求超时，应用重试了。会下两单吗？"},
	Slots: []Slot{
		fromCell("sale stopped, database cut, row lock", "停售时长，数据库断开，数据库行锁", seconds, "db-pessimistic", faultkind.CutDB, CellUnavailableSeconds),
		fromCell("sale stopped, database cut, Redis lock", "停售时长，数据库断开，Redis 锁", seconds, "redis", faultkind.CutDB, CellUnavailableSeconds),
	},
}
