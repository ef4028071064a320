package interview

// The questions of the sale itself: the guarantee, the hot row, the herd
// and the estimate built on them.

var qOversell = Question{
	ID:  "oversell",
	Ask: Text{"How do you make sure a flash sale never oversells?", "怎样保证秒杀绝不超卖？"},
	Answer: Text{
		"Let the database decide in one statement: UPDATE stock = stock - 1 WHERE id = ? AND stock > 0, and the order's INSERT in the same transaction, a unique key (sale, buyer) for the limit of one. Reading the stock, checking it and writing it back in three steps oversells as soon as two buyers interleave.",
		"让数据库在一条语句里决定：UPDATE stock = stock - 1 WHERE id = ? AND stock > 0，订单的 INSERT 在同一个事务里，(场次, 买家) 唯一键保证每人限购一件。先读库存、再判断、再写回的三步做法，只要两个买家交错执行就会超卖。",
	},
	TradeOff: Text{
		"Every order of the sale now queues on one row lock: correct, but the row's speed is the sale's speed (next question).",
		"这场秒杀的每个订单都在同一把行锁上排队：结果正确，但这一行的速度就是整场秒杀的速度（见下一题）。",
	},
	FollowUp: Text{"And if the stock is read in the application under a lock of its own?", "如果在应用里加自己的锁再读库存呢？"},
	Slots: []Slot{
		fromCase("oversold, the conditional UPDATE on one row", "超卖，单行条件 UPDATE", units, "split-hot-row", "1 stock shards", CaseOversold),
		fromCase("units sold in that herd", "该洪峰卖出的件数", units, "split-hot-row", "1 stock shards", CaseSold),
	},
}

var qLocalLock = Question{
	ID:  "local-lock",
	Ask: Text{"Why not a mutex (synchronized) around the order code?", "为什么不在下单代码外面加一个 mutex（synchronized）？"},
	Answer: Text{
		"It excludes only the threads of one process. With two replicas behind a load balancer each has its own mutex, both read the same stock and both write it: lost updates. The lock must live where every replica meets: the database row, Redis, ZooKeeper.",
		"它只能互斥同一个进程里的线程。负载均衡后面有两个实例时，每个实例有自己的 mutex，两边读到同一个库存又各自写回：丢失更新。锁必须放在所有实例都能看到的地方：数据库的行、Redis、ZooKeeper。",
	},
	TradeOff: Text{
		"A shared lock costs a network round trip per order and a new way to fail: the lock service itself.",
		"共享的锁让每个订单多一次网络往返，也多了一种故障：锁服务本身。",
	},
	FollowUp: Text{"Then which shared lock: the database, Redis or ZooKeeper?", "那么用哪种共享锁：数据库、Redis 还是 ZooKeeper？"},
	Slots: []Slot{
		fromCase("lost updates, a mutex on two replicas", "丢失更新，两个实例各用 mutex", times, "mutex-across-replicas", "mutex", CaseLostUpdates),
		fromCase("critical sections that overlapped, same mutex", "临界区重叠次数，同样的 mutex", times, "mutex-across-replicas", "mutex", CaseViolations),
		fromCase("lost updates, SELECT ... FOR UPDATE", "丢失更新，SELECT ... FOR UPDATE", times, "mutex-across-replicas", "db-pessimistic", CaseLostUpdates),
	},
}

var qHotRow = Question{
	ID:  "hot-row",
	Ask: Text{"Every buyer hits the same stock row. How many orders per second does it take?", "所有买家都打到同一行库存。它每秒能接多少单？"},
	Answer: Text{
		"One row takes one order at a time: its speed is one over the time its lock is held (the UPDATE to the COMMIT). Measure it, do not guess it. Past it, split the stock into shards (rows) and send each buyer to one: the row locks are held side by side.",
		"一行一次只能处理一个订单：它的速度是行锁持有时间（从 UPDATE 到 COMMIT）的倒数。要去测，不要去猜。超过它，就把库存拆成多段（多行），每个买家去其中一段：多把行锁并行持有。",
	},
	TradeOff: Text{
		"Shards sell out unevenly: a buyer may meet an empty shard while another still has units, so the order walks to the next one, and the total is a sum over rows.",
		"各段卖完的时间不一样：买家可能遇到一段已空而另一段还有货，于是订单要走到下一段，总库存也变成了多行之和。",
	},
	FollowUp: Text{"Can you go past one row without splitting the stock?", "不拆库存，能不能超过一行的速度？"},
	Slots: []Slot{
		fromCase("one stock row", "一行库存", perSecond, "split-hot-row", "1 stock shards", HerdOrdersPerSecond),
		fromCase("stock split into 8 rows", "库存分 8 段", perSecond, "split-hot-row", "8 stock shards", HerdOrdersPerSecond),
	},
}

var qCombining = Question{
	ID:  "combining",
	Ask: Text{"Can you go past one row's speed without splitting the stock?", "不拆库存，能不能超过一行的速度？"},
	Answer: Text{
		"Combine: the buyers waiting on one replica go through the lock and one transaction together, one hold selling a batch of units. The lock (and the row) is taken once per batch instead of once per order. Measured below with the Redis lock, per order and per batch.",
		"合并：同一个实例上排队的买家一起拿一次锁、走一个事务，一次持锁卖出一批。锁（和这一行）每批只拿一次，而不是每单一次。下面是用 Redis 锁测得的每单一次与每批一次。",
	},
	TradeOff: Text{
		"A buyer waits for the batch to fill or its wait to pass, and one failed batch fails all its buyers' orders together.",
		"买家要等这一批凑满或等待时间到，而一批失败，批内所有买家的订单一起失败。",
	},
	FollowUp: Text{"What reaches the lock at all when a million buyers click at the opening?", "开售那一刻一百万个买家一起点，到底有多少请求能打到锁上？"},
	Slots: []Slot{
		fromCase("one Redis lock per order", "每单一次 Redis 锁", perSecond, "lock-per-batch", "combining off", HerdOrdersPerSecond),
		fromCase("one Redis lock per batch", "每批一次 Redis 锁", perSecond, "lock-per-batch", "combining on", HerdOrdersPerSecond),
		fromCase("units sold per hold, batched", "合并时每次持锁卖出", units, "lock-per-batch", "combining on", HerdUnitsPerHold),
	},
}

var qHerd = Question{
	ID:  "herd",
	Ask: Text{"A million buyers click at the opening for a thousand units. What do you put in front?", "一百万个买家在开售时抢一千件。前面放什么？"},
	Answer: Text{
		"Layers that answer without the lock, cheapest first: the opening time, a ticket, per-buyer and per-IP rate limits, the idempotency key, and a sold-out flag in memory. Once the stock is gone the herd is answered from memory and never reaches the lock or the database.",
		"不经过锁就能应答的几层，便宜的在前：开售时间、购买资格、按买家和按 IP 限流、幂等键、内存里的售罄标记。库存一卖完，洪峰就由内存应答，不再打到锁和数据库。",
	},
	TradeOff: Text{
		"The sold-out flag is per replica and can be a moment late; a unit given back after it (an unpaid order) must clear it again.",
		"售罄标记在每个实例上各自一份，可能晚一点；之后退回的库存（未支付的订单）必须把它清掉。",
	},
	FollowUp: Text{"Then which lock guards the units that do reach it?", "那么真正打到锁上的请求，用哪种锁？"},
	Slots: []Slot{
		fromCase("answers in the first second, sold-out cache on", "开售第一秒的应答，售罄缓存开", answers, "herd-sold-out-cache", "sold-out cache on", HerdFirstSecondAnswers),
		fromCase("answered by the sold-out cache", "由售罄缓存应答", answers, "herd-sold-out-cache", "sold-out cache on", HerdCacheAnswers),
		fromCase("answered by the sold-out cache, cache off", "由售罄缓存应答，缓存关", answers, "herd-sold-out-cache", "sold-out cache off", HerdCacheAnswers),
	},
}

var qCapacity = Question{
	ID:  "capacity",
	Ask: Text{"Give me a capacity estimate, with numbers.", "给一个容量估算，要有数字。"},
	Answer: Text{
		"Two numbers decide it. The stock sells at the hot row's speed: sell-out time = units / orders per second of the row (or of the shards, or of the batches). Everything else the herd sends is answered by the layers in front, so they must answer the first second's requests. Scale the front for the herd, the row for the stock: measured below on this machine.",
		"决定它的是两个数字。库存按热点行的速度卖出：卖完时间 = 件数 / 这一行（或各段、或各批）每秒的单数。洪峰其余的请求由前面的几层应答，所以它们要扛住第一秒的请求量。前面按洪峰扩容，行按库存扩容：下面是在本机测得的数字。",
	},
	TradeOff: Text{
		"A figure measured on one machine with its cores shared by the database and the load test is a floor, not a promise: measure again on the target hardware.",
		"在一台机器上测得的数字，数据库和压测共用这些 CPU 核，只能算下限而不是承诺：到目标硬件上要再测。",
	},
	FollowUp: Text{"What do you watch in production during the sale?", "秒杀进行时，你在生产环境盯哪些指标？"},
	Slots: []Slot{
		fromCase("the hot row, conditional UPDATE", "热点行，条件 UPDATE", perSecond, "split-hot-row", "1 stock shards", HerdOrdersPerSecond),
		fromCase("time to sell out, one row", "卖完用时，一行", seconds, "split-hot-row", "1 stock shards", HerdSellOutSeconds),
		fromCase("one Redis lock per batch", "每批一次 Redis 锁", perSecond, "lock-per-batch", "combining on", HerdOrdersPerSecond),
		fromCase("answers in the first second", "开售第一秒的应答", answers, "herd-sold-out-cache", "sold-out cache on", HerdFirstSecondAnswers),
	},
}
