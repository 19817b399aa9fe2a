"""RANDOMKEY: what can be compared with redis-server (an empty key space, a single key, errors,
inside MULTI and scripts), then sluiced alone: every key comes up, expired keys never do."""

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
