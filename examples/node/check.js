// Runs both examples against a real sluiced and checks what a client of them sees: requests
// pass until the limit, then 429 with a Retry-After, and the state lives in sluice.
// Run by tests/integration/test_example_node.py:   node check.js SLUICE_PORT
"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");

const flexible = require("./rate-limiter-flexible");
const expressLimit = require("./express-rate-limit");

function listen(app) {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
}

async function statuses(server, count, headers = {}) {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const responses = [];
  for (let i = 0; i < count; i++) responses.push(await fetch(url, { headers }));
  return responses;
}

async function main() {
  const redis = new Redis({ host: "127.0.0.1", port: Number(process.argv[2]) });
  const servers = [];
  try {
    const a = await listen(flexible.createApp(redis, { points: 5, duration: 10 }));
    servers.push(a);
    let responses = await statuses(a, 7, { "X-Api-Key": "alice" });
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 200, 200, 429, 429]);
    assert.equal(responses[4].headers.get("x-ratelimit-remaining"), "0");
    const retry = Number(responses[5].headers.get("retry-after"));
    assert.ok(retry >= 1 && retry <= 10, `Retry-After ${retry}`);
    // Another client has its own budget.
    responses = await statuses(a, 1, { "X-Api-Key": "bob" });
    assert.equal(responses[0].status, 200);
    assert.equal(await redis.get("flexible:alice"), "7"); // rejected requests count too
    const ttl = await redis.pttl("flexible:alice");
    assert.ok(ttl > 0 && ttl <= 10_000, `pttl ${ttl}`);

    const b = await listen(expressLimit.createApp(redis, { limit: 3, windowMs: 60_000 }));
    servers.push(b);
    responses = await statuses(b, 4);
    assert.deepEqual(responses.map((r) => r.status), [200, 200, 200, 429]);
    assert.match(responses[0].headers.get("ratelimit"), /limit=3, remaining=2/);
    const retryExpress = Number(responses[3].headers.get("retry-after"));
    assert.ok(retryExpress >= 1 && retryExpress <= 60, `Retry-After ${retryExpress}`);
    const keys = await redis.keys("express:*");
    assert.equal(keys.length, 1, `keys ${keys}`);
    assert.equal(await redis.get(keys[0]), "4");
    console.log("ALL OK");
  } finally {
    for (const s of servers) s.close();
    redis.disconnect();
  }
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(1);
});
