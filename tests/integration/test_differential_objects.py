"""OBJECT ENCODING/FREQ/REFCOUNT/HELP and MEMORY USAGE/HELP. OBJECT ENCODING names the encoding Redis
would use for what a key holds, so it is compared with redis-server to the byte (RESP2 and
RESP3) on keys written the same way; MEMORY USAGE's numbers are sluice's own (stored bytes),
so only its shape and errors are compared, and its growth checked on sluiced alone.
"""

import servers
from composite_diff import run


def test_object_encoding_follows_redis(diff):
    long_value = "v" * 65
    run(diff, [
        ("SET", "i", "12345"), ("SET", "neg", "-7"), ("SET", "big", "9223372036854775807"),
        ("SET", "over", "9223372036854775808"), ("SET", "zero", "007"), ("SET", "sp", " 1"),
        ("SET", "e", "x" * 44), ("SET", "r", "x" * 45), ("SET", "empty", ""),
        *[("OBJECT", "ENCODING", k) for k in ("i", "neg", "big", "over", "zero", "sp", "e", "r",
                                               "empty")],
        ("HSET", "h", "f", "v"), ("OBJECT", "ENCODING", "h"),
        ("HSET", "hl", "f", long_value), ("OBJECT", "ENCODING", "hl"),
        ("HSET", "hf", "f" * 65, "v"), ("OBJECT", "ENCODING", "hf"),
        ("HSET", "hm", *[x for i in range(512) for x in ("f%d" % i, "v")]),
        ("OBJECT", "ENCODING", "hm"),
        ("HSET", "hb", *[x for i in range(513) for x in ("f%d" % i, "v")]),
        ("OBJECT", "ENCODING", "hb"),
        ("ZADD", "z", "1", "m"), ("OBJECT", "ENCODING", "z"),
        ("ZADD", "zl", "1", "m" * 65), ("OBJECT", "ENCODING", "zl"),
        ("ZADD", "zb", *[x for i in range(129) for x in (str(i), "m%d" % i)]),
        ("OBJECT", "ENCODING", "zb"), ("ZREMRANGEBYRANK", "zb", "0", "-3"),
        ("OBJECT", "ENCODING", "zb"),  # a skiplist stays one, in both
        ("RPUSH", "l", "a"), ("OBJECT", "ENCODING", "l"),
        ("OBJECT", "ENCODING", "missing"), ("OBJECT", "encoding", "i"),
        ("OBJECT", "FREQ", "i"), ("OBJECT", "FREQ", "missing"),
        ("OBJECT", "ENCODING"), ("OBJECT", "ENCODING", "i", "x"), ("OBJECT", "FREQ"),
        ("OBJECT", "bogus", "i"), ("OBJECT", "HELP", "x"), ("OBJECT",),
    ])
    diff.assert_same()


def test_object_refcount_follows_redis(diff):
    """Integers 0 to 9999 stored as "int" are Redis's shared objects (INT_MAX references);
    every other value has one."""
    run(diff, [
        ("SET", "a", "5"), ("SET", "b", "9999"), ("SET", "c", "10000"), ("SET", "d", "-1"),
        ("SET", "e", "5", "EX", "100"), ("INCR", "f"), ("SET", "g", "007"), ("APPEND", "h", "5"),
        ("MSET", "m", "5"), ("SETNX", "n", "5"), ("GETSET", "o", "5"), ("SET", "p", "0"),
        ("EVAL", "redis.call('set', KEYS[1], '5')", "1", "q"), ("HSET", "hh", "f", "5"),
        ("RPUSH", "l", "5"), ("SET", "s", "text"), ("INCRBY", "t", "12000"),
        *[("OBJECT", "REFCOUNT", k) for k in "abcdefghmnopq"],
        ("OBJECT", "REFCOUNT", "hh"), ("OBJECT", "REFCOUNT", "l"), ("OBJECT", "REFCOUNT", "s"),
        ("OBJECT", "REFCOUNT", "t"), ("OBJECT", "REFCOUNT", "missing"),
        ("OBJECT", "REFCOUNT"), ("OBJECT", "REFCOUNT", "a", "b"),
    ])
    diff.assert_same()


def test_memory_usage_shape_and_errors(diff):
    run(diff, [
        ("SET", "s", "v"), ("MEMORY", "USAGE", "missing"),
        ("MEMORY", "USAGE", "s", "SAMPLES", "-1"), ("MEMORY", "USAGE", "s", "SAMPLES", "x"),
        ("MEMORY", "USAGE", "s", "SAMPLES"), ("MEMORY", "USAGE", "s", "bogus"),
        ("MEMORY", "USAGE", "missing", "SAMPLES", "-1"), ("MEMORY", "USAGE", "missing", "bogus"),
        ("MEMORY", "USAGE", "missing", "SAMPLES", "0"), ("MEMORY", "USAGE"),
        ("MEMORY", "bogus"), ("MEMORY", "HELP", "x"), ("MEMORY",),
    ])
    diff.assert_same()
    for client in (diff.redis, diff.sluice):
        reply = client.call("MEMORY", "USAGE", "s", "SAMPLES", "0")
        assert isinstance(reply, int) and reply > 0, (client.port, reply)


def test_object_and_memory_help(sluiced):
    with sluiced.client() as c:
        for container, subcommands in (("OBJECT", ("ENCODING", "FREQ", "REFCOUNT")),
                                       ("MEMORY", ("USAGE",))):
            lines = [str(line) for line in c.call(container, "HELP")]
            assert lines[0].startswith(f"{container} <subcommand>"), lines
            assert lines[-2:] == ["HELP", "    Prints this help."], lines
            for sub in subcommands:
                assert any(line.startswith(sub) for line in lines), (sub, lines)


def test_memory_usage_grows_with_what_a_key_holds(sluiced):
    with sluiced.client() as c:
        c.call("SET", "short", "x")
        c.call("SET", "long", "x" * 10_000)
        assert c.call("MEMORY", "USAGE", "long") > c.call("MEMORY", "USAGE", "short") + 9_000
        for key, add in (("h", lambda i: ("HSET", "h", "f%d" % i, "v" * 100)),
                         ("z", lambda i: ("ZADD", "z", str(i), "m%03d" % i + "x" * 100)),
                         ("l", lambda i: ("RPUSH", "l", "e" * 100))):
            c.call(*add(0))
            one = c.call("MEMORY", "USAGE", key)
            for i in range(1, 500):
                c.send(servers.encode(*add(i)))
            for _ in range(1, 500):
                c.read()
            sampled = c.call("MEMORY", "USAGE", key)
            exact = c.call("MEMORY", "USAGE", key, "SAMPLES", "0")
            # 500 elements of over 100 bytes each, estimated from 5 of them or counted.
            assert exact > 500 * 100 and exact > 100 * one, (key, one, exact)
            assert abs(sampled - exact) < exact // 10, (key, sampled, exact)
        assert c.call("MEMORY", "USAGE", "missing") is None
