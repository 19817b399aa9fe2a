"""Keyspace notifications against Redis 7.0: a subscriber on `__key*__:*` (PSUBSCRIBE) on each
server, the same write commands sent to both, and the messages each subscriber received compared
byte for byte, in order, in RESP2 and RESP3. Then what redis-server cannot show the same way:
expiry driven by sluiced's test clock (lazy and active), and sluice's own limiter commands."""

import pytest

from frozen_clock import Clock
import servers

PATTERN = "__key*__:*"
# Published after a sequence: the pattern matches it, so once the subscriber reads it, every
# event the sequence caused has arrived (both servers deliver in order).
SENTINEL = "__keyend__:done"


@pytest.fixture
def pair_servers(emptied_servers):
    """The shared redis-server and sluiced, with notify-keyspace-events off again afterwards."""
    yield emptied_servers
    for server in emptied_servers:
        with server.client() as c:
            assert c.call("CONFIG", "SET", "notify-keyspace-events", "") == "OK"


def _subscriber(port, protocol):
    sub = servers.RespClient(port)
    if protocol == 3:
        assert isinstance(sub.call("HELLO", "3"), servers.Map)
    sub.send(servers.encode("PSUBSCRIBE", PATTERN))
    sub.read()
    return sub


def _drain(sub):
    """The raw messages `sub` received up to the sentinel."""
    received = []
    while True:
        value, raw = sub.read_reply_raw()
        if value[2] == SENTINEL.encode():
            return received
        received.append(raw)


def _events(port, protocol, commands, classes="KEA"):
    """(replies, messages): each command's raw reply, and the raw messages the subscriber got."""
    with servers.RespClient(port) as writer:
        assert writer.call("CONFIG", "SET", "notify-keyspace-events", classes) == "OK"
        sub = _subscriber(port, protocol)
        try:
            replies = [writer.call_raw(*cmd) for cmd in commands]
            assert writer.call("CONFIG", "SET", "notify-keyspace-events", "") == "OK"
            writer.call("PUBLISH", SENTINEL, "x")
            return replies, _drain(sub)
        finally:
            sub.close()


def _decoded(messages):
    """[(channel, payload)] for reading a failure."""
    out = []
    for raw in messages:
        with_pattern = raw.split(b"\r\n")
        out.append((with_pattern[-4].decode(errors="replace"),
                    with_pattern[-2].decode(errors="replace")))
    return out


def _same_as_redis(pair, protocol, commands, classes="KEA"):
    redis_server, sluiced = pair
    theirs = _events(redis_server.port, protocol, commands, classes)
    ours = _events(sluiced.port, protocol, commands, classes)
    # SPOP's members are drawn at random: its replies are not compared, its events are.
    differing = [(cmd, t, o) for cmd, t, o in zip(commands, theirs[0], ours[0])
                 if t != o and cmd[0] != "SPOP"]
    assert not differing, f"replies differ: {differing}"
    assert _decoded(ours[1]) == _decoded(theirs[1])
    assert ours[1] == theirs[1]
    assert theirs[1], "the sequence caused no event at all: it tests nothing"
    return _decoded(ours[1])


PROTOCOLS = pytest.mark.parametrize("protocol", [2, 3], ids=["resp2", "resp3"])

# redis-server 7.0.15's DUMP of the string "hello".
HELLO_PAYLOAD = bytes.fromhex("000568656c6c6f0a006372df766534200a")

GENERIC = [
    ("SET", "a", "1"), ("SET", "b", "2"), ("DEL", "a", "b", "nosuch"),
    ("SET", "a", "1"), ("EXPIRE", "a", "100"), ("EXPIRE", "a", "100", "NX"),
    ("PEXPIRE", "a", "200000"), ("EXPIREAT", "a", "4102444800"), ("PERSIST", "a"),
    ("PERSIST", "a"), ("EXPIRE", "nosuch", "10"), ("EXPIRE", "a", "-1"),
    ("SET", "a", "1"), ("RENAME", "a", "b"), ("RENAMENX", "b", "c"), ("RENAMENX", "c", "c"),
    ("RENAME", "c", "c"), ("SET", "d", "1"), ("RENAMENX", "c", "d"), ("RENAME", "nosuch", "x"),
    ("COPY", "c", "e"), ("COPY", "c", "e"), ("COPY", "c", "e", "REPLACE"),
    ("COPY", "c", "e", "DB", "2"), ("MOVE", "e", "1"), ("MOVE", "d", "1"), ("SET", "d", "2"),
    ("MOVE", "d", "1"), ("UNLINK", "c", "d", "nosuch"), ("EXISTS", "e"), ("TYPE", "e"),
    ("TOUCH", "e"), ("TTL", "e"), ("SET", "x", "1"), ("SWAPDB", "0", "1"), ("SWAPDB", "0", "1"),
    ("FLUSHDB",), ("SET", "y", "1"), ("FLUSHALL",), ("SET", "z", "1"),
    # RESTORE (a payload both servers read): new, then restore; REPLACE deletes first (no
    # del event, as Redis's dbDelete); a TTL already past deletes with REPLACE (del).
    ("RESTORE", "r", "0", HELLO_PAYLOAD), ("RESTORE", "r", "0", HELLO_PAYLOAD),
    ("RESTORE", "r", "0", HELLO_PAYLOAD, "REPLACE"), ("RESTORE", "r", "100000", HELLO_PAYLOAD),
    ("RESTORE", "q", "1", HELLO_PAYLOAD, "ABSTTL"),
    ("RESTORE", "r", "1", HELLO_PAYLOAD, "ABSTTL", "REPLACE"),
]


@PROTOCOLS
def test_generic_commands_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, GENERIC)
    assert ("__keyspace@0__:a", "rename_from") in events
    assert ("__keyevent@1__:move_to", "e") in events
    assert ("__keyevent@2__:copy_to", "e") in events
    assert ("__keyevent@0__:restore", "r") in events


STRINGS = [
    ("SET", "s", "v"), ("SET", "s", "v", "NX"), ("SET", "s", "w", "XX"), ("SET", "s", "v", "GET"),
    ("SET", "s", "v", "EX", "100"), ("SET", "s", "v", "KEEPTTL"), ("SET", "s", "v", "PX", "0"),
    ("SETNX", "s", "x"), ("SETNX", "t", "x"), ("SETEX", "u", "100", "v"),
    ("PSETEX", "u", "100000", "v"), ("SETEX", "u", "0", "v"), ("GETSET", "s", "z"),
    ("MSET", "a", "1", "b", "2"), ("MSETNX", "a", "1", "c", "3"), ("MSETNX", "c", "3", "d", "4"),
    ("INCR", "n"), ("INCRBY", "n", "5"), ("DECR", "n"), ("DECRBY", "n", "2"), ("INCR", "s"),
    ("INCRBYFLOAT", "f", "1.5"), ("INCRBYFLOAT", "s", "1"), ("APPEND", "s", "more"),
    ("APPEND", "new", "x"), ("SETRANGE", "s", "2", "XY"), ("SETRANGE", "s", "1", ""),
    ("SETRANGE", "nr", "0", ""), ("SETRANGE", "nr", "3", "abc"), ("GETDEL", "s"),
    ("GETDEL", "nosuch"), ("GETEX", "t", "EX", "100"), ("GETEX", "t", "PERSIST"),
    ("GETEX", "t", "PERSIST"), ("GETEX", "t"), ("GETEX", "t", "PXAT", "1"), ("GET", "t"),
    ("SETBIT", "bits", "7", "1"), ("SETBIT", "bits", "7", "1"), ("SETBIT", "bits", "100", "0"),
    ("BITOP", "OR", "dest", "a", "b"), ("BITOP", "AND", "dest", "nosuch"),
    ("BITOP", "AND", "dest", "nosuch"), ("BITFIELD", "bf", "SET", "u8", "0", "255"),
    ("BITFIELD", "bf", "SET", "u8", "0", "255"), ("BITFIELD", "bf", "GET", "u8", "0"),
    ("BITFIELD", "bf", "INCRBY", "u8", "0", "1"), ("PFADD", "h", "a", "b"), ("PFADD", "h", "a"),
    ("PFADD", "h2"), ("PFMERGE", "h3", "h"), ("PFCOUNT", "h"),
]


@PROTOCOLS
def test_string_commands_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, STRINGS)
    assert ("__keyevent@0__:incrbyfloat", "f") in events
    assert ("__keyspace@0__:u", "expire") in events


HASHES = [
    ("HSET", "h", "f", "v"), ("HSET", "h", "f", "v"), ("HMSET", "h", "a", "1", "b", "2"),
    ("HSETNX", "h", "f", "x"), ("HSETNX", "h", "g", "x"), ("HINCRBY", "h", "n", "2"),
    ("HINCRBY", "h", "f", "1"), ("HINCRBYFLOAT", "h", "x", "1.5"), ("HDEL", "h", "nosuch"),
    ("HDEL", "nosuch", "f"), ("HDEL", "h", "f", "g"), ("HDEL", "h", "a", "b", "n", "x"),
    ("HGET", "h", "f"), ("HSET", "s", "f", "v"), ("SET", "str", "1"), ("HSET", "str", "f", "v"),
]


@PROTOCOLS
def test_hash_commands_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, HASHES)
    assert ("__keyevent@0__:del", "h") in events


ZSETS = [
    ("ZADD", "z", "1", "a", "2", "b"), ("ZADD", "z", "1", "a"), ("ZADD", "z", "NX", "5", "a"),
    ("ZADD", "z", "XX", "CH", "3", "a"), ("ZADD", "z", "INCR", "2", "a"),
    ("ZADD", "z", "GT", "1", "a"), ("ZINCRBY", "z", "1", "b"), ("ZREM", "z", "nosuch"),
    ("ZREM", "z", "a"), ("ZADD", "z", "1", "a", "2", "c", "3", "d"),
    ("ZREMRANGEBYSCORE", "z", "1", "1"), ("ZREMRANGEBYSCORE", "z", "100", "200"),
    ("ZREMRANGEBYRANK", "z", "0", "0"), ("ZADD", "lz", "0", "a", "0", "b", "0", "c"),
    ("ZREMRANGEBYLEX", "lz", "[a", "[b"), ("ZPOPMIN", "lz"), ("ZPOPMAX", "z"),
    ("ZPOPMAX", "z", "0"), ("ZPOPMIN", "nosuch"), ("ZADD", "lz", "5", "e"),
    ("ZUNIONSTORE", "u", "2", "z", "lz"), ("ZINTERSTORE", "i", "2", "z", "nosuch"),
    ("ZINTERSTORE", "u", "2", "z", "nosuch"), ("ZDIFFSTORE", "d", "1", "z"),
    ("ZRANGESTORE", "r", "z", "0", "-1"), ("ZRANGESTORE", "r", "nosuch", "0", "-1"),
    ("ZMPOP", "1", "z", "MIN", "COUNT", "10"), ("ZMPOP", "1", "z", "MIN"),
    ("BZPOPMAX", "lz", "0"), ("ZADD", "lz", "1", "f", "2", "g"), ("BZPOPMIN", "lz", "0"),
    ("GEOADD", "g", "13.361389", "38.115556", "Palermo"),
    ("GEOADD", "g", "13.361389", "38.115556", "Palermo"),
    ("GEOSEARCHSTORE", "gs", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"),
    ("GEOSEARCHSTORE", "gs", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
    ("GEOSEARCHSTORE", "gs", "nosuch", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"),
    ("GEORADIUS", "g", "15", "37", "200", "km", "STORE", "gr"),
]


@PROTOCOLS
def test_sorted_set_commands_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, ZSETS)
    assert ("__keyevent@0__:zincr", "z") in events
    assert ("__keyevent@0__:zpopmin", "z") in events


LISTS = [
    ("LPUSH", "l", "a", "b"), ("RPUSH", "l", "c"), ("LPUSHX", "nol", "a"), ("RPUSHX", "l", "d"),
    ("LINSERT", "l", "BEFORE", "c", "x"), ("LINSERT", "l", "BEFORE", "nosuch", "y"),
    ("LSET", "l", "0", "z"), ("LREM", "l", "0", "nosuch"), ("LREM", "l", "1", "x"),
    ("LTRIM", "l", "0", "10"), ("LTRIM", "nosuch", "0", "1"), ("LPOP", "l"), ("RPOP", "l", "2"),
    ("LPOP", "l", "0"), ("RPUSH", "l", "1", "2"), ("LMOVE", "l", "l2", "LEFT", "RIGHT"),
    ("LMOVE", "l", "l", "LEFT", "RIGHT"), ("RPOPLPUSH", "l", "l3"), ("RPOPLPUSH", "l", "l3"),
    ("LMPOP", "2", "nosuch", "l3", "LEFT", "COUNT", "5"), ("RPUSH", "q", "1", "2", "3"),
    ("BLPOP", "q", "0"), ("BRPOP", "q", "0"), ("BLMOVE", "q", "q2", "LEFT", "LEFT", "0"),
    ("BRPOPLPUSH", "l2", "q2", "0"), ("LTRIM", "q2", "5", "10"), ("RPUSH", "nums", "3", "1", "2"),
    ("SORT", "nums", "STORE", "sorted"), ("SORT", "nosuch", "STORE", "sorted"),
    ("SORT", "nosuch", "STORE", "sorted"), ("BLMPOP", "0", "1", "nums", "RIGHT", "COUNT", "2"),
]


@PROTOCOLS
def test_list_commands_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, LISTS)
    assert ("__keyevent@0__:sortstore", "sorted") in events
    assert ("__keyevent@0__:ltrim", "q2") in events


SETS = [
    ("SADD", "s", "a", "b", "c"), ("SADD", "s", "a"), ("SREM", "s", "nosuch"), ("SREM", "s", "a"),
    ("SMOVE", "s", "s2", "b"), ("SMOVE", "s", "s2", "nosuch"), ("SMOVE", "s2", "s2", "b"),
    ("SADD", "s2", "c"), ("SMOVE", "s", "s2", "c"), ("SADD", "s", "x", "y", "z", "w"),
    ("SPOP", "s"), ("SPOP", "s", "1"), ("SPOP", "s", "0"), ("SPOP", "s", "10"), ("SPOP", "s"),
    ("SADD", "a", "1", "2"), ("SADD", "b", "2", "3"), ("SINTERSTORE", "i", "a", "b"),
    ("SUNIONSTORE", "u", "a", "b"), ("SDIFFSTORE", "d", "a", "b"),
    ("SINTERSTORE", "i", "a", "nosuch"), ("SINTERSTORE", "i", "a", "nosuch"),
    ("SADD", "one", "m"), ("SPOP", "one"),
]


@PROTOCOLS
def test_set_commands_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, SETS)
    assert ("__keyevent@0__:sdiffstore", "d") in events


TRANSACTIONS_AND_SCRIPTS = [
    ("MULTI",), ("SET", "a", "1"), ("INCR", "a"), ("LPUSH", "l", "x"), ("EXEC",),
    ("EVAL", "redis.call('set', KEYS[1], 'v'); redis.call('expire', KEYS[1], 100)", "1", "k"),
    ("EVAL", "return redis.call('hset', KEYS[1], 'f', 'v')", "1", "h"),
    ("SELECT", "5"), ("SET", "in5", "v"), ("DEL", "in5"), ("SELECT", "0"),
]


@PROTOCOLS
def test_transactions_scripts_and_databases_send_redis_events(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, TRANSACTIONS_AND_SCRIPTS)
    assert ("__keyspace@5__:in5", "del") in events


@pytest.mark.parametrize("classes", ["K", "E", "Kg", "E$", "Elh", "KEA", "Kgz", "AE", "KE"])
def test_classes_choose_what_is_sent_as_redis(pair_servers, classes):
    commands = [("SET", "s", "1"), ("EXPIRE", "s", "100"), ("LPUSH", "l", "x"),
                ("ZADD", "z", "1", "m"), ("HSET", "h", "f", "v"), ("DEL", "s", "l", "z", "h")]
    redis_server, sluiced = pair_servers
    theirs = _events(redis_server.port, 2, commands, classes)
    ours = _events(sluiced.port, 2, commands, classes)
    assert _decoded(ours[1]) == _decoded(theirs[1])
    if classes in ("K", "E", "KE"):
        assert not ours[1], "classes without K or E, or K and E without classes, send nothing"


KEYMISS = [
    ("GET", "nosuch"), ("MGET", "a", "nosuch", "b"), ("EXISTS", "nosuch"), ("TYPE", "nosuch"),
    ("TTL", "nosuch"), ("HGET", "nosuch", "f"), ("LRANGE", "nosuch", "0", "-1"),
    ("SMEMBERS", "nosuch"), ("ZSCORE", "nosuch", "m"), ("SET", "a", "1"), ("GET", "a"),
    ("GETDEL", "nosuch"), ("SET", "w", "1"), ("INCR", "w"), ("STRLEN", "nosuch"),
    # None from OBJECT (Redis reads with LOOKUP_NONOTIFY) nor MEMORY USAGE (its key table).
    ("OBJECT", "ENCODING", "om"), ("OBJECT", "FREQ", "om"), ("MEMORY", "USAGE", "mm"),
]


@PROTOCOLS
def test_keymiss_events_as_redis(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, KEYMISS, classes="KEm")
    assert ("__keyevent@0__:keymiss", "nosuch") in events
    assert events.count(("__keyevent@0__:keymiss", "a")) == 1, "MGET's, not GET's after SET"


NEW_KEYS = [
    ("SET", "a", "1"), ("SET", "a", "2"), ("MSET", "a", "3", "b", "4"), ("SETEX", "c", "100", "v"),
    ("INCR", "n"), ("INCR", "n"), ("APPEND", "ap", "x"), ("HSET", "h", "f", "v"),
    ("HSET", "h", "g", "v"), ("LPUSH", "l", "x"), ("RPUSH", "l", "y"), ("SADD", "s", "m"),
    ("ZADD", "z", "1", "m"), ("RENAME", "a", "renamed"), ("COPY", "b", "copied"),
    ("MOVE", "copied", "1"), ("LMOVE", "l", "l2", "LEFT", "LEFT"), ("SUNIONSTORE", "su", "s"),
    ("PFADD", "hll", "x"), ("SETBIT", "bits", "1", "1"), ("DEL", "a", "b"), ("SET", "b", "again"),
    ("SET", "x", "1"), ("RENAME", "x", "b"), ("SET", "x", "2"), ("COPY", "x", "b", "REPLACE"),
    ("COPY", "x", "b"), ("RENAMENX", "x", "b"),
    ("RESTORE", "rs", "0", HELLO_PAYLOAD), ("RESTORE", "rs", "0", HELLO_PAYLOAD, "REPLACE"),
]


@PROTOCOLS
def test_new_key_events_as_redis(pair_servers, protocol):
    events = _same_as_redis(pair_servers, protocol, NEW_KEYS, classes="KEn")
    # MSET's, SET's after DEL, then RENAME's and COPY REPLACE's over it (Redis deletes, adds).
    assert events.count(("__keyevent@0__:new", "b")) == 4


def test_keyspace_events_config_as_redis(diff):
    try:
        for value in ["", "KEA", "AKE", "EKg$lshzxetd", "mEzhslx$g", "KKKgg", "tdne", "Kx",
                      "KEA!", "k", "K E", "a", "AKEm", "Kgn", "AnKE", "Ag$lshzxeKEtmdn", "x y"]:
            diff.check("CONFIG", "SET", "notify-keyspace-events", value)
            diff.check("CONFIG", "GET", "notify-keyspace-events")
        diff.check("CONFIG", "SET", "notify-keyspace-events")
        diff.check("CONFIG", "GET", "notify-keyspace-e*")
    finally:
        diff.check("CONFIG", "SET", "notify-keyspace-events", "")
    assert not diff.mismatches, diff.mismatches


def test_a_resp3_subscriber_gets_its_own_events_before_its_reply_as_redis(pair_servers):
    replies = {}
    for server in pair_servers:
        with servers.RespClient(server.port) as c:
            c.call("HELLO", "3")
            c.call("CONFIG", "SET", "notify-keyspace-events", "KEA")
            got = [c.call_raw("SUBSCRIBE", "__keyevent@0__:set", "__keyspace@0__:k"),
                   c.read_raw()]
            for cmd in [("SETEX", "k", "100", "v"), ("SET", "other", "1"), ("INCR", "other"),
                        ("DEL", "k")]:
                c.send(servers.encode(*cmd))
                got.append(c.read_raw())
                while got[-1].startswith(b">"):  # its events come first, then the reply
                    got.append(c.read_raw())
            replies[server.port] = got
    theirs, ours = (replies[server.port] for server in pair_servers)
    assert ours == theirs
    assert b">3\r\n$7\r\nmessage\r\n$16\r\n__keyspace@0__:k\r\n$6\r\nexpire\r\n" in ours


def test_a_client_blocked_on_a_list_pops_after_the_push_as_redis(pair_servers):
    events = {}
    for server in pair_servers:
        with servers.RespClient(server.port) as writer, \
                servers.RespClient(server.port) as blocked:
            assert writer.call("CONFIG", "SET", "notify-keyspace-events", "KEA") == "OK"
            sub = _subscriber(server.port, 2)
            servers.send_until_blocked(writer, blocked, "BLPOP", "q", "0")
            writer.call("LPUSH", "q", "x")
            assert blocked.read() == [b"q", b"x"]
            servers.send_until_blocked(writer, blocked, "BLMOVE", "q", "d", "LEFT", "RIGHT", "0")
            writer.call("RPUSH", "q", "y", "z")
            assert blocked.read() == b"y"
            writer.call("PUBLISH", SENTINEL, "x")
            events[server.port] = _decoded(_drain(sub))
            sub.close()
    theirs, ours = (events[server.port] for server in pair_servers)
    assert ours == theirs
    assert ("__keyevent@0__:lpop", "q") in ours


# ---- What redis-server cannot be compared on ----------------------------------------------------


def _received_until(sub, last):
    """(channel, payload) of each message `sub` gets, up to and including `last`."""
    got = []
    while not got or got[-1] != last:
        value = sub.read()
        got.append((value[2].decode(), value[3].decode()))
    return got


@PROTOCOLS
def test_expired_events_lazy_and_active_on_the_test_clock(debug_sluiced, protocol):
    with debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call("CONFIG", "SET", "notify-keyspace-events", "KExgm") == "OK"
        sub = _subscriber(debug_sluiced.port, protocol)
        # Lazy: a read finds the key expired, deletes it ("expired"), and misses ("keymiss").
        c.call("SET", "lazy", "v", "PX", "100")
        clock.advance(101)
        assert c.call("GET", "lazy") is None
        got = _received_until(sub, ("__keyevent@0__:keymiss", "lazy"))
        assert got == [("__keyspace@0__:lazy", "expire"), ("__keyevent@0__:expire", "lazy"),
                       ("__keyspace@0__:lazy", "expired"), ("__keyevent@0__:expired", "lazy"),
                       ("__keyspace@0__:lazy", "keymiss"), ("__keyevent@0__:keymiss", "lazy")]
        # Active: nobody reads the key; the expiry cycle finds it (in its own database).
        c.call("SELECT", "3")
        c.call("SET", "active", "v", "PX", "100")
        clock.advance(101)
        got = _received_until(sub, ("__keyevent@3__:expired", "active"))
        assert got[-2:] == [("__keyspace@3__:active", "expired"),
                            ("__keyevent@3__:expired", "active")]
        # Without x (and m), an expiry sends nothing.
        assert c.call("CONFIG", "SET", "notify-keyspace-events", "KEg") == "OK"
        assert c.call("EXISTS", "active") == 0
        c.call("SET", "quiet", "v", "PX", "100")
        clock.advance(101)
        assert c.call("GET", "quiet") is None
        c.call("PUBLISH", SENTINEL, "x")
        assert _decoded(_drain(sub)) == [("__keyspace@3__:quiet", "expire"),
                                         ("__keyevent@3__:expire", "quiet")]
        sub.close()


def test_restore_replace_over_an_expired_key_sends_redis_events(debug_sluiced):
    """RESTORE ... REPLACE deletes whatever the key holds, expired or not, without an
    "expired" event; with a TTL already past it sends "del" for what it deleted (Redis 7.0's
    restoreCommand)."""
    with debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call("CONFIG", "SET", "notify-keyspace-events", "Egx") == "OK"
        assert c.call("SET", "src", "v") == "OK"
        payload = c.call("DUMP", "src")
        sub = _subscriber(debug_sluiced.port, 2)
        for key in ("f", "g"):
            assert c.call("SET", key, "old", "PX", "100") == "OK"
        # The clock moves and RESTORE runs in one pipeline: no expiry cycle comes between.
        past = clock.t0 + 50  # ms since the epoch, past once the clock moved by 101
        c.send(servers.encode("DEBUG", "CLOCK", "ADVANCE", "101") +
               servers.encode("RESTORE", "f", "0", payload, "REPLACE") +
               servers.encode("RESTORE", "g", past, payload, "ABSTTL", "REPLACE"))
        assert [c.read() for _ in range(3)] == ["OK", "OK", "OK"]
        c.call("PUBLISH", SENTINEL, "x")
        assert _decoded(_drain(sub)) == [("__keyevent@0__:expire", "f"),
                                         ("__keyevent@0__:expire", "g"),
                                         ("__keyevent@0__:restore", "f"),
                                         ("__keyevent@0__:del", "g")]
        assert c.call("GET", "f") == b"v" and c.call("EXISTS", "g") == 0
        sub.close()


def test_limiter_commands_send_class_d_events(debug_sluiced):
    with debug_sluiced.client() as c:
        Clock(c)
        assert c.call("CONFIG", "SET", "notify-keyspace-events", "KEd") == "OK"
        sub = _subscriber(debug_sluiced.port, 2)
        assert c.call("RL.FIXEDWINDOW", "fw", "1", "1000")[0] == 1
        assert c.call("RL.FIXEDWINDOW", "fw", "1", "1000")[0] == 0
        assert c.call("CL.THROTTLE", "cl", "0", "1", "1")[0] == 0
        assert c.call("RL.POLICY", "SET", "api", "TOKENBUCKET", "5", "1", "1000") == "OK"
        assert c.call("RL.TAKE", "tk", "api")[0] == 1
        assert c.call("RL.STATUS", "tk", "api")[0] == 1
        assert c.call("RL.RESET", "tk") == 1
        assert c.call("RL.RESET", "tk") == 0
        assert c.call("SET", "s", "v") == "OK"  # class $ is off
        c.call("PUBLISH", SENTINEL, "x")
        got = _decoded(_drain(sub))
        fixed = [("__keyspace@0__:fw", "rl.fixedwindow"), ("__keyevent@0__:rl.fixedwindow", "fw")]
        assert got[:2] == fixed
        assert ("__keyevent@0__:cl.throttle", "cl") in got
        assert ("__keyevent@0__:rl.take", "tk") in got
        assert got[-2:] == [("__keyspace@0__:tk", "rl.reset"), ("__keyevent@0__:rl.reset", "tk")]
        assert not any("rl.status" in channel + payload for channel, payload in got)
        assert not any(payload == "s" or channel.endswith(":s") for channel, payload in got)
        sub.close()


def test_config_file_sets_the_classes(sluiced_factory):
    server = sluiced_factory(notify_keyspace_events="Egx")
    with server.client() as c:
        assert c.call("CONFIG", "GET", "notify-keyspace-events") == [b"notify-keyspace-events",
                                                                      b"gxE"]
        sub = _subscriber(server.port, 2)
        c.call("SET", "k", "v")
        c.call("DEL", "k")
        c.call("PUBLISH", SENTINEL, "x")
        assert _decoded(_drain(sub)) == [("__keyevent@0__:del", "k")]
        sub.close()


def test_own_events_are_sent_while_replies_are_off_as_redis(pair_servers):
    got = {}
    for server in pair_servers:
        with servers.RespClient(server.port) as c:
            c.call("HELLO", "3")
            c.call("CONFIG", "SET", "notify-keyspace-events", "KEA")
            c.call("SUBSCRIBE", "__keyspace@0__:k")
            for cmd in [("CLIENT", "REPLY", "OFF"), ("SET", "k", "v"), ("CLIENT", "REPLY", "SKIP"),
                        ("DEL", "k"), ("CLIENT", "REPLY", "ON")]:
                c.send(servers.encode(*cmd))
            got[server.port] = [c.read_raw() for _ in range(3)]  # two events, then +OK
    theirs, ours = (got[server.port] for server in pair_servers)
    assert ours == theirs
    assert ours[2] == b"+OK\r\n"
