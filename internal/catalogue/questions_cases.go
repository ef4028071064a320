package catalogue

// caseQuestions are the lessons' cases as questions, one per sale in the
// order each scenario creates them (loadtest scenario checks the count).
var caseQuestions = map[string][]CaseQuestion{
	"mutex-across-replicas": {
		{Setup: Texts{En: "Two replicas sell the same stock, each guarding it with its own in-process mutex.",
			Zh: "两个副本卖同一份库存，各自用进程内的互斥锁保护它。"}},
		{Setup: Texts{En: "The same two replicas, now locking the stock row with SELECT … FOR UPDATE in the database.",
			Zh: "同样的两个副本，这次在数据库里用 SELECT … FOR UPDATE 锁住库存行。"}},
	},
	"ttl-shorter-than-work": {
		{Setup: Texts{En: "A Redis lock with a 1 s TTL guards 1.8 s of work, and no watchdog renews it.",
			Zh: "Redis 锁的过期时间是 1 秒，锁内业务要做 1.8 秒，没有看门狗续期。"}},
		{Setup: Texts{En: "The same 1 s lock and 1.8 s of work, with the watchdog renewing the lease every third of the TTL.",
			Zh: "同样的 1 秒锁和 1.8 秒业务，这次看门狗每隔三分之一个过期时间续期一次。"}},
	},
}
