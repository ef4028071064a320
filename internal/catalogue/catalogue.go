// Package lessons is the catalogue of the seeds' pitfalls that Seckill Lab
// replays (`loadtest scenario NAME` and the dashboard's Lessons page), and
// the Run of one: the dashboard asks for a run, a load-test agent executes
// it against the live replicas and reports the verdict, which package
// lessondb keeps in the database so that it survives a reload and a restart.
package catalogue

import "strings"

// Lesson is one seed pitfall: what the seed predicts for the unsafe setup
// and for its fix, both of which a run checks against the database.
type Lesson struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Predict string `json:"predict"`
	Fix     string `json:"fix"`
	// The same three in Chinese (catalogue_zh.go fills them in).
	TitleZh   string `json:"title_zh"`
	PredictZh string `json:"predict_zh"`
	FixZh     string `json:"fix_zh"`
	// Seed: what the seeds say of the pitfall, their words quoted in 「」;
	// SeedZh: the same in Chinese, the quotes verbatim (catalogue_zh.go).
	Seed        string   `json:"seed"`
	SeedZh      string   `json:"seed_zh"`
	Strategies  []string `json:"strategies"`
	MinReplicas int      `json:"min_replicas"`
	// ClassPace: the scenario can run at the class pace (buyers sent
	// together with seconds of work, cases of 20 s or more, a pause
	// between them) without losing its mechanism; the others run at their
	// normal pace when asked for the class pace, and say so.
	ClassPace bool `json:"class_pace"`
	// BeyondSeeds: no seed makes this lesson's point (its Seed says
	// "beyond the seeds"), so its prediction is the lab's, not a seed's.
	BeyondSeeds bool `json:"beyond_seeds"`
}

// beyondSeeds is the Seed's opening of a lesson no seed makes.
const beyondSeeds = "beyond the seeds"

// PredictedBy is who predicts the lesson's outcome: "seed" or "lab".
func (l Lesson) PredictedBy() string {
	if l.BeyondSeeds {
		return "lab"
	}
	return "seed"
}

func init() {
	for i := range Catalogue {
		Catalogue[i].BeyondSeeds = strings.HasPrefix(Catalogue[i].Seed, beyondSeeds)
	}
}

// Catalogue lists the lessons in the order `all` runs them. zk-dead-holder
// kills a replica, so it comes last.
var Catalogue = []Lesson{
	{
		Name:  "mutex-across-replicas",
		Title: "An in-process lock does not cross replicas",
		Predict: "an in-process mutex does not exclude a second replica: critical sections on the two replicas " +
			"overlap (violations >= 1, an overlap pairing a section on each) and lost updates (lost_updates >= 1); " +
			"db-pessimistic on the same load breaks nothing",
		Fix: "a lock every replica shares (here SELECT ... FOR UPDATE)",
		Seed: "seed 003: 「他們加的鎖只對屬于自己JVM里面的線程有效,對于其他JVM的線程是無效的」; seed 001: " +
			"「使用C++中的锁，是无法锁住两台机器上的临界区的，必须使用分布式锁」",
		Strategies:  []string{"mutex", "db-pessimistic"},
		MinReplicas: 2,
		ClassPace:   true,
	},
	{
		Name:  "setnx-expire-crash",
		Title: "SETNX then EXPIRE: a crash in between leaves a lock that never expires",
		Predict: "redis-setnx-expire crashes after SETNX, before EXPIRE: the key has no TTL, every later " +
			"buyer waits out the lock wait and times out (sold 0); redis (SET NX PX, one command) crashing at the same point loses its " +
			"lock only until the TTL, then the next buyer is served",
		Fix:         "SET key token NX PX ttl: lock and expiry in one atomic command",
		Seed:        "seed 001: 「因为setnx和expire不是原子操作，有可能在setnx和expire之间程序死掉，这样仍然无法解锁」",
		Strategies:  []string{"redis-setnx-expire", "redis"},
		MinReplicas: 1,
	},
	{
		Name:  "del-without-owner",
		Title: "DEL without an owner check frees another client's lock",
		Predict: "redis-no-owner and redis, both TTL 4 s, 2 s of work, no watchdog: buyer-1 outlives its TTL in a slow step " +
			"(slow_work 2.5 s), the lock expires and buyer-2 enters beside buyer-1 on both sides alike (buyer-1's lock check stops it: " +
			"lock_lost); buyer-1 then releases while buyer-2 works: redis-no-owner's plain DEL deletes buyer-2's lock (freed_other >= 1) " +
			"and buyer-3 enters beside buyer-2 (an overlap after the freed lock; buyer-3's stale read is a lost update); redis's " +
			"owner-checked release finds buyer-2's lock and leaves it (release_refused >= 1, freed_other 0): buyer-3 waits for buyer-2",
		Fix: "release with a Lua compare-and-delete on the owner token",
		Seed: "seed 000 (3.3, SET NX EX released by DEL): 「假设碰巧这时候,A执行完自己的业务逻辑,它就去释放锁,但是它就把B的锁给释放了。」; " +
			"seed 004: 「key_value一般是随机值,用来保证释放锁的安全性(释放时会判断是否是之前设置过的随机值,只有是才释放锁)」; " +
			"seed 000 (3.4): 「判断当前线程加的锁和释放锁不是一个原子操作」 (so the check and the delete go in one Lua script)",
		Strategies:  []string{"redis-no-owner", "redis"},
		MinReplicas: 1,
	},
	{
		Name:  "ttl-shorter-than-work",
		Title: "A TTL shorter than the work lets two holders in without the watchdog",
		Predict: "redis with ttl 1000 ms and 1800 ms of work, watchdog off: the lock expires mid-work, a second " +
			"buyer enters, sections overlap (violations > 0; our holders check Lost() before writing and abort " +
			"with lock_lost, lost_updates 0, else its write of the stock it read before would be a lost update); the same sale with the watchdog renewing the " +
			"lease every ttl/3 holds (violations 0, oversold 0)",
		Fix:         "a watchdog that renews the lease while its holder is alive (Redisson's lockWatchdogTimeout)",
		Seed:        "seed 000: 「只要线程一加锁成功,就会启动一个watch dog看门狗,它是一个后台线程,会每隔10秒检查一下,如果线程1还持有锁,那么就会不断的延长锁key的生存时间」",
		Strategies:  []string{"redis"},
		MinReplicas: 1,
		ClassPace:   true,
	},
	{
		Name:  "pause-past-ttl",
		Title: "A process pause past the TTL oversells even with the watchdog",
		Predict: "a replica holding a redis lock is stopped (SIGSTOP, as a long GC pause) past the TTL: the " +
			"watchdog is frozen too, the lock expires, a buyer on another replica takes it, then the paused " +
			"holder wakes and writes a stale stock (lost update), whether the new holder committed before it " +
			"woke or had only read; with fencing the stale write is rejected in both cases (fenced_writes 1, " +
			"no lost update), because each holder claims the fence before it reads",
		Fix: "fencing tokens: each holder records its token in the store before reading, and its write lands " +
			"only if no newer token has been recorded since",
		Seed: "seed 003 only links the article: 「關于redlock的討論可以看How to do distributed locking」; the pause and the " +
			"fencing token are in that article, not in the seeds' text: Martin Kleppmann, \"How to do distributed locking\" (2016): " +
			"a process pause (GC) past the lease lets a second holder in; the store must refuse the stale write with a fencing token",
		Strategies:  []string{"redis"},
		MinReplicas: 2,
	},
	{
		Name:  "redis-restart",
		Title: "A Redis restart without persistence loses the lock",
		Predict: "while a buyer holds a redis lock, the Redis node restarts with no persistence: the key is gone, " +
			"a second buyer takes the lock at once and both write (violations >= 1, lost update); redlock with " +
			"one master of three restarted keeps its quorum: the second buyer waits (violations 0)",
		Fix:         "RedLock over independent masters (quorum N/2+1), plus delayed restarts or persistence",
		Seed:        "seed 002: 「比如说线程 1 加了锁,结果 Redis 崩溃了又恢复过来,这时候线程 2 也加了同一把锁。」",
		Strategies:  []string{"redis", "redlock"},
		MinReplicas: 1,
	},
	{
		Name:  "redlock-minority",
		Title: "RedLock survives one master of three, not two",
		Predict: "a redlock holder keeps its lock when one master of three restarts (2 of 3 still hold it: the " +
			"second buyer waits, violations 0); when two restart, the second buyer gets a quorum on the two " +
			"empty masters and both write (violations >= 1); only restarts are tested here: the quorum also " +
			"assumes bounded clock drift and no pause past the validity time, which this lesson does not test",
		Fix: "more masters, or fsync=always persistence; delaying a restarted master by the max TTL is antirez's " +
			"fix (the Redis documentation), not the seeds'; none of these covers a clock jump or a pause: fence the write",
		Seed: "seed 002: 「当大多数节点都告诉你加锁成功的时候,就说明你加锁成功了。」; seed 000: 「当且仅当超过一半(N/2+1…)的Redis " +
			"master节点都获得锁,并且使用的时间小于锁失效时间时,锁才算获取成功」 (the timing condition: the lock is valid only " +
			"for the TTL less the time taken to get it)",
		Strategies:  []string{"redlock"},
		MinReplicas: 1,
	},
	{
		Name:  "optimistic-vs-pessimistic",
		Title: "Under contention optimistic pays in retries, pessimistic queues",
		Predict: "64 buyers at once for 50 units: optimistic CAS loses rounds and retries (the sale's own CAS retries, " +
			"from its live figures, > 0) while " +
			"pessimistic queues on the row lock with no retries (0); both hold (oversold 0); the orders/s of each " +
			"are shown, not judged",
		Fix: "optimistic only where conflicts are rare; for a hot row, no lock at all: the conditional decrement " +
			"(UPDATE … SET stock = stock - 1 WHERE stock > 0), the stock taken in Redis first, or a queue; " +
			"pessimistic holds but queues every buyer on one row",
		Seed: "seed 000: 「乐观锁,顾名思义,就是很乐观,每次更新操作,都觉得不会存在并发冲突,只有更新失败后,才重试。」 " +
			"(and, of the DB locks, that they do not suit high concurrency)",
		Strategies:  []string{"db-optimistic", "db-pessimistic"},
		MinReplicas: 1,
	},
	{
		Name:  "cache-db-drift",
		Title: "The cache and the database drift apart",
		Predict: "Redis restarts mid-sale without persistence and loses the stock redis-lua-stock keeps there (the sale, " +
			"read right after, shows store_stock -1): orders get a short 503 stock_reloading (no other answer but " +
			"orders and the final sold_out, no 500s) while the stock is rebuilt from the database, " +
			"then every unit sells, none twice, and the Redis and database stocks both end at 0",
		Fix: "the database is the truth: rebuild the cached stock from it once every order taken from the lost " +
			"stock has landed, and give a unit back only to the load of the stock it came from",
		Seed: "seed 003 keeps the stock in Redis; a Redis restart without persistence, and rebuilding the stock " +
			"from the database, go beyond it",
		Strategies:  []string{"redis-lua-stock"},
		MinReplicas: 1,
	},
	{
		Name:  "queue-durability",
		Title: "A queue is as durable as its Redis: 202s lost to a restart without persistence",
		Predict: "an async redis-lua-stock sale answers 202 with a ticket while a held sale row keeps the " +
			"consumers from committing; the default Redis restarts with entries still unread in the stream: " +
			"with persistence none those 202 tickets never become orders (GET /api/orders/:ticket 404, counted " +
			"as lost), with appendfsync always none is lost; everysec is shown, not asserted: the restart is a " +
			"process crash (DEBUG CRASH-AND-RECOVER), the OS page cache survives it, so everysec usually loses " +
			"nothing here and only an OS crash or a power cut would show its one-second window; after each " +
			"restart the reconciliation's repair leaves drift 0",
		Fix: "run the stream's Redis with appendonly yes and appendfsync always (PUT /api/queue/durability), " +
			"or accept and count the loss; reconcile the Redis stock against the database after a restart",
		Seed: "seed 003 keeps the stock in Redis; the queue between the script and the database, and what it " +
			"loses, go beyond the seeds",
		Strategies:  []string{"redis-lua-stock"},
		MinReplicas: 1,
	},
	{
		Name:  "herd-sold-out-cache",
		Title: "A herd after the sell-out: the sold-out cache answers from memory",
		Predict: "600 buyers for 20 units fire at the opening of a redis sale: without the sold-out cache every " +
			"sold-out answer queues for the lock to read stock 0 (no answer from the sold_out_cache layer); with " +
			"it, once the stock of record reads 0, most answers after the sell-out come from memory and far " +
			"fewer sections take the lock; both times exactly 20 sold, oversold 0, duplicates 0",
		Fix: "remember a sold-out sale on every replica (set only after the database reads 0, cleared on " +
			"restock) and refuse before the lock",
		Seed:        "beyond the seeds (flash-sale practice, no source quoted): reject early, reject cheap: most of a herd loses, let it lose in memory",
		Strategies:  []string{"redis"},
		MinReplicas: 1,
	},
	{
		Name:  "herd-rate-limit",
		Title: "A herd of repeat clicks: a per-user rate limit stops them before the lock",
		Predict: "150 buyers each click three times at once for 20 units (sold-out cache off): without a limit " +
			"every click reaches the lock; with rate_limit_user 1/s the repeat clicks get 429 rate_limited " +
			"(Retry-After, layer rate_limit) before the lock, so fewer sections take it, and the stock still sells exactly: 20 sold, " +
			"oversold 0, duplicates 0; the p99 of the buyers who got through is shown, not asserted",
		Fix:         "a cluster-wide per-user (and per-IP) limit in Redis (GCRA), a per-replica limiter when Redis is down",
		Seed:        "beyond the seeds (flash-sale practice, no source quoted): limit each user's requests before they reach the inventory",
		Strategies:  []string{"redis"},
		MinReplicas: 1,
	},
	{
		Name:  "reentrancy",
		Title: "A nested lock on a non-reentrant lock waits for itself",
		Predict: "an order takes its own lock again (fault nested_lock, at most 1.5 s): on redis the nested Lock waits " +
			"for the lock its own order holds until the bound, the order fails (nested_lock_timeout) and writes " +
			"nothing, and the lock goes with the outer holding (buyer-2 is served); on redisson, a hash of holder -> hold " +
			"count, the same order takes it again at once, buys, and frees it on its last unlock (buyer-2 is served too)",
		Fix: "a reentrant lock that counts holds per holder (Redisson's HINCRBY hash), or code that never takes a " +
			"lock it may already hold",
		Seed: "seed 004: 「分布式锁最好也能满足可重入、高性能、阻塞锁特性」 and its memo column 「可用来支持重入特性,标记下当前加锁的" +
			"client和加锁次数」; seed 003 quotes Redisson's lock script: 「if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) " +
			"then redis.call('hincrby', KEYS[1], ARGV[2], 1)」",
		Strategies:  []string{"redis", "redisson"},
		MinReplicas: 1,
	},
	{
		Name:  "db-lock-reentrant",
		Title: "A nested lock on a lock table without a hold count waits for itself",
		Predict: "an order takes its own lock again (fault nested_lock, at most 1.5 s), and lock_table is read meanwhile: on " +
			"db-lock-table-plain, the lock table without a count, the nested INSERT meets the row its own order holds and is " +
			"retried on each duplicate key (about every 1 ms at first, backing off to about every 20 ms) until the bound: the reads find one row, " +
			"the order's, holds 1; the order fails (nested_lock_timeout) having written nothing, its unlock deletes the row, and " +
			"buyer-2 is served; on db-lock-table the row's owner is the order and its holds column counts the nested lock: the " +
			"same order goes through at once, and stalled at the nested hold (pause_holder, 3 s) its row reads holds 2; it " +
			"buys, its last unlock deletes the row (no row after it), and buyer-2 is served too",
		Fix: "a hold count per owner in the lock row (holds + 1 when the owner locks again, the last unlock deletes " +
			"the row), the owner being the caller (here the order), not each Lock call",
		Seed: "seed 004: 「分布式锁最好也能满足可重入、高性能、阻塞锁特性」 and its memo column 「可用来支持重入特性,标记下当前加锁的" +
			"client和加锁次数」",
		Strategies:  []string{"db-lock-table-plain", "db-lock-table"},
		MinReplicas: 1,
	},
	{
		Name:  "getset-expiry",
		Title: "SETNX + GETSET with the client's expiry: the clients' clocks must agree",
		Predict: "redis-getset (TTL 3 s): the second replica's clock runs 5 s ahead (fault clock_skew); buyer-1 on the first " +
			"holds the lock and stalls 2 s, within its TTL by the real clock; buyer-2 reads buyer-1's expiry as past, takes the lock " +
			"over with GETSET and buys while buyer-1 holds it (buyer-2 enters its section less than the TTL after buyer-1 by the real " +
			"clock, as the timeline shows: the skew's takeover, not an expiry); buyer-1 writes its stale stock: a lost update " +
			"(violations >= 1, lost_updates >= 1). redis, whose TTL the server keeps, makes buyer-2 wait for buyer-1: violations 0",
		Fix: "let the server keep the time (SET NX PX) and put an owner in the value, released by one atomic " +
			"compare-and-delete",
		Seed:        "seed 000: 「过期时间是客户端自己生成的,分布式环境下,每个客户端的时间必须同步。」",
		Strategies:  []string{"redis-getset", "redis"},
		MinReplicas: 2,
	},
	{
		Name:  "getset-release-race",
		Title: "SETNX + GETSET released by GET then DEL: the DEL frees the next holder's lock",
		Predict: "redis-getset (TTL 2.5 s): buyer-1's release finds its own value with GET and, before its DEL, waits (fault " +
			"getset_release_gap) until its lock has expired and buyer-2, on the other replica, has taken it over with GETSET; buyer-2 " +
			"stays inside its section (2 s, within its own TTL); buyer-1's DEL deletes buyer-2's lock and buyer-3 walks in with SETNX beside " +
			"buyer-2: freed_others >= 1, violations >= 1. redis (TTL 4 s, watchdog off) releases with one compare-and-delete script and is " +
			"made late too: buyer-1's slow step (slow_work 5 s) outlives its TTL, buyer-2 takes the expired lock over and stays inside " +
			"(2 s), buyer-1's check stops it (lock_lost) and its release, after buyer-2's grant, finds buyer-2's lock and leaves it " +
			"(lease events: release_refused >= 1, freed_other 0); buyer-3 waits for buyer-2: no overlap begins after the refused release " +
			"(the one before it is the expiry's), lost_updates 0",
		Fix: "an owner token in the value and one atomic compare-and-delete (a Lua script), as the `redis` strategy " +
			"releases",
		Seed: "seed 000: 「没有保存持有者的唯一标识,可能被别的客户端释放/解锁」, and on releasing by GET then DEL: " +
			"「判断当前线程加的锁和释放锁不是一个原子操作。如果调用jedis.del()释放锁的时候,可能这把锁已经不属于当前客户端,会解除他人加的锁。」",
		Strategies:  []string{"redis-getset", "redis"},
		MinReplicas: 2,
	},
	{
		Name:  "getset-loser-overwrites",
		Title: "Concurrent GETSETs: the loser writes its expiry over the winner's",
		Predict: "redis-getset (TTL 4 s): buyer-1 takes the lock and dies (crash_after_setnx); buyer-3 reads buyer-1's expiry as past and, " +
			"before its GETSET, waits (fault getset_takeover_gap) until buyer-2's GETSET has won; buyer-2 stays inside its section " +
			"(1.5 s) until buyer-3's GETSET lands: it loses but has written buyer-3's expiry over buyer-2's (overwrites >= 1); buyer-2 buys and " +
			"its release finds buyer-3's value: refused (refused " +
			"releases >= 1). The lock now ends at buyer-3's expiry, computed before buyer-3 waited: after buyer-2 is done (held by nobody " +
			"until then; buyer-4 waits) or, on a slow machine, while buyer-2 still works (another buyer beside buyer-2: an overlap); " +
			"nothing oversold",
		Fix: "take a free or expired lock in one atomic step that writes only when it wins (SET NX PX, or a Lua script), " +
			"and release by owner",
		Seed: "seed 000: 「锁过期的时候,并发多个客户端同时请求过来,都执行了jedis.getSet(),最终只能有一个客户端加锁成功," +
			"但是该客户端锁的过期时间,可能被别的客户端覆盖。」",
		Strategies:  []string{"redis-getset"},
		MinReplicas: 2,
	},
	{
		Name:  "renewal-fails",
		Title: "When renewal fails the lock only signals: the holder must stop its work",
		Predict: "buyer-1 holds redis (TTL 1.5 s, the watchdog renewing every 0.5 s) in an 8 s business step (fault slow_work, " +
			"before its lock check); Redis then answers nothing for 3 s (fault freeze_redis: a hung or unreachable server), so no " +
			"renewal gets through: the lease is declared lost two renewal periods or more after its last renewal (lease event " +
			"lost; 3 s in the runs here) and Lost() closes; after the thaw buyer-2, on the other replica, takes the expired lock " +
			"and is seen inside beside buyer-1; buyer-1's check before the write stops it (lock_lost, nothing written): an " +
			"overlap, lost_updates 0, oversold 0 (redis-restart shows a lost lock past the check: a lost update)",
		Fix: "check the lease (Lost) before every write that the lock protects, and fence the write for the pause " +
			"that comes after the check",
		Seed: "seed 002: 「分布式锁并不能直接帮你中断业务,它只能给你发一个信号」, and when renewal keeps failing: " +
			"「如果不断重试之后,续约都失败了,那么这个时候就要根据业务来决定采取保守策略还是激进策略了」 (this lesson shows the " +
			"conservative one, stopping the work; renewal-fails-aggressive sets the aggressive one beside it)",
		Strategies:  []string{"redis"},
		MinReplicas: 2,
	},
	{
		Name:  "renewal-fails-aggressive",
		Title: "Renewal keeps failing: both holders are told; the conservative one gives up the order, the aggressive one chooses to write",
		Predict: "renewal-fails' setup on both policies: buyer-1 holds the lock (TTL 1.5 s, watchdog on) in an 8 s business step " +
			"(slow_work, before its lock check); Redis answers nothing for 3 s (freeze_redis), no renewal gets through, and on " +
			"both sides the lease is declared lost (lease event lost, two renewal periods or more after its last renewal) and " +
			"Lost() closes; after the thaw buyer-2 on the other replica buys, seen inside beside buyer-1. redis (the " +
			"conservative policy: the check stops buyer-1) gives up buyer-1's order (lock_lost: 1 order given up, lost_updates " +
			"0); redis-aggressive is the same lock, whose holder is told the same way and chooses to go on: its check sees " +
			"Lost() closed, writes anyway and records that it did (lease event went_on): buyer-1's stale stock lands (0 orders " +
			"given up, an overlap and a lost update counted)",
		Fix: "choose per business: conservative where a wrong write costs more than a lost sale (stock, money), aggressive " +
			"only where a rare inconsistency is acceptable; either way the lock only signals, and fencing at the resource " +
			"is what refuses the aggressive holder's write",
		Seed: "seed 002: 「如果不断重试之后,续约都失败了,那么这个时候就要根据业务来决定采取保守策略还是激进策略了」, 「如果你觉得这种非常偶然的" +
			"续约失败是可以接受的,那么你还是可以继续执行业务,当然这可能引起数据不一致的问题,这也就是激进方案。」 and " +
			"「分布式锁并不能直接帮你中断业务,它只能给你发一个信号」",
		Strategies:  []string{"redis", "redis-aggressive"},
		MinReplicas: 2,
	},
	{
		Name:  "acquire-reply-lost",
		Title: "An acquire whose reply was lost: check for your own value before retrying",
		Predict: "the first replica's next lock script runs on Redis but its reply is lost (fault drop_reply): our " +
			"redisson model gives up on the error (buyer-1 backend_down) and its orphaned lock keeps buyer-2 waiting until the TTL (3 s; " +
			"at least half of it required); redis asks Redis whether the lock is its own before anything else, finds its id, and buyer-1 " +
			"buys at once (within the TTL, not after waiting its own lock out), buyer-2 after it. Each side's drop is counted " +
			"(GET /api/faults replies_dropped: one during buyer-1's order)",
		Fix: "after a timeout or a lost reply, look for your own token (GET key == my id) before trying again",
		Seed: "seed 002: 「比如说加锁的时候收到了超时响应,就可以发起重试」; 「如果 key1 存在,检查值是不是 value1。如果是 value1," +
			"那么说明我上一次加锁成功了。」",
		Strategies:  []string{"redisson", "redis"},
		MinReplicas: 2,
	},
	{
		Name:  "two-level-handoff",
		Title: "A local hand-off in front of the distributed lock keeps it safe and saves round trips",
		Predict: "the same contended sale (16 buyers, 96 orders, 1 ms of work, fencing on) on redis and on redis-2level: " +
			"both sell exactly what the database counts (oversold 0, lost_updates 0, violations 0, fenced_writes 0: " +
			"the tokens stay monotonic across hand-offs), and redis-2level hands its lock on locally at least once (in its " +
			"timeline a section's token 1 to 8 above the one before it on the same replica: one Redis acquisition, " +
			"several holders); the orders/s of each are shown, not judged (the lock's own " +
			"gain is make bench's BenchmarkContentionProcesses: about 5x at a 0 ms section over 3 processes)",
		Fix: "queue the contenders of one process locally, send one of them to the distributed lock, and pass the lock " +
			"between local waiters up to a fairness bound before releasing it",
		Seed: "seed 002: 「在实例拿到了分布式锁之后,释放锁之前先看看本地有没有别的线程也需要同一把分布式锁。如果有,就直接转交给本地的线程," +
			"进一步减少加锁和释放锁的开销。」",
		Strategies:  []string{"redis", "redis-2level"},
		MinReplicas: 1,
	},
	{
		Name:  "lock-per-batch",
		Title: "One lock per batch: the buyers waiting on a replica share one acquisition and one transaction",
		Predict: "the same herd (100 units, 400 buyers at the opening, fencing on) on redis without and with combine: " +
			"without it every order takes the lock and a transaction of its own (lock acquisitions >= orders); with it " +
			"the buyers waiting on one replica are sold together (acquisitions < orders, several units per hold); both " +
			"sell exactly what the database counts (oversold 0, lost_updates 0, violations 0); the time to sell out and " +
			"the buyers' p99 are shown, not judged",
		Fix: "gather the orders of one sale waiting on a replica, take the lock once, sell the batch in one transaction " +
			"(one conditional stock write by n, one multi-row insert, each buyer's limit and key checked inside), and " +
			"answer each buyer on its own",
		Seed: "beyond the seeds (no source quoted): flash-sale practice calls it 合并请求 (request combining); seed 002's " +
			"local hand-off (two-level-handoff) is its first step",
		Strategies:  []string{"redis"},
		MinReplicas: 1,
	},
	{
		Name:  "redlock-herd",
		Title: "RedLock under a herd: the masters' votes split and nobody gets the lock",
		Predict: "the same herd (60 units, 240 buyers at the opening, 96 at a time) on redlock, first with no_queue (every " +
			"waiter sends its own SET NX to the three masters at once, 5-20 ms apart, as redsync does), then as redlock runs " +
			"by default: without the queue each master gives its vote to whichever waiter reaches it first once the key is " +
			"free there, different waiters win different masters, nobody has a quorum, all release and retry: at least one " +
			"failed quorum round (split votes) per acquisition; with one contender per replica (a local queue in front of the " +
			"masters) and a randomized backoff after a split, fewer failed rounds than acquisitions, and fewer than without; " +
			"both sell exactly what the database counts (oversold 0, lost_updates 0, violations 0); the rounds are counted by " +
			"the replicas, the time to sell out is shown, not judged",
		Fix: "queue the contenders of one process for the key in memory and let only the first reach the masters; after a " +
			"round whose votes split, release them on every master at once and back off a random time that doubles with the " +
			"failed rounds, capped; the quorum, the validity (TTL - elapsed - drift) and the release on failure stay RedLock's",
		Seed: "beyond the seeds (no seed runs RedLock under a herd): the Redis documentation's RedLock page asks a client " +
			"that failed to get the lock to release every instance and to retry after a random delay, so that clients trying " +
			"at once fall out of step, since a split may leave nobody the winner",
		Strategies:  []string{"redlock"},
		MinReplicas: 1,
	},
	{
		Name:  "split-hot-row",
		Title: "Split the hot row: a stock in 8 shards sells 8 at once",
		Predict: "the same herd (200 units, 1600 buyers at the opening) on db-conditional with the stock in one row and " +
			"split into 8 (stock_shards 8): with one row every conditional decrement waits for it; with 8 a buyer takes " +
			"its unit from its home shard (a hash of its id) and, once that is empty, from the next with stock; both " +
			"sell exactly (oversold 0, lost_updates 0, stock 0, the history linearizable), every shard sells and the " +
			"shards' sales add up to the orders; the time to sell out, orders/s, the orders per shard and the buyers " +
			"who moved on from an empty shard are shown, not judged",
		Fix: "split the stock into N rows (or Redis keys) so that N buyers hold one at once; send each buyer to a " +
			"shard by a stable hash of its id, on to the next with stock when it is empty, in the same transaction; " +
			"the sale is sold out only when every shard is, and its stock is the sum of its shards",
		Seed: "beyond the seeds (no source quoted): flash-sale practice calls it 库存分段 (splitting the stock), " +
			"the way past the one row lock every database road sells from",
		Strategies:  []string{"db-conditional"},
		MinReplicas: 1,
	},
	{
		Name:  "for-update-needs-tx",
		Title: "SELECT ... FOR UPDATE locks only inside a transaction",
		Predict: "db-pessimistic-autocommit runs the FOR UPDATE in autocommit: the row lock ends with the statement, " +
			"16 buyers read and write the stock at once: lost updates and violations (both >= 1); db-pessimistic, the same " +
			"SELECT inside the order's transaction, sells exactly",
		Fix:         "begin a transaction, take the row lock, do the work and the write in it, and commit: commit is the unlock",
		Seed:        "seed 000, on its select ... for update lock: 「这里需要注意一下哈,必须要加事务 哈。」",
		Strategies:  []string{"db-pessimistic-autocommit", "db-pessimistic"},
		MinReplicas: 1,
		ClassPace:   true,
	},
	{
		Name:  "etcd-lease-expiry",
		Title: "etcd: a holder paused past its lease loses the lock; the create revision fences it",
		Predict: "etcd with a 2 s lease: buyer-1's replica stops (SIGSTOP) for 6 s inside its section, its keep-alives stop, " +
			"the lease expires and buyer-2's key holds the lock; buyer-2 commits while buyer-1 is stopped, buyer-1 wakes and writes: a lost " +
			"update (lost_updates >= 1); with fencing buyer-1's token (its key's create revision) is below buyer-2's and its write " +
			"is refused (fenced 1, lost_updates 0); the seeds' locks do the same to a paused holder (a Redis TTL in " +
			"pause-past-ttl, a ZooKeeper session in zk-session-expiry): a lease that ends while its holder sleeps",
		Fix: "a consensus store keeps the lock itself consistent (no failover loses a key), and its create revision is " +
			"a fencing token for free: pass it to the resource",
		Seed: "beyond the seeds (no seed has etcd): etcd's own documentation, \"Notes on the usage of lock and lease\": " +
			"\"the lease mechanism itself doesn't guarantee mutual exclusion. Owning a lease cannot guarantee the owner " +
			"holds a lock of the resource.\" and, of Kleppmann's fencing token, \"The authors interpret that fencing token " +
			"is revision number in the case of etcd.\"",
		Strategies:  []string{"etcd"},
		MinReplicas: 2,
	},
	{
		Name:  "sentinel-failover",
		Title: "A master that fails over before replicating the lock lets a second holder in",
		Predict: "redis-sentinel: buyer-1 holds the lock on the master while replication is held back, the master dies, the " +
			"Sentinels promote the replica, which never saw the key: buyer-2 gets the lock while buyer-1 still holds it, buyer-1's late " +
			"write is a lost update (violations >= 1); with fencing buyer-2's token is above buyer-1's (the tokens follow the " +
			"server's clock, and here every node shares one host: a promoted replica whose clock is behind would hand out " +
			"lower tokens) and buyer-1's write is refused (fenced 1, oversold 0); redlock with 1 of its 3 independent masters restarted keeps buyer-2 waiting",
		Fix: "a lock whose state survives a node's loss: a quorum of independent masters (redlock, still not safe against a " +
			"pause), a consensus store (zookeeper, etcd), and fencing at the resource either way",
		Seed: "seed 000: 「如果线程一在Redismaster节点上拿到了锁,但是加锁的key还没同步到slave节点。恰好这时,master节点发生故障," +
			"一个slave节点就会升级为master节点。线程二就可以顺理成章获取同个key的锁啦」; seed 002: 「Redis 的主从同步是异步的」",
		Strategies:  []string{"redis-sentinel", "redlock"},
		MinReplicas: 2,
	},
	{
		Name:  "zk-ensemble-server-killed",
		Title: "A ZooKeeper ensemble keeps its locks when one server of three dies",
		Predict: "zookeeper on the three-server ensemble (the replicas' SECKILL_ZK_SERVERS lists it: scripts/services.sh up " +
			"--zk-ensemble): buyer-1 holds the lock, stalled 4 s; a follower is killed (SIGKILL), the server buyer-1's replica's " +
			"session is on unless that is the leader: the session moves to a live server (or stays on the leader) and buyer-1 " +
			"keeps its lock, whose node lives in the ensemble, not on one server; buyer-2 on the other replica, sent while the " +
			"server is down, waits for buyer-1 and buys after it; a burst of 16 buyers is served by the two servers left (the " +
			"killed one still down when the burst has been answered); the " +
			"server starts again and the ensemble is whole: oversold 0, lost_updates 0, violations 0",
		Fix: "nothing to fix for one server: two of three are a quorum (three servers survive one loss, five survive two); " +
			"a dead leader disconnects every session until a new one is elected (about a second here), which the session " +
			"timeout must cover",
		Seed: "seed 003: 「zookeeper天生設計定位就是分布式協調,強一致性。鎖的模型健壯、簡單易用、適合做分布式鎖。」 and " +
			"「如果公司里面有zk集群條件,優先選用zk實現」; seed 000: 「从可靠性角度(从高到低)Zookeeper > Redis > 数据库」; " +
			"seed 004, of any lock service: 「只要分布式锁服务集群节点大部分存活,client就可以进行加锁解锁操作」 (the same sentence " +
			"begins 「分布式锁服务一般要满足AP」, yet a majority quorum is CP: the minority side stops)",
		Strategies:  []string{"zookeeper"},
		MinReplicas: 2,
	},
	{
		Name:  "consistent-hashing-ring-change",
		Title: "Consistent hashing trades the distributed lock for a local one until the ring changes: two owners for a moment",
		Predict: "consistent-hash (one owner replica per sale on a ring over the live replicas, an in-process lock there, " +
			"not_owner elsewhere), buyers on two replicas: the owner leaves the others' rings for 3 s while its own view stays " +
			"stale (stale_ring), so two replicas each name themselves the owner (GET /api/sales/{id}/ring): both sell, " +
			"overlapping sections (violations >= 1) and lost updates (>= 1); then the old owner rejoins while buyers still " +
			"buy, every replica names it again and it serves (>= 1 order after the join). With fencing on: the new owner's " +
			"token carries its newer ring epoch, the old owner's writes are refused (fenced_writes >= 1, lost_updates 0), and " +
			"after its rejoin it sells again. The epochs are the replicas' own clocks, which agree here (one host)",
		Fix: "fence by ring epoch (a token per owner view, claimed in the database before the read), or let the database's " +
			"conditional write decide; routing alone is safe only while every replica sees the same ring. The epoch here is " +
			"the replica's own clock (milliseconds) when its view changed, so it orders views only while the replicas' clocks " +
			"agree to within the time between two ring changes: a replica whose clock is behind gives its newer view a " +
			"smaller epoch, and the database then refuses the rightful owner's writes (fenced) and accepts the stale owner's, " +
			"until a later view change lifts its epoch above the fence; nothing is lost or oversold, but the wrong replica " +
			"sells, or none. An epoch from a shared counter (a Redis INCR, a database sequence, a consensus store's revision " +
			"such as etcd's) removes that assumption",
		Seed: "seed 002 (去分布式锁, 2): 「在使用这种算法的时候,同一个业务的请求肯定发到同一个节点上。这时候就没必要使用分布式锁了," +
			"本地直接加锁,或者用 Singleflight 模式就可以。」 (it drops the distributed lock, not the lock: 「本地直接加锁」, here " +
			"the owner's in-process lock, stays; the seed stops there: what a replica leaving or joining does to \"the same " +
			"node\" is beyond the seeds)",
		Strategies:  []string{"consistent-hash"},
		MinReplicas: 2,
		ClassPace:   true,
	},
	{
		Name:  "db-lock-single-point",
		Title: "A lock kept in the database stops every sale when the database goes",
		Predict: "every replica is cut off the database for 2.5 s (fault cut_db: its connections closed, new ones refused) " +
			"while buyer-1, on the first, is inside its section: with the lock in the database (db-lock-table, db-pessimistic) " +
			"every order in the outage fails cleanly, 503 db_unavailable, buyer-1's too (the server rolls its transaction back): " +
			"nothing sold, nothing half-written; once the database is back orders resume, db-pessimistic at once (within 2.5 s, " +
			"sooner than a 5 s lock row taken before the outage could expire: buyer-1's row lock went with its connection), " +
			"db-lock-table only after the lock row buyer-1 could not delete, still there after the outage, expires (its 5 s TTL); " +
			"redis, whose lock is not in the database, stops all the same: the stock of record is there; each time the " +
			"database counts exactly the orders the buyers were told they had",
		Fix: "seed 004's remedy, said here and not run: replicate the database synchronously and move a virtual IP to the new master; a lock elsewhere " +
			"(Redis, ZooKeeper, etcd) takes the lock off the database, not the sale: while the stock of record lives in " +
			"the database, its availability bounds every strategy's",
		Seed: "seed 004: 「不过DB作为分布式锁服务需要考虑单点问题,对于分布式系统来说是不允许出现单点的,一般通过数据库的同步复制," +
			"以及使用vip切换Master就能解决这个问题。」; seed 000 ranks it last for reliability: " +
			"「从可靠性角度(从高到低)Zookeeper > Redis > 数据库。」",
		Strategies:  []string{"db-lock-table", "db-pessimistic", "redis"},
		MinReplicas: 1,
	},
	{
		Name: "polling-vs-subscribe",
		Title: "Waiting for a lock, 48 buyers at once with 30 ms of work: polling sends Redis more commands per " +
			"acquisition than a pub/sub wait or a FIFO hand-over; a ZooKeeper release wakes only the waiter behind it",
		Predict: "the same herd (48 buyers at once over the replicas, 30 ms of work) on four locks, one sale after the " +
			"other; they differ in design as well as in waiting, so whole locks are compared: redis-no-owner polls (SET NX, " +
			"then sleeps 0.5-30 ms and tries again), redisson waits on a pub/sub channel, redis queues its waiters in Redis " +
			"and hands the lock on, zookeeper's waiter watches only the node before its own. Judged: polling sends Redis " +
			"more commands per order than redisson and redis (only the command names each lock sends are counted; the " +
			"shop's reconciler adds a few SETs every 2 s); each ZooKeeper release wakes at most one waiter, not the herd; " +
			"every sale sells exactly. Shown, not judged: the three Redis locks again with 5 ms of work, where polling is " +
			"cheap (the next try finds the lock free), and the CPU, the p99 wait and ZooKeeper's requests, which are " +
			"other work on another server and not compared with Redis commands",
		Fix: "wait without asking: subscribe to the release (redisson), queue and be handed the lock (redis), or on " +
			"ZooKeeper watch only the node before your own (a watch on the whole directory would wake every waiter at " +
			"each release); where polling stays, sleep longer between tries (seed 002's 100 ms) and pay for it in " +
			"wait: polling is cheap only while the holds are short next to its sleeps",
		Seed: "seed 003, of Redis: 「獲取不到鎖直接不斷嘗試獲取鎖,比較消耗性能」; of ZooKeeper: 「則對節點序號的前一個節點添加一個" +
			"事件監聽」 and 「如果獲取不到鎖,只需要添加一個監聽器就可以了,不用一直輪詢,性能消耗較小。」, but 「如果有較多的客戶端頻繁的" +
			"申請加鎖、釋放鎖,對于zk集群的壓力會比較大」; seed 000, of ZooKeeper: 「client2向它排序靠前的节点lock1注册Watcher" +
			"事件,用来监听lock1是否存在」; seed 001, of ZooKeeper: 「此时它会去监视比自己创建节点的序号小的最大节点，进入等待」; " +
			"seed 002: 「第一种方式就是轮询,比如说在加锁失败之后,每睡眠 100 毫秒就尝试加锁一次」 and 「第二种方式是监听删除事件」",
		Strategies:  []string{"redis-no-owner", "redisson", "redis", "zookeeper"},
		MinReplicas: 1,
	},
	{
		Name:  "redlock-clock-jump",
		Title: "RedLock's validity is counted on the client's clock: a master's clock jump gives two holders",
		Predict: "first, redsync's time to lock 3 masters here (p50 and p99 of 40 uncontended orders; validity = TTL - that " +
			"time - drift); then buyer-1 holds a redlock (TTL 8 s) and stalls 6.5 s in its section, and two faults follow, both " +
			"needed: redlock-3 restarts empty (alone it leaves buyer-1 2 of 3), and on redlock-2 fault clock_jump_redis " +
			"simulates a forward clock jump by cutting every key's expiry to 1 ms (keys_cut >= 1: buyer-1's key; no clock " +
			"changes). buyer-2 on the other replica takes masters 2 and 3, a quorum, and is seen inside while buyer-1's " +
			"validity, counted on its own clock, has time left: two holders (violations >= 1). Watchdog off: buyer-1 writes " +
			"its stale stock (a lost update). Watchdog on: its next renewal finds no quorum (lease event lost) and its check " +
			"stops it (lock_lost, no lost update)",
		Fix: "no clock is shared: bound the drift (no stepping clocks on the masters), keep the TTL well above the time to " +
			"acquire (seed 003's 「幾十毫秒」 is far too short for any work: the measured time to acquire reaches tens of ms " +
			"at p99 on a loaded machine here, which would leave a TTL of tens of ms no validity; the Redis documentation puts the per-master timeout, " +
			"not the TTL, at 5-50 ms), renew and check " +
			"before writing; only a fencing token at the resource covers a jump or a pause after the check",
		Seed: "seed 000: 「如果取到了锁,key的真正有效时间就变啦,需要减去获取锁所使用的时间。」; seed 002: 「假设说你的锁过期时间是 " +
			"10 秒,加锁花了 1 秒钟,那么你就只剩下 9 秒钟。」; seed 003: 「輪流嘗試在每個master節點上創建鎖,過期時間設置較短,一般就幾十毫秒」 " +
			"(beyond the seeds: the drift term and the clock jump are the Redis documentation's and Kleppmann's)",
		Strategies:  []string{"redlock"},
		MinReplicas: 2,
	},
	{
		Name:  "redis-single-point",
		Title: "One Redis node is a single point of failure; RedLock goes on with one master of three down",
		Predict: "a redis sale and a redlock sale (TTL 10 s); the redis sale's one node and the first of redlock's three masters " +
			"are frozen for 7 s (fault freeze_redis: they answer nothing, as a hung or unreachable server) while buyers keep " +
			"ordering on both, every replica: the redis sale sells nothing inside the freeze (its orders wait on the silent " +
			"node and are answered once it thaws: an order or lock_lost); redlock takes its quorum on the two masters left " +
			"and sells inside the freeze (its clients give a silent master a round's deadline, not the whole hang; an order " +
			"that met the master mid-command still waits: the slowest answer is shown); once the nodes thaw both sell again, " +
			"and neither oversells nor loses an update",
		Fix: "a quorum of independent masters (redlock) or a replicated store keeps the lock available; Sentinel's " +
			"failover keeps the service too, at the price of the sentinel-failover lesson's lost lock",
		Seed:        "seed 003: 「使用redis做分布式鎖的缺點在于:如果采用單機部署模式,會存在單點問題,只要redis故障了。加鎖就不行了。」",
		Strategies:  []string{"redis", "redlock"},
		MinReplicas: 1,
	},
	{
		Name:  "zk-session-expiry",
		Title: "A ZooKeeper holder whose session expires loses its lock",
		Predict: "a zookeeper holder whose session expires loses the lock: a buyer on another replica gets it " +
			"while the first still stalls; the first's write is fenced (or aborted as lock_lost); violations >= 1, oversold 0",
		Fix: "check the lease before writing and fence the write with the node's czxid",
		Seed: "seed 001: 「如果某个Client与ZK连接断开，临时节点就会消失，锁就会被错误的释放。」; seed 003: " +
			"「客戶端可以建立一個臨時節點,在會話結束或者會話超時后,zookeeper會自動刪除該節點。」 (the node goes when the " +
			"session expires, not when the connection drops: a client that reconnects within the session timeout keeps it)",
		Strategies:  []string{"zookeeper"},
		MinReplicas: 2,
	},
	{
		Name:  "db-lock-crashed-holder",
		Title: "A crashed holder's lock row stays until something deletes it; deleting expired rows frees a slow live holder's too",
		Predict: "db-lock-table-plain. buyer-1 dies right after its INSERT (fault crash_after_setnx: holder_crashed) and its row " +
			"stays in lock_table. With an expiry 10 minutes off (ttl_ms 600000, standing for a row that never expires), buyer-2 and " +
			"buyer-3, one per replica, each wait out the shop's lock wait (lock_timeout): sold 0, and the same row is still there. " +
			"With a 1 s expiry, a waiter deletes the expired row (DELETE ... WHERE expires_at < NOW(6): the cleanup, run here by " +
			"every waiter) and both buy: sold 2, no row left. The cleanup's own pitfall: buyer-1, alive, stalls 5 s inside its " +
			"section (pause_holder) under the same 1 s expiry; buyer-2 deletes its row as expired while it is still stalled and " +
			"buys; buyer-1 then writes its stale stock: violations >= 1. With fencing on, buyer-1's write is refused (fenced)",
		Fix: "give the row an expiry and delete expired rows (a cleanup job, or every waiter as here): a dead holder then blocks " +
			"the key for one expiry, not for good. A live holder must then keep its row from expiring while it works (renew " +
			"expires_at; db-lock-table does not) or carry a fencing token its write is checked against (lock_fences, as the " +
			"fenced case shows)",
		Seed: "seed 004: 「基于DB的分布式锁其实有一个问题,那就是如果加锁成功后,client端宕机或者由于网络原因导致没有解锁,那么其他client就无法" +
			"对该key_id进行加锁并且无法释放了。」 and its remedy 「为了能够让锁失效,需要在应用层加上定时任务,去删除过期还未解锁的记录」; " +
			"seed 000's status-row lock gives up on a row whose holder ran past its time instead of taking it: " +
			"「//超时未正常执行结束,获取锁失败」. The slow live holder on the table is beyond the seeds; seed 000 says it of " +
			"Redis's expiry: 「锁过期释放了,业务还没执行完。」",
		Strategies:  []string{"db-lock-table-plain"},
		MinReplicas: 2,
	},
	{
		Name:  "zk-dead-holder",
		Title: "ZooKeeper releases a dead holder's lock at session expiry",
		Predict: "while a zookeeper holder is alive (stalled) another buyer cannot get the lock (lock_timeout); " +
			"once the holder's replica is killed (SIGKILL) its session expires and the next buyer is served " +
			"within the session timeout, with nothing oversold (the dead holder wrote nothing)",
		Fix: "nothing to fix for a dead holder: its session ends and its node with it; the session timeout " +
			"plays the TTL's part (too short expires live holders, too long keeps a dead one's lock longer; " +
			"a killed replica stays dead: restart the demo)",
		Seed: "seed 000: 「临时节点 :和持久节点相反,当创建节点的客户端与zookeeper断开连接后,临时节点会被删除。」 (more " +
			"precisely, at session expiry: a disconnection alone deletes nothing while the session lives, which is why " +
			"the next buyer waits out the session timeout here)",
		Strategies:  []string{"zookeeper"},
		MinReplicas: 2,
	},
}

// Find returns the lesson called name.
func Find(name string) (Lesson, bool) {
	for _, l := range Catalogue {
		if l.Name == name {
			return l, true
		}
	}
	return Lesson{}, false
}
