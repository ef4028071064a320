package catalogue

// caseQuestions are the lessons' cases as questions, one per sale in the
// order each scenario creates them (loadtest scenario checks the count).
var caseQuestions = map[string][]CaseQuestion{
	"mutex-across-replicas": {
		{Setup: Texts{En: "Two replicas sell the same stock, each guarding it with its own in-process mutex.",
			Zh: "两个实例卖同一份库存，各自用进程内的互斥锁保护它。"}},
		{Setup: Texts{En: "The same two replicas, now locking the stock row with SELECT … FOR UPDATE in the database.",
			Zh: "同样的两个实例，这次在数据库里用 SELECT … FOR UPDATE 锁住库存行。"}},
	},
	"setnx-expire-crash": {
		{Setup: Texts{En: "redis-setnx-expire locks with SETNX, then sets the 0.5 s TTL with a separate EXPIRE; the holder crashes between the two, and a second buyer comes 1.5 s later.",
			Zh: "redis-setnx-expire 先用 SETNX 加锁，再用单独的 EXPIRE 设置 0.5 秒过期时间；持锁者在两步之间崩溃，1.5 秒后第二个买家来下单。"}},
		{Setup: Texts{En: "The same crash right after locking, on redis, whose SET NX PX takes the lock and its 0.5 s TTL in one command; a second buyer comes 1.5 s later.",
			Zh: "同样在加锁后立刻崩溃，这次用 redis：SET NX PX 一条命令同时加锁并设置 0.5 秒过期时间；1.5 秒后第二个买家来下单。"}},
	},
	"del-without-owner": {
		{Setup: Texts{En: "redis-no-owner (TTL 4 s, no watchdog): buyer-1 runs past its TTL in a slow 2.5 s step, then releases with a plain DEL while buyer-2 works; buyer-3 waits.",
			Zh: "redis-no-owner（过期时间 4 秒，无看门狗）：买家 1 在一个 2.5 秒的慢步骤里超过了过期时间，然后在买家 2 干活时用普通 DEL 释放锁；买家 3 在等锁。"}},
		{Setup: Texts{En: "The same timing on redis (TTL 4 s, watchdog off), whose release deletes the key only if the key still holds buyer-1's own token.",
			Zh: "同样的时序换成 redis（过期时间 4 秒，关闭看门狗），它释放时只在键里仍是买家 1 自己的令牌时才删除。"}},
	},
	"ttl-shorter-than-work": {
		{Setup: Texts{En: "A Redis lock with a 1 s TTL guards 1.8 s of work, and no watchdog renews it.",
			Zh: "Redis 锁的过期时间是 1 秒，锁内业务要做 1.8 秒，没有看门狗续期。"}},
		{Setup: Texts{En: "The same 1 s lock and 1.8 s of work, with the watchdog renewing the lease every third of the TTL.",
			Zh: "同样的 1 秒锁和 1.8 秒业务，这次看门狗每隔三分之一个过期时间续期一次。"}},
	},
	"pause-past-ttl": {
		{Setup: Texts{En: "A redis lock (TTL 0.5 s, watchdog on); buyer-1's whole replica is frozen for 4 s mid-work, and buyer-2 orders on the other replica 1 s in; no fencing.",
			Zh: "redis 锁（过期时间 0.5 秒，开启看门狗）；买家 1 所在的整个实例在业务中途被冻结 4 秒，冻结 1 秒后买家 2 在另一个实例下单；不用防护令牌。"}},
		{Setup: Texts{En: "The same 4 s freeze of buyer-1's replica, now with fencing: each holder records its token before reading, and a write with an older token is refused.",
			Zh: "同样把买家 1 的实例冻结 4 秒，这次开启防护令牌：每个持锁者在读库存前先登记令牌，令牌更旧的写入会被拒绝。"}},
		{Setup: Texts{En: "The 0.5 s lock again, buyer-1's replica frozen 3 s; buyer-2 orders during the freeze and stalls after reading, so it writes after buyer-1 wakes; no fencing.",
			Zh: "还是 0.5 秒的锁，买家 1 的实例冻结 3 秒；买家 2 在冻结期间下单，读完库存后停住，等买家 1 醒来之后才写；不用防护令牌。"}},
		{Setup: Texts{En: "The same order of events (buyer-2 reads during the 3 s freeze, writes after buyer-1 wakes), now with fencing tokens recorded before each read.",
			Zh: "同样的先后顺序（买家 2 在 3 秒冻结期间读库存，等买家 1 醒来后才写），这次开启防护令牌，每次读之前先登记令牌。"}},
	},
	"redis-restart": {
		{Setup: Texts{En: "buyer-1 holds a single-node Redis lock (TTL 15 s) for 6 s while that Redis restarts without persistence; buyer-2 orders on the other replica.",
			Zh: "买家 1 持有单节点 Redis 锁（过期时间 15 秒）6 秒，期间这台 Redis 在没有持久化的情况下重启；买家 2 在另一个实例下单。"}},
		{Setup: Texts{En: "The same restart under redlock: buyer-1 holds the lock on three independent masters, and one of the three restarts empty.",
			Zh: "同样的重启换成 redlock：买家 1 在三个独立主节点上持锁，其中一个主节点重启后数据清空。"}},
	},
	"redlock-minority": {
		{Setup: Texts{En: "buyer-1 holds a redlock (3 masters, TTL 15 s) for 6 s while one master restarts without persistence; buyer-2 orders on the other replica.",
			Zh: "买家 1 持有 redlock（3 个主节点，过期时间 15 秒）6 秒，期间一个主节点在没有持久化的情况下重启；买家 2 在另一个实例下单。"}},
		{Setup: Texts{En: "The same hold, but two of the three masters restart empty while buyer-1 holds the lock.",
			Zh: "同样的持锁，但买家 1 持锁期间三个主节点中有两个重启并清空。"}},
	},
	"optimistic-vs-pessimistic": {
		{Setup: Texts{En: "64 buyers at once for 50 units on db-optimistic: each reads the row's version and writes only if it is unchanged, else retries.",
			Zh: "64 个买家同时抢 50 件，用 db-optimistic：每人先读行的版本号，只有版本没变才写入，否则重试。"},
			Say: noLockSay},
		{Setup: Texts{En: "The same 64 buyers for 50 units on db-pessimistic: each locks the stock row with SELECT … FOR UPDATE in its transaction.",
			Zh: "同样 64 个买家抢 50 件，改用 db-pessimistic：每人在事务里用 SELECT … FOR UPDATE 锁住库存行。"}},
	},
	"cache-db-drift": {
		{Setup: Texts{En: "A redis-lua-stock sale keeps its 40-unit stock in Redis; after 10 sell, that Redis restarts without persistence and buyers keep ordering.",
			Zh: "redis-lua-stock 秒杀把 40 件库存放在 Redis 里；卖出 10 件后，这台 Redis 在没有持久化的情况下重启，买家继续下单。"},
			Say: noLockSay},
	},
	"queue-durability": {
		{Setup: Texts{En: "An async redis-lua-stock sale answers 30 buyers 202 with a ticket while their orders wait in a Redis stream; that Redis restarts with no persistence.",
			Zh: "异步的 redis-lua-stock 秒杀给 30 个买家回 202 和凭证，订单还在 Redis 流里排队；这时这台 Redis 在不持久化的情况下重启。"},
			Say: queueSay},
		{Setup: Texts{En: "The same 30 tickets waiting in the stream, with Redis appending to disk every second (appendfsync everysec) when it restarts.",
			Zh: "同样 30 张凭证在流里排队，这次 Redis 每秒把日志写盘一次（appendfsync everysec），然后重启。"},
			Say: queueSay},
		{Setup: Texts{En: "The same 30 tickets waiting in the stream, with Redis writing every entry to disk before it answers (appendfsync always) when it restarts.",
			Zh: "同样 30 张凭证在流里排队，这次 Redis 每条写入都先落盘再应答（appendfsync always），然后重启。"},
			Say: queueSay},
	},
	"herd-sold-out-cache": {
		{Setup: Texts{En: "600 buyers rush a 20-unit redis sale at its opening, with the sold-out cache off: every answer goes through the lock.",
			Zh: "600 个买家在开售瞬间抢一场 20 件的 redis 秒杀，关闭售罄缓存：每个请求都要过锁。"}},
		{Setup: Texts{En: "The same 600 buyers for 20 units with the sold-out cache on: once the database reads 0, replicas refuse from memory.",
			Zh: "同样 600 个买家抢 20 件，开启售罄缓存：数据库库存读到 0 之后，各实例直接在内存里拒绝。"}},
	},
	"herd-rate-limit": {
		{Setup: Texts{En: "150 buyers each click three times at once for 20 units of a redis sale, with no per-user rate limit and the sold-out cache off.",
			Zh: "150 个买家每人同时点三次，抢一场 20 件的 redis 秒杀，不限流，售罄缓存关闭。"}},
		{Setup: Texts{En: "The same 150 buyers clicking three times each, with a per-user rate limit of one request a second in front of the lock.",
			Zh: "同样 150 个买家每人点三次，这次在锁前面加上每个用户每秒 1 次的限流。"}},
	},
	"reentrancy": {
		{Setup: Texts{En: "On redis, which keeps no hold count, buyer-1's order takes the lock and then asks for the same lock again inside it (waiting 1.5 s at most); buyer-2 comes next.",
			Zh: "redis 锁不记录持有次数，买家 1 的订单拿到锁后，在锁内再次申请同一把锁（最多等 1.5 秒）；随后买家 2 下单。"},
			Say: nestedSay},
		{Setup: Texts{En: "The same nested lock on redisson, which counts each holder's holds in a Redis hash; buyer-2 comes next.",
			Zh: "同样的嵌套加锁换成 redisson，它在 Redis 哈希里记录每个持有者的加锁次数；随后买家 2 下单。"},
			Say: nestedSay},
	},
	"db-lock-reentrant": {
		{Setup: Texts{En: "On db-lock-table-plain, a lock-table row with no hold count, buyer-1's order locks and then locks again inside (waiting 1.5 s at most); buyer-2 comes next.",
			Zh: "db-lock-table-plain 的锁表行没有持有次数，买家 1 的订单加锁后在锁内再加一次（最多等 1.5 秒）；随后买家 2 下单。"},
			Say: nestedSay},
		{Setup: Texts{En: "The same nested lock on db-lock-table, whose row names the order as owner and counts its holds; buyer-2 comes next.",
			Zh: "同样的嵌套加锁换成 db-lock-table，它的锁行记下持有者是这个订单，并记录加锁次数；随后买家 2 下单。"},
			Say: nestedSay},
	},
	"getset-expiry": {
		{Setup: Texts{En: "redis-getset (TTL 3 s), where clients write their own expiry time into the lock: buyer-1 holds it 2 s, and buyer-2 orders on a replica whose clock is 5 s ahead.",
			Zh: "redis-getset（过期时间 3 秒）由客户端自己把到期时间写进锁里：买家 1 持锁 2 秒，买家 2 在一个时钟快 5 秒的实例上下单。"}},
		{Setup: Texts{En: "The same 5 s clock skew on buyer-2's replica, on redis, whose 3 s TTL is kept by the Redis server; buyer-1 holds the lock 2 s.",
			Zh: "买家 2 的实例时钟同样快 5 秒，这次用 redis，3 秒的过期时间由 Redis 服务器自己计时；买家 1 持锁 2 秒。"}},
	},
	"getset-release-race": {
		{Setup: Texts{En: "redis-getset (TTL 2.5 s): buyer-1's release checks the lock with GET, then waits to DEL it until the lock has expired and buyer-2 has taken it over; buyer-3 comes next.",
			Zh: "redis-getset（过期时间 2.5 秒）：买家 1 释放时先 GET 确认是自己的锁，然后拖到锁过期、被买家 2 接管之后才 DEL；接着买家 3 下单。"}},
		{Setup: Texts{En: "redis (TTL 4 s, watchdog off), released by one compare-and-delete: buyer-1's 5 s step outlives its TTL, buyer-2 takes the lock, then buyer-1 releases; buyer-3 comes next.",
			Zh: "redis（过期时间 4 秒，关闭看门狗），用一次比较并删除来释放：买家 1 的 5 秒步骤超过了过期时间，买家 2 接管锁，然后买家 1 释放；接着买家 3 下单。"}},
	},
	"getset-loser-overwrites": {
		{Setup: Texts{En: "redis-getset (TTL 4 s): buyer-1 crashes holding the lock; buyer-2 and buyer-3 both find it expired and take it over with GETSET, buyer-3's a moment after buyer-2's.",
			Zh: "redis-getset（过期时间 4 秒）：买家 1 持锁时崩溃；买家 2 和买家 3 都发现锁已过期，用 GETSET 抢占，买家 3 的 GETSET 比买家 2 晚一点点。"}},
	},
	"renewal-fails": {
		{Setup: Texts{En: "redis (TTL 1.5 s, watchdog every 0.5 s): buyer-1 is in an 8 s step when Redis stops answering for 3 s, so no renewal gets through; buyer-2 then orders.",
			Zh: "redis（过期时间 1.5 秒，看门狗每 0.5 秒续期）：买家 1 正在执行 8 秒的步骤时，Redis 有 3 秒不作任何应答，续期一次也没成功；随后买家 2 下单。"}},
	},
	"renewal-fails-aggressive": {
		{Setup: Texts{En: "redis, the conservative policy (TTL 1.5 s, watchdog on): buyer-1 is in an 8 s step when Redis freezes for 3 s; buyer-2 orders on the other replica after the thaw.",
			Zh: "redis，保守策略（过期时间 1.5 秒，开启看门狗）：买家 1 正在执行 8 秒的步骤时，Redis 冻结 3 秒；恢复后买家 2 在另一个实例下单。"}},
		{Setup: Texts{En: "The same freeze on redis-aggressive, the same lock, whose holder, told that its lease is lost, chooses to go on and write.",
			Zh: "同样的冻结换成 redis-aggressive：锁一样，但持锁者得知租约已丢失后，选择继续写入。"}},
	},
	"acquire-reply-lost": {
		{Setup: Texts{En: "redisson (TTL 3 s): buyer-1's lock script runs on Redis but its reply is lost, and the client gives up on the error; buyer-2 orders next.",
			Zh: "redisson（过期时间 3 秒）：买家 1 的加锁脚本在 Redis 上执行了，但应答丢了，客户端报错放弃；接着买家 2 下单。"}},
		{Setup: Texts{En: "The same lost reply on redis, which first asks Redis whether the lock is already its own before trying again; buyer-2 orders next.",
			Zh: "同样丢失应答，这次换成 redis：它重试前先问 Redis 这把锁是不是已经归自己；接着买家 2 下单。"}},
	},
	"two-level-handoff": {
		{Setup: Texts{En: "16 buyers place 96 orders for 96 units on redis with fencing on, 1 ms of work: every order takes the Redis lock itself.",
			Zh: "16 个买家对 96 件库存下 96 单，用 redis 并开启防护令牌，业务 1 毫秒：每一单都自己去拿 Redis 锁。"}},
		{Setup: Texts{En: "The same 96 orders on redis-2level: the waiters on one replica queue locally and hand one Redis lock on among themselves.",
			Zh: "同样 96 单换成 redis-2level：同一实例上的等待者先在本地排队，一把 Redis 锁在它们之间直接转交。"}},
	},
	"lock-per-batch": {
		{Setup: Texts{En: "400 buyers rush a 100-unit redis sale at its opening, fencing on, each order taking the lock and a transaction of its own.",
			Zh: "400 个买家在开售瞬间抢一场 100 件的 redis 秒杀，开启防护令牌，每一单各自拿锁、各开一个事务。"}},
		{Setup: Texts{En: "The same 400 buyers for 100 units with combining on: the orders waiting on a replica are sold together under one lock and one transaction.",
			Zh: "同样 400 个买家抢 100 件，开启合并：同一实例上等待的订单在一次加锁、一个事务里一起卖。"}},
	},
	"redlock-herd": {
		{Setup: Texts{En: "240 buyers rush a 60-unit redlock sale at its opening with no_queue: every waiter sends its own SET NX to the three masters.",
			Zh: "240 个买家在开售瞬间抢一场 60 件的 redlock 秒杀，设置 no_queue：每个等待者都自己向三个主节点发 SET NX。"}},
		{Setup: Texts{En: "The same 240 buyers for 60 units on redlock as it runs by default: one contender per replica goes to the masters, backing off at random after a split vote.",
			Zh: "同样 240 个买家抢 60 件，redlock 按默认方式运行：每个实例只派一个竞争者去找主节点，投票分散后随机退避。"}},
	},
	"split-hot-row": {
		{Setup: Texts{En: "1600 buyers rush a 200-unit db-conditional sale at its opening, the stock in one row, each taking a unit with UPDATE … WHERE stock > 0.",
			Zh: "1600 个买家在开售瞬间抢一场 200 件的 db-conditional 秒杀，库存在一行里，每人用 UPDATE … WHERE stock > 0 扣一件。"},
			Say: noLockSay},
		{Setup: Texts{En: "The same 1600 buyers for 200 units with the stock split into 8 rows, each buyer sent to a home shard, then on to the next with stock.",
			Zh: "同样 1600 个买家抢 200 件，库存分 8 段，每个买家先去自己的那一段，空了再去下一段有货的。"},
			Say: noLockSay},
	},
	"for-update-needs-tx": {
		{Setup: Texts{En: "Buyers order at once on db-pessimistic-autocommit, whose SELECT … FOR UPDATE runs in autocommit, outside any transaction, before the work and the write.",
			Zh: "买家同时下单，用 db-pessimistic-autocommit：SELECT … FOR UPDATE 在自动提交模式下执行，不在任何事务里，之后才做业务和写入。"}},
		{Setup: Texts{En: "The same buyers on db-pessimistic: the same SELECT … FOR UPDATE, run inside the order's transaction with the work and the write.",
			Zh: "同样的买家换成 db-pessimistic：同样的 SELECT … FOR UPDATE，和业务、写入一起放在订单的事务里执行。"}},
	},
	"etcd-lease-expiry": {
		{Setup: Texts{En: "etcd with a 2 s lease: buyer-1's replica is frozen (SIGSTOP) for 8 s mid-work, and buyer-2 orders on the other replica 1 s in; no fencing.",
			Zh: "etcd 租约 2 秒：买家 1 所在的实例在业务中途被冻结（SIGSTOP）8 秒，冻结 1 秒后买家 2 在另一个实例下单；不用防护令牌。"}},
		{Setup: Texts{En: "The same 8 s freeze with fencing on: each holder's token is its key's create revision, and a write with an older one is refused.",
			Zh: "同样冻结 8 秒，开启防护令牌：每个持锁者的令牌是它的键的创建版本号，版本更旧的写入会被拒绝。"}},
	},
	"sentinel-failover": {
		{Setup: Texts{En: "redis-sentinel: buyer-1 holds the lock 10 s while replication is held back; the master is killed and Sentinel promotes the replica; buyer-2 orders.",
			Zh: "redis-sentinel：买家 1 持锁 10 秒，期间主从复制被暂停；主节点被杀掉，Sentinel 把从节点提升为主节点；买家 2 下单。"}},
		{Setup: Texts{En: "The same failover before the lock is replicated, now with fencing: a write carrying an older token than the last recorded is refused.",
			Zh: "同样在锁复制之前发生故障切换，这次开启防护令牌：令牌比已登记的更旧的写入会被拒绝。"}},
		{Setup: Texts{En: "redlock on three independent masters: buyer-1 holds the lock 6 s while one master restarts empty; buyer-2 orders on the other replica.",
			Zh: "redlock 用三个独立主节点：买家 1 持锁 6 秒，期间一个主节点重启并清空；买家 2 在另一个实例下单。"}},
	},
	"zk-ensemble-server-killed": {
		{Setup: Texts{En: "zookeeper on a three-server ensemble: buyer-1 holds the lock 4 s when a follower is killed (SIGKILL); buyer-2 and a burst of 16 buyers order while it is down.",
			Zh: "zookeeper 用三台服务器的集群：买家 1 持锁 4 秒时，一台跟随者被杀掉（SIGKILL）；它宕机期间买家 2 和一批 16 个买家下单。"}},
	},
	"consistent-hashing-ring-change": {
		{Setup: Texts{En: "consistent-hash, one owner replica per sale locking in-process: the owner leaves the other's ring for a while but keeps its old view; buyers order on both; no fencing.",
			Zh: "consistent-hash（每场秒杀只有一个拥有者实例，在它那里用进程内锁）：拥有者从另一个实例的哈希环上消失一段时间，自己却还用旧视图；买家在两边下单；不用防护令牌。"}},
		{Setup: Texts{En: "The same ring change with fencing on: each owner's token carries its ring epoch, and a write with an older epoch is refused.",
			Zh: "同样的哈希环变化，开启防护令牌：每个拥有者的令牌带着它的环纪元，纪元更旧的写入会被拒绝。"}},
	},
	"db-lock-single-point": {
		{Setup: Texts{En: "db-lock-table (lock rows with a 5 s TTL in the database): buyer-1 is inside when every replica is cut off the database for 2.5 s; buyers keep ordering.",
			Zh: "db-lock-table（锁行在数据库里，过期时间 5 秒）：买家 1 在临界区内时，所有实例与数据库断开 2.5 秒；买家继续下单。"},
			Say: outageSay},
		{Setup: Texts{En: "The same 2.5 s database outage on db-pessimistic, whose lock is the row lock of buyer-1's open transaction.",
			Zh: "同样断开数据库 2.5 秒，换成 db-pessimistic：它的锁就是买家 1 未提交事务持有的行锁。"},
			Say: outageSay},
		{Setup: Texts{En: "The same 2.5 s outage on redis: the lock lives in Redis, the stock of record in the database.",
			Zh: "同样断开 2.5 秒，换成 redis：锁在 Redis 里，以数据库里的库存为准。"},
			Say: outageSay},
	},
	"polling-vs-subscribe": {
		{Setup: Texts{En: "48 buyers at once, 30 ms of work, on redis-no-owner, whose waiters poll with SET NX, sleeping 0.5-30 ms between tries.",
			Zh: "48 个买家同时下单，业务 30 毫秒，用 redis-no-owner：等待者用 SET NX 轮询，两次尝试之间睡 0.5-30 毫秒。"}},
		{Setup: Texts{En: "The same 48 buyers and 30 ms of work on redisson, whose waiters wait on a pub/sub channel for the release.",
			Zh: "同样 48 个买家、30 毫秒业务，换成 redisson：等待者在发布/订阅频道上等释放通知。"}},
		{Setup: Texts{En: "The same 48 buyers and 30 ms of work on redis, which queues its waiters in Redis and hands the lock to the next in line.",
			Zh: "同样 48 个买家、30 毫秒业务，换成 redis：它在 Redis 里让等待者排队，把锁交给下一个。"}},
		{Setup: Texts{En: "The same 48 buyers and 30 ms of work on zookeeper, each waiter watching only the node just before its own.",
			Zh: "同样 48 个买家、30 毫秒业务，换成 zookeeper：每个等待者只监听排在自己前面的那个节点。"}},
		{Setup: Texts{En: "redis-no-owner again, the same 48 buyers polling with SET NX, now with only 5 ms of work.",
			Zh: "再用 redis-no-owner，同样 48 个买家用 SET NX 轮询，这次业务只有 5 毫秒。"}},
		{Setup: Texts{En: "redisson again, the same 48 buyers waiting on pub/sub, with 5 ms of work.",
			Zh: "再用 redisson，同样 48 个买家在发布/订阅上等待，业务 5 毫秒。"}},
		{Setup: Texts{En: "redis again, the same 48 buyers queued in Redis and handed the lock, with 5 ms of work.",
			Zh: "再用 redis，同样 48 个买家在 Redis 里排队、依次交接锁，业务 5 毫秒。"}},
	},
	"redlock-clock-jump": {
		{Setup: Texts{En: "A redlock sale of 40 units takes 40 orders one after another, nobody else on the lock, to time how long locking 3 masters takes.",
			Zh: "一场 40 件的 redlock 秒杀依次接 40 单，锁上没有别人竞争，用来测在 3 个主节点上加锁要多久。"},
			Say: map[string]Texts{
				OutcomeBroken: {En: "Even one order at a time goes wrong: a unit oversold or an update lost",
					Zh: "即使一次只来一单也出错：超卖或丢失更新"},
				OutcomeOverlappedSafe: {En: "Two of these one-at-a-time orders still hold the lock at once, the data right",
					Zh: "这些一个接一个的订单里仍有两单同时持锁，但数据正确"},
				OutcomeHolds: {En: "Each order takes the lock alone and the data is right",
					Zh: "每一单都独自拿到锁，数据正确"},
				OutcomeStopped: {En: "No order gets the lock: nothing sells",
					Zh: "没有一单拿到锁：一件也没卖出"},
			}},
		{Setup: Texts{En: "buyer-1 holds a redlock (TTL 8 s, watchdog off) for 6.5 s; master 3 restarts empty and a clock jump on master 2 expires buyer-1's key there; buyer-2 orders.",
			Zh: "买家 1 持有 redlock（过期时间 8 秒，关闭看门狗）6.5 秒；主节点 3 重启并清空，主节点 2 时钟跳变，买家 1 在那里的键提前过期；买家 2 下单。"}},
		{Setup: Texts{En: "The same restart and clock jump with the watchdog on: buyer-1's lock is renewed while it works and checked before it writes.",
			Zh: "同样的重启和时钟跳变，开启看门狗：买家 1 干活时锁会续期，写入前会检查锁是否还在。"}},
	},
	"redis-single-point": {
		{Setup: Texts{En: "A 200-unit redis sale whose one Redis node is frozen for 7 s, answering nothing, while buyers on both replicas keep ordering.",
			Zh: "一场 200 件的 redis 秒杀，唯一的 Redis 节点被冻结 7 秒、不作任何应答，两个实例上的买家持续下单。"},
			Say: outageSay},
		{Setup: Texts{En: "At the same time, a redlock sale (TTL 10 s) whose first of three masters is frozen for the same 7 s, buyers ordering throughout.",
			Zh: "同一时间，一场 redlock 秒杀（过期时间 10 秒）的三个主节点中第一个同样冻结 7 秒，买家一直在下单。"},
			Say: outageSay},
	},
	"zk-session-expiry": {
		{Setup: Texts{En: "A zookeeper lock with fencing on: buyer-1 stalls 4 s inside while its ZooKeeper session is expired; buyer-2 orders on the other replica.",
			Zh: "zookeeper 锁，开启防护令牌：买家 1 在临界区里停顿 4 秒，期间它的 ZooKeeper 会话被强制过期；买家 2 在另一个实例下单。"}},
	},
	"db-lock-crashed-holder": {
		{Setup: Texts{En: "db-lock-table-plain, its lock row expiring in 10 minutes: buyer-1 dies right after inserting its row; buyer-2 and buyer-3 order, one per replica.",
			Zh: "db-lock-table-plain，锁行 10 分钟后才过期：买家 1 插入锁行后立刻崩溃；买家 2 和买家 3 分别在两个实例下单。"}},
		{Setup: Texts{En: "The same crash with a 1 s expiry, every waiter deleting expired rows before it tries; buyer-2 and buyer-3 order, one per replica.",
			Zh: "同样崩溃，但过期时间 1 秒，每个等待者加锁前先删掉过期的锁行；买家 2 和买家 3 分别在两个实例下单。"}},
		{Setup: Texts{En: "Under the same 1 s expiry and cleanup, a live buyer-1 stalls 5 s inside; buyer-2 orders on the other replica; no fencing.",
			Zh: "同样 1 秒过期、同样清理过期行，这次买家 1 活着，在临界区里停顿 5 秒；买家 2 在另一个实例下单；不用防护令牌。"}},
		{Setup: Texts{En: "The same slow buyer-1 under the 1 s expiry, with fencing on: a write carrying an older token than the last recorded is refused.",
			Zh: "同样停顿的买家 1、同样 1 秒过期，开启防护令牌：令牌比已登记的更旧的写入会被拒绝。"}},
	},
	"zk-dead-holder": {
		{Setup: Texts{En: "A zookeeper lock: buyer-1 stalls inside while buyer-2 waits on the other replica; then buyer-1's replica is killed (SIGKILL) and buyers keep ordering.",
			Zh: "zookeeper 锁：买家 1 在临界区里停住，买家 2 在另一个实例等锁；随后买家 1 的实例被杀掉（SIGKILL），买家继续下单。"}},
	},
}

// queueSay words the outcomes of a queue-durability case, whose buyers got
// a 202 ticket before their order was written.
var queueSay = map[string]Texts{
	OutcomeBroken: {En: "The orders that land go wrong: a unit oversold or a buyer over the limit of 1",
		Zh: "落库的订单出错：超卖，或有买家超过每人限购 1 件"},
	OutcomeHolds: {En: "Every order that lands is right (a 202 ticket that never lands is not counted here)",
		Zh: "落库的每一单都正确（没能落库的 202 凭证不计入这一项）"},
	OutcomeStopped: {En: "Not one order lands: every 202 ticket is lost",
		Zh: "一单也没有落库：所有 202 凭证都丢了"},
}

// nestedSay words the outcomes of a nested-lock case: buyer-1's order
// asks again for the lock it holds, buyer-2 orders after it.
var nestedSay = map[string]Texts{
	OutcomeHolds: {En: "One holder at a time, the data right, and the sale goes on, whatever buyer-1's order does",
		Zh: "同一时刻只有一个持锁者，数据正确，秒杀照常进行，不管买家 1 自己的订单结果如何"},
	OutcomeStopped: {En: "Nothing sells: the nested lock blocks buyer-1 and buyer-2 alike",
		Zh: "一件也没卖出：嵌套加锁把买家 1 和买家 2 都卡住了"},
}

// noLockSay words the outcome of a case that sells without a lock of the
// lab's (a version check, a conditional decrement, a Lua script).
var noLockSay = map[string]Texts{
	OutcomeHolds: {En: "No distributed lock here; the data stays right: nothing oversold, no update lost",
		Zh: "这里没有分布式锁；数据正确：没有超卖，没有丢失更新"},
}

// outageSay words the outcomes of a case whose store goes away for a
// while: orders may fail meanwhile; the case is judged over its whole run.
var outageSay = map[string]Texts{
	OutcomeHolds: {En: "One holder at a time and the data right, whatever failed during the outage",
		Zh: "同一时刻只有一个持锁者，数据正确，不管故障期间哪些订单失败"},
	OutcomeStopped: {En: "Nothing sells in this case, not even once the store is back",
		Zh: "这一场一件也没卖出，存储恢复后也没有"},
}
