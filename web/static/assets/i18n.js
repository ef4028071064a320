// Labels in English with their Chinese equivalents (the seeds' audience),
// and the explanation of every strategy in the project's own words; the
// fault kinds' labels come with the fault table (GET /api/faults,
// addLabels). The "中文 labels" toggle adds the Chinese label beside the
// English one; the explanations stay in English.

/** @type {Record<string, [string, string]>} key -> [English, 中文] */
export const LABELS = {
  title: ['Seckill Lab', '秒杀实验室'],
  navRun: ['Run', '压测'],
  navCompare: ['Compare', '对比'],
  navLessons: ['Lessons', '实验课'],
  navFaults: ['Faults', '故障注入'],
  navStrategies: ['Strategies', '锁策略'],
  newRun: ['Start a run', '发起压测'],
  strategy: ['Strategy', '锁策略'],
  stock: ['Stock', '库存'],
  buyers: ['Buyers', '买家数'],
  loadModel: ['Load', '负载'],
  concurrency: ['concurrency', '并发数'],
  rate: ['rate (req/s)', '请求速率'],
  replicas: ['Replicas', '实例数'],
  workMs: ['Work in lock (ms)', '锁内耗时'],
  ttlMs: ['Lock TTL (ms)', '锁过期时间'],
  perUser: ['Per-user limit', '每人限购'],
  fencing: ['Fencing tokens', '防护令牌'],
  watchdog: ['Watchdog', '看门狗续期'],
  token: ['Admin token', '管理令牌'],
  start: ['Start', '开始'],
  live: ['Run in progress', '进行中的压测'],
  stockLeft: ['Stock left', '剩余库存'],
  sold: ['Sold', '已售'],
  oversold: ['Oversold', '超卖'],
  lostUpdates: ['Lost updates', '丢失更新'],
  violations: ['Exclusion violations', '临界区重叠次数'],
  fenced: ['Fenced writes', '被拦截的写入'],
  reqPerS: ['Requests/s', '每秒请求数'],
  p50p99: ['p50 / p99 (ms)', '延迟 p50 / p99'],
  chOrders: ['Orders per second', '每秒订单数'],
  chLatency: ['Latency p50/p95/p99 (ms), client and server', '延迟（客户端与服务端）'],
  chLockWait: ['Lock wait p50/p95/p99 (ms)', '等锁时间'],
  perReplica: ['Shop replicas', '服务实例'],
  perAgent: ['Load-test agents', '压测节点'],
  replica: ['Replica', '实例'],
  agent: ['Agent', '压测节点'],
  requests: ['Requests', '请求数'],
  orders: ['Orders', '订单数'],
  errors: ['Errors', '错误数'],
  state: ['State', '状态'],
  compare: ['Finished runs side by side', '结果对比'],
  claimedSafe: ['Claimed safe', '声称安全'],
  verdict: ['Verdict', '结论'],
  throughput: ['Throughput (req/s)', '吞吐量'],
  lockWait: ['Lock wait p99 (ms)', '等锁时间'],
  retries: ['Retries', '重试次数'],
  limitRatio: ['Physical-limit ratio', '理论上限占比'],
  setup: ['Run', '压测参数'],
  explain: ['What each strategy does', '各锁策略说明'],
  does: ['What it does', '做法'],
  pitfall: ['Pitfall', '陷阱'],
  lesson: ['Lesson', '教训'],
  faults: ['Faults', '故障注入'],
  faultReplica: ['Inject into replica', '注入到实例'],
  inject: ['Inject', '注入'],
  claimsH: ['The seeds\' performance claims, checked on this machine', '种子文章的性能论断（本机实测）'],
  claimsNote: ['Judged on the newest finished run that measured redis, zookeeper and a database lock one step after the other with the same load (orders per second of each step); make bench judges them on the lock alone.', '依据最近一次同时测过 redis、zookeeper 和数据库锁（同一负载、逐个步骤）的已完成压测（各步骤每秒订单数）判定；make bench 只测锁本身。'],
  claimSeed: ['The seed says', '种子原文'],
  claimChecked: ['Checked', '检验内容'],
  claimMeasured: ['Measured', '实测'],
  lessons: ['Lessons', '实验课'],
  lessonsSub: ['each failure the seed describes, shown on the real services', '在真实服务上重现每种失效'],
  runAll: ['Run all', '全部运行'],
  runLesson: ['Run', '运行'],
  predicts: ['The seed predicts', '预期'],
  fix: ['The fix', '解决办法'],
  strategies: ['Strategies', '锁策略'],
  minReplicas: ['Needs', '需要'],
  seed: ['From the seed', '出处'],
  lastResult: ['Last result', '上次结果'],
  observed: ['Observed', '实际结果'],
  output: ['Full output', '完整输出'],
  guards: ['Flash-sale guards', '秒杀防护'],
  opensIn: ['Opens in (s)', '开售倒计时（秒）'],
  rateUser: ['Rate limit per user (req/s)', '每用户限流'],
  rateIp: ['Rate limit per IP (req/s)', '每 IP 限流'],
  soldOutCache: ['Sold-out cache', '售罄缓存'],
  ticketRequired: ['Ticket required', '需要购买凭证'],
  openShop: ['open the shop', '打开商品页'],
  orderPipeline: ['Orders', '订单'],
  orderMode: ['Order mode', '下单模式'],
  payWithin: ['Pay within (ms)', '支付时限（毫秒）'],
  queue: ['Queue', '队列'],
  qLength: ['Queue length', '队列长度'],
  qLag: ['Consumer lag', '消费延迟'],
  qPending: ['Pending per consumer', '待确认（每个消费者）'],
  qInFlight: ['In the queue', '排队中'],
  qConfirmedPerS: ['Confirmed/s', '每秒确认'],
  qConfirmedFailed: ['Confirmed / failed', '已确认 / 失败'],
  qConfirmMs: ['202→confirmed p50/p99 ms', '排队到确认 p50/p99'],
  qDurability: ['Persistence', '持久化'],
  resReservedPaid: ['Reserved / paid', '待支付 / 已支付'],
  resExpiredReturned: ['Expired / returned', '已过期 / 已退回'],
  drift: ['Stock drift', '对账偏差'],
  health: ['Health', '健康状态'],
  durability: ['Persistence of the queue’s Redis', '队列 Redis 持久化'],
  durabilityMode: ['Mode', '模式'],
  durabilitySet: ['Switch', '切换'],
};

/** Explanation panels: what the strategy does, its pitfall, the lesson. */
export const EXPLAIN = {
  none: {
    zh: '不加锁',
    does: 'Reads the stock, waits work_ms, writes stock minus one. No lock at all: the baseline.',
    pitfall: 'Two buyers read the same stock and both write: every overlap is a lost update and, once the stock runs out, an oversold item.',
    lesson: '"Check then act" on shared stock is a race the moment two requests overlap; a flash sale makes them overlap all the time.',
  },
  mutex: {
    zh: '进程内互斥锁',
    does: 'A sync.Mutex per sale inside one shop process.',
    pitfall: 'It only excludes goroutines of the same process: with two or more replicas behind a load balancer each has its own mutex, and they oversell together.',
    lesson: 'A local lock is not a distributed lock: the critical section spans every replica, so the lock must live where they all see it.',
  },
  'db-pessimistic': {
    zh: '数据库悲观锁',
    does: 'SELECT … FOR UPDATE on a lock row inside the order transaction; the commit releases it. The database itself serialises the buyers.',
    pitfall: 'Correct, but every buyer queues on one row lock and holds a connection while waiting: the pool and the row become the bottleneck.',
    lesson: 'The database is already a lock service; the price is throughput and connections, not safety.',
  },
  'db-optimistic': {
    zh: '数据库乐观锁',
    does: 'Reads the row with its version and writes only WHERE version = the one read; a conflict retries.',
    pitfall: 'Under a flash-sale crowd most attempts conflict: retries explode and latency with them, even though nothing is oversold.',
    lesson: 'Optimistic locking is safe and cheap when conflicts are rare; a hot item is exactly when they are not.',
  },
  'db-conditional': {
    zh: '条件更新扣库存',
    does: 'One statement: UPDATE … SET stock = stock - 1 WHERE stock > 0. No lock of ours: the database\'s row lock serialises the one UPDATE.',
    pitfall: 'Only works when the whole critical section is that one statement; any extra step between check and write needs a real lock again.',
    lesson: 'Often the best answer is to need no lock: push the invariant into one atomic write.',
  },
  'db-pessimistic-autocommit': {
    zh: '无事务的 FOR UPDATE',
    does: 'The db-pessimistic SELECT ... FOR UPDATE, run without a transaction (the teaching variant).',
    pitfall: 'In autocommit every statement is its own transaction: the row lock ends as the SELECT returns, and the lock excludes nothing.',
    lesson: 'FOR UPDATE needs a transaction that lasts through the work and the write (seed 000: 「必须要加事务」).',
  },
  'db-lock-table': {
    zh: '数据库唯一键锁',
    does: 'A lock row inserted into a lock table (unique key) with an owner and an expiry; deleting it releases.',
    pitfall: 'A holder that dies leaves its row until the expiry; a holder slower than the expiry loses the lock while still writing.',
    lesson: 'A lock with an expiry needs the expiry to outlast the work, or a fencing token to stop the late writer.',
  },
  redis: {
    zh: 'Redis 分布式锁',
    does: 'SET key token NX PX ttl with a random owner token, a watchdog that extends the TTL while held, Lua compare-and-delete on release, FIFO hand-over and a fencing counter.',
    pitfall: 'One Redis: if it restarts without persistence it forgets the lock, and with one master and asynchronous replicas a failover to a replica that never saw the key does the same: a second holder gets in. A pause longer than the TTL also frees the lock under a live holder.',
    lesson: 'Owner token, atomic release and renewal fix the classic bugs; no lease survives a pause past its TTL. Fencing tokens make the store refuse a stale holder\'s write, but only if each holder records its token before it reads (claiming it at the write lets a stale write land between a newer holder\'s read and write).',
  },
  'redis-sentinel': {
    zh: 'Redis 哨兵主从',
    does: 'The redis lock, unchanged, over a master with one asynchronous replica and three Sentinels (go-redis\'s failover client follows the master through a failover).',
    pitfall: 'Replication is asynchronous: a master that dies after granting the lock and before its replica has the key is replaced by a replica that never saw it, and a second holder gets in (seeds 000, 001, 002, 003 all say so). The fencing counter lives in the same Redis; the tokens stay ahead only because they follow the server\'s clock.',
    lesson: 'High availability of Redis is not safety of the lock: use independent masters (RedLock) or a consensus store, and fence the write either way.',
  },
  'redis-setnx-expire': {
    zh: 'SETNX 后再 EXPIRE',
    does: 'SETNX then EXPIRE as two commands (the teaching variant).',
    pitfall: 'A crash between the two commands leaves a lock with no expiry: nobody can ever buy again.',
    lesson: 'Set the value and its expiry in one atomic command (SET NX PX).',
  },
  'redis-no-owner': {
    zh: '不校验持有者',
    does: 'Locks with an expiry but releases with a plain DEL (the teaching variant).',
    pitfall: 'A holder whose lock expired deletes the next holder\'s lock: two, then three buyers are inside at once.',
    lesson: 'Release only your own lock: compare the owner token and delete in one Lua script.',
  },
  'redis-getset': {
    zh: 'SETNX + GETSET（值为过期时间）',
    does: 'Seed 000\'s variant: SETNX with the client\'s own expiry time as the value; a contender that reads an expiry in the past takes over with GETSET and wins if GETSET returns what it read; release is GET, compare, then DEL (the teaching variant).',
    pitfall: 'Each client writes the expiry with its own clock, so the clocks must agree: one running ahead takes a live lock. When several take over an expired lock at once, the losers\' GETSETs overwrite the winner\'s expiry. The value names no owner, and GET-then-DEL is two steps: the lock can change hands in between and the DEL frees the next holder\'s lock.',
    lesson: 'Let the server keep the time (SET NX PX) and name the owner in the value, released by one atomic compare-and-delete.',
  },
  'redis-lua-stock': {
    zh: 'Lua 脚本扣库存',
    does: 'The stock lives in Redis and one Lua script checks and decrements it atomically; no lock.',
    pitfall: 'Redis and the database can disagree. A lost DECR (Redis restarted without persistence) admits more buyers than the stock, which the database\'s conditional decrement must refuse; a lost stock key stops the sale until it is rebuilt; a crash between the script and the commit undersells unless reconciled.',
    lesson: 'Move the hot counter to where an atomic check-and-decrement is cheap, then treat the database as the record.',
  },
  redlock: {
    zh: '红锁（RedLock）',
    does: 'Takes the lock on a majority (N/2+1) of independent Redis masters within the validity time (go-redsync), with watchdog extension; it has no fencing token.',
    pitfall: 'Relies on bounded clock drift and pauses; a master restarted without persistence can grant the lock twice.',
    lesson: 'A quorum tolerates a node failure, but timing assumptions remain: safety still needs fencing at the resource.',
  },
  zookeeper: {
    zh: 'ZooKeeper 临时顺序节点',
    does: 'An ephemeral sequential znode per waiter; each watches its predecessor; the czxid is a monotonic fencing token.',
    pitfall: 'A session that expires (a long GC pause, a partition) drops the node while the holder still believes it holds the lock.',
    lesson: 'Consensus gives ordered, fair locks and natural fencing tokens; the session timeout is the new TTL.',
  },
  redisson: {
    zh: 'Redisson 可重入锁',
    does: 'Redisson\'s RLock in Go: a hash of holder -> hold count (HINCRBY), so the holder can lock again and the last unlock frees it; a watchdog renews every TTL/3; waiters sleep on a pub/sub channel the last unlock publishes to; a fencing token per holding.',
    pitfall: 'The watchdog stops with its process: a pause past the TTL frees the lock under a live holder (seed 003: "if the machine goes down, the watchdog goes with it"), and when renewal fails the lock only sends a signal (Lost): the holder must stop its work itself. Who counts as "the same holder" must be said: Go has no thread id, so the ctx names it.',
    lesson: 'Reentrancy is a count per holder: a nested lock on a non-reentrant lock waits for itself until it times out.',
  },
  'redis-2level': {
    zh: '两级锁（本地转交）',
    does: 'Seed 002\'s local hand-off in front of the `redis` lock: a process queues its own contenders in memory (FIFO) and sends only one of them to Redis at a time (Singleflight); the process that holds the lock passes it to its next local waiter without a round trip, up to 8 times, then releases it to the other processes. Each distributed holding reserves 9 fencing tokens, one per local holder.',
    pitfall: 'It is exactly as safe as the distributed lock underneath: every local holder shares one lease, so a pause past its TTL, or a Redis that forgets the key, frees it for another process while a local holder is still inside. Fairness across processes is bounded, not FIFO: a busy process serves up to 9 of its own before anyone else.',
    lesson: 'Cut the lock traffic where contention is local: most hand-offs never reach Redis (measured: about 5x the throughput of redis at a 0 ms section over 3 processes; at 1 ms the gain is bounded by the work itself).',
  },
  etcd: {
    zh: 'etcd 租约锁',
    does: 'etcd\'s own lock (clientv3/concurrency): each waiter puts a key bound to its own lease, kept alive every TTL/3; the lowest create revision holds, each waiter watches the key just below its own; the create revision is the fencing token. Beyond the seeds.',
    pitfall: 'A lease is a TTL: a holder paused longer than it (GC, SIGSTOP) loses its key while it still believes it holds the lock; the client learns of the expiry only when its keep-alive deadline passes. Leases are whole seconds, at least 2 here.',
    lesson: 'Raft makes the lock itself consistent (no failover loses a key), and the revision is a fencing token for free; the lease still cannot stop a paused holder, the token can.',
  },
};

/**
 * addLabels adds labels that come from the API (the fault table's titles
 * and parameters, keyed f<kind> and p<name>).
 */
export function addLabels(entries) {
  Object.assign(LABELS, entries);
}

/** label returns the text for key in the current mode. */
export function label(key, zh) {
  const l = LABELS[key];
  if (!l) return key;
  return zh ? `${l[0]} · ${l[1]}` : l[0];
}

/** applyLabels rewrites every [data-l] element under root. */
export function applyLabels(root, zh) {
  for (const el of root.querySelectorAll('[data-l]')) {
    el.textContent = label(el.dataset.l, zh);
  }
}
