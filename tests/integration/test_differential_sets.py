"""Set commands (SADD and friends, the algebra, SINTERCARD, SSCAN): the same sequences sent to
redis-server and sluiced, every reply compared to the byte in RESP2 and after HELLO 3, except
where Redis defines no order (SMEMBERS and the algebra of a set that is not an intset, compared
as multisets of the same RESP type: see composite_diff.py) and where the reply is random
(SPOP and SRANDMEMBER with a count below the size: checked by property on each server).
"""

import random

import pytest

import servers
from composite_diff import random_sequences, run
from frozen_clock import Clock

I64_MAX = "9223372036854775807"
I64_MIN = "-9223372036854775808"


def test_sadd_srem_scard_ismember(diff):
    run(diff, [
        ("SADD", "s", "a", "b", "c"), ("SADD", "s", "a", "d", "a"), ("SCARD", "s"),
        ("SISMEMBER", "s", "a"), ("SISMEMBER", "s", "zz"), ("SISMEMBER", "nope", "a"),
        ("SMISMEMBER", "s", "a", "zz", "d", "a"), ("SMISMEMBER", "nope", "a", "b"),
        ("SMEMBERS", "s"), ("SMEMBERS", "nope"), ("SCARD", "nope"), ("TYPE", "s"),
        ("SREM", "s", "a", "a", "zz"), ("SREM", "s", "zz"), ("SREM", "nope", "a"), ("SCARD", "s"),
        ("SREM", "s", "b", "c", "d"), ("EXISTS", "s"), ("TYPE", "s"), ("SMEMBERS", "s"),
        ("SADD", "b", "", b"bin\x00\r\n", b"\xff\x00", "x" * 100), ("SISMEMBER", "b", ""),
        ("SISMEMBER", "b", b"bin\x00\r\n"), ("SMISMEMBER", "b", b"\xff\x00", b"\xff"),
        ("SMEMBERS", "b"), ("SCARD", "b"),
        # Integers: an intset, replied in numeric order by both.
        ("SADD", "i", "10", "2", "-3", "0", I64_MAX, I64_MIN, "100"), ("SMEMBERS", "i"),
        ("SADD", "i", "07"), ("SMEMBERS", "i"),
    ])
    diff.assert_same()


def test_arity_errors(diff):
    run(diff, [
        ("SADD",), ("SADD", "s"), ("SREM", "s"), ("SCARD",), ("SCARD", "s", "x"),
        ("SISMEMBER", "s"), ("SISMEMBER", "s", "a", "b"), ("SMISMEMBER", "s"), ("SMEMBERS",),
        ("SMEMBERS", "s", "x"), ("SRANDMEMBER",), ("SPOP",), ("SMOVE", "s", "d"),
        ("SMOVE", "s", "d", "m", "x"), ("SINTER",), ("SUNION",), ("SDIFF",),
        ("SINTERSTORE", "d"), ("SUNIONSTORE", "d"), ("SDIFFSTORE", "d"), ("SINTERCARD",),
        ("SINTERCARD", "1"), ("SSCAN", "s"), ("SSCAN",), ("sadd", "s"), ("SaDd",),
    ])
    diff.assert_same()


def test_wrongtype_both_ways(diff):
    run(diff, [
        ("SET", "str", "v"), ("HSET", "h", "f", "v"), ("ZADD", "z", "1", "m"), ("RPUSH", "l", "x"),
        ("SADD", "s", "a"),
        *[(cmd, key, *rest) for key in ("str", "h", "z", "l") for cmd, *rest in [
            ("SADD", "a"), ("SREM", "a"), ("SCARD",), ("SISMEMBER", "a"), ("SMISMEMBER", "a"),
            ("SMEMBERS",), ("SRANDMEMBER",), ("SRANDMEMBER", "0"), ("SRANDMEMBER", "-1"),
            ("SRANDMEMBER", "3"), ("SPOP",), ("SPOP", "0"), ("SPOP", "2"), ("SSCAN", "0"),
            ("SSCAN", "0", "COUNT", "0"),
        ]],
        ("GET", "s"), ("HGET", "s", "f"), ("ZADD", "s", "1", "m"), ("LPUSH", "s", "x"),
        ("INCR", "s"), ("APPEND", "s", "x"), ("ZRANGE", "s", "0", "-1"), ("HSET", "s", "f", "v"),
        ("LLEN", "s"), ("ZRANGESTORE", "d", "s", "0", "-1"), ("SET", "s", "now"), ("TYPE", "s"),
        ("GET", "s"), ("SCARD", "s"),
    ])
    diff.assert_same()


SETUP = [
    ("SADD", "a", "x", "y", "z"), ("SADD", "b", "y", "z", "w"), ("SADD", "c", "z", "v"),
    ("SADD", "i", "1", "2", "3", "10"), ("SADD", "j", "3", "10", "20"),
    ("SET", "str", "plain"), ("HSET", "h", "f", "v"),
]


def test_algebra_replies(diff):
    run(diff, SETUP + [
        ("SINTER", "a", "b"), ("SINTER", "a", "b", "c"), ("SINTER", "a"), ("SINTER", "a", "a"),
        ("SINTER", "a", "nope"), ("SINTER", "nope"), ("SINTER", "i", "j"), ("SINTER", "j", "i"),
        ("SUNION", "a", "b"), ("SUNION", "a", "b", "c", "nope"), ("SUNION", "nope"),
        ("SUNION", "i", "j"), ("SUNION", "a", "i"), ("SUNION", "a", "a"),
        ("SDIFF", "a", "b"), ("SDIFF", "b", "a", "c"), ("SDIFF", "a"), ("SDIFF", "a", "a"),
        ("SDIFF", "nope", "a"), ("SDIFF", "a", "nope"), ("SDIFF", "i", "j"), ("SDIFF", "j", "i"),
        ("SDIFF", "a", "b", "a"),
        # Another type is WRONGTYPE wherever it is, also after a missing key.
        ("SINTER", "a", "str"), ("SINTER", "nope", "str"), ("SINTER", "str", "nope"),
        ("SINTER", "a", "nope", "h"), ("SUNION", "nope", "str"), ("SUNION", "a", "h"),
        ("SDIFF", "str", "nope"), ("SDIFF", "nope", "str"), ("SDIFF", "a", "nope", "h"),
    ])
    diff.assert_same()


def test_store_forms_replace_the_destination(diff):
    run(diff, SETUP + [
        ("SINTERSTORE", "d", "a", "b"), ("SMEMBERS", "d"), ("TYPE", "d"),
        ("SUNIONSTORE", "d", "a", "b", "c"), ("SMEMBERS", "d"), ("SCARD", "d"),
        ("SDIFFSTORE", "d", "b", "a"), ("SMEMBERS", "d"),
        ("SUNIONSTORE", "n", "i", "j"), ("SMEMBERS", "n"), ("OBJECT", "ENCODING", "n"),
        # Of another type, with a TTL: replaced, and the TTL goes.
        ("SET", "t", "v", "EX", "1000"), ("SUNIONSTORE", "t", "a"), ("TTL", "t"), ("TYPE", "t"),
        ("SMEMBERS", "t"), ("HSET", "h2", "f", "v"), ("SINTERSTORE", "h2", "a", "c"),
        ("TYPE", "h2"), ("SADD", "u", "old"), ("EXPIRE", "u", "1000"), ("SDIFFSTORE", "u", "c"),
        ("TTL", "u"), ("SMEMBERS", "u"),
        # The destination is one of the sources.
        ("SUNIONSTORE", "a", "a", "b"), ("SMEMBERS", "a"), ("SINTERSTORE", "b", "a", "b", "c"),
        ("SMEMBERS", "b"), ("SDIFFSTORE", "c", "c", "b"), ("SMEMBERS", "c"),
        # An empty result deletes the destination (of any type); a missing one stays missing.
        ("SINTERSTORE", "a", "a", "nope"), ("EXISTS", "a"), ("SUNIONSTORE", "str", "nope"),
        ("EXISTS", "str"), ("SDIFFSTORE", "b", "b", "b"), ("EXISTS", "b"),
        ("SUNIONSTORE", "never", "nope", "nope2"), ("SINTERSTORE", "never", "nope"),
        ("SDIFFSTORE", "never", "nope", "c"), ("EXISTS", "never"),
        # Errors write nothing.
        ("SINTERSTORE", "c", "c", "h"), ("SUNIONSTORE", "c", "nope", "h"),
        ("SDIFFSTORE", "c", "h"), ("SMEMBERS", "c"), ("DBSIZE",),
    ])
    diff.assert_same()


def test_sintercard(diff):
    run(diff, SETUP + [
        ("SINTERCARD", "2", "a", "b"), ("SINTERCARD", "3", "a", "b", "c"), ("SINTERCARD", "1", "a"),
        ("SINTERCARD", "2", "a", "nope"), ("SINTERCARD", "1", "nope"),
        ("SINTERCARD", "2", "a", "b", "LIMIT", "1"), ("SINTERCARD", "2", "a", "b", "limit", "0"),
        ("SINTERCARD", "2", "a", "b", "LIMIT", "5"), ("SINTERCARD", "2", "i", "j", "LIMIT", "1"),
        ("SINTERCARD", "2", "a", "b", "LIMIT", "1", "LIMIT", "0"),
        ("SINTERCARD", "1", "a", "LIMIT", I64_MAX),
        # The count, then the options, then the keys' types.
        ("SINTERCARD", "0", "a"), ("SINTERCARD", "-1", "a"), ("SINTERCARD", "x", "a"),
        ("SINTERCARD", "1.5", "a"), ("SINTERCARD", "9223372036854775808", "a"),
        ("SINTERCARD", "3", "a", "b"), ("SINTERCARD", "2", "a"), ("SINTERCARD", "1", "a", "b"),
        ("SINTERCARD", "1", "a", "LIMIT"), ("SINTERCARD", "1", "a", "LIMIT", "-1"),
        ("SINTERCARD", "1", "a", "LIMIT", "x"), ("SINTERCARD", "1", "a", "LIMIT", "1", "x"),
        ("SINTERCARD", "1", "a", "LIMIT", "9223372036854775808"),
        ("SINTERCARD", "2", "a", "str"), ("SINTERCARD", "2", "nope", "str"),
        ("SINTERCARD", "2", "a", "str", "LIMIT", "x"), ("SINTERCARD", "1", "str", "bogus"),
    ])
    diff.assert_same()


def test_smove(diff):
    run(diff, [
        ("SADD", "s", "1", "2", "3"), ("SET", "str", "x"),
        # A missing source is 0 whatever the destination is; then both types are checked.
        ("SMOVE", "nope", "str", "m"), ("SMOVE", "s", "str", "1"), ("SMOVE", "str", "s", "1"),
        ("SMOVE", "str", "nope", "1"),
        # Onto itself: whether the member is there.
        ("SMOVE", "s", "s", "1"), ("SMOVE", "s", "s", "9"), ("SMEMBERS", "s"),
        ("SMOVE", "s", "d", "9"), ("EXISTS", "d"), ("SMOVE", "s", "d", "1"), ("SMEMBERS", "s"),
        ("SMEMBERS", "d"), ("SADD", "s", "1"), ("SMOVE", "s", "d", "1"), ("SMEMBERS", "d"),
        ("SMEMBERS", "s"), ("SMOVE", "s", "d", "2"), ("SMOVE", "s", "d", "3"), ("EXISTS", "s"),
        ("SMEMBERS", "d"), ("SCARD", "d"), ("OBJECT", "ENCODING", "d"),
        ("SADD", "e", "x"), ("EXPIRE", "e", "1000"), ("SMOVE", "d", "e", "1"), ("TTL", "e"),
        ("SMEMBERS", "e"),
    ])
    diff.assert_same()


def test_spop_and_srandmember_determined_replies(diff):
    """Errors (in Redis's order), missing keys, other types, count 0, a one-member set and a
    count that takes the whole set."""
    run(diff, [
        ("SPOP", "nope"), ("SPOP", "nope", "0"), ("SPOP", "nope", "3"), ("SRANDMEMBER", "nope"),
        ("SRANDMEMBER", "nope", "0"), ("SRANDMEMBER", "nope", "5"), ("SRANDMEMBER", "nope", "-5"),
        ("SRANDMEMBER", "nope", "-9223372036854775807"),
        ("SADD", "one", "m"), ("SRANDMEMBER", "one"), ("SRANDMEMBER", "one", "1"),
        ("SRANDMEMBER", "one", "-1"), ("SRANDMEMBER", "one", "-3"), ("SRANDMEMBER", "one", "5"),
        ("SRANDMEMBER", "one", I64_MAX), ("SRANDMEMBER", "one", "0"),
        # Errors: more arguments first, then the count (SPOP's own text for any bad count).
        ("SRANDMEMBER", "one", "1", "x"), ("SRANDMEMBER", "one", "abc", "x"),
        ("SRANDMEMBER", "one", "abc"), ("SRANDMEMBER", "one", I64_MIN),
        ("SRANDMEMBER", "one", "9223372036854775808"), ("SRANDMEMBER", "one", "+1"),
        ("SRANDMEMBER", "one", "01"), ("SRANDMEMBER", "one", " 1"),
        ("SRANDMEMBER", "one", "1", "WITHSCORES"), ("SRANDMEMBER", "nope", "abc"),
        ("SPOP", "one", "1", "x"), ("SPOP", "one", "abc", "x"), ("SPOP", "one", "-1"),
        ("SPOP", "one", "abc"), ("SPOP", "one", "+1"), ("SPOP", "one", "01"), ("SPOP", "one", "-0"),
        ("SPOP", "one", "9223372036854775808"), ("SPOP", "one", I64_MIN), ("SPOP", "nope", "-1"),
        ("SPOP", "one", "0"), ("SCARD", "one"),
        ("SET", "str", "x"), ("SPOP", "str", "x"), ("SRANDMEMBER", "str", "x"),
        ("SRANDMEMBER", "str", "-9223372036854775807"),
        # One member: SPOP takes it, and the key goes.
        ("SPOP", "one"), ("EXISTS", "one"), ("SADD", "one", "m"), ("SPOP", "one", "1"),
        ("EXISTS", "one"),
        # A count that takes the whole set (in an order Redis does not define).
        ("SADD", "s", "a", "b", "c", "d"), ("SRANDMEMBER", "s", "4"), ("SRANDMEMBER", "s", "100"),
        ("SPOP", "s", "4"), ("EXISTS", "s"), ("SADD", "s", "a", "b"),
        ("SPOP", "s", I64_MAX), ("EXISTS", "s"),
        ("SADD", "i", "3", "-1", "20"), ("SRANDMEMBER", "i", "3"), ("SPOP", "i", "3"),
    ])
    diff.assert_same()


# ---- SPOP and SRANDMEMBER where the reply is random: properties on each server -----------------

SMALL = ["a", "b", "", "c", "7", "x" * 70]


@pytest.fixture
def client(each_client):
    return each_client


def test_srandmember_counts_and_membership(client):
    c = client
    c.call("SADD", "s", *SMALL)
    c.call("SADD", "big", *[f"member:{i}" for i in range(300)])
    members = {m.encode() for m in SMALL}
    seen = set()
    for _ in range(60):
        one = c.call("SRANDMEMBER", "s")
        assert one in members
        seen.add(one)
        picked = c.call("SRANDMEMBER", "s", "4")
        assert type(picked) is list and len(picked) == 4 and len(set(picked)) == 4, picked
        assert set(picked) <= members
        seen.update(picked)
        repeats = c.call("SRANDMEMBER", "s", "-10")
        assert type(repeats) is list and len(repeats) == 10 and set(repeats) <= members
    assert seen == members  # the answer is not fixed
    big = {f"member:{i}".encode() for i in range(300)}
    picked = c.call("SRANDMEMBER", "big", "120")
    assert len(picked) == 120 and len(set(picked)) == 120 and set(picked) <= big
    repeats = c.call("SRANDMEMBER", "big", "-500")
    assert len(repeats) == 500 and set(repeats) <= big
    assert c.call("SCARD", "big") == 300  # nothing was taken


def test_spop_removes_what_it_returns(client):
    c = client
    left = {f"m{i}".encode() for i in range(400)}
    c.call("SADD", "s", *sorted(left))
    for count in [1, 3, 50, 150]:
        popped = c.call("SPOP", "s", str(count))
        assert isinstance(popped, servers.Set if c.protocol == 3 else list), popped
        assert len(popped) == count and len(set(popped)) == count, popped
        assert set(popped) <= left
        left -= set(popped)
        assert c.call("SCARD", "s") == len(left)
        assert c.call("SMISMEMBER", "s", *popped) == [0] * count
    one = c.call("SPOP", "s")
    assert isinstance(one, bytes) and one in left
    left.discard(one)
    assert set(c.call("SMEMBERS", "s")) == left
    rest = c.call("SPOP", "s", "1000")
    assert set(rest) == left and len(rest) == len(left)
    assert c.call("EXISTS", "s") == 0


def test_spop_one_by_one_with_other_changes_between(client):
    """SPOP of a large set draws members ahead for the pops after it (storage/draws_ahead.h):
    SADD, SREM, SMOVE and transactions between the pops leave every pop a member, taken once."""
    c = client
    left = {f"m{i:05d}".encode() for i in range(3000)}
    c.call("SADD", "s", *sorted(left))
    rng = random.Random(7)
    for step in range(2600):
        one = c.call("SPOP", "s")
        assert one in left, (step, one)
        left.discard(one)
        if step % 97 == 0:
            added = f"n{step}".encode()
            assert c.call("SADD", "s", added) == 1
            left.add(added)
        if step % 89 == 0:
            removed = sorted(left)[rng.randrange(len(left))]
            assert c.call("SREM", "s", removed) == 1
            left.discard(removed)
        if step % 101 == 0:
            moved = sorted(left)[rng.randrange(len(left))]
            assert c.call("SMOVE", "s", "d", moved) == 1
            left.discard(moved)
        if step % 211 == 0:
            c.call("MULTI")
            for cmd in (("SPOP", "s"), ("SADD", "s", "x"), ("SPOP", "s", "2")):
                c.call(*cmd)
            first, added, two = c.call("EXEC")
            assert first in left, (step, first)
            left.discard(first)
            left.add(b"x")
            for m in two:
                assert m in left, (step, m)
                left.discard(m)
    assert c.call("SCARD", "s") == len(left)
    assert set(c.call("SMEMBERS", "s")) == left


def test_srandmember_again_and_again_with_changes_between(client):
    """SRANDMEMBER of a large set draws picks ahead for the calls after it
    (storage/draws_ahead.h): every change of the set drops them, so every pick is a member."""
    c = client
    # Small enough that a pick held past a change would soon come out.
    left = {f"m{i:03d}".encode() for i in range(200)}
    c.call("SADD", "s", *sorted(left))
    rng = random.Random(11)
    for step in range(1500):
        assert c.call("SRANDMEMBER", "s") in left, step
        picks = c.call("SRANDMEMBER", "s", "-3")
        assert len(picks) == 3 and set(picks) <= left, (step, picks)
        change = step % 50
        if change == 5:
            c.call("MULTI")
            c.call("SPOP", "s")
            c.call("SRANDMEMBER", "s", "-5")
            popped, picked = c.call("EXEC")
            left.discard(popped)
            assert set(picked) <= left, (step, popped, picked)
        elif change == 10:
            popped = c.call("SPOP", "s")
            left.discard(popped)
        elif change == 20:
            removed = sorted(left)[rng.randrange(len(left))]
            assert c.call("SREM", "s", removed) == 1
            left.discard(removed)
        elif change == 30:
            moved = sorted(left)[rng.randrange(len(left))]
            assert c.call("SMOVE", "s", "d", moved) == 1
            left.discard(moved)
        elif change in (40, 45):
            added = f"n{step}".encode()
            assert c.call("SADD", "s", added) == 1
            left.add(added)
    assert c.call("SCARD", "s") == len(left)


# ---- SSCAN --------------------------------------------------------------------------------

def test_sscan_small_sets_come_whole(diff):
    run(diff, [
        ("SADD", "s", "c", "a", "b"), ("SSCAN", "s", "0"), ("SSCAN", "s", "0", "COUNT", "100"),
        ("SSCAN", "s", "0", "MATCH", "[ab]"), ("SSCAN", "s", "0", "MATCH", "nothing"),
        ("SADD", "i", *[str(n) for n in range(-20, 500, 3)]), ("SSCAN", "i", "0"),
        ("SSCAN", "i", "0", "COUNT", "1"), ("SSCAN", "i", "0", "MATCH", "1*"),
        ("SSCAN", "i", "0", "MATCH", "-*", "COUNT", "5"), ("SSCAN", "i", "0", "match", "*7"),
        ("SADD", "b", "", b"bin\x00\r\n"), ("SSCAN", "b", "0"),
        ("SSCAN", "b", "0", "MATCH", b"bin\x00*"),
        # Errors: the cursor first, then the key, then the options (none for a missing key).
        ("SSCAN", "s", "x"), ("SSCAN", "s", " 1"), ("SSCAN", "s", "0", "COUNT", "0"),
        ("SSCAN", "s", "0", "COUNT", "x"), ("SSCAN", "s", "0", "COUNT"),
        ("SSCAN", "s", "0", "MATCH"),
        ("SSCAN", "s", "0", "TYPE", "set"), ("SSCAN", "s", "0", "bogus"),
        ("SSCAN", "nope", "0"), ("SSCAN", "nope", "0", "COUNT", "0"), ("SSCAN", "nope", "x"),
        ("SET", "str", "v"), ("SSCAN", "str", "0"), ("SSCAN", "str", "x"),
    ])
    diff.assert_same()


def _whole_scan(client, key, *options):
    seen, cursor = [], b"0"
    for _ in range(10_000):
        cursor, page = client.call("SSCAN", key, cursor, *options)
        seen += page
        if cursor == b"0":
            return seen
    raise AssertionError("SSCAN never ended")


def test_sscan_of_a_large_set_returns_every_member(diff):
    """Pages differ (Redis walks its hash table): what a whole scan returns must not."""
    members = [f"member:{i:04}" for i in range(1500)]
    diff.check("SADD", "big", *members)
    for options in [(), ("COUNT", "7"), ("COUNT", "1000"), ("MATCH", "member:1*", "COUNT", "50")]:
        theirs = _whole_scan(diff.redis, "big", *options)
        ours = _whole_scan(diff.sluice, "big", *options)
        assert set(ours) == set(theirs), options
        assert len(ours) == len(set(ours)), "sluice returned a member twice"
    # Every member present from the scan's start to its end comes back, others change meanwhile.
    cursor, seen = b"0", set()
    for step in range(10_000):
        cursor, page = diff.sluice.call("SSCAN", "big", cursor, "COUNT", "40")
        seen.update(page)
        diff.sluice.call("SREM", "big", f"member:{(step * 37) % 1500:04}")
        diff.sluice.call("SADD", "big", f"new:{step}")
        if cursor == b"0":
            break
    kept = {m.encode() for i, m in enumerate(members)
            if diff.sluice.call("SISMEMBER", "big", m) == 1}
    assert kept <= seen


# ---- Keys: TYPE, SCAN TYPE, OBJECT ENCODING, RENAME, COPY, expiry ------------------------------

def test_scan_type_set(diff):
    run(diff, [("SADD", "s", "a"), ("SADD", "n", "1"), ("SET", "str", "v"), ("HSET", "h", "f", "v"),
               ("ZADD", "z", "1", "m")])
    diff.assert_same()
    for type_name, expected in [("set", [b"n", b"s"]), ("SET", [b"n", b"s"]), ("string", [b"str"]),
                                ("zset", [b"z"])]:
        for client in (diff.redis, diff.sluice):
            cursor, keys = client.call("SCAN", "0", "TYPE", type_name, "COUNT", "100")
            assert cursor == b"0" and sorted(keys) == expected, (client.port, type_name, keys)


def test_key_commands_on_sets(diff):
    ints = [str(i) for i in range(512)]
    run(diff, [
        ("SADD", "s", "a", "b"), ("SADD", "n", "1", "2", "-3"), ("TYPE", "s"), ("TYPE", "n"),
        ("SET", "str", "v"), ("HSET", "h", "f", "v"), ("OBJECT", "ENCODING", "s"),
        ("OBJECT", "ENCODING", "n"),
        ("SADD", "n", "-0"), ("OBJECT", "ENCODING", "n"), ("SREM", "n", "-0"),
        ("SADD", "big", I64_MAX, I64_MIN), ("OBJECT", "ENCODING", "big"),
        ("SADD", "over", "9223372036854775808"), ("OBJECT", "ENCODING", "over"),
        ("SADD", "m", *ints), ("OBJECT", "ENCODING", "m"), ("SADD", "m2", *ints, "512"),
        ("OBJECT", "ENCODING", "m2"), ("SADD", "lz", "01"), ("OBJECT", "ENCODING", "lz"),
        ("SADD", "long", "x" * 100), ("OBJECT", "ENCODING", "long"),
        # RENAME and COPY carry the members and the TTL.
        ("EXPIRE", "s", "1000"), ("RENAME", "s", "s2"), ("TTL", "s2"), ("SMEMBERS", "s2"),
        ("EXISTS", "s"), ("SISMEMBER", "s2", "a"), ("COPY", "s2", "s3"), ("TTL", "s3"),
        ("SADD", "s3", "c"), ("SMEMBERS", "s2"), ("SMEMBERS", "s3"), ("COPY", "n", "s3"),
        ("COPY", "n", "s3", "REPLACE"), ("SMEMBERS", "s3"), ("RENAMENX", "s3", "s2"),
        ("RENAME", "s3", "str"), ("TYPE", "str"), ("SMEMBERS", "str"),
        ("RENAME", "s2", "s2"), ("SMEMBERS", "s2"), ("PERSIST", "s2"), ("TTL", "s2"),
        ("DEL", "s2", "nope"), ("EXISTS", "s2"), ("SADD", "s2", "fresh"), ("SMEMBERS", "s2"),
        ("UNLINK", "str"), ("SMEMBERS", "str"), ("EXPIRE", "n", "0"), ("EXISTS", "n"),
        ("SADD", "e", "x"), ("PEXPIRE", "e", "-1"), ("SISMEMBER", "e", "x"),
        ("SADD", "e", "y"), ("EXPIREAT", "e", "1"), ("SCARD", "e"), ("DBSIZE",),
        ("SET", "m", "now a string"), ("TYPE", "m"), ("SCARD", "m"),
    ])
    diff.assert_same()


def test_set_keys_expire_on_the_test_clock(debug_sluiced):
    with debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call("SADD", "s", *[f"m{i}" for i in range(300)]) == 300
        assert c.call("SADD", "t", "a", "b") == 2
        assert c.call("PEXPIRE", "s", "1000") == 1
        assert c.call("PEXPIRE", "t", "1000") == 1
        clock.at(1000)
        assert c.call("SCARD", "s") == 300  # expired strictly after its time, as Redis
        assert c.call("SRANDMEMBER", "s") is not None
        clock.at(1001)
        assert c.call("SCARD", "s") == 0
        assert c.call("SMEMBERS", "s") == []
        assert c.call("SISMEMBER", "s", "m1") == 0
        assert c.call("TYPE", "s") == "none"
        assert c.call("SUNIONSTORE", "u", "s", "t") == 0
        assert c.call("EXISTS", "u") == 0
        assert c.call("SADD", "s", "new") == 1  # a fresh key, nothing of the old one
        assert c.call("SMEMBERS", "s") == [b"new"]
        assert c.call("PTTL", "s") == -1
        # The compaction filter drops the expired members from disk.
        assert c.call("DEBUG", "RAWSUBKEYS") >= 300
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 1
        assert c.call("DBSIZE") == 1


def test_del_and_overwrite_reclaim_members(debug_sluiced):
    with debug_sluiced.client() as c:
        assert c.call("SADD", "s", *[f"m{i}" for i in range(500)]) == 500
        assert c.call("SADD", "t", *[f"m{i}" for i in range(200)]) == 200
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 700
        assert c.call("DEL", "s") == 1
        assert c.call("SET", "t", "plain") == "OK"
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 0
        assert c.call("MEMORY", "USAGE", "t") > 0
        assert c.call("SADD", "u", *[f"member-{i:03}" for i in range(100)]) == 100
        assert c.call("MEMORY", "USAGE", "u", "SAMPLES", "0") > 100 * len("member-000")


# ---- Large sets, transactions, scripts ------------------------------------------------------

def test_large_sets(diff):
    big = [f"member:{i}" for i in range(700)]
    odd = [f"member:{i}" for i in range(1, 700, 2)]
    ints = [str(i) for i in range(0, 1400, 2)]
    run(diff, [
        ("SADD", "big", *big), ("SADD", "odd", *odd), ("SADD", "ints", *ints),
        ("SADD", "small", "member:3", "member:4", "nope"), ("SCARD", "big"),
        ("SISMEMBER", "big", "member:699"), ("SMISMEMBER", "big", "member:0", "member:700"),
        ("SMEMBERS", "big"), ("SINTER", "big", "odd"), ("SINTER", "odd", "small", "big"),
        ("SINTERCARD", "2", "big", "odd"), ("SINTERCARD", "2", "big", "odd", "LIMIT", "100"),
        ("SUNION", "odd", "ints"), ("SDIFF", "big", "odd"), ("SDIFF", "small", "big"),
        ("SDIFF", "big", "small"), ("SDIFFSTORE", "d", "big", "odd", "small"), ("SCARD", "d"),
        ("SUNIONSTORE", "u", "big", "ints"), ("SCARD", "u"), ("OBJECT", "ENCODING", "ints"),
        ("OBJECT", "ENCODING", "big"), ("SRANDMEMBER", "big", "700"), ("SRANDMEMBER", "big", "701"),
        ("SREM", "big", *odd), ("SCARD", "big"), ("SINTER", "big", "odd"), ("SMEMBERS", "ints"),
        ("SINTERSTORE", "ints", "ints", "d"), ("EXISTS", "ints"),
        ("SPOP", "big", "1000"), ("EXISTS", "big"),
    ])
    diff.assert_same()


def test_multi_exec_and_watch(pair):
    a, b = pair
    run(a, [
        ("MULTI",), ("SADD", "s", "a", "b", "c"), ("SREM", "s", "a"), ("SCARD", "s"),
        ("SMOVE", "s", "d", "b"), ("SINTERCARD", "2", "s", "d"), ("SUNIONSTORE", "u", "s", "d"),
        ("SISMEMBER", "d", "b"), ("EXEC",), ("SMEMBERS", "u"),
        ("SET", "str", "x"), ("MULTI",), ("SADD", "str", "a"), ("SADD", "s", "z"), ("EXEC",),
        ("SCARD", "s"),
    ])
    steps = [
        # A write that changes the set breaks the WATCH; one that changes nothing does not.
        (a, ("WATCH", "s")), (b, ("SADD", "s", "c")), (a, ("MULTI",)), (a, ("SCARD", "s")),
        (a, ("EXEC",)), (a, ("WATCH", "s")), (b, ("SADD", "s", "new")), (a, ("MULTI",)),
        (a, ("SCARD", "s")), (a, ("EXEC",)), (a, ("WATCH", "s")), (b, ("SREM", "s", "nope")),
        (b, ("SPOP", "nope")), (b, ("SMOVE", "s", "s", "c")), (a, ("MULTI",)), (a, ("SCARD", "s")),
        (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        run(d, [cmd])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


@pytest.mark.parametrize("write", [
    ("SMOVE", "src", "dst", "m"), ("SMOVE", "src", "dst", "shared"), ("SMOVE", "src", "dst", "no"),
    ("SINTERSTORE", "dst", "src", "nope"), ("SUNIONSTORE", "dst", "src"),
    ("SDIFFSTORE", "dst", "src", "dst"), ("SUNIONSTORE", "src", "src", "dst"),
    ("SPOP", "src", "10"), ("SINTERSTORE", "dst", "src", "src"),
], ids=lambda w: " ".join(w))
@pytest.mark.parametrize("watched", ["src", "dst"])
def test_multi_key_writes_break_the_watch_of_what_they_change(pair, write, watched):
    """Redis signals each key SMOVE and the STORE forms change: a source a STORE form only reads,
    or a destination that already held the member, keeps its WATCH."""
    a, b = pair
    for with_destination in (True, False):
        run(a, [("DEL", "src", "dst"), ("SADD", "src", "m", "shared")])
        if with_destination:
            run(a, [("SADD", "dst", "shared")])
        run(a, [("WATCH", watched)])
        run(b, [write])
        run(a, [("MULTI",), ("SCARD", watched), ("EXEC",)])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def test_scripts_call_set_commands(diff):
    run(diff, [
        ("EVAL", "return redis.call('SADD', KEYS[1], ARGV[1], ARGV[2], ARGV[1])", "1", "s", "a",
         "b"),
        ("EVAL", "return redis.call('SCARD', KEYS[1])", "1", "s"),
        ("EVAL", "local m = redis.call('SMEMBERS', KEYS[1]); table.sort(m); return m", "1", "s"),
        ("EVAL", "return redis.call('SISMEMBER', KEYS[1], 'a')", "1", "s"),
        ("EVAL", "return redis.call('SMISMEMBER', KEYS[1], 'a', 'zz')", "1", "s"),
        ("EVAL", "return redis.call('SMOVE', KEYS[1], KEYS[2], 'a')", "2", "s", "d"),
        ("EVAL", "return redis.call('SINTERCARD', 2, KEYS[1], KEYS[2])", "2", "s", "d"),
        ("EVAL", "return redis.call('SPOP', KEYS[1], 5)", "1", "d"),
        ("EVAL", "return redis.call('SRANDMEMBER', KEYS[1])", "1", "s"),
        ("EVAL", "return redis.pcall('SADD', KEYS[1])", "1", "s"),
        ("EVAL", "redis.call('SET', KEYS[1], 'x'); return redis.pcall('SADD', KEYS[1], 'm')", "1",
         "str"),
        # Integer members (an intset): the same order in both.
        ("EVAL", "redis.call('SADD', KEYS[1], 3, 1, 2); return redis.call('SMEMBERS', KEYS[1])",
         "1", "n"),
        ("EVAL", "redis.setresp(3); local r = redis.call('SMEMBERS', KEYS[1]); "
                 "local n = 0; for k, v in pairs(r['set']) do n = n + 1 end; return n", "1", "n"),
        ("EVAL_RO", "return redis.call('SCARD', KEYS[1])", "1", "n"),
        ("EVAL_RO", "return redis.call('SADD', KEYS[1], 'x')", "1", "n"),
        ("SMEMBERS", "s"), ("SMEMBERS", "d"),
    ])
    diff.assert_same()


def test_command_info_and_getkeys_of_sets(diff):
    run(diff, [
        ("COMMAND", "GETKEYS", "SINTERCARD", "2", "a", "b", "LIMIT", "3"),
        ("COMMAND", "GETKEYS", "SINTERCARD", "0", "a"),
        ("COMMAND", "GETKEYS", "SINTERCARD", "x", "a"),
        ("COMMAND", "GETKEYS", "SINTERCARD", "3", "a"), ("COMMAND", "GETKEYS", "SINTER", "a", "b"),
        ("COMMAND", "GETKEYS", "SMOVE", "a", "b", "m"),
        ("COMMAND", "GETKEYS", "SUNIONSTORE", "d", "a", "b"),
        ("COMMAND", "GETKEYS", "SADD", "s", "m"),
    ])
    diff.assert_same()
    for name in ["sadd", "srem", "scard", "sismember", "smismember", "smembers", "srandmember",
                 "spop", "smove", "sinter", "sunion", "sdiff", "sinterstore", "sunionstore",
                 "sdiffstore", "sintercard", "sscan"]:
        [theirs] = diff.redis.call("COMMAND", "INFO", name)
        [ours] = diff.sluice.call("COMMAND", "INFO", name)
        # Name, arity, key positions and ACL categories as Redis's; the flags but denyoom
        # (sluice has none).
        assert ours[0] == theirs[0], (ours, theirs)
        assert list(ours[1:2] + ours[3:7]) == list(theirs[1:2] + theirs[3:7]), (ours, theirs)
        assert sorted(ours[2]) == sorted(f for f in theirs[2] if f != "denyoom"), (ours, theirs)


# ---- Random sequences ---------------------------------------------------------------------

KEYS = ["s0", "s1", "s2", "s3"]
MEMBERS = ["a", "b", "c", "d", "", "1", "2", "10", "-5", "x" * 70]


def _set_command(rng):
    k = rng.choice(KEYS)
    m = rng.choice(MEMBERS)
    ms = rng.sample(MEMBERS, rng.randrange(1, 5))
    keys = [rng.choice(KEYS) for _ in range(rng.randrange(1, 4))]
    table = [
        lambda: ("SADD", k, *ms),
        lambda: ("SADD", k, m),
        lambda: ("SREM", k, *ms),
        lambda: ("SCARD", k),
        lambda: ("SISMEMBER", k, m),
        lambda: ("SMISMEMBER", k, *ms),
        lambda: ("SMEMBERS", k),
        lambda: ("SMOVE", k, rng.choice(KEYS), m),
        lambda: ("SINTER", *keys),
        lambda: ("SUNION", *keys),
        lambda: ("SDIFF", *keys),
        lambda: ("SINTERSTORE", rng.choice(KEYS), *keys),
        lambda: ("SUNIONSTORE", rng.choice(KEYS), *keys),
        lambda: ("SDIFFSTORE", rng.choice(KEYS), *keys),
        lambda: ("SINTERCARD", str(len(keys)), *keys, *rng.choice([(), ("LIMIT", "1")])),
        # COUNT 100: Redis walks a small hash table to its end (at COUNT 10 it may stop at the
        # 10th member with a cursor to go on from).
        lambda: ("SSCAN", k, "0", "COUNT", "100"),
        # Counts that take the whole set: determined replies. (No OBJECT ENCODING: Redis's
        # depends on what a set held before, see docs/notes.md.)
        lambda: ("SRANDMEMBER", k, "20"),
        lambda: ("SRANDMEMBER", k, "0"),
        lambda: ("SPOP", k, rng.choice(["0", "20"])),
    ]
    return rng.choice(table)()


def test_random_set_sequences(diff):
    random_sequences(diff, random.Random(20251125), KEYS, _set_command, sequences=300)
