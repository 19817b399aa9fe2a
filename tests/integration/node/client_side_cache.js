// node-redis's client-side cache (RESP3, clientSideCache) against a running sluiced: the client
// turns CLIENT TRACKING on itself, serves repeated GETs from its cache, and drops an entry when
// the server's invalidation push says another client modified the key (or a flush, all).
// Run by test_client_tracking.py:
//
//   node client_side_cache.js PORT
//
// Prints "ALL OK" and exits 0 when every check passes; otherwise prints the failure, exits 1.

"use strict";

const assert = require("node:assert/strict");
const { createClient, BasicClientSideCache } = require("redis");

const port = Number(process.argv[2]);

// Polls (bounded) for what the server sends by itself; never a way to let time pass.
async function waitFor(predicate, what) {
  const deadline = Date.now() + 10000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function main() {
  const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0 });
  const cached = createClient({ socket: { host: "127.0.0.1", port }, RESP: 3, clientSideCache: cache });
  const other = createClient({ socket: { host: "127.0.0.1", port } });
  for (const c of [cached, other]) c.on("error", (err) => { throw err; });
  await cached.connect();
  await other.connect();

  await other.set("csc:k", "1");
  assert.equal(await cached.get("csc:k"), "1");  // a miss: read from the server, cached
  assert.equal(await cached.get("csc:k"), "1");  // a hit
  assert.equal(cache.stats().hitCount, 1);
  assert.equal(cache.stats().missCount, 1);
  const info = String(await cached.sendCommand(["CLIENT", "INFO"]));
  assert.match(info, / flags=t /);

  // Another client's write: the server's invalidation drops the entry.
  let invalidated = 0;
  cache.on("invalidate", () => { invalidated++; });
  await other.set("csc:k", "2");
  await waitFor(() => invalidated > 0, "the invalidation of csc:k");
  assert.equal(cache.size(), 0);
  assert.equal(await cached.get("csc:k"), "2");  // fresh from the server
  assert.equal(await cached.get("csc:k"), "2");
  assert.equal(cache.stats().hitCount, 2);

  // A flush invalidates everything (a null key list).
  await cached.get("csc:j");
  await other.flushAll();
  await waitFor(() => cache.size() === 0, "the flush's invalidation");
  assert.equal(await cached.get("csc:k"), null);

  await cached.quit();
  await other.quit();
  console.log("ALL OK");
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
