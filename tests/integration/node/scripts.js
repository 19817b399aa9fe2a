// ioredis's defineCommand against a running server: the command runs by EVALSHA and falls
// back to EVAL on NOSCRIPT (after SCRIPT FLUSH too), alone, in a pipeline and in MULTI.
// Run by test_scripting_clients.py on sluiced and on redis-server, which compares the output:
//
//   node scripts.js PORT PROTOCOL LIMITERS_JSON     (PROTOCOL: 2 or 3)
//
// Prints one JSON line with every reply; exits 1 on an unexpected failure.

"use strict";

const fs = require("node:fs");
const Redis = require("ioredis");

const port = Number(process.argv[2]);
const protocol = Number(process.argv[3] || 3);
const scripts = JSON.parse(fs.readFileSync(process.argv[4], "utf8"));

function plain(value) {
  if (value instanceof Error) return { error: value.message };
  if (Buffer.isBuffer(value)) return value.toString("latin1");
  if (Array.isArray(value)) return value.map(plain);
  return value;
}

async function main() {
  const r = new Redis({ host: "127.0.0.1", port, protocol, lazyConnect: true,
                        maxRetriesPerRequest: 0, retryStrategy: () => null });
  await r.connect();
  r.defineCommand("tokenBucket", { numberOfKeys: 2, lua: scripts.token_bucket });
  r.defineCommand("fixedWindow", { numberOfKeys: 1, lua: scripts.fixed_window });
  r.defineCommand("failing", { numberOfKeys: 0, lua: "return redis.call('nosuch')" });
  const out = [];
  await r.flushall();
  out.push(await r.tokenBucket("tb:t", "tb:s", "2.5", "5", "100", "1"));
  out.push(await r.script("FLUSH"));
  out.push(await r.tokenBucket("tb:t", "tb:s", "2.5", "5", "100.5", "2"));
  for (let i = 0; i < 4; i++) out.push(await r.fixedWindow("fw", "3", "100"));
  out.push(plain(await r.failing().catch((e) => e)));
  const piped = await r.pipeline().tokenBucket("tb:t", "tb:s", "2.5", "5", "101", "3")
      .fixedWindow("fw2", "1", "100").get("tb:t").exec();
  out.push(piped.map(([err, value]) => (err ? { error: err.message } : plain(value))));
  await r.script("FLUSH");
  const multi = await r.multi().fixedWindow("fw3", "2", "100").fixedWindow("fw3", "2", "100")
      .exec();
  out.push(multi.map(([err, value]) => (err ? { error: err.message } : plain(value))));
  out.push(plain(await r.get("fw3")));
  console.log(JSON.stringify(out.map(plain)));
  await r.quit();
}

main().catch((err) => {
  console.error(err && err.stack);
  process.exit(1);
});
