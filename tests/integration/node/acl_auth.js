// ioredis with `username` and `password` against a running sluiced that has an ACL user: it
// authenticates at connect (HELLO 3 AUTH, or AUTH user pass with RESP2), runs what the user
// may, gets NOPERM for the rest, and a wrong password fails the connection. Run by
// test_acl.py:
//
//   node acl_auth.js PORT PROTOCOL USER PASSWORD
//
// Prints "ALL OK" and exits 0 when every check passes; otherwise prints the failure, exits 1.

"use strict";

const assert = require("node:assert/strict");
const Redis = require("ioredis");

const [port, protocol, username, password] = [Number(process.argv[2]), Number(process.argv[3]),
  process.argv[4], process.argv[5]];

function client(pass) {
  const c = new Redis({ host: "127.0.0.1", port, protocol, username, password: pass,
    lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on("error", () => {});  // connect() rejects with the error; nothing else to report
  return c;
}

async function main() {
  const r = client(password);
  await r.connect();
  assert.equal(await r.call("ACL", "WHOAMI"), username);
  assert.equal(await r.set("limiter:a", "1"), "OK");
  assert.equal(await r.get("limiter:a"), "1");
  await assert.rejects(r.get("other"), /NOPERM this user has no permissions to access one of the keys used as arguments/);
  await assert.rejects(r.flushall(), /NOPERM this user has no permissions to run the 'flushall' command/);
  await r.quit();

  // The refusal reaches the "error" event; connect() itself rejects as the connection ends.
  const bad = client("wrong");
  const errors = [];
  bad.on("error", (err) => errors.push(String(err)));
  await assert.rejects(bad.connect());
  bad.disconnect();
  assert.ok(errors.some((e) => e.includes("WRONGPASS invalid username-password pair or user is disabled")),
    `errors: ${errors}`);
  console.log("ALL OK");
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exit(1);
});
