// Labels in English with their Chinese equivalents (the seeds' audience),
// and the explanation of every strategy in the project's own words. The
// "中文 labels" toggle adds the Chinese label beside the English one; the
// explanations stay in English.

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
  replicas: ['Replicas', '副本数'],
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
  violations: ['Exclusion violations', '互斥失效'],
  fenced: ['Fenced writes', '被拦截的写入'],
  reqPerS: ['Requests/s', '每秒请求数'],
  p50p99: ['p50 / p99 (ms)', '延迟 p50 / p99'],
  chOrders: ['Orders per second', '每秒订单数'],
  chLatency: ['Latency p50/p95/p99 (ms), client and server', '延迟（客户端与服务端）'],
  chLockWait: ['Lock wait p50/p95/p99 (ms)', '等锁时间'],
  perReplica: ['Shop replicas', '服务副本'],
  perAgent: ['Load-test agents', '压测节点'],
  replica: ['Replica', '副本'],
  agent: ['Agent', '节点'],
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
  limitRatio: ['Physical-limit ratio', '物理极限比'],
  setup: ['Run', '压测参数'],
  explain: ['What each strategy does', '各锁策略说明'],
  does: ['What it does', '做法'],
  pitfall: ['Pitfall', '陷阱'],
  lesson: ['Lesson', '教训'],
  faults: ['Faults', '故障注入'],
  faultReplica: ['Inject into replica', '注入到副本'],
  inject: ['Inject', '注入'],
  fpause_holder: ['Pause the lock holder', '暂停持锁者'],
  fexpire_zk_session: ['Expire the ZooKeeper session', '让 ZooKeeper 会话过期'],
  fslow_db: ['Slow database row lock', '数据库行锁变慢'],
  fcrash_after_setnx: ['Crash right after SETNX', 'SETNX 后崩溃'],
  fstop_process: ['Stop the process (SIGSTOP)', '暂停进程'],
  fkill_process: ['Kill the process (SIGKILL)', '杀死进程'],
  frestart_redis: ['Restart a Redis node', '重启 Redis 节点'],
  pms: ['Duration (ms)', '时长（毫秒）'],
  psale_id: ['Sale id', '秒杀活动 ID'],
  pnode: ['Redis node', 'Redis 节点'],
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
    does: 'One statement: UPDATE … SET stock = stock - 1 WHERE stock > 0. No lock, the row update is atomic.',
    pitfall: 'Only works when the whole critical section is that one statement; any extra step between check and write needs a real lock again.',
    lesson: 'Often the best answer is to need no lock: push the invariant into one atomic write.',
  },
  'db-lock-table': {
    zh: '数据库锁表',
    does: 'A lock row inserted into a lock table (unique key) with an owner and an expiry; deleting it releases.',
    pitfall: 'A holder that dies leaves its row until the expiry; a holder slower than the expiry loses the lock while still writing.',
    lesson: 'A lock with an expiry needs the expiry to outlast the work, or a fencing token to stop the late writer.',
  },
  redis: {
    zh: 'Redis 分布式锁',
    does: 'SET key token NX PX ttl with a random owner token, a watchdog that extends the TTL while held, Lua compare-and-delete on release, FIFO hand-over and a fencing counter.',
    pitfall: 'A single Redis node: if it fails over before replicating, two holders can exist; a pause longer than the TTL also frees the lock under a live holder.',
    lesson: 'Owner token, atomic release and renewal fix the classic bugs; no lease survives a pause past its TTL. Fencing tokens make the store refuse a stale holder\'s write, but only if each holder records its token before it reads (claiming it at the write lets a stale write land between a newer holder\'s read and write).',
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
  'redis-lua-stock': {
    zh: 'Lua 脚本扣库存',
    does: 'The stock lives in Redis and one Lua script checks and decrements it atomically; no lock.',
    pitfall: 'Redis and the database can disagree: the database write after the script must be reconciled, and a lost Redis write loses stock.',
    lesson: 'Move the hot counter to where an atomic check-and-decrement is cheap, then treat the database as the record.',
  },
  redlock: {
    zh: 'RedLock 多主锁',
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
};

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
