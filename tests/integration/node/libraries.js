// Popular Node rate-limiter libraries (pinned in package.json) against a running server, Redis
// or sluiced: each scenario drives one library through a fixed sequence of calls and prints
// one JSON line of what its caller sees. test_libraries_node.py runs the same scenario against
// redis-server and sluiced and compares the two lines.
//
//   node libraries.js PORT SCENARIO [PROTOCOL]     (PROTOCOL: 3, ioredis's default, or 2)
//
// SCENARIO: rate-limiter-flexible, rate-limit-redis, ratelimiter, fastify-rate-limit,
// bottleneck-no-pubsub, bottleneck, async-ratelimiter, rolling-rate-limiter, nest-throttler,
// redis-gcra.
//
// Values that depend on the clock (a TTL, msBeforeNext, a reset time) are printed as the range
// they fall in ("in [1, 60000]") or as "out of range: X". An unexpected exception exits 1.

"use strict";

const Redis = require("ioredis");
const Bottleneck = require("bottleneck");
const FastifyRedisStore = require("@fastify/rate-limit/store/RedisStore");
const { RedisStore } = require("rate-limit-redis");
const { RateLimiterRedis, RateLimiterRes } = require("rate-limiter-flexible");
const Limiter = require("ratelimiter");
const AsyncRateLimiter = require("async-ratelimiter");
const { IORedisRateLimiter, NodeRedisRateLimiter } = require("rolling-rate-limiter");
// node-redis and @nestjs take 0.3 s each to load: required by the scenarios that use them.
const redisGcra = require("redis-gcra");

const port = Number(process.argv[2]);
const scenarioName = process.argv[3];
const protocol = Number(process.argv[4] || 3);

// A bound on waiting for a bottleneck job to start or finish. Jobs start within milliseconds,
// also when started by a message from the server; only a server that never sends the message
// reaches the bound, and the run then stops and says where. Generous, as it only bounds a
// failure: a loaded machine running an ASan build must not reach it (and it stays under
// test_libraries_node.py's 60 s for the whole run, so the run still says where it stalled).
const STALL_MS = 30000;

function client() {
  return new Redis({ host: "127.0.0.1", port, protocol, maxRetriesPerRequest: 0,
                     retryStrategy: () => null });
}

// "in [lo, hi]" when lo <= value <= hi, so that two runs a few ms apart print the same.
function span(value, lo, hi) {
  return typeof value === "number" && value >= lo && value <= hi
    ? `in [${lo}, ${hi}]` : `out of range: ${value}`;
}

function errorText(e) {
  return e && e.message !== undefined ? String(e.message) : String(e);
}

class Stall extends Error {}

// Resolves with what `promise` gives; throws Stall when it has not settled after STALL_MS.
async function bounded(promise, what) {
  let timer;
  const stall = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Stall(what)), STALL_MS);
  });
  try {
    return await Promise.race([promise, stall]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// rate-limiter-flexible: RateLimiterRedis through ioredis (its Lua INCRBY+EXPIRE script, and
// MULTI for get, block, set and for a limiter without expiry).

async function rateLimiterFlexible(redis) {
  const out = {};

  const outcome = async (promise, durationMs) => {
    try {
      const res = await promise;
      return res === null ? null : { resolved: true, ...fields(res, durationMs) };
    } catch (e) {
      if (e instanceof RateLimiterRes) return { resolved: false, ...fields(e, durationMs) };
      throw e;
    }
  };
  const fields = (res, durationMs) => ({
    consumed: res.consumedPoints,
    remaining: res.remainingPoints,
    first: res.isFirstInDuration,
    msBeforeNext: durationMs === 0 ? res.msBeforeNext : span(res.msBeforeNext, 1, durationMs),
  });

  // 5 points per 60 s, execEvenly off (every decision is answered at once).
  const a = new RateLimiterRedis({ storeClient: redis, useRedisPackage: false,
                                   keyPrefix: "rlflx-test-a", points: 5, duration: 60,
                                   execEvenly: false });
  out.consumes = [];
  for (let i = 0; i < 7; i++) out.consumes.push(await outcome(a.consume("u1"), 60000));
  out.getAfter = await outcome(a.get("u1"), 60000);
  out.raw = { value: await redis.get("rlflx-test-a:u1"),
              pttl: span(await redis.pttl("rlflx-test-a:u1"), 1, 60000) };
  out.getUnknown = await outcome(a.get("nobody"), 60000);
  out.reward = await outcome(a.reward("u1", 3), 60000);
  out.consumeAfterReward = await outcome(a.consume("u1"), 60000);
  out.consumeTwo = await outcome(a.consume("u1", 2), 60000);
  out.penalty = await outcome(a.penalty("u1", 2), 60000);
  out.deleted = await a.delete("u1");
  out.deletedAgain = await a.delete("u1");
  out.getDeleted = await outcome(a.get("u1"), 60000);
  out.consumeFresh = await outcome(a.consume("u1"), 60000);
  out.consumeTooMany = await outcome(a.consume("u2", 6), 60000);
  await a.set("u3", 3, 30);
  out.getSet = await outcome(a.get("u3"), 30000);
  await a.block("u4", 20);
  out.getBlocked = await outcome(a.get("u4"), 20000);
  out.consumeBlocked = await outcome(a.consume("u4"), 20000);
  await a.set("u5", 2, 0); // no expiry: a plain SET
  out.getForever = await outcome(a.get("u5"), 0);

  // blockDuration: the consume that first goes over the limit blocks the key for 30 s.
  const b = new RateLimiterRedis({ storeClient: redis, keyPrefix: "rlflx-test-b", points: 2,
                                   duration: 10, blockDuration: 30 });
  out.blockConsumes = [];
  for (let i = 0; i < 4; i++) out.blockConsumes.push(await outcome(b.consume("u"), 30000));
  out.blockPttl = span(await redis.pttl("rlflx-test-b:u"), 10001, 30000);
  out.blockGet = await outcome(b.get("u"), 30000);

  // duration 0: points never expire (MULTI INCRBY + PTTL instead of the script).
  const c = new RateLimiterRedis({ storeClient: redis, keyPrefix: "rlflx-test-c", points: 2,
                                   duration: 0 });
  out.foreverConsumes = [];
  for (let i = 0; i < 3; i++) out.foreverConsumes.push(await outcome(c.consume("u"), 0));
  out.foreverPttl = await redis.pttl("rlflx-test-c:u");

  // 30 consumes at once from 3 connections (ioredis pipelines each one's 10): exactly 5 pass,
  // and the counter takes every value from 1 to 30 once.
  const others = [client(), client()];
  try {
    const limiters = [redis, ...others].map((storeClient) => new RateLimiterRedis(
      { storeClient, keyPrefix: "rlflx-test-d", points: 5, duration: 60 }));
    const burst = await Promise.all(limiters.flatMap((l) => Array.from(
      { length: 10 }, () => outcome(l.consume("u"), 60000))));
    out.burstResolved = burst.filter((r) => r.resolved).length;
    out.burstConsumed = burst.map((r) => r.consumed).sort((x, y) => x - y);
    out.burstRemaining = burst.filter((r) => r.resolved).map((r) => r.remaining).sort();
  } finally {
    others.forEach((o) => o.disconnect());
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// rate-limit-redis (express-rate-limit's store), used directly: SCRIPT LOAD + EVALSHA, reloads
// on NOSCRIPT, DECR and DEL.

async function rateLimitRedis(redis) {
  const out = {};
  let reply; // the last raw reply, before the store turns it into a count and a Date
  const store = new RedisStore({
    sendCommand: async (...args) => { reply = await redis.call(...args); return reply; },
    prefix: "rlr-test:",
  });
  await store.init({ windowMs: 60000 });
  const info = (res) => ({
    totalHits: Number.isNaN(res.totalHits) ? "NaN" : res.totalHits,
    reply: [reply[0], reply[1] > 0 ? span(reply[1], 1, 60000) : reply[1]],
  });

  const incrementSha = await store.incrementScriptSha;
  out.shas = [incrementSha, await store.getScriptSha];
  out.scriptExists = (await redis.call("SCRIPT", "EXISTS", ...out.shas)).map(Number);
  out.getUnknown = info(await store.get("a"));
  out.increments = [];
  for (let i = 0; i < 5; i++) out.increments.push(info(await store.increment("a")));
  await store.decrement("a");
  out.getAfterDecrement = info(await store.get("a"));
  out.raw = { value: await redis.get("rlr-test:a"),
              pttl: span(await redis.pttl("rlr-test:a"), 1, 60000) };
  await store.resetKey("a");
  out.getAfterReset = info(await store.get("a"));
  out.incrementAfterReset = info(await store.increment("a"));

  // A key without a TTL (PTTL -1) starts a new window.
  await redis.set("rlr-test:b", "10");
  out.incrementNoTtl = info(await store.increment("b"));

  // SCRIPT FLUSH: the next EVALSHA gets NOSCRIPT, the store loads the script again.
  await redis.call("SCRIPT", "FLUSH");
  out.existsAfterFlush = (await redis.call("SCRIPT", "EXISTS", incrementSha)).map(Number);
  try {
    await redis.call("EVALSHA", incrementSha, "1", "rlr-test:c", "60000");
    out.evalshaAfterFlush = "no error";
  } catch (e) {
    out.evalshaAfterFlush = errorText(e);
  }
  out.incrementAfterFlush = info(await store.increment("a"));
  out.getAfterFlush = info(await store.get("a"));
  out.existsAfterReload = (await redis.call("SCRIPT", "EXISTS", ...out.shas)).map(Number);

  // 20 increments at once (pipelined by ioredis): every count from 1 to 20 once.
  const burst = await Promise.all(Array.from({ length: 20 }, () => store.increment("burst")));
  out.burstHits = burst.map((r) => r.totalHits).sort((x, y) => x - y);
  return out;
}

// ---------------------------------------------------------------------------------------------
// bottleneck in clustering mode ("ioredis" datastore): about twenty Lua scripts over hashes and
// sorted sets, and pub/sub (SUBSCRIBE, and PUBLISH from scripts) to tell clients that capacity
// was freed. Jobs are held by gates the scenario opens, so nothing depends on timing.

const bottleneckOptions = {
  datastore: "ioredis",
  clientOptions: { host: "127.0.0.1", port, protocol, maxRetriesPerRequest: 0 },
  minTime: 0,
  clearDatastore: true,
  trackDoneStatus: true,
  heartbeatInterval: 600000, // no heartbeat script during the run
};

function bottleneckLimiter(id, options) {
  const limiter = new Bottleneck({ ...bottleneckOptions, id, ...options });
  const errors = [];
  const events = [];
  limiter.on("error", (e) => errors.push(errorText(e)));
  limiter.on("depleted", () => events.push("depleted"));
  limiter.on("queued", (info) => events.push(`queued ${info.options.id}`));
  return { limiter, errors, events };
}

// A job submitted to `limiter` that runs until release() is called.
function gatedJob(limiter, id, weight = 1) {
  let markStarted;
  let release;
  const started = new Promise((resolve) => { markStarted = resolve; });
  const gate = new Promise((resolve) => { release = resolve; });
  let submitted;
  const done = new Promise((resolve, reject) => {
    // submit() resolves once the job is queued and a first attempt to run it was made.
    submitted = limiter.submit({ id, weight }, (cb) => {
      markStarted();
      gate.then(() => cb(null, `${id} ok`));
    }, (err, result) => (err ? reject(err) : resolve(result)));
  });
  done.catch(() => {}); // looked at where awaited
  return { started, release, done, submitted };
}

async function bottleneckState(limiter) {
  return {
    reservoir: await limiter.currentReservoir(),
    running: await limiter.running(),
    done: await limiter.done(),
    check: await limiter.check(1),
    clusterQueued: await limiter.clusterQueued(),
    counts: limiter.counts(),
  };
}

async function settingsOf(redis, id) {
  const fields = ["id", "version", "maxConcurrent", "minTime", "reservoir", "running", "done",
                  "capacityPriorityCounter"];
  const values = await redis.hmget(`b_${id}_settings`, ...fields);
  return Object.fromEntries(fields.map((f, i) => [f, f === "version" ? values[i] !== null
                                                                    : values[i]]));
}

// A job heavier than maxConcurrent: the submit script refuses it with redis.error_reply.
async function overweight(limiter, weight) {
  try {
    await limiter.schedule({ weight, id: "heavy" }, async () => "ran");
    return "ran";
  } catch (e) {
    return errorText(e);
  }
}

// Submits jobs j1 and j2, in that order, and waits until both run.
async function startTwoJobs(limiter) {
  const j1 = gatedJob(limiter, "j1");
  await j1.submitted;
  const j2 = gatedJob(limiter, "j2");
  await j2.submitted;
  await bounded(Promise.all([j1.started, j2.started]), "j1 and j2 start");
  return [j1, j2];
}

// The part of bottleneck that needs no pub/sub: no job of a limited limiter finishes (the
// "free" script publishes the capacity it frees), and the reservoir is never raised (the
// "increment_reservoir" script always publishes).
async function bottleneckNoPubsub(redis) {
  const id = "bn-test-queue";
  const { limiter, errors, events } = bottleneckLimiter(id, { maxConcurrent: 3, reservoir: 2,
                                                              timeout: 60000 });
  const out = {};
  await limiter.ready();
  out.initial = await bottleneckState(limiter);
  const [j1, j2] = await startTwoJobs(limiter);
  out.twoRunning = await bottleneckState(limiter);
  const j3 = gatedJob(limiter, "j3"); // the reservoir is empty: it waits
  await j3.submitted;
  out.depleted = await bottleneckState(limiter);
  out.jobStatus = ["j1", "j2", "j3"].map((j) => limiter.jobStatus(j));
  out.overweight = await overweight(limiter, 4);
  out.settings = await settingsOf(redis, id);
  out.keys = (await redis.keys(`b_${id}_*`)).sort();
  // timeout (the group timeout): every script that changes the settings PEXPIREs all the keys.
  out.keyTtls = await Promise.all(out.keys.map(async (k) => span(await redis.pttl(k), 1, 60000)));
  out.events = events;
  out.errors = errors;

  // No maxConcurrent and no reservoir: the capacity is unlimited (nil in the scripts: register
  // replies {true, wait, nil}, a 2-element array), so a finished job frees no capacity and
  // publishes nothing.
  const free = bottleneckLimiter(`${id}-unlimited`, {});
  await free.limiter.ready();
  const j4 = gatedJob(free.limiter, "j4", 5);
  await j4.submitted;
  await bounded(j4.started, "j4 starts");
  out.unlimited = await bottleneckState(free.limiter);
  j4.release();
  out.j4 = await bounded(j4.done, "j4 done");
  out.unlimitedDone = await bottleneckState(free.limiter);
  out.unlimitedErrors = free.errors;
  await Promise.all([limiter.disconnect(false), free.limiter.disconnect(false)]);

  // Groups: a limiter per key, found by SCAN MATCH; another process's group deletes a key (a
  // pipelined DEL; deleting a key of its own would UNSUBSCRIBE its limiter).
  const groupOptions = { ...bottleneckOptions, id: "bn-test-group", maxConcurrent: 2,
                         reservoir: 5, timeout: 60000 };
  const group = new Bottleneck.Group(groupOptions);
  const other = new Bottleneck.Group({ ...groupOptions, clearDatastore: false });
  const groupErrors = [];
  group.on("error", (e) => groupErrors.push(errorText(e)));
  const [a, b] = [group.key("a"), group.key("b")];
  await Promise.all([a.ready(), b.ready()]);
  out.group = { reservoirs: [await a.currentReservoir(), await b.currentReservoir()] };
  out.group.keys = (await other.clusterKeys()).sort();
  out.group.expired = await a._store.__groupCheck__();
  out.group.deleted = [await other.deleteKey("a"), await other.deleteKey("a")];
  out.group.keysAfterDelete = (await other.clusterKeys()).sort();
  out.group.expiredAfterDelete = await a._store.__groupCheck__();
  // The script's redis.error_reply('SETTINGS_KEY_NOT_FOUND'); Redis 7 prefixes it with ERR.
  try {
    out.group.reservoirAfterDelete = await a.currentReservoir();
  } catch (e) {
    out.group.reservoirAfterDelete = errorText(e);
  }
  out.group.errors = groupErrors;
  await Promise.all([group.disconnect(false), other.disconnect(false)]);
  return out;
}

// The whole cycle: jobs finish, a queued job is started by the capacity message, the reservoir
// runs out and incrementReservoir() brings it back.
async function bottleneck(redis) {
  const id = "bn-test-full";
  const { limiter, errors, events } = bottleneckLimiter(id, { maxConcurrent: 2, reservoir: 3 });
  const out = {};
  try {
    await limiter.ready();
    out.initial = await bottleneckState(limiter);
    const [j1, j2] = await startTwoJobs(limiter);
    out.twoRunning = await bottleneckState(limiter);
    const j3 = gatedJob(limiter, "j3"); // maxConcurrent reached: it waits
    await j3.submitted;
    out.oneQueued = await bottleneckState(limiter);

    j1.release();
    out.j1 = await bounded(j1.done, "j1 done");
    await bounded(j3.started, "j3 started by the capacity message after j1 finished");
    out.afterJ1 = await bottleneckState(limiter);
    j2.release();
    j3.release();
    out.j2j3 = await bounded(Promise.all([j2.done, j3.done]), "j2 and j3 done");
    out.reservoirEmpty = await bottleneckState(limiter);

    const j4 = gatedJob(limiter, "j4"); // the reservoir is empty: it waits
    await j4.submitted;
    out.j4Waiting = limiter.jobStatus("j4");
    out.incrementReservoir = await limiter.incrementReservoir(2);
    await bounded(j4.started, "j4 started by the capacity message after incrementReservoir");
    j4.release();
    out.j4 = await bounded(j4.done, "j4 done");
    out.afterJ4 = await bottleneckState(limiter);

    out.overweight = await overweight(limiter, 3);
    await limiter.updateSettings({ reservoir: 10 });
    out.afterUpdate = await bottleneckState(limiter);
    out.settings = await settingsOf(redis, id);

    // A group deletes a key of its own: its limiter UNSUBSCRIBEs.
    const group = new Bottleneck.Group({ ...bottleneckOptions, id: "bn-test-full-group" });
    group.on("error", (e) => errors.push(errorText(e)));
    await group.key("a").ready();
    out.groupDeleted = [await group.deleteKey("a"), await group.deleteKey("a")];
    out.groupKeys = await group.clusterKeys();
    await group.disconnect(false);
  } catch (e) {
    if (!(e instanceof Stall)) throw e;
    out.stalled = e.message;
  }
  out.events = events;
  out.errors = errors;
  await limiter.disconnect(false);
  return out;
}

// ---------------------------------------------------------------------------------------------
// ratelimiter (tj's): one MULTI of ZREMRANGEBYSCORE, ZCARD, ZADD, ZRANGE x2,
// ZREMRANGEBYRANK, PEXPIRE per call.

async function ratelimiter(redis) {
  const out = {};
  const get = (limit) => new Promise((resolve, reject) => {
    limit.get((err, info) => (err ? reject(err) : resolve({
      total: info.total,
      remaining: info.remaining,
      resetMs: span(info.resetMs - Date.now(), -1000, 60100), // microtime drifts from Date
      reset: span(info.reset - Math.floor(Date.now() / 1000), -1, 61),
    })));
  });
  const five = new Limiter({ id: "rl-test-five", db: redis, max: 5, duration: 60000 });
  out.gets = [];
  for (let i = 0; i < 8; i++) out.gets.push(await get(five));
  out.zcard = await redis.zcard("limit:rl-test-five");
  out.pttl = span(await redis.pttl("limit:rl-test-five"), 1, 60000);
  out.type = await redis.type("limit:rl-test-five");

  const other = new Limiter({ id: "rl-test-other", db: redis, max: 5, duration: 60000 });
  out.otherId = await get(other);

  const one = new Limiter({ id: "rl-test-one", db: redis, max: 1, duration: 60000 });
  out.one = [await get(one), await get(one)];
  out.oneZcard = await redis.zcard("limit:rl-test-one");
  return out;
}

// ---------------------------------------------------------------------------------------------
// @fastify/rate-limit's Redis store, used directly: its INCR + PEXPIRE script (with
// continueExceeding and exponentialBackoff) and its read script.

async function fastifyRateLimit(redis) {
  const out = {};
  const call = (fn) => new Promise((resolve, reject) => {
    fn((err, res) => (err ? reject(err) : resolve(res)));
  });
  // The script returns the window it sets when it (re)starts or stretches it, else the PTTL.
  const incr = async (store, ip, windowMs, max) => {
    const res = await call((cb) => store.incr(ip, cb, windowMs, max));
    const restarts = res.current === 1 ||
      ((store.continueExceeding || store.exponentialBackoff) && res.current > max);
    return { current: res.current, ttl: restarts ? res.ttl : span(res.ttl, 1, windowMs) };
  };
  const read = async (store, ip) => call((cb) => store.read(ip, cb));

  const plain = new FastifyRedisStore(false, false, redis, "fastify-test-plain-");
  out.incrs = [];
  for (let i = 0; i < 7; i++) out.incrs.push(await incr(plain, "ip1", 60000, 5));
  const state = await read(plain, "ip1");
  out.read = { current: state.current, ttl: span(state.ttl, 1, 60000) };
  out.readUnknown = await read(plain, "nobody");
  await redis.set("fastify-test-plain-forever", "3");
  out.readNoTtl = await read(plain, "forever");

  const exceeding = new FastifyRedisStore(true, false, redis, "fastify-test-exceeding-");
  out.exceeding = [];
  for (let i = 0; i < 4; i++) out.exceeding.push(await incr(exceeding, "ip", 30000, 2));

  const backoff = new FastifyRedisStore(false, true, redis, "fastify-test-backoff-");
  out.backoff = [];
  for (let i = 0; i < 5; i++) out.backoff.push(await incr(backoff, "ip", 10000, 2));
  out.backoffPttl = span(await redis.pttl("fastify-test-backoff-ip"), 20001, 40000);

  const child = plain.child({ routeInfo: { method: "GET", url: "/x" } });
  out.child = await incr(child, "ip1", 60000, 5);
  out.childKey = await redis.exists("fastify-test-plain-GET/x-ip1");
  return out;
}

// ---------------------------------------------------------------------------------------------
// async-ratelimiter (microlink's; koa-ratelimit's store): one Lua script per call, run by
// ioredis's defineCommand (EVALSHA, EVAL on NOSCRIPT): EXISTS, ZREMRANGEBYSCORE, ZCARD, ZRANGE,
// ZADD with the script's own Lua numbers (a timestamp in fractional milliseconds) as score and
// member, PEXPIRE.

async function asyncRatelimiter(redis) {
  const out = {};
  const get = async (limiter, options) => {
    const res = await limiter.get(options);
    return { remaining: res.remaining, total: res.total,
             reset: span(res.reset - Math.floor(Date.now() / 1000), -1, 61) };
  };
  const limiter = new AsyncRateLimiter({ db: redis, max: 5, duration: 60000,
                                         namespace: "arl-test" });
  out.gets = [];
  for (let i = 0; i < 7; i++) out.gets.push(await get(limiter, { id: "a" }));
  const key = "arl-test:a";
  out.zcard = await redis.zcard(key);
  out.type = await redis.type(key);
  out.pttl = span(await redis.pttl(key), 1, 60000);
  // Each member is the timestamp the script got, written back by redis.call from a Lua number:
  // it must read back as the same number (a precision-losing %.14g would not).
  const members = await redis.zrange(key, 0, -1, "WITHSCORES");
  const pairs = [];
  for (let i = 0; i < members.length; i += 2) pairs.push([members[i], members[i + 1]]);
  out.memberIsScore = pairs.map(([m, s]) => Number(m) === Number(s));
  // Up to 4 decimals (17 significant digits); none when the timestamp came out whole, which a
  // coarse clock makes likely enough to fail a run now and then.
  out.memberFractionDigits = pairs.map(([m]) => span((m.split(".")[1] || "").length, 0, 4));
  out.membersAscending = pairs.every(([m], i) => i === 0 || Number(pairs[i - 1][0]) < Number(m));
  // A larger max for the same key, a peek (counts, adds nothing), another id.
  out.higherMax = await get(limiter, { id: "a", max: 10 });
  out.peek = [await get(limiter, { id: "a", max: 10, peek: true }),
              await get(limiter, { id: "a", max: 10, peek: true })];
  out.zcardAfterPeek = await redis.zcard(key);
  out.peekUnknown = await get(limiter, { id: "nobody", peek: true });
  out.existsPeekUnknown = await redis.exists("arl-test:nobody");
  out.other = await get(limiter, { id: "b", max: 1 });
  out.otherBlocked = await get(limiter, { id: "b", max: 1 });
  // After SCRIPT FLUSH ioredis's EVALSHA gets NOSCRIPT and it sends EVAL.
  await redis.call("SCRIPT", "FLUSH");
  out.afterFlush = await get(limiter, { id: "c", max: 2 });
  // 10 calls at once, pipelined by ioredis: 5 pass with 5..1 left, 5 get 0.
  const burst = await Promise.all(Array.from({ length: 10 },
    () => limiter.get({ id: "burst" })));
  out.burstRemaining = burst.map((r) => r.remaining).sort((x, y) => x - y);
  out.burstZcard = await redis.zcard("arl-test:burst");
  return out;
}

// ---------------------------------------------------------------------------------------------
// rolling-rate-limiter: a MULTI of ZREMRANGEBYSCORE, ZADD (microsecond score, uuid member),
// ZRANGE WITHSCORES and EXPIRE per call, through ioredis and through node-redis (`redis`),
// whose zRangeWithScores parses the RESP2 flat array or the RESP3 pairs of doubles.

async function rollingRateLimiter(redis) {
  const out = {};
  const info = (i, intervalMs) => ({
    blocked: i.blocked,
    count: i.blockedDueToCount,
    minDifference: i.blockedDueToMinDifference,
    remaining: i.actionsRemaining,
    msUntilAllowed: i.millisecondsUntilAllowed === 0 ? 0
      : span(i.millisecondsUntilAllowed, 1, intervalMs),
  });
  const scenario = async (limiterClass, client, prefix) => {
    const res = {};
    const three = new limiterClass({ client, namespace: `${prefix}three:`, interval: 60000,
                                     maxInInterval: 3 });
    res.limits = [];
    for (let i = 0; i < 5; i++) res.limits.push(info(await three.limitWithInfo("u"), 60000));
    res.zcard = await redis.zcard(`${prefix}three:u`); // blocked actions are recorded too
    res.ttl = span(await redis.ttl(`${prefix}three:u`), 1, 60);
    res.wouldLimit = info(await three.wouldLimitWithInfo("u"), 60000);
    res.wouldLimitFresh = info(await three.wouldLimitWithInfo("fresh"), 60000);
    res.zcardAfterWould = await redis.zcard(`${prefix}three:u`);
    await three.clear("u");
    res.existsAfterClear = await redis.exists(`${prefix}three:u`);
    res.afterClear = info(await three.limitWithInfo("u"), 60000);
    // minDifference: a second action within 60 s is blocked whatever the count.
    const spaced = new limiterClass({ client, namespace: `${prefix}spaced:`, interval: 60000,
                                      maxInInterval: 10, minDifference: 60000 });
    res.spaced = [info(await spaced.limitWithInfo("u"), 60000),
                  info(await spaced.limitWithInfo("u"), 60000)];
    res.limit = [await three.limit("v"), await three.wouldLimit("v")];
    return res;
  };
  out.ioredis = await scenario(IORedisRateLimiter, redis, "rrl-test-io:");
  const { createClient } = require("redis");
  const nodeRedis = createClient({ socket: { host: "127.0.0.1", port, reconnectStrategy: false },
                                   RESP: protocol });
  nodeRedis.on("error", (e) => console.error(`node-redis error event: ${errorText(e)}`));
  await nodeRedis.connect();
  try {
    out.nodeRedis = await scenario(NodeRedisRateLimiter, nodeRedis, "rrl-test-nr:");
  } finally {
    await nodeRedis.close();
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// @nest-lab/throttler-storage-redis (@nestjs/throttler's Redis storage): EVAL (no EVALSHA) of
// one script per hit over two hash-tagged keys: INCR, PTTL, PEXPIRE, GET, SET PX with the
// script's Lua numbers, DEL.

async function nestThrottler(redis) {
  require("reflect-metadata"); // @nestjs/common's decorators need it loaded first
  const { ThrottlerStorageRedisService } = require("@nest-lab/throttler-storage-redis");
  const out = {};
  const storage = new ThrottlerStorageRedisService(redis);
  const hit = async (key, ttl, limit, blockDuration, name = "default") => {
    const r = await storage.increment(key, ttl, limit, blockDuration, name);
    return { totalHits: r.totalHits, isBlocked: r.isBlocked,
             timeToExpire: span(r.timeToExpire, 1, Math.ceil(ttl / 1000)),
             timeToBlockExpire: r.timeToBlockExpire === 0 ? 0
               : span(r.timeToBlockExpire, 1, Math.ceil(blockDuration / 1000)) };
  };
  out.hits = [];
  for (let i = 0; i < 5; i++) out.hits.push(await hit("ip1", 60000, 3, 30000));
  out.firstExpire = (await storage.increment("ip-first", 60000, 3, 30000, "default"))
    .timeToExpire; // the script returns the ttl it set: ceil(60000 / 1000)
  out.keys = (await redis.keys("{ip1:*")).sort();
  out.hitsPttl = span(await redis.pttl("{ip1:default}:hits"), 1, 60000);
  out.blockedPttl = span(await redis.pttl("{ip1:default}:blocked"), 1, 30000);
  out.blockedValue = await redis.get("{ip1:default}:blocked");
  // Another throttler name is another pair of keys.
  out.otherName = await hit("ip1", 10000, 1, 5000, "short");
  out.otherNameBlocked = await hit("ip1", 10000, 1, 5000, "short");
  // A block key without a TTL (PTTL -1) counts as an expired block: the script deletes it and
  // starts the window again at 1.
  await redis.set("{ip2:default}:blocked", "1");
  await redis.set("{ip2:default}:hits", "7", "PX", 60000);
  out.staleBlock = await hit("ip2", 60000, 3, 30000);
  out.staleBlockGone = await redis.exists("{ip2:default}:blocked");
  out.staleBlockHits = await redis.get("{ip2:default}:hits");
  // A hits key without a TTL gets one.
  await redis.set("{ip3:default}:hits", "1");
  out.noTtl = await hit("ip3", 60000, 3, 30000);
  out.noTtlPttl = span(await redis.pttl("{ip3:default}:hits"), 1, 60000);
  // 10 hits at once (pipelined by ioredis): every count from 1 to 10 once, the 6 over 4 blocked.
  const burst = await Promise.all(Array.from({ length: 10 },
    () => storage.increment("burst", 60000, 4, 30000, "default")));
  out.burstHits = burst.map((r) => r.totalHits).sort((x, y) => x - y);
  out.burstBlocked = burst.filter((r) => r.isBlocked).length;
  return out;
}

// ---------------------------------------------------------------------------------------------
// redis-gcra: GCRA in one Lua script (defineCommand: EVALSHA/EVAL) that does arithmetic on its
// string arguments and stores a fractional Lua number with SET ... PX.

async function redisGcraScenario(redis) {
  const out = {};
  const decision = (r, windowMs) => ({
    limited: r.limited,
    remaining: r.remaining,
    retryIn: r.retryIn === undefined || r.retryIn === 0 || r.retryIn === Infinity
      ? String(r.retryIn)
      : span(r.retryIn, 1, windowMs),
    resetIn: r.resetIn === 0 ? 0 : span(r.resetIn, 1, windowMs),
  });
  // A burst of 5, then one per minute.
  const limiter = redisGcra({ redis, keyPrefix: "gcra-test", burst: 5, rate: 1, period: 60000 });
  out.limits = [];
  for (let i = 0; i < 7; i++) out.limits.push(decision(await limiter.limit({ key: "a" }), 300000));
  out.peek = decision(await limiter.peek({ key: "a" }), 300000);
  out.pttl = span(await redis.pttl("gcra-test/a"), 240001, 300000);
  out.cost3 = decision(await limiter.limit({ key: "b", cost: 3 }), 300000);
  out.cost3Again = decision(await limiter.limit({ key: "b", cost: 3 }), 300000);
  out.tooCostly = decision(await limiter.limit({ key: "c", cost: 6 }), 300000);
  out.peekUnknown = decision(await limiter.peek({ key: "d" }), 300000);
  out.existsPeekUnknown = await redis.exists("gcra-test/d");
  // Three per 100 s: the stored time is now + 100000/3 ms, a fraction that SET must keep
  // (redis.call writes Lua numbers with 17 significant digits). The period is long so that
  // the GET back and the second call land within the 33.3 s of one emission interval however
  // slow the machine (a period of 1 s left 333 ms for them).
  const third = redisGcra({ redis, keyPrefix: "gcra-test", burst: 1, rate: 3, period: 100000 });
  out.third = decision(await third.limit({ key: "e" }), 100000);
  const stored = await redis.get("gcra-test/e");
  out.storedFractionDigits = span((stored.split(".")[1] || "").length, 3, 4);
  out.storedIsNear = span(Number(stored) - Date.now(), 0, 33334);
  out.thirdBlocked = decision(await third.limit({ key: "e" }), 100000);
  out.reset = [await limiter.reset({ key: "a" }), await limiter.reset({ key: "a" })];
  out.afterReset = decision(await limiter.limit({ key: "a" }), 300000);
  return out;
}

// ---------------------------------------------------------------------------------------------

const scenarios = {
  "rate-limiter-flexible": rateLimiterFlexible,
  "rate-limit-redis": rateLimitRedis,
  "bottleneck-no-pubsub": bottleneckNoPubsub,
  bottleneck,
  ratelimiter,
  "fastify-rate-limit": fastifyRateLimit,
  "async-ratelimiter": asyncRatelimiter,
  "rolling-rate-limiter": rollingRateLimiter,
  "nest-throttler": nestThrottler,
  "redis-gcra": redisGcraScenario,
};

async function main() {
  const scenario = scenarios[scenarioName];
  if (!scenario) {
    throw new Error(`unknown scenario ${scenarioName}; one of ${Object.keys(scenarios)}`);
  }
  const redis = client();
  redis.on("error", (e) => console.error(`client error event: ${errorText(e)}`));
  try {
    const result = await scenario(redis);
    console.log(JSON.stringify(result));
  } finally {
    redis.disconnect();
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
