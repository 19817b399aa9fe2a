// ioredis against a running sluiced: connect (HELLO 3, CLIENT SETINFO, INFO ready check),
// strings, hashes, sorted sets, lists, pipelines, MULTI/EXEC, a WATCH-retry loop under two
// competing clients, SCAN over many keys. Run by test_clients_ioredis.py:
//
//   node basics.js PORT PROTOCOL     (PROTOCOL: 2 or 3)
//
// Prints "ALL OK" and exits 0 when every check passes; otherwise prints the failure, exits 1.

"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");

const port = Number(process.argv[2]);
const protocol = Number(process.argv[3] || 3);

function client(extra = {}) {
  const c = new Redis({
    host: "127.0.0.1",
    port,
    protocol,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectionName: "ioredis-test",
    ...extra,
  });
  c.on("error", (err) => {
    console.error(`client error event: ${err && err.stack}`);
    process.exitCode = 1;
  });
  return c;
}

async function connectionChecks(r) {
  assert.equal(r.status, "ready");
  assert.equal(await r.ping(), "PONG");
  assert.equal(await r.client("GETNAME"), "ioredis-test");
  const info = await r.client("INFO");
  assert.match(String(info), /lib-name=ioredis/);
  assert.match(String(info), new RegExp(`resp=${protocol}`));
  const server = await r.info("server");
  assert.match(String(server), /redis_version:7\.0\.0/);
  assert.match(String(await r.info()), /loading:0/);
  assert.ok((await r.command("COUNT")) > 50);
  const [getInfo] = await r.command("INFO", "get");
  assert.equal(getInfo[0], "get");
  assert.equal(getInfo[1], 2);
  const config = await r.config("GET", "maxclients");
  assert.ok(JSON.stringify(config).includes("maxclients"));
}

async function dataChecks(r) {
  await r.del("s", "n", "h", "z", "z2", "l", "ph", "tl", "tz", "th", "ts");
  assert.equal(await r.set("s", "v"), "OK");
  assert.equal(await r.get("s"), "v");
  assert.equal(await r.incrbyfloat("n", "1.5"), "1.5");

  assert.equal(await r.hset("h", { a: "1", b: "2" }), 2);
  assert.deepEqual(await r.hgetall("h"), { a: "1", b: "2" });
  assert.equal(await r.hincrby("h", "a", 5), 6);
  assert.equal(await r.hincrbyfloat("h", "f", "0.25"), "0.25");
  assert.deepEqual(await r.hmget("h", "a", "nope"), ["6", null]);
  assert.equal(await r.hlen("h"), 3);

  assert.equal(await r.zadd("z", 1, "a", 2.5, "b", 3, "c"), 3);
  assert.deepEqual(await r.zrange("z", 0, -1), ["a", "b", "c"]);
  const withScores = await r.zrange("z", 0, -1, "WITHSCORES");
  assert.deepEqual(withScores.flat().map(String), ["a", "1", "b", "2.5", "c", "3"]);
  assert.equal(String(await r.zscore("z", "b")), "2.5");
  assert.equal(String(await r.zincrby("z", 2, "a")), "3");
  assert.deepEqual(await r.zrangebyscore("z", "(2.5", "+inf"), ["a", "c"]);
  assert.equal(await r.zcount("z", "-inf", "+inf"), 3);
  assert.equal(await r.zrank("z", "b"), 0);

  assert.equal(await r.rpush("l", "a", "b", "c"), 3);
  assert.equal(await r.lpush("l", "z"), 4);
  assert.deepEqual(await r.lrange("l", 0, -1), ["z", "a", "b", "c"]);
  assert.equal(await r.lindex("l", -1), "c");
  assert.deepEqual(await r.rpop("l", 2), ["c", "b"]);
  assert.equal(await r.llen("l"), 2);

  await assert.rejects(r.hget("l", "x"), /WRONGTYPE/);
  assert.equal(await r.type("z"), "zset");
  assert.equal(await r.rename("z", "z2"), "OK");
  assert.equal(await r.zcard("z2"), 3);
}

async function pipelineAndTransactions(r) {
  const pipe = r.pipeline();
  for (let i = 0; i < 500; i++) pipe.hincrby("ph", `f${i % 10}`, 1);
  pipe.hgetall("ph");
  const results = await pipe.exec();
  assert.equal(results.length, 501);
  for (const [err] of results) assert.equal(err, null);
  const all = results[500][1];
  for (let i = 0; i < 10; i++) assert.equal(all[`f${i}`], "50");

  const tx = await r.multi().rpush("tl", "x").zadd("tz", 1, "m").hset("th", "f", "v").exec();
  assert.deepEqual(tx.map(([err, v]) => [err, v]), [[null, 1], [null, 1], [null, 1]]);
  const failed = await r.multi().set("ts", "1").lpush("ts", "x").exec();
  assert.equal(failed[0][1], "OK");
  assert.match(String(failed[1][0]), /WRONGTYPE/);
}

// Two clients increment one hash field with WATCH/MULTI/EXEC, retrying on conflicts.
async function watchRetry() {
  const a = client();
  const b = client();
  await Promise.all([a.connect(), b.connect()]);
  await a.del("counter");
  let retries = 0;
  async function incrementer(c, times) {
    for (let i = 0; i < times; i++) {
      for (;;) {
        await c.watch("counter");
        const value = Number((await c.hget("counter", "n")) || "0");
        const result = await c.multi().hset("counter", "n", String(value + 1)).exec();
        if (result !== null) break;
        retries++;
      }
    }
  }
  await Promise.all([incrementer(a, 200), incrementer(b, 200)]);
  assert.equal(await a.hget("counter", "n"), "400");
  a.disconnect();
  b.disconnect();
  return retries;
}

async function scanAll(r) {
  const pipe = r.pipeline();
  for (let i = 0; i < 3000; i++) pipe.set(`scan:${i}`, i);
  await pipe.exec();
  const seen = new Map();
  await new Promise((resolve, reject) => {
    const stream = r.scanStream({ match: "scan:*", count: 97 });
    stream.on("data", (keys) => {
      for (const k of keys) seen.set(k, (seen.get(k) || 0) + 1);
    });
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  assert.equal(seen.size, 3000);
  for (const [k, n] of seen) assert.equal(n, 1, `${k} seen ${n} times`);
}

// hscanStream and zscanStream page a large hash and sorted set: every element once.
async function scanElements(r) {
  const pipe = r.pipeline();
  for (let i = 0; i < 1500; i++) {
    pipe.hset("scan:hash", `f${i}`, i);
    pipe.zadd("scan:zset", i, `m${i}`);
  }
  await pipe.exec();
  for (const [stream, key] of [
    [r.hscanStream("scan:hash", { count: 50 }), "f"],
    [r.zscanStream("scan:zset", { count: 50 }), "m"],
  ]) {
    const seen = new Map();
    await new Promise((resolve, reject) => {
      stream.on("data", (items) => {
        for (let i = 0; i < items.length; i += 2) {
          assert.equal(items[i], `${key}${items[i + 1]}`);
          seen.set(items[i], (seen.get(items[i]) || 0) + 1);
        }
      });
      stream.on("end", resolve);
      stream.on("error", reject);
    });
    assert.equal(seen.size, 1500);
    for (const [k, n] of seen) assert.equal(n, 1, `${k} seen ${n} times`);
  }
}

// A client configured with a database (ioredis's `db`, a URL's /3) selects it at connect, and
// keeps its keys apart from database 0's, also through a pipeline and a transaction.
async function databaseChecks(r) {
  const three = client({ db: 3 });
  await three.connect();
  assert.equal(three.status, "ready");
  await three.flushdb();
  assert.equal(await r.set("where", "zero"), "OK");
  assert.equal(await three.get("where"), null);
  assert.equal(await three.set("where", "three"), "OK");
  const piped = await three.pipeline().incr("n3").get("where").exec();
  assert.deepEqual(piped.map(([err, v]) => v), [1, "three"]);
  const multi = await three.multi().set("m3", "x").dbsize().exec();
  assert.deepEqual(multi.map(([err, v]) => v), ["OK", 3]);
  assert.match(String(await three.client("INFO")), / db=3 /);
  assert.equal(await r.get("where"), "zero");
  assert.equal(await r.exists("n3", "m3"), 0);
  assert.equal(await three.move("where", 0), 0);  // database 0 has one
  assert.equal(await three.move("m3", 0), 1);
  assert.equal(await r.get("m3"), "x");
  three.disconnect();
}

async function main() {
  const r = client();
  await r.connect();
  await connectionChecks(r);
  await dataChecks(r);
  await pipelineAndTransactions(r);
  const retries = await watchRetry();
  await scanAll(r);
  await scanElements(r);
  await databaseChecks(r);
  r.disconnect();
  console.log(`ALL OK (protocol ${protocol}, watch retries ${retries})`);
}

main().then(
  () => process.exit(process.exitCode || 0),
  (err) => {
    console.error(err && err.stack ? err.stack : err);
    process.exit(1);
  },
);
