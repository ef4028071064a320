package catalogue

// zhTexts is each lesson's title, prediction and fix in Chinese, by name
// (TestCatalogueHasChinese fails when a lesson lacks one). Strategy names,
// fault kinds, codes and the seeds' quotes stay as they are.
var zhTexts = map[string][3]string{
	"mutex-across-replicas": {
		"进程内的锁管不到其他实例",
		"进程内的 mutex 挡不住第二个实例：两个实例上的临界区重叠（violations >= 1，一次重叠的两个临界区各在一个实例上），出现丢失更新（lost_updates >= 1）；同样的负载下 db-pessimistic 不出任何差错",
		"所有实例共用的锁（这里用 SELECT ... FOR UPDATE）",
	},
	"setnx-expire-crash": {
		"先 SETNX 再 EXPIRE：两步之间崩溃，锁永不过期",
		"redis-setnx-expire 在 SETNX 之后、EXPIRE 之前崩溃：键没有 TTL，之后每个买家都等满加锁等待时间后超时（售出 0）；redis（SET NX PX，一条命令）在同一点崩溃，锁只在 TTL 到期前被占着，之后下一个买家照常成交",
		"SET key token NX PX ttl：加锁和过期时间在一条原子命令里",
	},
	"del-without-owner": {
		"释放时不校验持有者（直接 DEL）会删掉别人的锁",
		"redis-no-owner 与 redis，都是 TTL 4 秒、业务 2 秒、看门狗关：buyer-1 在一个慢步骤（slow_work 2.5 秒）里超过了 TTL，锁过期，两边都会放 buyer-2 进来与 buyer-1 重叠（buyer-1 的锁检查让它以 lock_lost 停下）；随后 buyer-1 在 buyer-2 工作时释放：redis-no-owner 的普通 DEL 删掉了 buyer-2 的锁（freed_other >= 1），buyer-3 进来与 buyer-2 重叠（在被删的锁之后重叠；buyer-3 读到旧值，造成丢失更新）；redis 的校验持有者释放发现锁属于 buyer-2，不删（release_refused >= 1，freed_other 0）：buyer-3 等 buyer-2",
		"用 Lua 脚本按持有者令牌比较并删除",
	},
	"ttl-shorter-than-work": {
		"没有看门狗时，TTL 短于业务耗时会放进两个持有者",
		"redis，锁过期时间 1000 毫秒，锁内业务 1800 毫秒，看门狗关：锁在业务中途过期，第二个买家进来，临界区重叠（violations > 0；我们的持有者写入前检查 Lost()，以 lock_lost 放弃，lost_updates 0，否则它写回之前读到的库存，就是一次丢失更新）；同一个秒杀开着看门狗（每 ttl/3 续期）则守住（violations 0，oversold 0）",
		"持有者活着时由看门狗续期租约（Redisson 的 lockWatchdogTimeout）",
	},
	"pause-past-ttl": {
		"进程暂停超过 TTL：有看门狗也会出错",
		"持有 redis 锁的实例被暂停（SIGSTOP，相当于长时间 GC）超过 TTL：看门狗也一起冻结，锁过期，另一个实例上的买家拿到锁；暂停的持有者醒来后写入过时的库存（丢失更新），不论新持有者是已提交还是只读了库存；开启防护令牌（fencing token）后，两种情况下过时的写入都被拒绝（fenced_writes 1，没有丢失更新），因为每个持有者在读之前先登记令牌",
		"防护令牌（fencing token）：每个持有者读之前把令牌登记到存储里，只有在此之后没有登记更新的令牌时，它的写入才生效",
	},
	"redis-restart": {
		"没有持久化的 Redis 重启会丢锁",
		"买家持有 redis 锁时，Redis 节点在没有持久化的情况下重启：键没了，第二个买家立刻拿到锁，两个都写入（violations >= 1，丢失更新）；redlock 三个主节点重启一个仍有多数：第二个买家等待（violations 0）",
		"在独立主节点上用 RedLock（多数 N/2+1），再加延迟重启或持久化",
	},
	"redlock-minority": {
		"RedLock 扛得住三个主节点挂一个，扛不住挂两个",
		"三个主节点重启一个时，redlock 持有者保住锁（三个里仍有两个持有：第二个买家等待，violations 0）；重启两个时，第二个买家在两个空的主节点上拿到多数，两个都写入（violations >= 1）；这里只测试重启：多数派还假设时钟漂移有界、没有超过有效期的停顿，本实验不测试这些",
		"更多主节点，或 fsync=always 持久化；让重启的主节点延迟最大 TTL 再加入是 antirez 的办法（Redis 文档），不是参考文章的；这些都挡不住时钟跳变或停顿：写入要用防护令牌",
	},
	"optimistic-vs-pessimistic": {
		"竞争激烈时乐观锁付出重试，悲观锁排队",
		"64 个买家同时抢 50 件：乐观 CAS 屡屡失败重试（该活动自己的 CAS 重试数，取自它的实时数据，> 0），悲观锁在行锁上排队，不重试（0）；两者都守住（oversold 0）；各自的每秒订单数只展示，不作判定",
		"乐观锁只用于冲突少的场景；热点行干脆不用锁：条件扣减（UPDATE … SET stock = stock - 1 WHERE stock > 0）、先在 Redis 扣库存，或用队列；悲观锁能守住，但所有买家都排在一行上",
	},
	"cache-db-drift": {
		"缓存和数据库不一致",
		"秒杀进行中 Redis 在没有持久化的情况下重启，丢了 redis-lua-stock 存在那里的库存（重启后立即读取该活动，store_stock 为 -1）：下单短暂返回 503 stock_reloading（除了下单成功和最后的 sold_out 没有别的应答，没有 500），库存从数据库重建，之后每件都卖出、没有重复，Redis 和数据库的库存都以 0 结束",
		"以数据库为准：等从丢失的库存里扣出的订单全部落库后，再从数据库重建缓存库存；补回的库存只归还到它原来所在的那一份",
	},
	"queue-durability": {
		"队列的持久性取决于它的 Redis：没有持久化时重启会丢掉已返回 202 的订单",
		"异步 redis-lua-stock 秒杀返回 202 和凭证，同时一个被占住的秒杀行让消费者无法提交；默认 Redis 在流里还有未读条目时重启：持久化为 none 时这些 202 凭证永远变不成订单（GET /api/orders/:ticket 404，计为丢失），appendfsync always 一条不丢；everysec 只展示、不判定：重启是进程崩溃（DEBUG CRASH-AND-RECOVER），操作系统的页缓存还在，所以这里 everysec 通常不丢，只有操作系统崩溃或断电才会暴露它那一秒的窗口；每次重启后对账修复使 drift 为 0",
		"流所在的 Redis 用 appendonly yes 和 appendfsync always（PUT /api/queue/durability），或者接受并统计丢失；重启后用数据库核对 Redis 库存",
	},
	"herd-sold-out-cache": {
		"售罄后的蜂拥：售罄缓存从内存直接应答",
		"600 个买家在开售时抢一个 20 件的 redis 秒杀：没有售罄缓存时，每个售罄应答都要排队拿锁去读库存 0（没有来自 sold_out_cache 层的应答）；有售罄缓存时，记录中的库存读到 0 之后，大多数售罄应答来自内存，拿锁的临界区少得多；两次都恰好卖出 20 件，oversold 0，duplicates 0",
		"在每个实例上记住售罄的秒杀（只在数据库读到 0 之后设置，补货时清除），在拿锁前拒绝",
	},
	"herd-rate-limit": {
		"重复点击的蜂拥：按用户限流在拿锁前挡住它们",
		"150 个买家各同时点击三次，抢 20 件（售罄缓存关）：不限流时每次点击都到达锁；rate_limit_user 为 1 次/秒时，重复点击在拿锁前得到 429 rate_limited（Retry-After，rate_limit 层），拿锁的临界区因此更少，库存仍然恰好卖完：售出 20，oversold 0，duplicates 0；通过的买家的 p99 只展示、不判定",
		"在 Redis 里做全集群的按用户（和按 IP）限流（GCRA），Redis 不可用时退回每个实例自己的限流",
	},
	"reentrancy": {
		"不可重入的锁上重入加锁（嵌套），会等待自己",
		"一个订单再次获取自己的锁（故障 nested_lock，最多 1.5 秒）：在 redis 上，嵌套的 Lock 一直等自己订单持有的锁直到上限，订单失败（nested_lock_timeout），什么也没写，外层释放后锁随之释放（buyer-2 成交）；在 redisson 上（持有者 -> 持有次数的哈希），同一个订单立即再次获得锁、下单，在最后一次解锁时释放（buyer-2 也成交）",
		"按持有者计数的可重入锁（Redisson 的 HINCRBY 哈希），或者代码永不获取自己可能已持有的锁",
	},
	"db-lock-reentrant": {
		"没有持有次数的锁表上重入加锁（嵌套），会等待自己",
		"一个订单再次获取自己的锁（故障 nested_lock，最多 1.5 秒），同时读取 lock_table：在 db-lock-table-plain（没有计数的锁表）上，嵌套的 INSERT 遇到自己订单持有的那一行，每次唯一键冲突后重试（起初约每 1 毫秒一次，逐步退避到约每 20 毫秒一次），直到上限：读到的始终是一行、属于这个订单、holds 为 1；订单失败（nested_lock_timeout），什么也没写，它的解锁删除该行，buyer-2 成交；在 db-lock-table 上，行的持有者是这个订单，holds 列记下嵌套的加锁：同一个订单立即通过，在嵌套持有处停顿时（pause_holder，3 秒）读到 holds 为 2；它下单，最后一次解锁删除该行（之后读不到行），buyer-2 也成交",
		"在锁行里按持有者记持有次数（同一持有者再次加锁时 holds + 1，最后一次解锁删除该行），持有者是调用方（这里是订单），而不是每次 Lock 调用",
	},
	"getset-expiry": {
		"SETNX + GETSET 用客户端算的过期时间：各客户端的时钟必须一致",
		"redis-getset（TTL 3 秒）：第二个实例的时钟快 5 秒（故障 clock_skew）；第一个实例上的 buyer-1 持锁并停顿 2 秒，按真实时钟仍在 TTL 内；buyer-2 认为 buyer-1 的过期时间已过，用 GETSET 接管锁，在 buyer-1 持锁时下单（时间线显示，按真实时钟 buyer-2 在 buyer-1 进入临界区后不到一个 TTL 就进入：是时钟偏差造成的接管，不是过期）；buyer-1 写入过时的库存：丢失更新（violations >= 1，lost_updates >= 1）。redis 的 TTL 由服务器计时，buyer-2 等待 buyer-1：violations 0",
		"让服务器计时（SET NX PX），值里放持有者，用一次原子的比较并删除来释放",
	},
	"getset-release-race": {
		"SETNX + GETSET 用 GET 再 DEL 释放：DEL 删掉了下一个持有者的锁",
		"redis-getset（TTL 2.5 秒）：buyer-1 释放时用 GET 找到自己的值，在 DEL 之前等待（故障 getset_release_gap），直到锁过期、另一实例上的 buyer-2 用 GETSET 接管；buyer-2 留在临界区内（2 秒，在自己的 TTL 内）；buyer-1 的 DEL 删掉了 buyer-2 的锁，buyer-3 用 SETNX 在 buyer-2 旁边进入：freed_others >= 1，violations >= 1。redis（TTL 4 秒，看门狗关）用一个比较并删除脚本释放，也让它晚释放：buyer-1 的慢步骤（slow_work 5 秒）超过了 TTL，buyer-2 接管过期的锁并留在临界区内（2 秒），buyer-1 的锁检查让它停下（lock_lost），它在 buyer-2 拿到锁之后的释放发现锁属于 buyer-2，不删（租约事件：release_refused >= 1，freed_other 0）；buyer-3 等 buyer-2：被拒的释放之后没有开始任何重叠（之前那次是过期造成的），lost_updates 0",
		"值里放持有者令牌，用一次原子的比较并删除（Lua 脚本）释放，就像 redis 策略那样",
	},
	"getset-loser-overwrites": {
		"并发 GETSET：失败者把自己的过期时间写在胜者的上面",
		"redis-getset（TTL 4 秒）：buyer-1 拿到锁后死掉（crash_after_setnx）；buyer-3 认为 buyer-1 的过期时间已过，在 GETSET 之前等待（故障 getset_takeover_gap），直到 buyer-2 的 GETSET 胜出；buyer-2 留在临界区（1.5 秒）直到 buyer-3 的 GETSET 落地：buyer-3 输了，却把自己的过期时间写在 buyer-2 的上面（overwrites >= 1）；buyer-2 下单，释放时发现是 buyer-3 的值：被拒（refused releases >= 1）。锁现在在 buyer-3 的过期时间结束（buyer-3 等待之前算的）：在 buyer-2 完成之后（在此之前没人持有，buyer-4 等待），或在慢机器上 buyer-2 还在工作时（buyer-2 旁边又进来一个买家：重叠）；没有超卖",
		"用只在获胜时才写入的一步原子操作获取空闲或过期的锁（SET NX PX，或 Lua 脚本），并按持有者释放",
	},
	"renewal-fails": {
		"续期失败时锁只会发出信号：持有者必须自己停下",
		"buyer-1 持有 redis 锁（TTL 1.5 秒，看门狗每 0.5 秒续期一次），在一个 8 秒的业务步骤里（故障 slow_work，在锁检查之前）；随后 Redis 在 3 秒内不回答任何命令（故障 freeze_redis：一台挂住或不可达的服务器），没有一次续期能成功：距上次续期两个续期周期或更久之后，租约被判定丢失（租约事件 lost；这里的运行中是 3 秒），Lost() 关闭；Redis 恢复后，另一个实例上的 buyer-2 拿到已过期的锁，并被观察到与 buyer-1 同时在锁内；buyer-1 写入前的检查让它停下（lock_lost，什么也没写）：一次重叠，lost_updates 0，oversold 0（redis-restart 展示了丢锁越过检查的情形：一次丢失更新）",
		"在锁保护的每次写入前检查租约（Lost），并用防护令牌（fencing token）防住检查之后的暂停",
	},
	"renewal-fails-aggressive": {
		"续期一直失败：两个持有者都收到了信号，保守的放弃订单，激进的选择照样写入",
		"两种策略用 renewal-fails 的同一设置：buyer-1 持有锁（TTL 1.5 秒，看门狗开），在一个 8 秒的业务步骤里（slow_work，在锁检查之前）；Redis 在 3 秒内不回答任何命令（freeze_redis），没有一次续期能成功，两边的租约都被判定丢失（租约事件 lost，距上次续期两个续期周期或更久），Lost() 关闭；Redis 恢复后，另一个实例上的 buyer-2 下单，并被观察到与 buyer-1 同时在锁内。redis（保守策略：检查让 buyer-1 停下）放弃 buyer-1 的订单（lock_lost：放弃 1 笔订单，lost_updates 0）；redis-aggressive 是同一把锁，它的持有者以同样的方式收到信号，却选择继续：检查看到 Lost() 已关闭，照样写入，并记下自己这样做了（租约事件 went_on）：buyer-1 过时的库存落库（放弃 0 笔订单，记下一次重叠和一次丢失更新）",
		"按业务选择：写错的代价大于少卖一笔（库存、钱）时用保守策略，只有偶尔不一致可以接受时才用激进策略；无论哪种，锁都只能发信号，拒绝激进持有者写入的是资源端的防护令牌",
	},
	"acquire-reply-lost": {
		"加锁的应答丢了：重试前先查是不是自己的值",
		"第一个实例的下一次加锁脚本在 Redis 上执行了，但应答丢了（故障 drop_reply）：我们的 redisson 模型因出错而放弃（buyer-1 backend_down），它遗留的锁让 buyer-2 一直等到 TTL（3 秒；要求至少等了一半）；redis 先问 Redis 锁是不是自己的，找到自己的 id，buyer-1 立即下单（在 TTL 内，而不是等自己的锁过期），buyer-2 随后。两边的丢弃都被计数（GET /api/faults replies_dropped：buyer-1 下单期间一次）",
		"超时或应答丢失后，先查自己的令牌（GET key == 我的 id）再重试",
	},
	"two-level-handoff": {
		"分布式锁前面加一层本地交接：照样安全，还省往返",
		"同样的竞争秒杀（16 个买家，96 个订单，锁内 1 毫秒，防护令牌开）分别用 redis 和 redis-2level：两者卖出的都恰好是数据库记的数（oversold 0，lost_updates 0，violations 0，fenced_writes 0：令牌在交接中保持单调），并且 redis-2level 至少在本地交接一次锁（时间线上某个临界区的令牌比同一实例上前一个高 1 到 8：一次 Redis 加锁，多个持有者）；各自的每秒订单数只展示、不判定（锁本身的收益见 make bench 的 BenchmarkContentionProcesses：3 个进程、0 毫秒临界区时约 5 倍）",
		"同一进程的竞争者先在本地排队，派其中一个去拿分布式锁，在公平上限内把锁在本地等待者之间传递，再释放",
	},
	"lock-per-batch": {
		"一批一把锁：同一实例上等锁的买家共用一次加锁和一个事务",
		"同一群买家（100 件库存，开售瞬间 400 个买家，防护令牌开）分别在不合并和合并（combine）下抢 redis 秒杀：不合并时每个订单各拿一次锁、各开一个事务（加锁次数 >= 订单数）；合并后同一实例上等锁的买家一起卖出（加锁次数 < 订单数，每次持锁卖出多件）；两者卖出的都恰好是数据库记的数（oversold 0，lost_updates 0，violations 0）；售罄用时和买家的 p99 只展示、不判定",
		"把同一实例上等同一场秒杀的订单攒成一批，只拿一次锁，在一个事务里卖完这一批（一次按 n 扣减的条件写库存，一次多行插入，每个买家的限购和幂等键在批内检查），再分别回答每个买家",
	},
	"redlock-herd": {
		"羊群下的 RedLock：主节点的选票分散，谁也拿不到锁",
		"同一群买家（60 件库存，开售瞬间 240 个买家，同时 96 个）抢 redlock 秒杀，先开 no_queue（每个等待者自己同时向三个主节点发 SET NX，间隔 5-20 毫秒，redsync 的做法），再用 redlock 的默认做法：没有排队时，每个主节点把票投给键空出后最先到达的等待者，不同的等待者赢下不同的主节点，谁也凑不够多数，全部释放再重试：每次加锁至少有一轮多数派投票因选票分散而失败；每个实例只派一个竞争者（主节点前面的本地排队），选票分散后再随机退避，失败的轮数少于加锁次数，也少于没有排队时；两者卖出的都恰好是数据库记的数（oversold 0，lost_updates 0，violations 0）；轮数由各实例计数，售罄用时只展示、不判定",
		"同一进程里争同一个键的竞争者先在内存里排队，只让排头的去找主节点；一轮投票分散后，立即在所有主节点上释放已得的票，再随机退避一段随失败轮数翻倍、有上限的时间；多数派、有效期（TTL - 耗时 - 漂移）和失败后的释放都还是 RedLock 的",
	},
	"split-hot-row": {
		"拆分热点行：库存分成 8 段，8 个买家同时卖",
		"同一群买家（200 件库存，开售瞬间 1600 个买家）抢 db-conditional 秒杀，库存分别放在一行和分成 8 段（stock_shards 8）：一行时每次条件扣减都要等这一行；分成 8 段时买家先从自己的主段（按用户 id 哈希）扣，主段卖空后再去下一个还有库存的段；两者都卖得分毫不差（oversold 0，lost_updates 0，库存 0，历史可线性化），每一段都有卖出，各段卖出之和等于订单数；售罄用时、每秒订单数、每段卖出的订单数以及从空段转去别段的买家数只展示、不判定",
		"把库存拆成 N 行（或 N 个 Redis key），让 N 个买家同时各持一行；按用户 id 的稳定哈希把买家分到一段，该段卖空时在同一个事务里转到下一个还有库存的段；只有每一段都卖空才算售罄，场次的库存是各段之和",
	},
	"for-update-needs-tx": {
		"SELECT ... FOR UPDATE 只在事务里才加锁",
		"db-pessimistic-autocommit 在自动提交下执行 FOR UPDATE：行锁随语句结束，16 个买家同时读写库存：丢失更新和重叠（都 >= 1）；db-pessimistic 把同样的 SELECT 放在订单的事务里，卖得分毫不差",
		"开启事务，拿行锁，在事务里完成业务和写入，再提交：提交即解锁",
	},
	"etcd-lease-expiry": {
		"etcd：暂停超过租约的持有者丢锁，创建版本号可以防住它",
		"etcd 租约 2 秒：buyer-1 的实例在临界区内被暂停（SIGSTOP）6 秒，保活停止，租约过期，buyer-2 的键持有锁；buyer-2 在 buyer-1 暂停时提交，buyer-1 醒来后写入：丢失更新（lost_updates >= 1）；开启防护令牌后，buyer-1 的令牌（它的键的创建版本号）小于 buyer-2 的，写入被拒（fenced 1，lost_updates 0）；参考文章里的锁对暂停的持有者也一样（pause-past-ttl 里的 Redis TTL，zk-session-expiry 里的 ZooKeeper 会话）：租约在持有者沉睡时结束",
		"一致性存储让锁本身保持一致（没有哪次故障转移会丢键），它的创建版本号就是现成的防护令牌：把它传给资源",
	},
	"sentinel-failover": {
		"主节点在复制锁之前故障转移，会放进第二个持有者",
		"redis-sentinel：复制被暂停时 buyer-1 在主节点上持锁，主节点死掉，哨兵把从来没见过这个键的从节点提升为主：buyer-1 还持锁时 buyer-2 拿到锁，buyer-1 迟到的写入是一次丢失更新（violations >= 1）；开启防护令牌后，buyer-2 的令牌大于 buyer-1 的（令牌跟随服务器时钟，这里所有节点共用一台主机：若被提升的从节点时钟落后，发出的令牌会更小），buyer-1 的写入被拒（fenced 1，oversold 0）；redlock 三个独立主节点重启一个时，buyer-2 继续等待",
		"节点丢失后锁状态仍在的锁：多数独立主节点（redlock，对暂停仍不安全）、一致性存储（zookeeper、etcd），而且无论哪种都要在资源上用防护令牌",
	},
	"zk-ensemble-server-killed": {
		"ZooKeeper 集群三台死一台，锁还在",
		"zookeeper 跑在三台服务器的集群上（实例的 SECKILL_ZK_SERVERS 列出它们：scripts/services.sh up --zk-ensemble）：buyer-1 持锁并停顿 4 秒；杀掉一个跟随者（SIGKILL）：buyer-1 所在实例的 ZooKeeper 会话连着的那台服务器（除非那台是领导者）：会话转到一台活着的服务器（或留在领导者上），buyer-1 保住锁，锁节点在集群里而不在某一台上；服务器宕机期间另一实例上的 buyer-2 等待 buyer-1，之后下单；剩下两台服务器接住 16 个买家的一波请求（这波请求都得到回答时，被杀的那台仍未恢复）；服务器重新启动，集群恢复完整：oversold 0，lost_updates 0，violations 0",
		"一台服务器不用修：三台里两台就是多数（三台扛一台，五台扛两台）；领导者死掉会断开所有会话，直到选出新的（这里约一秒），会话超时必须覆盖这段时间",
	},
	"db-lock-single-point": {
		"锁放在数据库里，数据库一挂，所有秒杀都停",
		"所有实例与数据库断开 2.5 秒（故障 cut_db：连接关闭，新连接被拒），此时第一个实例上的 buyer-1 正在临界区：锁在数据库里（db-lock-table、db-pessimistic）时，断开期间每个订单都干净地失败，503 db_unavailable，buyer-1 也一样（服务器回滚它的事务）：什么都没卖，没有写一半的数据；数据库恢复后订单继续，db-pessimistic 立即恢复（2.5 秒内，早于断开前拿到的 5 秒锁行可能过期的时刻：buyer-1 的行锁随连接释放），db-lock-table 要等 buyer-1 没能删除、断开结束后仍在的锁行过期（5 秒 TTL）之后才恢复；redis 的锁不在数据库里，也照样停：以数据库为准的库存在数据库里；每次数据库都恰好记下买家被告知已买到的订单",
		"参考文章 004 的补救办法（这里只说明，不运行）：数据库同步复制，虚拟 IP 切到新主；把锁放到别处（Redis、ZooKeeper、etcd）能让锁离开数据库，但秒杀离不开：只要以数据库为准的库存在数据库里，它的可用性就限制着每一种策略",
	},
	"polling-vs-subscribe": {
		"等锁：48 个买家同时下单、锁内业务 30 毫秒时，轮询按每次加锁算给 Redis 发的命令比 pub/sub 等待或 FIFO 交接多；ZooKeeper 释放锁只唤醒排在它后面的那一个等待者",
		"同一群买家（48 个同时下单，分布在各实例上，锁内业务 30 毫秒）依次跑四种锁，一个秒杀接一个秒杀；它们的设计和等待方式都不同，所以比较的是整把锁：redis-no-owner 轮询（SET NX，失败就睡 0.5-30 毫秒再试），redisson 在 pub/sub 频道上等待，redis 把等待者在 Redis 里排队并把锁依次交下去，zookeeper 的等待者只监听排在自己前面的节点。评判：轮询每卖出一单给 Redis 发的命令比 redisson 和 redis 都多（只统计每种锁自己发的命令名；商店的对账任务每 2 秒会多发几个 SET）；ZooKeeper 每次释放最多唤醒一个等待者，而不是一群；每个秒杀都卖得分毫不差。只展示、不评判：三种 Redis 锁在锁内业务 5 毫秒时再跑一次，这时轮询很便宜（下一次尝试时锁已经空了）；还有 CPU、p99 等锁时间和 ZooKeeper 的请求数，它们是另一台服务器上的另一种工作，不和 Redis 命令相比",
		"等待时不要反复询问：订阅释放事件（redisson），排队等锁被交到手上（redis），或者在 ZooKeeper 上只监听排在自己前面的节点（监听整个目录的话，每次释放都会唤醒所有等待者）；保留轮询的地方，两次尝试之间睡久一点（参考文章 002 的 100 毫秒），代价是等得更久：只有持锁时间比轮询的睡眠短时，轮询才便宜",
	},
	"redlock-clock-jump": {
		"RedLock 的有效期按客户端自己的时钟计算：一个主节点时钟跳变就有两个持有者",
		"先测 redsync 在这里锁住 3 个主节点的时间（40 个无竞争订单的 p50 和 p99；有效期 = TTL - 这段时间 - 漂移）；然后 buyer-1 持有 redlock（TTL 8 秒），在临界区里停顿 6.5 秒，接着两个故障，缺一不可：redlock-3 清空重启（单这一个，buyer-1 仍持有 3 个里的 2 个），redlock-2 上的故障 clock_jump_redis 把每个键的过期时间改成 1 毫秒，模拟时钟向前跳变（keys_cut >= 1：包括 buyer-1 的键；并不改动任何时钟）。另一个实例上的 buyer-2 拿下主节点 2 和 3，构成多数，而 buyer-1 按自己时钟计算的有效期还没到，仍在临界区里：两个持有者（violations >= 1）。看门狗关：buyer-1 写入过时的库存（丢失更新）。看门狗开：它下一次续期拿不到多数（租约事件 lost），写入前的检查让它停下（lock_lost，没有丢失更新）",
		"没有共享的时钟：限制漂移（主节点上不要跳变时钟），让 TTL 远大于加锁时间（参考文章 003 的「幾十毫秒」对任何业务都太短：机器繁忙时这里加锁时间的 p99 就达到几十毫秒，几十毫秒的 TTL 会一点有效期都不剩；Redis 文档说 5-50 毫秒的是每个主节点的超时，不是 TTL），续期并在写入前检查；只有资源端的防护令牌能挡住检查之后的跳变或停顿",
	},
	"redis-single-point": {
		"单个 Redis 节点是单点故障；三个主节点挂一个，RedLock 照常",
		"一个 redis 秒杀和一个 redlock 秒杀（TTL 10 秒）；把 redis 秒杀唯一的节点和 redlock 三个主节点中的第一个冻结 7 秒（故障 freeze_redis：不回答任何命令，如同挂住或不可达的服务器），买家在两个秒杀上、每个实例上持续下单：冻结期间 redis 秒杀一单也卖不出（订单在无响应的节点上等待，节点恢复后才得到回答：成交或 lock_lost）；redlock 在剩下的两个主节点上拿到多数，冻结期间照常成交（它的客户端对无响应的主节点只等一轮的期限，而不是整个冻结期；正赶上主节点执行命令中途的订单仍要等待：最长响应时间只展示、不判定）；节点恢复后两边都继续成交，都没有超卖或丢失更新",
		"独立主节点的多数派（redlock）或复制的存储让锁保持可用；哨兵的故障转移也能保住服务，代价是 sentinel-failover 课里丢掉的锁",
	},
	"zk-session-expiry": {
		"ZooKeeper 持有者的会话过期就丢锁",
		"会话过期的 zookeeper 持有者丢了锁：在第一个还停顿时，另一实例上的买家拿到锁；第一个的写入被防护令牌拒绝（或以 lock_lost 放弃）；violations >= 1，oversold 0",
		"写入前检查租约，并用节点的 czxid 作防护令牌",
	},
	"consistent-hashing-ring-change": {
		"一致性哈希用本地锁换掉分布式锁，直到哈希环变化：一时出现两个拥有者",
		"consistent-hash（哈希环按存活实例为每场秒杀选一个拥有者实例，拥有者内部用进程内的锁，其他实例回答 not_owner），买家分布在两个实例上：拥有者从其他实例的环上消失 3 秒，而它自己的视图停在旧状态（stale_ring），于是两个实例都认为自己是拥有者（GET /api/sales/{id}/ring）：两边都在卖，临界区重叠（violations >= 1），出现丢失更新（>= 1）；随后旧拥有者在买家仍在下单时重新加入，所有实例重新认它为拥有者，它又开始成交（加入之后至少 1 单）。开启防护令牌时：新拥有者的令牌带着更新的环纪元，旧拥有者的写入被拒绝（fenced_writes >= 1，lost_updates 0），重新加入后它又能卖。环纪元取自各实例自己的时钟，这里它们一致（同一台主机）",
		"按环纪元加防护令牌（每个拥有者视图一个令牌，在读之前先在数据库里认领），或交给数据库的条件写入来裁决；只有所有实例看到同一个环时，单靠路由才安全。这里的环纪元是实例视图变化时它自己时钟的毫秒数，所以只有各实例的时钟误差小于两次环变化之间的间隔时，它才能排出视图的先后：时钟偏慢的实例会给它更新的视图一个更小的纪元，于是数据库拒绝合法拥有者的写入（fenced），反而接受过时拥有者的写入，直到之后某次视图变化让它的纪元超过防护值；不会丢失也不会超卖，但卖货的是错的实例，或者谁也卖不出。改用共享计数器产生纪元（Redis 的 INCR、数据库序列、共识存储的版本号，如 etcd 的 revision），就不再依赖这个假设",
	},
	"db-lock-crashed-holder": {
		"崩溃的持锁者留下的锁行一直占着，直到有人删除它；删除过期的行也会删掉一个还活着但太慢的持锁者的行",
		"db-lock-table-plain。buyer-1 在 INSERT 之后立即死掉（故障 crash_after_setnx：holder_crashed），它那一行留在 lock_table 里。过期时间在 10 分钟之后（ttl_ms 600000，代表一行永不过期）时，buyer-2 和 buyer-3（每个实例一个）各自等满商店的加锁等待时间（lock_timeout）：售出 0，同一行仍然在。过期时间为 1 秒时，某个等待者删除这行过期记录（DELETE ... WHERE expires_at < NOW(6)：即清理，这里由每个等待者执行），两人都买到：售出 2，不留下行。清理本身的陷阱：同样 1 秒的过期时间下，还活着的 buyer-1 在临界区内停顿 5 秒（pause_holder）；它还在停顿时，buyer-2 把它的行当作过期删掉并下单；随后 buyer-1 写入过时的库存：violations >= 1。开启防护令牌时，buyer-1 的写入被拒绝（fenced）",
		"给锁行加上过期时间并删除过期的行（定时任务，或像这里由每个等待者来做）：死掉的持锁者只会把这个键占住一个过期时间，而不是永远。此后还活着的持锁者必须在工作期间不让自己的行过期（为 expires_at 续期；db-lock-table 不续期），或者带上写入时要核对的防护令牌（lock_fences，如开启防护令牌的用例所示）",
	},
	"zk-dead-holder": {
		"持有者死掉时，ZooKeeper 在会话过期时释放它的锁",
		"zookeeper 持有者活着（停顿）时，另一个买家拿不到锁（lock_timeout）；持有者的实例被杀掉（SIGKILL）后，它的会话过期，下一个买家在会话超时内成交，没有超卖（死掉的持有者什么也没写）",
		"死掉的持有者不用修：会话结束，它的节点也随之删除；会话超时起了 TTL 的作用（太短会让活着的持有者过期，太长会让死者的锁留得更久；被杀的实例不会复活：请重启演示）",
	},
}

// zhSeeds is each lesson's "From the seed" commentary (Seed) in Chinese,
// by name (TestCatalogueSeedsInChinese fails when a lesson with a Seed
// lacks one). The seeds' quotes in 「」 are kept byte for byte, with their
// own punctuation and traditional characters; a seed is "参考文章 NNN", as
// everywhere in the lab's Chinese (the quote check reads that form too).
// A source outside the seeds keeps its English title or sentence in 《》
// or “”, followed by its Chinese in （）.
var zhSeeds = map[string]string{
	"mutex-across-replicas":          "参考文章 003：「他們加的鎖只對屬于自己JVM里面的線程有效,對于其他JVM的線程是無效的」；参考文章 001：「使用C++中的锁，是无法锁住两台机器上的临界区的，必须使用分布式锁」",
	"setnx-expire-crash":             "参考文章 001：「因为setnx和expire不是原子操作，有可能在setnx和expire之间程序死掉，这样仍然无法解锁」",
	"del-without-owner":              "参考文章 000（3.3 节，用 SET NX EX 加锁、用 DEL 释放）：「假设碰巧这时候,A执行完自己的业务逻辑,它就去释放锁,但是它就把B的锁给释放了。」；参考文章 004：「key_value一般是随机值,用来保证释放锁的安全性(释放时会判断是否是之前设置过的随机值,只有是才释放锁)」；参考文章 000（3.4 节）：「判断当前线程加的锁和释放锁不是一个原子操作」（所以检查和删除要放进同一个 Lua 脚本）",
	"ttl-shorter-than-work":          "参考文章 000：「只要线程一加锁成功,就会启动一个watch dog看门狗,它是一个后台线程,会每隔10秒检查一下,如果线程1还持有锁,那么就会不断的延长锁key的生存时间」",
	"pause-past-ttl":                 "参考文章 003 只给出了那篇文章的链接：「關于redlock的討論可以看How to do distributed locking」；进程暂停和防护令牌出自那篇文章，参考文章的正文里没有：Martin Kleppmann 的《How to do distributed locking》（《如何实现分布式锁》，2016）：进程暂停（GC）超过租约，会放进第二个持有者；存储必须用防护令牌拒绝过期写入",
	"redis-restart":                  "参考文章 002：「比如说线程 1 加了锁,结果 Redis 崩溃了又恢复过来,这时候线程 2 也加了同一把锁。」",
	"redlock-minority":               "参考文章 002：「当大多数节点都告诉你加锁成功的时候,就说明你加锁成功了。」；参考文章 000：「当且仅当超过一半(N/2+1…)的Redis master节点都获得锁,并且使用的时间小于锁失效时间时,锁才算获取成功」（这是时间条件：锁的有效时间只有 TTL 减去加锁所花的时间）",
	"optimistic-vs-pessimistic":      "参考文章 000：「乐观锁,顾名思义,就是很乐观,每次更新操作,都觉得不会存在并发冲突,只有更新失败后,才重试。」（它还说，数据库锁不适合高并发的场景）",
	"cache-db-drift":                 "参考文章 003 把库存放在 Redis 里；没有持久化的 Redis 重启，以及从数据库重建库存，都超出了这篇文章的范围",
	"queue-durability":               "参考文章 003 把库存放在 Redis 里；脚本和数据库之间的队列，以及它会丢掉什么，都超出了参考文章的范围",
	"herd-sold-out-cache":            "超出参考文章的范围（秒杀实践，未引用出处）：尽早拒绝，低成本地拒绝：抢购洪峰里的大多数人注定抢不到，就让他们在内存里落空",
	"herd-rate-limit":                "超出参考文章的范围（秒杀实践，未引用出处）：在请求到达库存之前，限制每个用户的请求",
	"reentrancy":                     "参考文章 004：「分布式锁最好也能满足可重入、高性能、阻塞锁特性」，以及它的 memo 列：「可用来支持重入特性,标记下当前加锁的client和加锁次数」；参考文章 003 引用了 Redisson 的加锁脚本：「if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then redis.call('hincrby', KEYS[1], ARGV[2], 1)」",
	"db-lock-reentrant":              "参考文章 004：「分布式锁最好也能满足可重入、高性能、阻塞锁特性」，以及它的 memo 列：「可用来支持重入特性,标记下当前加锁的client和加锁次数」",
	"getset-expiry":                  "参考文章 000：「过期时间是客户端自己生成的,分布式环境下,每个客户端的时间必须同步。」",
	"getset-release-race":            "参考文章 000：「没有保存持有者的唯一标识,可能被别的客户端释放/解锁」；关于先 GET 再 DEL 的释放：「判断当前线程加的锁和释放锁不是一个原子操作。如果调用jedis.del()释放锁的时候,可能这把锁已经不属于当前客户端,会解除他人加的锁。」",
	"getset-loser-overwrites":        "参考文章 000：「锁过期的时候,并发多个客户端同时请求过来,都执行了jedis.getSet(),最终只能有一个客户端加锁成功,但是该客户端锁的过期时间,可能被别的客户端覆盖。」",
	"renewal-fails":                  "参考文章 002：「分布式锁并不能直接帮你中断业务,它只能给你发一个信号」；关于续期一直失败的情况：「如果不断重试之后,续约都失败了,那么这个时候就要根据业务来决定采取保守策略还是激进策略了」（本课展示的是保守策略，即停止业务；renewal-fails-aggressive 把激进策略放在它旁边对照）",
	"renewal-fails-aggressive":       "参考文章 002：「如果不断重试之后,续约都失败了,那么这个时候就要根据业务来决定采取保守策略还是激进策略了」，「如果你觉得这种非常偶然的续约失败是可以接受的,那么你还是可以继续执行业务,当然这可能引起数据不一致的问题,这也就是激进方案。」以及「分布式锁并不能直接帮你中断业务,它只能给你发一个信号」",
	"acquire-reply-lost":             "参考文章 002：「比如说加锁的时候收到了超时响应,就可以发起重试」；「如果 key1 存在,检查值是不是 value1。如果是 value1,那么说明我上一次加锁成功了。」",
	"two-level-handoff":              "参考文章 002：「在实例拿到了分布式锁之后,释放锁之前先看看本地有没有别的线程也需要同一把分布式锁。如果有,就直接转交给本地的线程,进一步减少加锁和释放锁的开销。」",
	"lock-per-batch":                 "超出参考文章的范围（未引用出处）：秒杀实践里把它叫作合并请求；参考文章 002 的本地交接（two-level-handoff 课）是它的第一步",
	"redlock-herd":                   "超出参考文章的范围（没有一篇参考文章让 RedLock 面对羊群）：Redis 文档的 RedLock 页要求没拿到锁的客户端在所有实例上释放，并在随机延迟后重试，让同时尝试的客户端错开步调，因为选票分散可能让谁也赢不了",
	"split-hot-row":                  "超出参考文章的范围（未引用出处）：秒杀实践里把它叫作库存分段，用来越过每条数据库路线都要排队的那一把行锁",
	"for-update-needs-tx":            "参考文章 000 谈到它的 select ... for update 锁时说：「这里需要注意一下哈,必须要加事务 哈。」",
	"etcd-lease-expiry":              "超出参考文章的范围（没有一篇参考文章讲到 etcd）：etcd 自己的文档《Notes on the usage of lock and lease》（《锁与租约的使用说明》）说：“the lease mechanism itself doesn't guarantee mutual exclusion. Owning a lease cannot guarantee the owner holds a lock of the resource.”（租约机制本身并不保证互斥。拥有租约并不能保证拥有者持有资源上的锁。）关于 Kleppmann 的防护令牌，它又说：“The authors interpret that fencing token is revision number in the case of etcd.”（作者们认为，在 etcd 中，防护令牌就是 revision 版本号。）",
	"sentinel-failover":              "参考文章 000：「如果线程一在Redismaster节点上拿到了锁,但是加锁的key还没同步到slave节点。恰好这时,master节点发生故障,一个slave节点就会升级为master节点。线程二就可以顺理成章获取同个key的锁啦」；参考文章 002：「Redis 的主从同步是异步的」",
	"zk-ensemble-server-killed":      "参考文章 003：「zookeeper天生設計定位就是分布式協調,強一致性。鎖的模型健壯、簡單易用、適合做分布式鎖。」以及「如果公司里面有zk集群條件,優先選用zk實現」；参考文章 000：「从可靠性角度(从高到低)Zookeeper > Redis > 数据库」；参考文章 004 谈到任何锁服务时说：「只要分布式锁服务集群节点大部分存活,client就可以进行加锁解锁操作」（同一句话的开头却是「分布式锁服务一般要满足AP」，而多数派仲裁属于 CP：少数派一侧会停止服务）",
	"consistent-hashing-ring-change": "参考文章 002（“去分布式锁”一节的第二种思路）：「在使用这种算法的时候,同一个业务的请求肯定发到同一个节点上。这时候就没必要使用分布式锁了,本地直接加锁,或者用 Singleflight 模式就可以。」（去掉的是分布式锁，不是锁：「本地直接加锁」仍在，这里就是拥有者的进程内锁；文章就说到这里：实例离开或加入时，“同一个节点”会变成什么样，超出了参考文章的范围）",
	"db-lock-single-point":           "参考文章 004：「不过DB作为分布式锁服务需要考虑单点问题,对于分布式系统来说是不允许出现单点的,一般通过数据库的同步复制,以及使用vip切换Master就能解决这个问题。」；参考文章 000 在可靠性上把它排在最后：「从可靠性角度(从高到低)Zookeeper > Redis > 数据库。」",
	"polling-vs-subscribe":           "参考文章 003 关于 Redis：「獲取不到鎖直接不斷嘗試獲取鎖,比較消耗性能」；关于 ZooKeeper：「則對節點序號的前一個節點添加一個事件監聽」以及「如果獲取不到鎖,只需要添加一個監聽器就可以了,不用一直輪詢,性能消耗較小。」，但是「如果有較多的客戶端頻繁的申請加鎖、釋放鎖,對于zk集群的壓力會比較大」；参考文章 000 关于 ZooKeeper：「client2向它排序靠前的节点lock1注册Watcher事件,用来监听lock1是否存在」；参考文章 001 关于 ZooKeeper：「此时它会去监视比自己创建节点的序号小的最大节点，进入等待」；参考文章 002：「第一种方式就是轮询,比如说在加锁失败之后,每睡眠 100 毫秒就尝试加锁一次」以及「第二种方式是监听删除事件」",
	"redlock-clock-jump":             "参考文章 000：「如果取到了锁,key的真正有效时间就变啦,需要减去获取锁所使用的时间。」；参考文章 002：「假设说你的锁过期时间是 10 秒,加锁花了 1 秒钟,那么你就只剩下 9 秒钟。」；参考文章 003：「輪流嘗試在每個master節點上創建鎖,過期時間設置較短,一般就幾十毫秒」（超出参考文章的范围：漂移项出自 Redis 文档，时钟跳变出自 Kleppmann）",
	"redis-single-point":             "参考文章 003：「使用redis做分布式鎖的缺點在于:如果采用單機部署模式,會存在單點問題,只要redis故障了。加鎖就不行了。」",
	"zk-session-expiry":              "参考文章 001：「如果某个Client与ZK连接断开，临时节点就会消失，锁就会被错误的释放。」；参考文章 003：「客戶端可以建立一個臨時節點,在會話結束或者會話超時后,zookeeper會自動刪除該節點。」（节点是在会话过期时消失的，而不是在连接断开时：在会话超时之内重连的客户端会保住它）",
	"db-lock-crashed-holder":         "参考文章 004：「基于DB的分布式锁其实有一个问题,那就是如果加锁成功后,client端宕机或者由于网络原因导致没有解锁,那么其他client就无法对该key_id进行加锁并且无法释放了。」以及它的补救办法「为了能够让锁失效,需要在应用层加上定时任务,去删除过期还未解锁的记录」；参考文章 000 的状态行锁遇到持有者超时未结束的行时放弃加锁，而不是接管它：「//超时未正常执行结束,获取锁失败」。还活着但太慢的持锁者在锁表上超出了参考文章的范围；参考文章 000 就 Redis 的过期时间说过：「锁过期释放了,业务还没执行完。」",
	"zk-dead-holder":                 "参考文章 000：「临时节点 :和持久节点相反,当创建节点的客户端与zookeeper断开连接后,临时节点会被删除。」（更准确地说，是在会话过期时：只要会话还在，单单断开连接什么也不会删除，所以这里下一个买家要等满会话超时）",
}

func init() {
	for i := range Catalogue {
		if zh, ok := zhTexts[Catalogue[i].Name]; ok {
			Catalogue[i].TitleZh, Catalogue[i].PredictZh, Catalogue[i].FixZh = zh[0], zh[1], zh[2]
		}
		Catalogue[i].SeedZh = zhSeeds[Catalogue[i].Name]
	}
}
