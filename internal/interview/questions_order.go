package interview

import "github.com/seckill-lab/seckill/internal/faultkind"

// The questions of an order's life after the lock: retries, payment,
// reconciliation and a replica that dies holding units.

var qIdempotency = Question{
	ID:  "idempotency",
	Ask: Text{"The reply is lost and the client retries. How do you avoid a second order?", "应答丢了，客户端重试。怎样避免第二个订单？"},
	Answer: Text{
		"Make the order idempotent twice over: the client sends an Idempotency-Key that the shop answers from its record on a retry, and the database has a unique key on (sale, buyer), so even a retry that gets past the first check cannot insert a second row.",
		"让下单双重幂等：客户端带一个 Idempotency-Key，重试时由商店按记录直接应答；数据库在 (场次, 买家) 上有唯一键，即使重试越过了第一道检查，也插不进第二行。",
	},
	TradeOff: Text{
		"The key's record must live as long as a client may retry, and a limit of more than one per buyer needs the key, not the unique index, to tell a retry from a second purchase.",
		"幂等记录要保存到客户端不再重试为止；每人限购多于一件时，区分重试和再买一件要靠幂等键，而不是唯一索引。",
	},
	FollowUp: Text{"The buyer got the unit but never pays. What then?", "买家抢到了，却一直不付款。怎么办？"},
	Slots: []Slot{
		fromCell("duplicate orders, Redis lock, a reply dropped", "重复订单，Redis 锁，应答丢失", units, "redis", faultkind.DropReply, CellDuplicates),
		fromCell("duplicate orders, Redisson lock, a reply dropped", "重复订单，Redisson 锁，应答丢失", units, "redisson", faultkind.DropReply, CellDuplicates),
	},
}

var qPaymentTimeout = Question{
	ID:  "payment-timeout",
	Ask: Text{"The buyer won the unit but never pays. What then?", "买家抢到了，却一直不付款。怎么办？"},
	Answer: Text{
		"The order reserves the unit with a deadline; an unpaid order past it is cancelled and its unit goes back on sale, in one transaction with the stock, and the sold-out flag is cleared. The same sweep gives back the units of buyers who vanished.",
		"下单只是带期限地预留这件商品；超过期限未支付的订单被取消，库存在同一个事务里退回重新开卖，并清除售罄标记。同一个清理任务也退回消失的买家手里的库存。",
	},
	TradeOff: Text{
		"Units return after the deadline, not at once: a short deadline sells more units to buyers who pay, a long one is kinder to slow payers.",
		"库存要等期限过了才回来，而不是立刻：期限短，更多库存卖给会付款的买家；期限长，对付款慢的买家更友好。",
	},
	FollowUp: Text{"Stock in Redis, orders in the database: how do you keep the two true?", "库存在 Redis、订单在数据库：怎样让两边都对？"},
	Slots: []Slot{
		fromCell("units left reserved by a killed replica, given back", "被杀实例留下的预留库存，已退回", units, "redis-lua-stock", faultkind.KillProcess, ReclaimUnits),
		fromCell("until the last of them was back, after the kill", "被杀后直到最后一件退回", seconds, "redis-lua-stock", faultkind.KillProcess, ReclaimSeconds),
	},
}

var qReconciliation = Question{
	ID:  "reconciliation",
	Ask: Text{"The stock is in Redis and the orders in the database. How do you keep them true?", "库存在 Redis，订单在数据库。怎样保证两边一致？"},
	Answer: Text{
		"The database is the truth. Reconcile: Redis's stock plus the units in flight must equal the database's stock; a difference is repaired from the database, and a Redis that lost its stock (a restart) is rebuilt from it before it sells again.",
		"数据库是真相。对账：Redis 的库存加上在途的件数必须等于数据库的库存；有差额就按数据库修复，丢了库存的 Redis（重启）先按数据库重建，再继续卖。",
	},
	TradeOff: Text{
		"Between two checks Redis may be wrong; the sale must not sell on a stock it cannot trust (it waits for the rebuild).",
		"两次对账之间 Redis 可能是错的；秒杀不能在一个不可信的库存上继续卖（要等重建完）。",
	},
	FollowUp: Text{"A replica dies mid-order holding units. How many, and when do they come back?", "实例在下单中途死掉，手里拿着库存。拿着多少件，什么时候回来？"},
	Slots: []Slot{
		fromCase("oversold after Redis's stock was lost and rebuilt", "Redis 库存丢失并重建后的超卖", units, "cache-db-drift", "redis-lua-stock", CaseOversold),
		fromCase("units sold in that sale", "该场卖出的件数", units, "cache-db-drift", "redis-lua-stock", CaseSold),
	},
}

var qReplicaDies = Question{
	ID:  "replica-dies",
	Ask: Text{"A replica dies mid-order. What happens to the units it held?", "一个实例在下单中途死掉。它手里的库存怎么办？"},
	Answer: Text{
		"With a lock: the lock goes with the holder's connection or session, or stays until its TTL, and the sale waits that long. Lock-free (the stock taken in Redis): the units it took are in flight; a reconciliation on another replica settles each, sold where its order row exists, given back where none does.",
		"用锁时：锁随持有者的连接或会话消失，或者一直保留到 TTL，秒杀就停那么久。无锁时（在 Redis 里扣库存）：它扣下的库存处于在途状态；另一个实例上的对账逐件结清，有订单行的算卖出，没有的退回。",
	},
	TradeOff: Text{
		"A unit is in flight until the reconciliation says it is stale: too early and a slow but live replica's order is undone, too late and the unit is off sale for longer.",
		"在对账判定它过期之前，这件库存一直在途：判得太早，会撤掉一个慢但还活着的实例的订单；判得太晚，这件商品下架得更久。",
	},
	FollowUp: Text{"Give me a capacity estimate with numbers.", "给一个有数字的容量估算。"},
	Slots: []Slot{
		fromCell("units a killed replica left in flight, given back", "被杀实例留下的在途库存，已退回", units, "redis-lua-stock", faultkind.KillProcess, ReclaimUnits),
		fromCell("until the last of them was back", "直到最后一件回来", seconds, "redis-lua-stock", faultkind.KillProcess, ReclaimSeconds),
		fromCell("sale stopped, Redis lock, its holder killed", "停售时长，Redis 锁，持锁者被杀", seconds, "redis", faultkind.KillProcess, CellUnavailableSeconds),
	},
}
