"""RANDOMKEY: what can be compared with redis-server (an empty key space, a single key, errors,
inside MULTI and scripts), then sluiced alone: every key comes up, expired keys never do, and a
mass deletion's tombstones do not stay in the way."""

import pytest

import servers
from frozen_clock import Clock


def test_randomkey_as_redis_where_the_answer_is_determined(diff):
    diff.run([
        ("RANDOMKEY",), ("RANDOMKEY", "x"), ("SET", "only", "1"), ("RANDOMKEY",),
        ("MULTI",), ("RANDOMKEY",), ("DEL", "only"), ("RANDOMKEY",), ("EXEC",),
        ("HSET", "h", "f", "v"), ("EVAL", "return redis.call('RANDOMKEY')", "0"),
        ("FLUSHALL",), ("RANDOMKEY",), ("SET", "", "empty name"), ("RANDOMKEY",),
    ])
    diff.assert_same()


def test_every_key_comes_up(sluiced):
    # Past three pages of the walk (64 keys each). Every page comes up every fourth call; after
    # 6,000 calls a given key is missing with a probability of (63/64) ** 1500, about 1e-10.
    names = {f"k{i}".encode() for i in range(200)}
    with sluiced.client() as c:
        c.send(b"".join(servers.encode("SET", name, "v") for name in names))
        for _ in names:
            assert c.read() == "OK"
        c.send(servers.encode("RANDOMKEY") * 6000)
        seen = {c.read() for _ in range(6000)}
    assert seen == names


def test_expired_keys_never_come_up(debug_sluiced):
    with debug_sluiced.client() as c:
        clock = Clock(c)
        for i in range(150):
            c.call("SET", f"gone{i}", "v", "PX", 1000)
        c.call("SET", "stays", "v")
        c.call("SET", "gone-too", "v", "PX", 1000)
        clock.at(1001)  # expired once the clock is past the expiry time, as in Redis
        assert {c.call("RANDOMKEY") for _ in range(20)} == {b"stays"}
        c.call("DEL", "stays")
        assert c.call("RANDOMKEY") is None


@pytest.mark.parametrize("how", ["expiry", "DEL"])
def test_a_mass_deletion_leaves_nothing_in_the_way(debug_sluiced, how):
    # 30,000 keys expire at once (or a script DELs them) and one stays. Their tombstones would
    # stay in every walk of the key space until a compaction, which a quiet server may not run
    # for hours: a RANDOMKEY walked them all (33 ms with 300,000), a SCAN page came back
    # empty, INFO keyspace left the database out. The active cycle's walk that stops in them
    # has them compacted away.
    gone = 30000
    with debug_sluiced.client() as c:
        clock = Clock(c)
        expiry = ("PX", 1000) if how == "expiry" else ()
        c.send(b"".join(servers.encode("SET", f"gone{i}", "v", *expiry) for i in range(gone))
               + servers.encode("SET", "stays", "v"))
        assert all(c.read() == "OK" for _ in range(gone + 1))
        if how == "expiry":
            clock.at(1001)
        else:
            batches = [[f"gone{i}" for i in range(start, start + 1000)]
                       for start in range(0, gone, 1000)]
            c.send(b"".join(servers.encode("DEL", *batch) for batch in batches))
            assert all(c.read() == 1000 for _ in batches)
        servers.wait_for(lambda: c.call("SCAN", "0", "COUNT", "10") == [b"0", [b"stays"]],
                         "the deleted keys' tombstones to be compacted away", timeout=30)
        if how == "expiry":
            assert servers.info_fields(c, "stats")["expired_keys"] == str(gone)
        assert servers.info_fields(c, "keyspace")["db0"] == "keys=1,expires=0,avg_ttl=0"
        assert c.call("RANDOMKEY") == b"stays"
