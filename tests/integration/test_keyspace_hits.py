"""INFO keyspace_hits / keyspace_misses against redis-server: each case runs on both servers
after the same setup, and what it added to the two counters must be the same. Redis counts its
read lookups only, once per key: read commands, and the reads of SET ... GET, GETSET, GETDEL,
GETEX and COPY's source; never plain writes, KEYS or DBSIZE, nor SCAN but for SCAN ... TYPE,
which looks up the type of each key that passes MATCH.
"""

import pytest

from keyspace_counts import assert_counters_move_as_redis, case_ids, keyspace_counters
import servers

SETUP = [("FLUSHALL",), ("SET", "s", "v"), ("HSET", "h", "f", "v"), ("ZADD", "z", "1", "m"),
         ("RPUSH", "l", "a", "b"), ("SET", "n", "1"), ("SADD", "st", "a", "b"),
         ("SADD", "st2", "b", "c"),
         ("GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")]

CASES = [
    [("GET", "s")], [("GET", "nope")], [("GET", "h")], [("MGET", "s", "nope", "h")],
    [("EXISTS", "s", "nope", "s")], [("TYPE", "s")], [("TYPE", "nope")], [("TTL", "s")],
    [("PTTL", "nope")], [("EXPIRETIME", "s")], [("STRLEN", "s")], [("GETRANGE", "s", "0", "1")],
    [("OBJECT", "ENCODING", "s")], [("OBJECT", "FREQ", "nope")], [("TOUCH", "s", "nope")],
    [("SET", "s", "x")], [("SET", "s", "x", "GET")], [("SET", "nope", "x", "GET")],
    [("GETDEL", "s")], [("GETEX", "s")], [("GETSET", "s", "y")], [("INCR", "n")],
    [("INCR", "nope")], [("APPEND", "s", "x")], [("SETNX", "s", "x")], [("DEL", "s", "nope")],
    [("UNLINK", "s")], [("EXPIRE", "s", "100")], [("PERSIST", "s")], [("RENAME", "s", "s2")],
    [("COPY", "s", "s3")], [("COPY", "nope", "s3")],
    [("HGET", "h", "f")], [("HGET", "nope", "f")], [("HGETALL", "h")], [("HLEN", "h")],
    [("HEXISTS", "h", "f")], [("HMGET", "h", "f", "g")], [("HMGET", "nope", "a")],
    [("HSET", "h", "g", "v")], [("HINCRBY", "h", "c", "1")], [("HDEL", "h", "f")],
    [("HSCAN", "h", "0")], [("HSCAN", "nope", "0")], [("HRANDFIELD", "h")],
    [("HSTRLEN", "h", "f")], [("HVALS", "h")], [("HKEYS", "h")],
    [("ZSCORE", "z", "m")], [("ZRANGE", "z", "0", "-1")], [("ZRANGE", "z", "0", "5", "BYSCORE", "REV")],
    [("ZREVRANGE", "z", "0", "-1")], [("ZRANGEBYSCORE", "z", "0", "5")], [("ZCARD", "nope")],
    [("ZADD", "z", "2", "m")], [("ZINCRBY", "z", "1", "m")], [("ZREM", "z", "m")],
    [("ZRANK", "z", "m")], [("ZREVRANK", "z", "m")], [("ZPOPMIN", "z")],
    [("ZMSCORE", "z", "m", "q")], [("ZMSCORE", "nope", "a", "b")], [("ZRANDMEMBER", "z")],
    [("ZCOUNT", "z", "0", "5")], [("ZLEXCOUNT", "z", "-", "+")], [("ZSCAN", "z", "0")],
    [("ZUNIONSTORE", "d", "2", "z", "nope")], [("ZUNION", "2", "z", "nope")],
    [("ZINTER", "2", "z", "z", "WITHSCORES")], [("ZDIFFSTORE", "d", "1", "z")],
    [("ZUNIONSTORE", "d", "2", "s", "z")], [("ZUNION", "2", "z", "z", "WEIGHTS", "x")],
    [("ZRANGESTORE", "d", "z", "0", "-1")], [("ZRANGESTORE", "d", "nope", "0", "-1")],
    [("ZUNIONSTORE", "z", "1", "nope")],
    [("LRANGE", "l", "0", "-1")], [("LLEN", "l")], [("LINDEX", "l", "0")],
    [("LINDEX", "nope", "0")], [("LPUSH", "l", "x")], [("LPOP", "l")], [("RPOPLPUSH", "l", "l2")],
    [("LMOVE", "l", "l3", "LEFT", "RIGHT")], [("LPOS", "l", "a")], [("LPOS", "l", "a", "COUNT", "0")],
    [("LSET", "l", "0", "q")],
    [("SISMEMBER", "st", "a")], [("SISMEMBER", "nope", "a")], [("SMISMEMBER", "st", "a", "z")],
    [("SCARD", "st")], [("SMEMBERS", "st")], [("SMEMBERS", "nope")], [("SRANDMEMBER", "st")],
    [("SRANDMEMBER", "st", "-3")], [("SSCAN", "st", "0")], [("SSCAN", "nope", "0")],
    [("SINTER", "st", "st2", "nope")], [("SUNION", "st", "nope")], [("SDIFF", "st", "st2")],
    [("SINTER", "st", "s", "st2")], [("SINTERCARD", "2", "st", "st2", "LIMIT", "1")],
    [("SINTERSTORE", "d", "st", "st2")], [("SUNIONSTORE", "d", "st", "nope")],
    [("SDIFFSTORE", "st", "st", "st2")], [("SADD", "st", "z")], [("SREM", "st", "a")],
    [("SPOP", "st")], [("SPOP", "st", "5")], [("SPOP", "st", "2")], [("SPOP", "st", "1")],
    [("SPOP", "nope", "5")], [("SRANDMEMBER", "st", "5")], [("SMOVE", "st", "st2", "a")],
    [("SDIFFSTORE", "d", "nope", "st")],
    [("ZUNION", "2", "z", "st")], [("ZUNIONSTORE", "d", "2", "st", "z")],
    [("LINDEX", "l", "x")], [("LINDEX", "s", "0")], [("HSCAN", "h", "0", "MATCH", "f*")],
    [("HSCAN", "h", "0", "COUNT", "0")], [("SSCAN", "st", "0", "COUNT", "1")],
    [("ZSCAN", "z", "0", "MATCH", "x*")], [("ZSCAN", "s", "0")], [("ZSCAN", "nope", "0")],
    [("GEODIST", "g", "Palermo", "Catania")], [("GEODIST", "g", "Palermo", "nope")],
    [("GEODIST", "nope", "a", "b")], [("GEODIST", "s", "a", "b")],
    [("GEOHASH", "g", "Palermo", "nope", "Catania")], [("GEOHASH", "nope", "a")],
    [("GEOPOS", "g", "Catania", "nope")], [("GEOPOS", "nope", "a", "b")],
    [("GEOSEARCH", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km", "ASC")],
    [("GEOSEARCH", "g", "FROMMEMBER", "nope", "BYRADIUS", "200", "km")],
    [("GEOSEARCH", "nope", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km")],
    [("GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km")],
    [("GEOSEARCHSTORE", "g", "g", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km")],
    [("GEOSEARCHSTORE", "d", "nope", "FROMLONLAT", "15", "37", "BYRADIUS", "2", "km")],
    [("GEORADIUS", "g", "15", "37", "200", "km", "WITHDIST")],
    [("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "d")],
    [("GEORADIUSBYMEMBER", "g", "Palermo", "200", "km", "STOREDIST", "g")],
    [("GEORADIUSBYMEMBER_RO", "g", "nope", "200", "km")],
    [("GEORADIUS_RO", "s", "15", "37", "200", "km")],
    [("EVAL", "return redis.call('SCARD','st')", "0")],
    [("SCAN", "0")], [("KEYS", "*")], [("RANDOMKEY",)], [("DBSIZE",)],
    [("SCAN", "0", "TYPE", "string")], [("SCAN", "0", "MATCH", "s*", "TYPE", "set")],
    [("SCAN", "0", "TYPE", "nosuchtype")], [("SCAN", "0", "MATCH", "x*", "TYPE", "hash")],
    [("OBJECT", "ENCODING", "h")], [("OBJECT", "ENCODING", "st")], [("OBJECT", "ENCODING", "z")],
    [("OBJECT", "ENCODING", "l")], [("MEMORY", "USAGE", "s")], [("MEMORY", "USAGE", "nope")],
    [("MEMORY", "USAGE", "h", "SAMPLES", "0")],
    [("EVAL", "return redis.call('GET','s')", "0")], [("EVAL", "return redis.call('SET','s','q')", "0")],
    [("MULTI",), ("GET", "s"), ("GET", "nope"), ("EXEC",)],
    [("WATCH", "s"), ("MULTI",), ("GET", "s"), ("EXEC",)],
]


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_keyspace_hits_and_misses_move_as_redis(emptied_servers, case):
    assert_counters_move_as_redis(emptied_servers, SETUP, case)


def test_an_expired_key_is_a_miss(debug_sluiced):
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", 1_700_000_000_000) == "OK"
        c.call("SET", "k", "v", "PX", "10")
        before = keyspace_counters(c)
        c.call("GET", "k")
        assert c.call("DEBUG", "CLOCK", "ADVANCE", 20) == "OK"
        assert c.call("GET", "k") is None
        after = keyspace_counters(c)
    assert (after["keyspace_hits"] - before["keyspace_hits"],
            after["keyspace_misses"] - before["keyspace_misses"]) == (1, 1)


def test_scan_type_counts_an_expired_key_as_a_miss(debug_sluiced):
    # Redis looks the type up before it checks the expiry: the lookup finds the key expired.
    # The clock moves and SCAN runs in one pipeline, so no active expiry cycle comes between.
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", 1_700_000_000_000) == "OK"
        c.call("SET", "gone", "v", "PX", "10")
        c.call("SET", "kept", "v")
        before = keyspace_counters(c)
        c.send(servers.encode("DEBUG", "CLOCK", "ADVANCE", "20") +
               servers.encode("SCAN", "0", "TYPE", "string"))
        assert c.read() == "OK"
        assert c.read() == [b"0", [b"kept"]]
        after = keyspace_counters(c)
    assert (after["keyspace_hits"] - before["keyspace_hits"],
            after["keyspace_misses"] - before["keyspace_misses"]) == (1, 1)
