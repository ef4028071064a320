package catalogue

// NotTaught are the seeds' points no lesson runs, each with why not, in
// English and in Chinese: the Lessons page and the README list them, so a
// class knows what the lab leaves out and a contributor knows what to add.
var NotTaught = []Untaught{
	{
		Point: "seeds 000 and 002: a RedLock client that misses the quorum must unlock every master, those it got too: " +
			"seed 000's 「如果获取锁失败,解锁!」",
		PointZh: "参考文章 000 和 002：RedLock 客户端拿不到多数时，要在所有主节点上解锁，包括已经加上的：参考文章 000 的「如果获取锁失败,解锁!」",
		Why: "redsync, on which the redlock strategy is built, always does it (its Lock releases every master when it misses the " +
			"quorum); the lab has no variant that skips it, so no run can show the keys it would leave on the minority until their TTL",
		WhyZh: "redlock 策略基于 redsync，而 redsync 总是这样做（拿不到多数时，它的 Lock 会释放每个主节点）；本实验没有跳过这一步的变体，" +
			"所以没有哪次运行能展示它本会留在少数节点上、直到 TTL 才消失的键",
	},
	{
		Point: "seeds 000, 001 and 003: a ZooKeeper waiter watches only the node before its own, so a release wakes one waiter, " +
			"not the herd: seed 003's 「則對節點序號的前一個節點添加一個事件監聽。」",
		PointZh: "参考文章 000、001 和 003：ZooKeeper 的等待者只监听排在自己前面的那个节点，所以一次释放只唤醒一个等待者，而不是一群：" +
			"参考文章 003 的「則對節點序號的前一個節點添加一個事件監聽。」",
		Why: "polling-vs-subscribe counts the zookeeper recipe's wake-ups (one waiter woken per release), but the lab has no " +
			"variant that watches the parent and wakes every waiter, so no run sets the herd beside the recipe",
		WhyZh: "polling-vs-subscribe 统计了 zookeeper 锁的唤醒次数（每次释放只唤醒一个等待者），但本实验没有监听父节点、唤醒所有等待者的变体，" +
			"所以没有哪次运行能把惊群和正确做法放在一起对比",
	},
	{
		Point: "seed 000: ZooKeeper's load when many clients lock and unlock often: 「如果有很多的客户端频繁的申请加锁、释放锁," +
			"对于Zookeeper集群的压力会比较大。」",
		PointZh: "参考文章 000：很多客户端频繁加锁、解锁时 ZooKeeper 的负载：「如果有很多的客户端频繁的申请加锁、释放锁,对于Zookeeper集群的压力会比较大。」",
		Why: "the ensemble's three servers share this machine's cores with the replicas and the load test, so a figure of its load " +
			"would measure the machine, not ZooKeeper",
		WhyZh: "集群的三台服务器和实例、压测程序共用这台机器的 CPU，测出来的负载反映的是这台机器，而不是 ZooKeeper",
	},
	{
		Point: "seed 002: sizing a TTL from the business time and renewing with slack: 「理论上来说,只需要确保在剩余过期时间内能够续约成功," +
			"就可以了。」",
		PointZh: "参考文章 002：按业务耗时定 TTL，并留出余量续期：「理论上来说,只需要确保在剩余过期时间内能够续约成功,就可以了。」",
		Why: "ttl-shorter-than-work shows a TTL below the work and the watchdog renewing every TTL/3 (two thirds of the TTL left as " +
			"slack); no lesson sizes a TTL from a measured p99, nor delays a renewal past its slack",
		WhyZh: "ttl-shorter-than-work 展示了 TTL 短于业务耗时，以及看门狗每 TTL/3 续期（留出 TTL 的三分之二作余量）；没有哪节实验课按测得的 p99 定 TTL，" +
			"也没有让一次续期晚到超出余量",
	},
}

// Untaught is one point of the seeds that no lesson runs, and why.
type Untaught struct {
	Point   string `json:"point"`
	PointZh string `json:"point_zh"`
	Why     string `json:"why"`
	WhyZh   string `json:"why_zh"`
}
