package matrix

import "github.com/seckill-lab/seckill/internal/lockstrategy"

// The rules of the faults that touch many strategies, each by the
// properties that decide it: what frees a lock (Expiry), whether the lease
// renews itself, tokens with fencing on, where the lock and the stock live.

// expires says the lock ends by time (a TTL, a session), not with its
// holder's connection or process.
func expires(r Row) bool {
	e := r.Strategy.Expiry
	return e == lockstrategy.ExpiryTTL || e == lockstrategy.ExpirySession
}

// slowWork: the holder's step outlasts the TTL before its check of the
// lease: the check sees the lease lost and stops the holder, unless the
// holder's policy is to go on (seed 002's aggressive one).
func slowWork(r Row) Prediction {
	if !expires(r) || r.Strategy.Expiry == lockstrategy.ExpirySession || r.renewing() {
		return longSection(r)
	}
	if r.Strategy.GoesOnWhenLost {
		return staleHolder(r, "the lease expires during the slow step; the aggressive policy sees the loss and writes anyway",
			"慢步骤期间租约过期；激进策略发现了丢失却照样写入")
	}
	return predict(OverlappedSafe, "the lease expires during the slow step and another buyer takes the lock; the holder's check before its write sees the loss and stops: nothing stale is written",
		"慢步骤期间租约过期，另一个买家拿到锁；持锁者写入前的检查发现丢失并停止：没有写入过期数据")
}

// longSection: the holder's section outlasts the TTL while its process
// lives, past its check of the lease (pause_holder stalls it there).
func longSection(r Row) Prediction {
	switch {
	case !expires(r):
		return predict(Holds, "the lock lasts as long as its holder's connection or process, however long the section: the others wait",
			"锁与持有者的连接或进程同生共死，临界区再长也一样：其他人等待")
	case r.Strategy.Expiry == lockstrategy.ExpirySession:
		return predict(Holds, "the session's heartbeats go on while the section runs long: the lock stays",
			"临界区变长时会话心跳照常：锁仍在")
	case r.renewing():
		return predict(Holds, "the live process renews the lease while the section runs long: the others wait",
			"临界区变长时存活的进程一直续期租约：其他人等待")
	}
	return staleHolder(r, "the lease expires while its holder is still inside and another buyer takes the lock",
		"持锁者仍在临界区内时租约过期，另一个买家拿到锁")
}

// nestedLock: the holder takes its own lock again.
func nestedLock(r Row) Prediction {
	if r.Strategy.Reentrant {
		return predict(Holds, "a reentrant lock counts the second hold", "可重入锁累加第二次持有")
	}
	return predict(Unavailable, "a non-reentrant lock waits for itself until nested_lock_timeout; the others wait behind it",
		"不可重入的锁等待自己直到 nested_lock_timeout；其他人在它后面等待")
}

// slowDB: the sale's row held from outside for a while.
func slowDB(r Row) Prediction {
	switch {
	case r.Async:
		return predict(Holds, "orders are taken in Redis and answered at once; the consumer persists them once the row is free",
			"订单在 Redis 中接收并立即应答；行释放后消费者再持久化")
	case r.IsLock() && r.Strategy.Expiry == lockstrategy.ExpiryTTL && !r.renewing():
		return staleHolder(r, "the holder waits for the row past its lease, which nothing renews: another buyer takes the lock and waits for the row beside it",
			"持锁者等待行锁超过了租约，而没有人续期：另一个买家拿到锁，与它一起等待行锁")
	}
	return predict(Unavailable, "every order waits for the sale's row, then sells again", "每个订单都等待场次的行，之后恢复售卖")
}

// cutDB: the database cut off from every replica (each one's connections
// closed, new ones refused) while a holder is inside.
func cutDB(r Row) Prediction {
	switch {
	case r.Async:
		return predict(Holds, "orders are taken in Redis and queued; the consumer persists them once the database is back",
			"订单在 Redis 中接收并排队；数据库恢复后消费者再持久化")
	case r.Strategy.Name == "consistent-hash":
		// The ring's members are heartbeats in the database: a cut longer
		// than their 5 s expiry (or heartbeats late on a loaded machine)
		// changes the ring, and two owners sell (a full run on a load of 11
		// saw it: broken, fenced overlapped_safe).
		return predict(Unavailable, "every order fails while the database is cut; the 3 s cut is shorter than the ring's 5 s membership expiry, so the owner stays and sells again after it",
			"数据库断开期间每个订单都失败；3 秒的断开短于哈希环 5 秒的成员过期时间，所以所有者不变，断开后恢复售卖")
	case r.needs(lockstrategy.NeedDB) && r.IsLock() && expires(r):
		return predict(Unavailable, "no order while the database is cut, and then none until the holder's lock row expires",
			"数据库断开期间没有订单，之后直到持锁者的锁行过期前也没有")
	}
	return predict(Unavailable, "every order fails cleanly while the database is cut (db_unavailable), then sells again",
		"数据库断开期间每个订单都干净地失败（db_unavailable），之后恢复售卖")
}

// stopProcess: the whole replica paused (SIGSTOP), watchdogs included.
func stopProcess(r Row) Prediction {
	switch {
	case !r.IsLock():
		return predict(Holds, "no lock: the other replicas go on selling", "不加锁：其他实例继续售卖")
	case !expires(r):
		return predict(Holds, "the stopped holder keeps its lock (its connection or process stays), as a slow holder would: the others wait, then buy",
			"被暂停的持锁者保住了锁（连接或进程仍在），如同一个慢的持锁者：其他人等待，然后购买")
	case r.Strategy.Expiry == lockstrategy.ExpirySession:
		return predict(Holds, "the stop (3 s) is shorter than the session timeout: the session survives and keeps its lock (expire_zk_session shows what a lapsed one does)",
			"暂停（3 秒）短于会话超时：会话存活并保住锁（expire_zk_session 展示会话失效时的后果）")
	}
	return staleHolder(r, "the whole process stops, its watchdog too: the lease expires and another buyer takes the lock",
		"整个进程停止，看门狗也停了：租约过期，另一个买家拿到锁")
}

// killProcess: the replica dies with its locks held.
func killProcess(r Row) Prediction {
	switch {
	case r.Async:
		return predict(Holds, "the dead replica's pending entries are reclaimed by another consumer", "死去实例的待处理条目由另一个消费者接手")
	case !r.IsLock():
		return predict(Holds, "no lock to leave behind; the units a dead replica took come back in the reconciliation",
			"没有遗留的锁；死去实例取走的库存由对账归还")
	case expires(r):
		return predict(Unavailable, "the dead holder's lock stays until its TTL or session ends; nobody writes stale",
			"死去持锁者的锁一直保留到 TTL 或会话结束；没有人写入过期数据")
	case r.Strategy.Name == "consistent-hash":
		return predict(Unavailable, "the sale's owner dies: nobody sells it until the ring sees the death (the owner's heartbeat lapses) and names a new owner",
			"场次的所有者死亡：直到哈希环发现它的死亡（心跳超时）并指定新的所有者之前，没有人售卖")
	}
	return predict(Holds, "the lock dies with its holder's connection or process: the next buyer goes on",
		"锁随持有者的连接或进程一起消失：下一个买家继续")
}

// crashAfterAcquire: a lock taken and abandoned before its holder did
// anything else.
func crashAfterAcquire(r Row) Prediction {
	if r.Strategy.Expiry == lockstrategy.ExpiryNever || r.Strategy.Name == "redis-setnx-expire" {
		return predict(Stuck, "SETNX without its EXPIRE: the lock is held for ever and the sale never sells again",
			"只有 SETNX 没有 EXPIRE：锁被永久持有，该场次再也卖不出去")
	}
	return predict(Unavailable, "the abandoned lock stays until its TTL frees it", "被遗弃的锁一直保留到 TTL 释放它")
}

// restartRedis: a Redis node restarts without persistence, its keys gone.
func restartRedis(r Row) Prediction {
	switch {
	case r.needs(lockstrategy.NeedRedlock):
		return predict(Holds, "one master of three restarts: the other two are still a quorum", "三个主节点中的一个重启：另外两个仍是法定多数")
	case !r.IsLock():
		return predict(Unavailable, "the stock in Redis is gone: orders wait until it is rebuilt from the database",
			"Redis 中的库存丢失：订单要等它从数据库重建")
	}
	return staleHolder(r, "the held lock's key is gone and another buyer takes the lock while the holder is inside",
		"持有中的锁的 key 丢失，持锁者仍在临界区内时另一个买家拿到锁")
}

// freezeRedis: a Redis node stops answering for a while, keeping its keys.
func freezeRedis(r Row) Prediction {
	if r.needs(lockstrategy.NeedRedlock) {
		return predict(Unavailable, "one master of three frozen: the other two are a quorum, but each acquire waits for the frozen master's answer until its timeout",
			"三个主节点中的一个被冻结：另外两个仍是法定多数，但每次加锁都要等被冻结主节点的响应直到超时")
	}
	return predict(Unavailable, "every command waits for the thaw: nothing sells until it, nothing is lost",
		"每个命令都要等到解冻：解冻前卖不出东西，也不会丢失什么")
}

// clockJumpRedis: a Redis node's keys with a TTL expire early.
func clockJumpRedis(r Row) Prediction {
	switch {
	case r.needs(lockstrategy.NeedRedlock):
		return predict(Holds, "one master's keys expire early: the other two still hold a majority",
			"一个主节点的 key 提前过期：另外两个仍占多数")
	case !r.IsLock():
		return predict(Holds, "the stock keys have no TTL: a clock jump does not touch them", "库存 key 没有 TTL：时钟跳变不影响它们")
	}
	return staleHolder(r, "the held lock expires early on the node and another buyer takes it",
		"持有中的锁在该节点上提前过期，另一个买家拿到它")
}
