"""python3-redis against sluiced: pipelines over every data type, MULTI/EXEC, a WATCH-retry loop
under two competing clients whose counts must end exact, SCAN over 10,000 keys with every key
seen exactly once, and the client's helpers for browsing and moving data (hscan_iter,
zscan_iter, object, memory_usage, lmove, lpos, copy), and a database picked in the URL.
"""

import random
import threading

import redis


def test_database_from_the_url(sluiced):
    """redis://host:port/2 (Django's, Celery's and many apps' settings): the client selects the
    database at connect, and its keys stay apart from database 0's."""
    two = redis.Redis.from_url(f"redis://127.0.0.1:{sluiced.port}/2", decode_responses=True)
    zero = _client(sluiced)
    assert two.set("where", "two") and zero.set("where", "zero")
    assert two.get("where") == "two" and zero.get("where") == "zero"
    with two.pipeline() as pipe:
        pipe.incr("n").get("where").dbsize()
        assert pipe.execute() == [1, "two", 2]
    assert int(two.client_info()["db"]) == 2
    assert zero.exists("n") == 0
    assert two.swapdb(0, 2)
    assert two.get("where") == "zero" and zero.get("where") == "two"
    two.flushdb()
    assert zero.dbsize() == 2 and two.dbsize() == 0


def _client(server):
    return redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=60,
                       decode_responses=True)


def test_pipeline_over_composite_types(sluiced):
    r = _client(sluiced)
    rng = random.Random(11)
    hashes, zsets, lists = {}, {}, {}
    pipe = r.pipeline(transaction=False)
    expected = []
    for _ in range(5000):
        op = rng.randrange(6)
        if op == 0:
            k, f, v = f"h{rng.randrange(5)}", f"f{rng.randrange(20)}", str(rng.randrange(100))
            pipe.hset(k, f, v)
            expected.append(0 if f in hashes.setdefault(k, {}) else 1)
            hashes[k][f] = v
        elif op == 1:
            k, f = f"h{rng.randrange(5)}", f"f{rng.randrange(20)}"
            pipe.hget(k, f)
            expected.append(hashes.get(k, {}).get(f))
        elif op == 2:
            k, m, s = f"z{rng.randrange(5)}", f"m{rng.randrange(30)}", rng.randrange(-50, 50)
            pipe.zadd(k, {m: s})
            expected.append(0 if m in zsets.setdefault(k, {}) else 1)
            zsets[k][m] = float(s)
        elif op == 3:
            k = f"z{rng.randrange(5)}"
            pipe.zrange(k, 0, -1, withscores=True)
            items = sorted(zsets.get(k, {}).items(), key=lambda kv: (kv[1], kv[0]))
            expected.append([(m, s) for m, s in items])
        elif op == 4:
            k, v = f"l{rng.randrange(5)}", str(rng.randrange(1000))
            pipe.rpush(k, v)
            lists.setdefault(k, []).append(v)
            expected.append(len(lists[k]))
        else:
            k = f"l{rng.randrange(5)}"
            pipe.lpop(k)
            lst = lists.get(k, [])
            expected.append(lst.pop(0) if lst else None)
    replies = pipe.execute()
    assert len(replies) == len(expected)
    for i, (got, want) in enumerate(zip(replies, expected)):
        assert got == want, f"reply {i}: got {got!r}, expected {want!r}"
    for k, fields in hashes.items():
        assert r.hgetall(k) == fields
        assert r.hlen(k) == len(fields)
    for k, members in zsets.items():
        assert r.zcard(k) == len(members)
    for k, items in lists.items():
        assert r.lrange(k, 0, -1) == items
    r.close()


def test_multi_exec_with_composite_types(sluiced):
    r = _client(sluiced)
    pipe = r.pipeline(transaction=True)
    pipe.hset("th", mapping={"a": "1", "b": "2"})
    pipe.zadd("tz", {"x": 1.5, "y": 0.5})
    pipe.rpush("tl", "p", "q")
    pipe.hincrby("th", "a", 41)
    pipe.zrange("tz", 0, -1, withscores=True)
    pipe.lrange("tl", 0, -1)
    assert pipe.execute() == [2, 2, 2, 42, [("y", 0.5), ("x", 1.5)], ["p", "q"]]
    # A runtime error inside EXEC does not roll back the others (as Redis).
    pipe = r.pipeline(transaction=True)
    pipe.set("ts", "v")
    pipe.lpush("ts", "x")
    pipe.hset("th", "c", "3")
    replies = pipe.execute(raise_on_error=False)
    assert replies[0] is True
    assert isinstance(replies[1], redis.ResponseError) and "WRONGTYPE" in str(replies[1])
    assert replies[2] == 1
    assert r.hget("th", "c") == "3"
    r.close()


def test_watch_retry_loop_two_competing_clients(sluiced):
    """Two threads each add 300 to one hash field and one zset score with optimistic
    transactions; every lost race is retried, so the totals end exact."""
    setup = _client(sluiced)
    setup.delete("acct", "board")
    per_client = 300
    retries = [0, 0]
    errors = []

    def worker(idx):
        r = _client(sluiced)
        try:
            for _ in range(per_client):
                while True:
                    with r.pipeline() as pipe:
                        try:
                            pipe.watch("acct", "board")
                            balance = int(pipe.hget("acct", "balance") or 0)
                            score = pipe.zscore("board", "player") or 0.0
                            pipe.multi()
                            pipe.hset("acct", "balance", balance + 1)
                            pipe.zadd("board", {"player": score + 1})
                            pipe.execute()
                            break
                        except redis.WatchError:
                            retries[idx] += 1
        except Exception as e:  # surfaced in the main thread
            errors.append(e)
        finally:
            r.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert all(not t.is_alive() for t in threads)
    assert setup.hget("acct", "balance") == str(2 * per_client)
    assert setup.zscore("board", "player") == 2 * per_client
    setup.close()


def test_scan_10000_keys_each_seen_once(sluiced):
    r = _client(sluiced)
    names = set()
    pipe = r.pipeline(transaction=False)
    for i in range(10000):
        kind = i % 4
        key = f"key:{i}"
        names.add(key)
        if kind == 0:
            pipe.set(key, i)
        elif kind == 1:
            pipe.hset(key, "f", i)
        elif kind == 2:
            pipe.zadd(key, {"m": i})
        else:
            pipe.rpush(key, i)
    pipe.execute()
    seen = {}
    for key in r.scan_iter(count=137):
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) == names
    assert all(n == 1 for n in seen.values()), [k for k, n in seen.items() if n != 1][:10]
    zset_keys = list(r.scan_iter(count=500, _type="zset"))
    assert len(zset_keys) == 2500 and len(set(zset_keys)) == 2500
    assert r.type("key:1") == "hash" and r.type("key:3") == "list"
    assert r.dbsize() == 10000
    r.close()


def test_browsing_and_moving_helpers(sluiced):
    r = _client(sluiced)
    r.hset("big:h", mapping={f"f{i}": str(i) for i in range(2000)})
    r.zadd("big:z", {f"m{i}": i / 3 for i in range(2000)})
    fields = dict(r.hscan_iter("big:h", count=100))
    assert fields == {f"f{i}": str(i) for i in range(2000)}
    assert dict(r.hscan_iter("big:h", match="f19??")) == {f"f{i}": str(i) for i in range(1900, 2000)}
    members = dict(r.zscan_iter("big:z", count=100))
    assert members == {f"m{i}": i / 3 for i in range(2000)}
    assert r.object("encoding", "big:h") == "hashtable"
    assert r.object("encoding", "big:z") == "skiplist"
    assert r.memory_usage("big:h") > 2000 * 10 and r.memory_usage("nope") is None
    r.rpush("queue", "a", "b", "c", "b")
    assert r.lpos("queue", "b") == 1 and r.lpos("queue", "b", rank=-1) == 3
    assert r.lmove("queue", "done", "LEFT", "RIGHT") == "a"
    assert r.lrange("queue", 0, -1) == ["b", "c", "b"] and r.lrange("done", 0, -1) == ["a"]
    assert r.copy("done", "done:copy") and r.lrange("done:copy", 0, -1) == ["a"]
    assert r.lrem("queue", 0, "b") == 2 and r.lrange("queue", 0, -1) == ["c"]
    r.close()
