"""Popular Node rate-limiter libraries (pinned in node/package.json) against redis-server and
sluiced: rate-limiter-flexible (RateLimiterRedis: its INCRBY+EXPIRE script, MULTI for get, set
and block), rate-limit-redis (express-rate-limit's store: SCRIPT LOAD, EVALSHA, NOSCRIPT and
reload), tj's ratelimiter (a MULTI of sorted-set commands), @fastify/rate-limit's Redis store,
bottleneck in clustering mode (about twenty Lua scripts over hashes and sorted sets, plus
pub/sub), async-ratelimiter (a Lua script over a sorted set whose members are the script's own
Lua numbers), rolling-rate-limiter (a MULTI with ZRANGE WITHSCORES, through ioredis and through
node-redis), @nest-lab/throttler-storage-redis (@nestjs/throttler's storage: plain EVAL over two
hash-tagged keys) and redis-gcra (GCRA in Lua, storing a fractional Lua number with SET PX).
The scenarios live in node/libraries.js, which prints one JSON line of what the library's
caller sees; each test runs it against both servers (one pair for the module, emptied before
each test), in RESP3 (ioredis's default) and RESP2, checks the decisions Redis gives (so both
servers being wrong the same way fails), then that sluiced gives the same line.

Bottleneck starts a queued job when a finished job's script publishes the freed capacity to
the limiters' subscriptions: test_bottleneck runs that whole cycle on both servers (it failed
before sluiced had pub/sub); test_bottleneck_without_pubsub compares the scripts that publish
nothing on their own.

Nothing waits for time to pass: clock-dependent values are printed as ranges, and bottleneck's
jobs run until the scenario releases them.

Skipped when node, npm or redis-server is missing; `npm install` runs once in node/ if a
pinned library is absent.
"""

import json
import subprocess
from pathlib import Path

import pytest

import node_deps

NODE_DIR = Path(__file__).resolve().parent / "node"
LIBRARIES = ["rate-limiter-flexible", "rate-limit-redis", "ratelimiter", "@fastify/rate-limit",
             "bottleneck", "express-rate-limit", "async-ratelimiter", "rolling-rate-limiter",
             "redis", "@nest-lab/throttler-storage-redis", "redis-gcra"]

protocols = pytest.mark.parametrize("protocol", [3, 2], ids=["resp3", "resp2"])


@pytest.fixture(scope="module")
def node_ready():
    node = None
    for module in LIBRARIES:
        node = node_deps.node_with(NODE_DIR, module)
    return node


def run(node, server, scenario, protocol):
    """The JSON line node/libraries.js prints for `scenario` against `server`."""
    proc = subprocess.run([node, "libraries.js", str(server.port), scenario, str(protocol)],
                          cwd=NODE_DIR, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip(), (
        f"node libraries.js {scenario} exited {proc.returncode} against {server.kind}\n"
        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}\nserver stderr:\n{server.stderr()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def assert_same(redis_result, sluiced_result, sluiced):
    differing = sorted(set(redis_result) | set(sluiced_result))
    differing = [k for k in differing if redis_result.get(k) != sluiced_result.get(k)]
    assert not differing, "sluiced differs from redis-server:\n" + "\n".join(
        f"  {k}:\n    redis:   {json.dumps(redis_result.get(k))}\n"
        f"    sluiced: {json.dumps(sluiced_result.get(k))}" for k in differing
    ) + f"\nsluiced stderr:\n{sluiced.stderr()}"


def both(node, emptied_servers, scenario, protocol, check):
    """Runs `scenario` on both servers (conftest: emptied_servers, one pair for the module):
    `check` on Redis's result, then sluiced's must equal it."""
    redis_server, sluiced = emptied_servers
    expected = run(node, redis_server, scenario, protocol)
    check(expected)
    assert_same(expected, run(node, sluiced, scenario, protocol), sluiced)


def field(results, name):
    return [r[name] for r in results]


# ---------------------------------------------------------------------------------------------


def check_rate_limiter_flexible(r):
    consumes = r["consumes"]
    assert field(consumes, "resolved") == [True] * 5 + [False] * 2  # 5 of 7 allowed
    assert field(consumes, "consumed") == [1, 2, 3, 4, 5, 6, 7]
    assert field(consumes, "remaining") == [4, 3, 2, 1, 0, 0, 0]
    assert field(consumes, "first") == [True] + [False] * 6
    assert set(field(consumes, "msBeforeNext")) == {"in [1, 60000]"}
    assert r["getAfter"]["consumed"] == 7 and r["getAfter"]["remaining"] == 0
    assert r["raw"] == {"value": "7", "pttl": "in [1, 60000]"}
    assert r["getUnknown"] is None
    assert r["reward"]["consumed"] == 4 and r["reward"]["remaining"] == 1
    assert r["consumeAfterReward"]["resolved"] and r["consumeAfterReward"]["consumed"] == 5
    assert not r["consumeTwo"]["resolved"] and r["consumeTwo"]["consumed"] == 7
    assert r["penalty"]["consumed"] == 9
    assert (r["deleted"], r["deletedAgain"], r["getDeleted"]) == (True, False, None)
    assert r["consumeFresh"]["first"] and r["consumeFresh"]["consumed"] == 1
    assert not r["consumeTooMany"]["resolved"] and r["consumeTooMany"]["consumed"] == 6
    assert r["getSet"]["consumed"] == 3 and r["getSet"]["msBeforeNext"] == "in [1, 30000]"
    assert r["getBlocked"]["consumed"] == 6 and not r["consumeBlocked"]["resolved"]
    assert r["getForever"]["consumed"] == 2 and r["getForever"]["msBeforeNext"] == -1
    # blockDuration 30 s: the third consume goes over 2 points and blocks the key.
    assert field(r["blockConsumes"], "resolved") == [True, True, False, False]
    assert r["blockPttl"] == "in [10001, 30000]" and r["blockGet"]["consumed"] == 4
    # duration 0: no expiry.
    assert field(r["foreverConsumes"], "resolved") == [True, True, False]
    assert set(field(r["foreverConsumes"], "msBeforeNext")) == {-1}
    assert r["foreverPttl"] == -1
    # 30 consumes at once from 3 connections: exactly 5 pass.
    assert r["burstResolved"] == 5 and r["burstRemaining"] == [0, 1, 2, 3, 4]
    assert r["burstConsumed"] == list(range(1, 31))


@protocols
def test_rate_limiter_flexible(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "rate-limiter-flexible", protocol,
         check_rate_limiter_flexible)


def check_rate_limit_redis(r):
    assert len(r["shas"]) == 2 and all(len(s) == 40 for s in r["shas"])
    assert r["scriptExists"] == [1, 1]
    # The get script returns {false, PTTL} for a missing key: [nil, -2].
    assert r["getUnknown"] == {"totalHits": "NaN", "reply": [None, -2]}
    assert field(r["increments"], "totalHits") == [1, 2, 3, 4, 5]
    assert field(r["increments"], "reply") == [[n, "in [1, 60000]"] for n in (1, 2, 3, 4, 5)]
    assert r["getAfterDecrement"]["totalHits"] == 4
    assert r["raw"] == {"value": "4", "pttl": "in [1, 60000]"}
    assert r["getAfterReset"]["totalHits"] == "NaN"
    assert r["incrementAfterReset"]["totalHits"] == 1
    assert r["incrementNoTtl"]["totalHits"] == 1
    assert r["existsAfterFlush"] == [0]
    assert r["evalshaAfterFlush"].startswith("NOSCRIPT")
    assert r["incrementAfterFlush"]["totalHits"] == 2 and r["getAfterFlush"]["totalHits"] == 2
    assert r["existsAfterReload"] == [1, 1]
    assert r["burstHits"] == list(range(1, 21))


@protocols
def test_rate_limit_redis(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "rate-limit-redis", protocol, check_rate_limit_redis)


def check_ratelimiter(r):
    # `remaining` is counted before the call: 5 calls pass (remaining > 0), then 0.
    assert field(r["gets"], "remaining") == [5, 4, 3, 2, 1, 0, 0, 0]
    assert set(field(r["gets"], "total")) == {5}
    assert set(field(r["gets"], "resetMs")) == {"in [-1000, 60100]"}
    assert r["zcard"] == 5 and r["type"] == "zset" and r["pttl"] == "in [1, 60000]"
    assert r["otherId"]["remaining"] == 5
    assert field(r["one"], "remaining") == [1, 0] and r["oneZcard"] == 1


@protocols
def test_ratelimiter(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "ratelimiter", protocol, check_ratelimiter)


def check_fastify_rate_limit(r):
    assert field(r["incrs"], "current") == [1, 2, 3, 4, 5, 6, 7]
    assert field(r["incrs"], "ttl") == [60000] + ["in [1, 60000]"] * 6
    assert r["read"] == {"current": 7, "ttl": "in [1, 60000]"}
    assert r["readUnknown"] == {"current": 0, "ttl": 0}
    assert r["readNoTtl"] == {"current": 3, "ttl": 0}
    # continueExceeding: every request over the limit restarts the window.
    assert field(r["exceeding"], "ttl") == [30000, "in [1, 30000]", 30000, 30000]
    # exponentialBackoff: the window doubles with each request over the limit.
    assert field(r["backoff"], "ttl") == [10000, "in [1, 10000]", 10000, 20000, 40000]
    assert r["backoffPttl"] == "in [20001, 40000]"
    assert r["child"] == {"current": 1, "ttl": 60000} and r["childKey"] == 1


@protocols
def test_fastify_rate_limit(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "fastify-rate-limit", protocol,
         check_fastify_rate_limit)


def check_bottleneck_no_pubsub(r):
    assert r["errors"] == [] and r["unlimitedErrors"] == []
    assert (r["initial"]["reservoir"], r["initial"]["running"], r["initial"]["check"]) == (
        2, 0, True)
    assert (r["twoRunning"]["reservoir"], r["twoRunning"]["running"]) == (0, 2)
    assert r["twoRunning"]["counts"]["EXECUTING"] == 2
    # The reservoir is empty: the third job waits.
    assert r["depleted"]["check"] is False and r["depleted"]["clusterQueued"] == 1
    assert r["depleted"]["counts"]["QUEUED"] == 1
    assert r["jobStatus"] == ["EXECUTING", "EXECUTING", "QUEUED"]
    assert "depleted" in r["events"]
    assert "OVERWEIGHT:4:3" in r["overweight"]
    assert r["settings"]["reservoir"] == "0" and r["settings"]["running"] == "2"
    assert len(r["keys"]) == 7 and set(r["keyTtls"]) == {"in [1, 60000]"}
    assert (r["unlimited"]["reservoir"], r["unlimited"]["running"]) == (None, 5)
    assert r["j4"] == "j4 ok"
    assert (r["unlimitedDone"]["running"], r["unlimitedDone"]["done"]) == (0, 5)
    group = r["group"]
    assert group["reservoirs"] == [5, 5] and group["keys"] == ["a", "b"]
    assert group["deleted"] == [True, False] and group["keysAfterDelete"] == ["b"]
    assert (group["expired"], group["expiredAfterDelete"]) == (False, True)
    # bottleneck would re-create the settings on exactly "SETTINGS_KEY_NOT_FOUND", but Redis 7
    # turns redis.error_reply('SETTINGS_KEY_NOT_FOUND') into "-ERR SETTINGS_KEY_NOT_FOUND".
    assert group["reservoirAfterDelete"] == "ERR SETTINGS_KEY_NOT_FOUND"
    assert group["errors"] == []


@protocols
def test_bottleneck_without_pubsub(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "bottleneck-no-pubsub", protocol,
         check_bottleneck_no_pubsub)


def check_bottleneck(r):
    assert "stalled" not in r, r["stalled"]
    assert r["errors"] == []
    assert (r["initial"]["reservoir"], r["initial"]["running"], r["initial"]["done"]) == (3, 0, 0)
    assert (r["twoRunning"]["reservoir"], r["twoRunning"]["running"]) == (1, 2)
    assert r["twoRunning"]["check"] is False  # maxConcurrent 2 reached
    assert r["oneQueued"]["clusterQueued"] == 1 and r["oneQueued"]["counts"]["QUEUED"] == 1
    assert r["j1"] == "j1 ok"
    assert (r["afterJ1"]["reservoir"], r["afterJ1"]["running"], r["afterJ1"]["done"]) == (
        0, 2, 1)
    assert r["j2j3"] == ["j2 ok", "j3 ok"]
    assert (r["reservoirEmpty"]["running"], r["reservoirEmpty"]["done"]) == (0, 3)
    assert r["reservoirEmpty"]["check"] is False and "depleted" in r["events"]
    assert r["j4Waiting"] == "QUEUED" and r["incrementReservoir"] == 2 and r["j4"] == "j4 ok"
    assert (r["afterJ4"]["reservoir"], r["afterJ4"]["done"]) == (1, 4)
    assert "OVERWEIGHT:3:2" in r["overweight"]
    assert r["afterUpdate"]["reservoir"] == 10
    assert r["settings"]["done"] == "4" and r["settings"]["reservoir"] == "10"
    assert r["groupDeleted"] == [True, False] and r["groupKeys"] == []


@protocols
def test_bottleneck(node_ready, emptied_servers, protocol):
    """The whole cycle: a finished job's script publishes the freed capacity, and the
    limiters' subscriptions start the queued jobs."""
    both(node_ready, emptied_servers, "bottleneck", protocol, check_bottleneck)


def check_async_ratelimiter(r):
    # `remaining` is counted before the call: 5 calls pass, then 0 and nothing is added.
    assert field(r["gets"], "remaining") == [5, 4, 3, 2, 1, 0, 0]
    assert set(field(r["gets"], "total")) == {5}
    assert set(field(r["gets"], "reset")) == {"in [-1, 61]"}
    assert (r["zcard"], r["type"], r["pttl"]) == (5, "zset", "in [1, 60000]")
    assert r["memberIsScore"] == [True] * 5 and r["membersAscending"]
    assert set(r["memberFractionDigits"]) == {"in [0, 4]"}
    assert (r["higherMax"]["remaining"], r["higherMax"]["total"]) == (5, 10)
    assert field(r["peek"], "remaining") == [4, 4] and r["zcardAfterPeek"] == 6
    assert r["peekUnknown"]["remaining"] == 5 and r["existsPeekUnknown"] == 0
    assert (r["other"]["remaining"], r["otherBlocked"]["remaining"]) == (1, 0)
    assert r["afterFlush"]["remaining"] == 2
    assert r["burstRemaining"] == [0] * 5 + [1, 2, 3, 4, 5] and r["burstZcard"] == 5


@protocols
def test_async_ratelimiter(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "async-ratelimiter", protocol,
         check_async_ratelimiter)


def check_rolling_rate_limiter(r):
    for client in ("ioredis", "nodeRedis"):
        c = r[client]
        assert field(c["limits"], "blocked") == [False] * 3 + [True] * 2, client
        assert field(c["limits"], "remaining") == [2, 1, 0, 0, 0], client
        assert field(c["limits"], "msUntilAllowed") == [0, 0] + ["in [1, 60000]"] * 3, client
        assert (c["zcard"], c["ttl"]) == (5, "in [1, 60]"), client
        assert c["wouldLimit"]["blocked"] and not c["wouldLimitFresh"]["blocked"], client
        assert c["zcardAfterWould"] == 5 and c["existsAfterClear"] == 0, client
        assert c["afterClear"]["remaining"] == 2, client
        assert field(c["spaced"], "blocked") == [False, True], client
        assert c["spaced"][1]["minDifference"] and not c["spaced"][1]["count"], client
        assert c["limit"] == [False, False], client


@protocols
def test_rolling_rate_limiter(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "rolling-rate-limiter", protocol,
         check_rolling_rate_limiter)


def check_nest_throttler(r):
    assert field(r["hits"], "totalHits") == [1, 2, 3, 4, 5]
    assert field(r["hits"], "isBlocked") == [False] * 3 + [True] * 2
    assert field(r["hits"], "timeToBlockExpire") == [0, 0, 0] + ["in [1, 30]"] * 2
    assert r["firstExpire"] == 60
    assert r["keys"] == ["{ip1:default}:blocked", "{ip1:default}:hits"]
    assert (r["hitsPttl"], r["blockedPttl"], r["blockedValue"]) == (
        "in [1, 60000]", "in [1, 30000]", "1")
    assert (r["otherName"]["isBlocked"], r["otherNameBlocked"]["isBlocked"]) == (False, True)
    assert r["staleBlock"]["totalHits"] == 1 and not r["staleBlock"]["isBlocked"]
    assert (r["staleBlockGone"], r["staleBlockHits"]) == (0, "1")
    assert r["noTtl"]["totalHits"] == 2 and r["noTtlPttl"] == "in [1, 60000]"
    assert r["burstHits"] == list(range(1, 11)) and r["burstBlocked"] == 6


@protocols
def test_nest_throttler_storage_redis(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "nest-throttler", protocol, check_nest_throttler)


def check_redis_gcra(r):
    assert field(r["limits"], "limited") == [False] * 5 + [True] * 2
    assert field(r["limits"], "remaining") == [4, 3, 2, 1, 0, 0, 0]
    assert field(r["limits"], "retryIn") == ["0"] * 5 + ["in [1, 300000]"] * 2
    assert r["peek"]["limited"] and r["pttl"] == "in [240001, 300000]"
    assert (r["cost3"]["limited"], r["cost3"]["remaining"]) == (False, 2)
    assert (r["cost3Again"]["limited"], r["cost3Again"]["remaining"]) == (True, 2)
    assert r["tooCostly"] == {"limited": True, "remaining": 5, "retryIn": "Infinity",
                              "resetIn": 0}
    assert not r["peekUnknown"]["limited"] and r["existsPeekUnknown"] == 0
    # The stored theoretical arrival time keeps its fraction of a millisecond.
    assert (r["storedFractionDigits"], r["storedIsNear"]) == ("in [3, 4]", "in [0, 33334]")
    assert not r["third"]["limited"] and r["thirdBlocked"]["limited"]
    assert r["reset"] == [True, False] and r["afterReset"]["remaining"] == 4


@protocols
def test_redis_gcra(node_ready, emptied_servers, protocol):
    both(node_ready, emptied_servers, "redis-gcra", protocol, check_redis_gcra)
