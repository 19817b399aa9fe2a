"""Hash commands: the same sequences sent to redis-server and sluiced, every reply compared to
the byte in RESP2 and after HELLO 3 (HGETALL/HKEYS/HVALS as multisets: see composite_diff.py).
"""

import random

from composite_diff import random_sequences, run

I64_MAX = "9223372036854775807"
I64_MIN = "-9223372036854775808"


def test_hset_hget_basics(diff):
    run(diff, [
        ("HSET", "h", "f", "v"), ("HGET", "h", "f"), ("HGET", "h", "nope"), ("HGET", "nope", "f"),
        ("HSET", "h", "f", "v2", "g", "w", "f", "v3"), ("HGET", "h", "f"), ("HLEN", "h"),
        ("HSET", "h", "f"), ("HSET", "h"), ("HSET", "h", "a", "1", "b"), ("HLEN", "h"),
        ("HMSET", "h", "x", "1", "y", "2"), ("HMSET", "h", "x"), ("HMSET", "h", "x", "1", "y"),
        ("HGETALL", "h"), ("HKEYS", "h"), ("HVALS", "h"), ("HGETALL", "nope"), ("HKEYS", "nope"),
        ("HVALS", "nope"), ("HLEN", "nope"), ("TYPE", "h"),
        ("HSET", "h", "", ""), ("HGET", "h", ""), ("HSET", "h", b"bin\x00\r\n", b"\xff\x00"),
        ("HGET", "h", b"bin\x00\r\n"), ("HSTRLEN", "h", b"bin\x00\r\n"), ("HSTRLEN", "h", "zz"),
        ("HSTRLEN", "nope", "f"), ("HGETALL", "h"),
    ])
    diff.assert_same()


def test_hsetnx_hmget_hexists_hdel(diff):
    run(diff, [
        ("HSETNX", "h", "f", "1"), ("HSETNX", "h", "f", "2"), ("HGET", "h", "f"),
        ("HSETNX", "h", "g", "3"), ("HMGET", "h", "f", "nope", "g", "f"), ("HMGET", "nope", "a", "b"),
        ("HEXISTS", "h", "f"), ("HEXISTS", "h", "nope"), ("HEXISTS", "nope", "f"),
        ("HDEL", "h", "f", "f", "nope"), ("HDEL", "h", "nope"), ("HDEL", "nope", "f"),
        ("HLEN", "h"), ("HDEL", "h", "g"), ("EXISTS", "h"), ("TYPE", "h"), ("HLEN", "h"),
        ("HGETALL", "h"), ("HSETNX", "h", "x"), ("HMGET", "h"), ("HDEL", "h"), ("HEXISTS", "h"),
    ])
    diff.assert_same()


def test_hincrby(diff):
    run(diff, [
        ("HINCRBY", "h", "n", "5"), ("HINCRBY", "h", "n", "-7"), ("HGET", "h", "n"),
        ("HINCRBY", "h", "n", "abc"), ("HINCRBY", "h", "n", "1.5"), ("HINCRBY", "h", "n", ""),
        ("HINCRBY", "h", "n", "9223372036854775808"),
        ("HSET", "h", "big", I64_MAX), ("HINCRBY", "h", "big", "1"), ("HINCRBY", "h", "big", "0"),
        ("HSET", "h", "small", I64_MIN), ("HINCRBY", "h", "small", "-1"),
        ("HINCRBY", "h", "small", I64_MAX), ("HGET", "h", "small"),
        ("HSET", "h", "s", "abc"), ("HINCRBY", "h", "s", "1"), ("HSET", "h", "sp", " 1"),
        ("HINCRBY", "h", "sp", "1"), ("HSET", "h", "fl", "1.0"), ("HINCRBY", "h", "fl", "1"),
        ("HSET", "h", "z", "01"), ("HINCRBY", "h", "z", "1"), ("HSET", "h", "m0", "-0"),
        ("HINCRBY", "h", "m0", "1"), ("HINCRBY", "new", "f", I64_MIN), ("HGETALL", "new"),
        ("SET", "str", "1"), ("HINCRBY", "str", "f", "1"), ("HINCRBY", "str", "f", "x"),
        ("HINCRBY", "h", "n"),
    ])
    diff.assert_same()


def test_hincrbyfloat(diff):
    run(diff, [
        ("HINCRBYFLOAT", "h", "f", "10.5"), ("HINCRBYFLOAT", "h", "f", "0.1"),
        ("HINCRBYFLOAT", "h", "f", "-5"), ("HINCRBYFLOAT", "h", "f", "5.0e3"),
        ("HINCRBYFLOAT", "h", "f", "-5015.6"), ("HGET", "h", "f"),
        ("HSET", "h", "g", "0.1"), ("HINCRBYFLOAT", "h", "g", "0.2"),
        ("HINCRBYFLOAT", "h", "g", "1e30"), ("HSET", "h", "i", "3"),
        ("HINCRBYFLOAT", "h", "i", "1.5"), ("HINCRBYFLOAT", "h", "i", "-4.5"),
        ("HINCRBYFLOAT", "h", "f", "abc"), ("HINCRBYFLOAT", "h", "f", ""),
        ("HINCRBYFLOAT", "h", "f", " 1"), ("HINCRBYFLOAT", "h", "f", "nan"),
        ("HSET", "h", "z", b"1\x00junk"), ("HINCRBYFLOAT", "h", "z", "1"), ("HGET", "h", "z"),
        ("HINCRBYFLOAT", "h", "i", b"1\x00"),
        ("HINCRBYFLOAT", "h", "f", "inf"), ("HINCRBYFLOAT", "h", "f", "-inf"),
        ("HINCRBYFLOAT", "nope", "f", "inf"), ("EXISTS", "nope"),
        ("HSET", "h", "s", "abc"), ("HINCRBYFLOAT", "h", "s", "1"),
        ("HSET", "h", "big", "1.1e4932"), ("HINCRBYFLOAT", "h", "big", "1.1e4932"),
        ("HGET", "h", "big"), ("HSET", "h", "hex", "0x10"), ("HINCRBYFLOAT", "h", "hex", "1"),
        ("HINCRBYFLOAT", "h", "m", "-0.0"), ("HGET", "h", "m"),
        ("SET", "str", "1"), ("HINCRBYFLOAT", "str", "f", "1"),
        ("HINCRBYFLOAT", "str", "f", "x"), ("HINCRBYFLOAT", "h", "f"),
    ])
    diff.assert_same()


def test_wrongtype_both_ways(diff):
    run(diff, [
        ("SET", "s", "v"), ("HSET", "s", "f", "v"), ("HGET", "s", "f"), ("HMGET", "s", "f"),
        ("HGETALL", "s"), ("HKEYS", "s"), ("HVALS", "s"), ("HLEN", "s"), ("HDEL", "s", "f"),
        ("HEXISTS", "s", "f"), ("HSETNX", "s", "f", "v"), ("HMSET", "s", "f", "v"),
        ("HSTRLEN", "s", "f"), ("HSET", "h", "f", "v"), ("GET", "h"), ("INCR", "h"),
        ("APPEND", "h", "x"), ("LPUSH", "h", "x"), ("ZADD", "h", "1", "m"), ("SET", "h", "now"),
        ("TYPE", "h"), ("GET", "h"), ("HGET", "h", "f"),
    ])
    diff.assert_same()


def test_expiry_rename_and_del_of_hashes(diff):
    run(diff, [
        ("HSET", "h", "a", "1", "b", "2"), ("EXPIRE", "h", "100"), ("TTL", "h"),
        ("HSET", "h", "c", "3"), ("TTL", "h"), ("HDEL", "h", "a"), ("TTL", "h"),
        ("HINCRBY", "h", "n", "1"), ("TTL", "h"), ("RENAME", "h", "h2"), ("TTL", "h2"),
        ("HGETALL", "h2"), ("HLEN", "h2"), ("EXISTS", "h"), ("HGETALL", "h"),
        ("PERSIST", "h2"), ("TTL", "h2"), ("RENAME", "h2", "h2"), ("HLEN", "h2"),
        ("HSET", "dst", "old", "x"), ("RENAME", "h2", "dst"), ("HGETALL", "dst"),
        ("HGET", "dst", "old"), ("DEL", "dst"), ("HGETALL", "dst"), ("HSET", "dst", "n", "1"),
        ("HGETALL", "dst"), ("EXPIRE", "dst", "0"), ("EXISTS", "dst"), ("HLEN", "dst"),
        ("HSET", "e", "f", "v"), ("PEXPIRE", "e", "-1"), ("HGET", "e", "f"),
    ])
    diff.assert_same()


def test_large_hash(diff):
    cmd = ["HSET", "big"]
    for i in range(600):
        cmd += [f"field:{i}", "v" * (i % 70)]
    run(diff, [
        tuple(cmd), ("HLEN", "big"), ("HGET", "big", "field:599"), ("HGETALL", "big"),
        ("HKEYS", "big"), ("HVALS", "big"), ("HDEL", "big", *[f"field:{i}" for i in range(300)]),
        ("HLEN", "big"), ("HMGET", "big", "field:0", "field:300", "field:599"),
    ])
    diff.assert_same()


KEYS = ["h0", "h1", "h2", "h3"]
FIELDS = ["a", "b", "c", "d", "e", "", "num", "flt"]
VALUES = ["1", "x", "", "-3", "2.5", "9223372036854775807", "1e3", "abc", " 5", "007"]
INCRS = ["1", "-1", "10", "abc", "1.5", I64_MAX, I64_MIN, "0"]
FLOAT_INCRS = ["1", "0.1", "-2.5", "abc", "1e30", "inf", "-0.5", "3.0e2"]


def _hash_command(rng):
    k = rng.choice(KEYS)
    f = rng.choice(FIELDS)
    fs = rng.sample(FIELDS, rng.randrange(1, 4))
    v = rng.choice(VALUES)
    table = [
        lambda: ("HSET", k, f, v),
        lambda: ("HSET", k, *[x for field in fs for x in (field, rng.choice(VALUES))]),
        lambda: ("HMSET", k, f, v, rng.choice(FIELDS), rng.choice(VALUES)),
        lambda: ("HSETNX", k, f, v),
        lambda: ("HGET", k, f),
        lambda: ("HMGET", k, *fs),
        lambda: ("HGETALL", k),
        lambda: ("HKEYS", k),
        lambda: ("HVALS", k),
        lambda: ("HDEL", k, *fs),
        lambda: ("HEXISTS", k, f),
        lambda: ("HLEN", k),
        lambda: ("HSTRLEN", k, f),
        lambda: ("HINCRBY", k, rng.choice(["num", f]), rng.choice(INCRS)),
        lambda: ("HINCRBYFLOAT", k, rng.choice(["flt", f]), rng.choice(FLOAT_INCRS)),
        lambda: ("HSET", k, f),
    ]
    return rng.choice(table)()


def test_random_hash_sequences(diff):
    random_sequences(diff, random.Random(20240603), KEYS, _hash_command, sequences=400)


# ---- HRANDFIELD where the reply is determined ----------------------------------------------------
# Random replies are checked by property in test_random_members.py. Here: errors (the count, then
# the option, then WITHVALUES' +-LONG_MAX/2, all before the key), missing keys, wrong types,
# count 0, a one-field hash, and a count >= the size (the whole hash, in an order Redis does not
# define: compared as a multiset). Never a huge negative count on a hash: Redis 7.0 tries to
# build that reply and does not return.

def _check_whole(d, *cmd):
    """HRANDFIELD with a count >= the size: the same fields (and values) in any order, in the
    same reply shape."""
    d.count += 1
    (rv, rraw), (sv, sraw) = d.both(*cmd)
    if rraw == sraw:
        return

    def normalized(v):
        if not isinstance(v, list):
            return ("other", v)
        if v and isinstance(v[0], list):  # RESP3 [field, value] pairs
            return ("nested", sorted(v))
        if "WITHVALUES" in [str(x).upper() for x in cmd]:
            return ("flat pairs", sorted(zip(v[0::2], v[1::2])) if len(v) % 2 == 0 else v)
        return ("fields", sorted(v))

    if type(rv) is type(sv) and normalized(rv) == normalized(sv):
        return
    d.mismatches.append((cmd, rraw, sraw))


def test_hrandfield_determined_replies(diff):
    run(diff, [
        ("HRANDFIELD", "nope"), ("HRANDFIELD", "nope", "0"), ("HRANDFIELD", "nope", "5"),
        ("HRANDFIELD", "nope", "-5"), ("HRANDFIELD", "nope", "-3", "WITHVALUES"),
        ("HRANDFIELD", "nope", "-9223372036854775807"),
        ("HSET", "one", "f", "v"), ("HRANDFIELD", "one"), ("HRANDFIELD", "one", "1"),
        ("HRANDFIELD", "one", "-1"), ("HRANDFIELD", "one", "-3"),
        ("HRANDFIELD", "one", "-3", "withvalues"), ("HRANDFIELD", "one", "5", "WITHVALUES"),
        ("HRANDFIELD", "one", I64_MAX), ("HRANDFIELD", "one", "4611686018427387903", "WITHVALUES"),
        ("HRANDFIELD", "one", "0"), ("HRANDFIELD", "one", "0", "WITHVALUES"),
        # Errors, in Redis's order.
        ("HRANDFIELD", "one", "abc"), ("HRANDFIELD", "one", "abc", "WITHVALUES"),
        ("HRANDFIELD", "one", "abc", "foo"), ("HRANDFIELD", "one", "1", "foo"),
        ("HRANDFIELD", "one", "1", "WITHSCORES"), ("HRANDFIELD", "one", "1", "WITHVALUES", "x"),
        ("HRANDFIELD", "one", "abc", "WITHVALUES", "x"), ("HRANDFIELD", "one", I64_MIN),
        ("HRANDFIELD", "one", I64_MIN, "WITHVALUES"),
        ("HRANDFIELD", "one", "-9223372036854775807", "WITHVALUES"),
        ("HRANDFIELD", "one", "-4611686018427387904", "WITHVALUES"),
        ("HRANDFIELD", "one", "4611686018427387904", "WITHVALUES"),
        ("HRANDFIELD", "one", "9223372036854775808"), ("HRANDFIELD", "one", "+1"),
        ("HRANDFIELD", "one", "-0"), ("HRANDFIELD", "one", "01"), ("HRANDFIELD", "one", " 1"),
        ("HRANDFIELD", "nope", I64_MIN), ("HRANDFIELD", "nope", "abc"),
        ("HRANDFIELD", "nope", "1", "foo"), ("HRANDFIELD",),
        # Another type.
        ("SET", "s", "x"), ("HRANDFIELD", "s"), ("HRANDFIELD", "s", "0"), ("HRANDFIELD", "s", "-1"),
        ("HRANDFIELD", "s", "abc"), ("HRANDFIELD", "s", "1", "foo"),
        ("HRANDFIELD", "s", "4611686018427387904", "WITHVALUES"),
        ("ZADD", "z", "1", "m"), ("HRANDFIELD", "z", "1", "WITHVALUES"),
        # An emptied hash is a missing key.
        ("HDEL", "one", "f"), ("HRANDFIELD", "one"), ("HRANDFIELD", "one", "-2", "WITHVALUES"),
    ])
    diff.assert_same()


def test_hrandfield_whole_hash(diff):
    small = ("HSET", "h", "b", "1", "a", "", "c", "3", "", "empty", b"bin\x00", b"\xff")
    big = ["HSET", "big"]
    for i in range(300):
        big += [f"field:{i}", "v" * (i % 70)]
    diff.check(*small)
    diff.check(*big)
    for key, size in [("h", 5), ("big", 300)]:
        for count in [str(size), str(size + 1), I64_MAX]:
            _check_whole(diff, "HRANDFIELD", key, count)
            if count != I64_MAX:
                _check_whole(diff, "HRANDFIELD", key, count, "WITHVALUES")
    diff.assert_same()
