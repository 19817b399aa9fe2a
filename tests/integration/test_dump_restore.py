"""DUMP and RESTORE against Redis 7.0: values of every type, in every encoding Redis writes
(listpacks, intsets, quicklists, LZF-compressed strings, plain dictionaries, skiplists), move
from redis-server to sluiced and from sluiced to redis-server and read back the same; RESTORE's
options, TTLs and errors are compared byte for byte; a limiter's state moves between sluice
keys, and Redis refuses it; redis-server's MIGRATE moves keys into sluiced."""

import struct

import pytest

import servers

# One key per type and encoding Redis 7.0 gives it (its defaults: listpacks up to 128 entries
# of up to 64 bytes, intsets up to 512 members, 8 KB quicklist nodes).
POPULATE = [
    ("SET", "str", "hello"), ("SET", "int", "12345"), ("SET", "neg", "-70000"),
    ("SET", "max", "9223372036854775807"), ("SET", "lzf", "abc" * 200),
    ("SET", "bin", b"\x00\xff\r\n" * 50), ("SET", "empty", ""),
    ("SET", "huge", "".join(chr(33 + (i * 7919) % 90) for i in range(70000))),
    ("PFADD", "hll", *[f"e{i}" for i in range(50)]),
    ("RPUSH", "list", "a", "", "1", "-5", "300000", "-70000", "3000000000", "x" * 70, "12"),
    ("RPUSH", "shortlist", "a", "", "1", "-5", "3000000000", "y" * 64),  # in sluice's record
    ("RPUSH", "biglist", *[f"element-{i}-" + "y" * (i % 90) for i in range(1500)]),
    ("SADD", "intset", "1", "2", "-3", "70000", "5000000000"),
    ("SADD", "bigintset", *[str(i * 3) for i in range(600)]),
    ("SADD", "set", "a", "b", "c"),
    ("ZADD", "zset", "1", "a", "2.5", "b", "-3", "c", "inf", "d", "-inf", "e", "1e300", "f"),
    ("ZADD", "bigzset", *[x for i in range(300) for x in (str(i / 7), f"m{i}")]),
    ("GEOADD", "geo", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"),
    ("HSET", "hash", "f", "v", "n", "5", "empty", ""),
    ("HSET", "bighash", *[x for i in range(700) for x in (f"field{i}", f"value{i}" * (i % 5))]),
]

KEYS = ["str", "int", "neg", "max", "lzf", "bin", "empty", "huge", "hll", "list", "shortlist",
        "biglist", "intset", "bigintset", "set", "zset", "bigzset", "geo", "hash", "bighash"]


def read_back(client, key):
    """The key's type and whole value, in an order that does not depend on the server."""
    kind = client.call("TYPE", key)
    if kind == "string":
        return kind, client.call("GET", key)
    if kind == "list":
        return kind, client.call("LRANGE", key, "0", "-1")
    if kind == "set":
        return kind, sorted(client.call("SMEMBERS", key))
    if kind == "zset":
        return kind, client.call("ZRANGE", key, "0", "-1", "WITHSCORES")
    if kind == "hash":
        fields = client.call("HGETALL", key)
        if isinstance(fields, servers.Map):  # RESP3
            return kind, sorted(fields.as_dict().items())
        return kind, sorted(zip(fields[::2], fields[1::2]))
    return kind, None


def move_all(source, target):
    for cmd in POPULATE:
        source.call(*cmd)
    for key in KEYS:
        payload = source.call("DUMP", key)
        assert isinstance(payload, bytes), key
        assert target.call("RESTORE", key, "0", payload) == "OK", key
    for key in KEYS:
        assert read_back(target, key) == read_back(source, key), key
    assert target.call("PFCOUNT", "hll") == source.call("PFCOUNT", "hll") == 50
    assert target.call("GEODIST", "geo", "Palermo", "Catania") == \
        source.call("GEODIST", "geo", "Palermo", "Catania")
    assert target.call("DBSIZE") == len(KEYS)


def test_redis_values_restore_into_sluice(diff):
    move_all(diff.redis, diff.sluice)


def test_sluice_values_restore_into_redis(diff):
    move_all(diff.sluice, diff.redis)


def crc64_jones(data):
    """Redis's CRC-64 (reflected Jones polynomial), to seal payloads this test builds."""
    poly = int(f"{0xad93d23594c935a9:064b}"[::-1], 2)
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return crc


def sealed(body, version=10):
    payload = body + struct.pack("<H", version)
    return payload + struct.pack("<Q", crc64_jones(payload))


def test_restore_options_ttls_and_errors_as_redis(diff):
    hello = sealed(b"\x00\x05hello")
    diff.run([
        ("DUMP", "nope"), ("SET", "s", "v"),
        ("RESTORE", "k", "0", hello), ("GET", "k"), ("TTL", "k"),
        ("RESTORE", "k", "0", hello),  # BUSYKEY
        ("RESTORE", "s", "0", hello, "REPLACE"), ("GET", "s"),
        ("RESTORE", "t", "100000", hello), ("TTL", "t"),
        ("RESTORE", "a", "4102444800000", hello, "ABSTTL"), ("EXPIRETIME", "a"),
        # A TTL already past restores nothing; with REPLACE the old key is deleted.
        ("RESTORE", "gone", "1", hello, "ABSTTL"), ("EXISTS", "gone"),
        ("RESTORE", "s", "1", hello, "ABSTTL", "REPLACE"), ("EXISTS", "s"),
        ("RESTORE", "i", "0", hello, "IDLETIME", "100"), ("RESTORE", "f", "0", hello, "FREQ", "5"),
        ("RESTORE", "x", "0", hello, "IDLETIME", "-1"), ("RESTORE", "x", "0", hello, "IDLETIME", "a"),
        ("RESTORE", "x", "0", hello, "FREQ", "256"), ("RESTORE", "x", "0", hello, "FREQ", "-1"),
        ("RESTORE", "x", "0", hello, "IDLETIME", "1", "FREQ", "1"),
        ("RESTORE", "x", "0", hello, "FREQ", "1", "IDLETIME", "1"),
        ("RESTORE", "x", "0", hello, "IDLETIME"), ("RESTORE", "x", "0", hello, "BOGUS"),
        ("RESTORE", "x", "-1", hello), ("RESTORE", "x", "1.5", hello),
        ("RESTORE", "k", "x", hello),  # BUSYKEY comes before the TTL's error
        ("RESTORE", "x", "0", hello[:-1] + bytes([hello[-1] ^ 1])),
        ("RESTORE", "x", "0", sealed(b"\x00\x05hello", version=11)),
        ("RESTORE", "x", "0", "short"), ("RESTORE", "x", "0", ""),
        ("RESTORE", "x", "0", sealed(b"\x00\x20hell")),     # longer than the payload
        ("RESTORE", "x", "0", sealed(b"\x02\x00")),          # an empty set
        ("RESTORE", "x", "0", sealed(b"\x0f\x00")),          # a stream
        ("RESTORE", "x", "0", sealed(b"\x0a\x00")),          # Redis 6's ziplist list
        ("EXISTS", "x"),
        # A body is read from the whole payload, as Redis reads it: a string cut short reads on
        # into the footer ("hell" and the version's low byte), bytes left over are ignored.
        ("RESTORE", "cut", "0", sealed(b"\x00\x05hell")), ("GET", "cut"),
        ("RESTORE", "over", "0", sealed(b"\x00\x01ab")), ("GET", "over"), ("RESTORE",), ("RESTORE", "x", "0"), ("DUMP",), ("DUMP", "a", "b"),
        ("DBSIZE",),
    ])
    diff.check("PTTL", "t", clock=True)
    diff.assert_same()


def test_a_member_twice_is_refused(sluiced):
    """Redis 7.0 checks this only with sanitize-dump-payload (its small hashes and sets take the
    duplicate otherwise, and HLEN then counts it); sluice always refuses it."""
    with sluiced.client() as c:
        for body in (b"\x04\x02\x01a\x01b\x01a\x01c", b"\x02\x02\x01a\x01a",
                     b"\x05\x02\x01a" + struct.pack("<d", 1) + b"\x01a" + struct.pack("<d", 2)):
            assert c.call("RESTORE", "x", "0", sealed(body)) == "ERR Bad data format"
        assert c.call("EXISTS", "x") == 0


def test_restore_breaks_a_watch_and_replaces_any_type(pair):
    a, b = pair
    hello = sealed(b"\x00\x05hello")
    a.run([("RPUSH", "w", "x"), ("WATCH", "w")])
    b.run([("RESTORE", "w", "0", hello, "REPLACE"), ("TYPE", "w"), ("GET", "w")])
    a.run([("MULTI",), ("GET", "w"), ("EXEC",)])
    a.assert_same()
    b.assert_same()


def test_a_limiter_moves_between_sluice_keys_and_redis_refuses_it(sluiced, redis_server):
    with sluiced.client() as c, redis_server.client() as r:
        assert c.call("RL.FIXEDWINDOW", "lim", "3", "60000")[0] == 1
        c.call("RL.FIXEDWINDOW", "lim", "3", "60000")
        payload = c.call("DUMP", "lim")
        ttl = c.call("PTTL", "lim")
        assert c.call("RESTORE", "copy", str(ttl), payload) == "OK"
        assert c.call("TYPE", "copy") == c.call("TYPE", "lim")
        # Two of three taken in the copy too: one left, then refused.
        assert c.call("RL.FIXEDWINDOW", "copy", "3", "60000")[0] == 1
        assert c.call("RL.FIXEDWINDOW", "copy", "3", "60000")[0] == 0
        assert r.call("RESTORE", "lim", "0", payload) == "ERR Bad data format"
        # A limiter payload is checked as the limiter commands would read it.
        for junk in (b"", b"xyz", b"\x01" * 7, payload[1:3]):
            body = bytes([100, len(junk)]) + junk
            assert c.call("RESTORE", "junk", "0", sealed(body)) == "ERR Bad data format"
        assert c.call("EXISTS", "junk") == 0
        # RL.TAKE's states of several policies under one key move too.
        assert c.call("RL.POLICY", "SET", "p1", "FIXEDWINDOW", "5", "60000") == "OK"
        assert c.call("RL.TAKE", "multi", "p1")[0] == 1
        multi = c.call("DUMP", "multi")
        assert c.call("RESTORE", "multi2", "0", multi) == "OK"
        # Both at 2 of 5 taken: allowed, the limit, the same remaining.
        assert c.call("RL.TAKE", "multi2", "p1")[:3] == c.call("RL.TAKE", "multi", "p1")[:3]


def test_redis_migrates_keys_into_sluice(sluiced_factory, redis_server):
    """redis-server's own MIGRATE (AUTH2, SELECT, then RESTORE with the TTL) moves keys into a
    sluiced that has a password, in a numbered database, and refuses to overwrite without
    REPLACE, as between two Redis servers."""
    sluiced = sluiced_factory()
    with sluiced.client() as c, redis_server.client() as r:
        assert c.call("ACL", "SETUSER", "mover", "on", ">pw", "~*", "+@all") == "OK"
        for cmd in POPULATE:
            r.call(*cmd)
        assert r.call("PEXPIRE", "hash", "500000") == 1
        expected = {key: read_back(r, key) for key in KEYS}
        port = str(sluiced.port)
        assert r.call("MIGRATE", "127.0.0.1", port, "", "3", "5000", "AUTH2", "mover", "pw",
                      "KEYS", *KEYS) == "OK"
        assert r.call("EXISTS", *KEYS) == 0  # moved, not copied
        assert c.call("SELECT", "3") == "OK"
        assert {key: read_back(c, key) for key in KEYS} == expected
        assert 490000 < c.call("PTTL", "hash") <= 500000
        assert c.call("TTL", "str") == -1
        r.call("SET", "str", "again")
        assert r.call("MIGRATE", "127.0.0.1", port, "str", "3", "5000", "AUTH2", "mover", "pw") \
            == "ERR Target instance replied with error: BUSYKEY Target key name already exists."
        assert r.call("MIGRATE", "127.0.0.1", port, "str", "3", "5000", "COPY", "REPLACE",
                      "AUTH2", "mover", "pw") == "OK"
        assert c.call("GET", "str") == b"again" and r.call("GET", "str") == b"again"
