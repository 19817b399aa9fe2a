"""Deleting a large composite key never stalls the loop: DEL of a 1,000,000-member sorted set is
one metadata write (its elements become garbage under an old version, untouched: DEBUG
RAWSUBKEYS, which counts the raw element entries on disk, is the same after it), and DEBUG
COMPACT reclaims their space.

Nothing here is timed, and what the tests check does not depend on the count: a sanitizer build
runs them on a twentieth of the elements (building a million members takes it over a minute),
the release build on all of them.
"""

import servers

SCALE = 20 if servers.sluiced_is_sanitized() else 1  # divides the tests' sizes
MEMBERS = 1_000_000 // SCALE
PER_COMMAND = 2000


def _build_zset(client, key, members, prefix):
    """Pipelined ZADDs of PER_COMMAND members each, sent in chunks, replies read after each."""
    batch = []
    sent = 0
    for start in range(0, members, PER_COMMAND):
        args = ["ZADD", key]
        for i in range(start, min(start + PER_COMMAND, members)):
            args += [str(i % 9973), f"{prefix}{i:07d}"]
        batch.append(servers.encode(*args))
        if len(batch) == 50:
            client.send(b"".join(batch))
            sent += len(batch)
            for _ in batch:
                reply = client.read()
                assert isinstance(reply, int), reply
            batch = []
    if batch:
        client.send(b"".join(batch))
        for _ in batch:
            assert isinstance(client.read(), int)


def test_del_of_a_million_member_zset_touches_no_member_and_compaction_reclaims_it(debug_sluiced):
    with debug_sluiced.client() as c:
        _build_zset(c, "big", MEMBERS, "member:")
        assert c.call("ZCARD", "big") == MEMBERS
        assert c.call("ZRANGE", "big", "0", "2") == [b"member:0000000", b"member:0009973",
                                                      b"member:0019946"]
        # Score 9972: every 9973rd member from member:0009972 (100 of a million).
        assert c.call("ZCOUNT", "big", "(9971", "+inf") == len(range(9972, MEMBERS, 9973))
        assert c.call("SET", "small", "v") == "OK"
        assert c.call("DEBUG", "COMPACT") == "OK"
        before = c.call("DEBUG", "RAWSUBKEYS")
        assert before == 2 * MEMBERS  # member -> score, and the score index

        assert c.call("DEL", "big") == 1
        # One metadata write: no element entry was deleted (a deleted one would leave the count).
        assert c.call("DEBUG", "RAWSUBKEYS") == before
        assert c.call("EXISTS", "big") == 0
        assert c.call("ZCARD", "big") == 0
        # The loop is not stalled: other commands answer at once.
        assert c.call("GET", "small") == b"v"
        # A new key under the same name sees none of the old members.
        assert c.call("ZADD", "big", "1", "fresh") == 1
        assert c.call("ZRANGE", "big", "0", "-1") == [b"fresh"]

        # The old entries are still on disk; the new one-member set lives in its record.
        assert c.call("DEBUG", "RAWSUBKEYS") == before
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 0
        assert c.call("ZRANGE", "big", "0", "-1", "WITHSCORES") == [b"fresh", b"1"]


def test_unlink_overwrite_and_expiry_of_large_keys(debug_sluiced):
    with debug_sluiced.client() as c:
        zset, hash_, list_ = 100_000 // SCALE, 50_000 // SCALE, 50_000 // SCALE
        _build_zset(c, "z", zset, "m")
        fields = ["HSET", "h"]
        for i in range(hash_):
            fields += [f"f{i}", "x"]
        assert c.call(*fields) == hash_
        assert c.call("RPUSH", "l", *[str(i) for i in range(list_)]) == list_
        assert c.call("DEBUG", "RAWSUBKEYS") == 2 * zset + hash_ + list_

        assert c.call("UNLINK", "z") == 1
        assert c.call("SET", "h", "now a string") == "OK"  # overwrite: the fields are orphaned
        assert c.call("DEBUG", "CLOCK", "FREEZE") == "OK"
        assert c.call("PEXPIRE", "l", "1000") == 1
        assert c.call("DEBUG", "CLOCK", "ADVANCE", "1001") == "OK"
        assert c.call("LLEN", "l") == 0
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 0
        assert c.call("GET", "h") == b"now a string"


def test_rename_of_a_large_hash_carries_its_fields_and_ttl(debug_sluiced):
    with debug_sluiced.client() as c:
        fields = ["HSET", "src"]
        for i in range(20_000):
            fields += [f"f{i}", str(i)]
        assert c.call(*fields) == 20_000
        assert c.call("EXPIRE", "src", "1000") == 1
        assert c.call("RENAME", "src", "dst") == "OK"
        assert c.call("HLEN", "dst") == 20_000
        assert c.call("HGET", "dst", "f19999") == b"19999"
        assert 990 <= c.call("TTL", "dst") <= 1000
        assert c.call("EXISTS", "src") == 0
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 20_000


def test_expiry_commands_on_a_long_string_rewrite_only_its_record(debug_sluiced):
    """A string over 16 KB keeps its bytes in element entries, chunks of 4 KB. EXPIRE and its
    kin, PERSIST and GETEX change the key's record alone: no new copy of the bytes appears
    (DEBUG RAWSUBKEYS before any compaction), and the bytes stay the key's through MULTI, a
    restart and a compaction."""
    value = bytes(range(256)) * 4096  # 1 MB
    with debug_sluiced.client() as c:
        assert c.call("SET", "long", value) == "OK"
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 256
        assert c.call("EXPIRE", "long", "1000") == 1
        assert c.call("PEXPIRE", "long", "2000000", "GT") == 1
        assert c.call("EXPIREAT", "long", "4000000000") == 1
        assert c.call("PERSIST", "long") == 1
        assert c.call("GETEX", "long", "EX", "3000") == value
        assert c.call("GETEX", "long", "PERSIST") == value
        assert c.call("PEXPIREAT", "long", "4000000000000") == 1
        assert c.call("MULTI") == "OK"
        assert c.call("SET", "staged", value + b"!") == "QUEUED"
        assert c.call("EXPIRE", "staged", "5000") == "QUEUED"
        assert c.call("GET", "staged") == "QUEUED"
        assert c.call("EXEC") == ["OK", 1, value + b"!"]
        # One copy of each string (256 and 257 chunks): a rewrite of the bytes would have left
        # the old copies.
        assert c.call("DEBUG", "RAWSUBKEYS") == 513
        assert c.call("STRLEN", "long") == len(value)
        assert c.call("OBJECT", "ENCODING", "long") == b"raw"
        assert c.call("MEMORY", "USAGE", "long") > len(value)
    debug_sluiced.restart()
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 513
        assert c.call("GET", "long") == value
        assert c.call("PEXPIRETIME", "long") == 4000000000000
        assert c.call("GETRANGE", "staged", "-2", "-1") == value[-1:] + b"!"
        assert 4990 <= c.call("TTL", "staged") <= 5000
