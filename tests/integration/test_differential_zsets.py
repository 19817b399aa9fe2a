"""Sorted-set commands: the same sequences sent to redis-server and sluiced, every reply compared
to the byte in RESP2 and after HELLO 3 (scores as "%.17g" bulk strings / RESP3 doubles).
"""

import random

from composite_diff import random_sequences, run


def test_zadd_basics_and_reads(diff):
    run(diff, [
        ("ZADD", "z", "1", "a", "2", "b", "3", "c"), ("ZCARD", "z"), ("ZSCORE", "z", "b"),
        ("ZSCORE", "z", "nope"), ("ZSCORE", "nope", "a"), ("ZCARD", "nope"),
        ("ZADD", "z", "2", "a", "2", "b"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZADD", "z", "1.5", "x", "1.5", "x"), ("ZSCORE", "z", "x"),
        ("ZADD", "z", "0.1", "f1", "1e308", "f2", "-1e-300", "f3", "3.0e2", "f4", "0x10", "f5"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("ZADD", "z", "inf", "pinf", "-inf", "ninf"),
        ("ZADD", "z", "+inf", "pinf2", "-Infinity", "ninf2"), ("ZSCORE", "z", "pinf"),
        ("ZSCORE", "z", "ninf2"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZADD", "z", "-0", "negzero"), ("ZSCORE", "z", "negzero"),
        ("ZADD", "z", "0", "poszero"), ("ZRANGE", "z", "negzero", "poszero"),
        ("ZRANGEBYSCORE", "z", "0", "0", "WITHSCORES"), ("ZADD", "z", "1", ""),
        ("ZSCORE", "z", ""), ("ZADD", "z", "1", b"bin\x00\xff"), ("ZSCORE", "z", b"bin\x00\xff"),
        ("ZRANK", "z", "a"), ("ZRANK", "z", "nope"), ("ZRANK", "nope", "a"),
        ("ZREVRANK", "z", "a"), ("ZREVRANK", "z", "pinf"), ("ZRANK", "z", "ninf"),
        ("ZMSCORE", "z", "a", "nope", "pinf"), ("ZMSCORE", "nope", "a", "b"), ("TYPE", "z"),
        ("ZADD", "z", "1", "a", "2"), ("ZADD", "z"), ("ZADD", "z", "1"), ("ZSCORE", "z"),
        ("ZRANK", "z"), ("ZCARD", "z", "x"),
    ])
    diff.assert_same()


def test_zadd_options(diff):
    run(diff, [
        ("ZADD", "z", "NX", "1", "a"), ("ZADD", "z", "NX", "5", "a", "2", "b"),
        ("ZADD", "z", "XX", "10", "a", "3", "c"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZADD", "z", "XX", "CH", "10", "a", "11", "b"), ("ZADD", "z", "CH", "11", "b", "1", "d"),
        ("ZADD", "z", "GT", "5", "a"), ("ZADD", "z", "GT", "CH", "20", "a"),
        ("ZADD", "z", "LT", "CH", "30", "a"), ("ZADD", "z", "LT", "CH", "15", "a", "7", "e"),
        ("ZADD", "z", "GT", "XX", "CH", "100", "a", "1", "f"), ("ZADD", "z", "LT", "XX", "0", "b"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZADD", "z", "INCR", "5", "a"), ("ZADD", "z", "INCR", "-5", "new"),
        ("ZADD", "z", "NX", "INCR", "5", "a"), ("ZADD", "z", "XX", "INCR", "5", "missing"),
        ("ZADD", "z", "GT", "INCR", "-1", "a"), ("ZADD", "z", "LT", "INCR", "-1", "a"),
        ("ZADD", "z", "GT", "INCR", "0", "a"), ("ZADD", "z", "INCR", "0", "a"),
        ("ZADD", "z", "XX", "NX", "1", "a"), ("ZADD", "z", "NX", "XX", "1", "a"),
        ("ZADD", "z", "GT", "LT", "1", "a"), ("ZADD", "z", "GT", "NX", "1", "a"),
        ("ZADD", "z", "LT", "NX", "1", "a"), ("ZADD", "z", "NX", "XX", "GT", "1", "a"),
        ("ZADD", "z", "INCR", "1", "a", "2", "b"), ("ZADD", "z", "INCR", "GT", "LT", "1", "a"),
        ("ZADD", "z", "nx", "ch", "incr", "1", "lower"), ("ZADD", "z", "FOO", "1", "a"),
        ("ZADD", "z", "NX"), ("ZADD", "z", "NX", "1"), ("ZADD", "z", "1", "a", "x", "b"),
        ("ZADD", "z", "abc", "a"), ("ZADD", "z", "nan", "a"), ("ZADD", "z", "1e400", "a"),
        ("ZADD", "z", " 1", "a"), ("ZADD", "z", "", "a"), ("ZADD", "z", "1 ", "a"),
        ("ZADD", "nokey", "XX", "1", "a"), ("EXISTS", "nokey"), ("ZADD", "nokey", "XX", "INCR", "1", "a"),
        ("EXISTS", "nokey"), ("ZADD", "z", "INCR", "inf", "a"), ("ZADD", "z", "INCR", "-inf", "a"),
        ("ZSCORE", "z", "a"), ("ZADD", "z", "CH", "INCR", "1", "b"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
    ])
    diff.assert_same()


def test_zincrby(diff):
    run(diff, [
        ("ZINCRBY", "z", "1", "a"), ("ZINCRBY", "z", "2.5", "a"), ("ZINCRBY", "z", "-0.1", "a"),
        ("ZINCRBY", "z", "0.1", "b"), ("ZINCRBY", "z", "0.2", "b"), ("ZSCORE", "z", "b"),
        ("ZINCRBY", "z", "abc", "a"), ("ZINCRBY", "z", "nx", "a"), ("ZINCRBY", "z", "INCR", "a"),
        ("ZINCRBY", "z", "inf", "c"), ("ZINCRBY", "z", "-inf", "c"), ("ZSCORE", "z", "c"),
        ("ZINCRBY", "z", "1e308", "d"), ("ZINCRBY", "z", "1e308", "d"), ("ZSCORE", "z", "d"),
        ("ZINCRBY", "z", "", "e"), ("ZINCRBY", "z", "1"), ("ZINCRBY", "z", "1", "a", "b"),
        ("SET", "s", "x"), ("ZINCRBY", "s", "1", "a"), ("ZINCRBY", "s", "x", "a"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
    ])
    diff.assert_same()


def test_zrem_and_empty_key_removal(diff):
    run(diff, [
        ("ZADD", "z", "1", "a", "2", "b", "3", "c"), ("ZREM", "z", "a", "a", "nope"),
        ("ZREM", "z", "nope"), ("ZREM", "nope", "a"), ("ZCARD", "z"), ("ZREM", "z", "b", "c"),
        ("EXISTS", "z"), ("TYPE", "z"), ("ZCARD", "z"), ("ZREM", "z"),
        ("SET", "s", "x"), ("ZREM", "s", "a"), ("ZCARD", "s"), ("ZSCORE", "s", "a"),
        ("ZRANGE", "s", "0", "-1"), ("ZRANK", "s", "a"), ("ZCOUNT", "s", "0", "1"),
    ])
    diff.assert_same()


SCORED = ("ZADD", "z", "1", "a", "2", "b", "2", "c", "3", "d", "4", "e", "5", "f",
          "-inf", "lo", "inf", "hi", "2.5", "half")


def test_zrange_by_rank(diff):
    cmds = [SCORED]
    for start, stop in [("0", "-1"), ("0", "0"), ("-1", "-1"), ("1", "3"), ("-3", "-1"),
                        ("-100", "2"), ("5", "100"), ("3", "1"), ("9", "10"), ("0", "-10"),
                        ("-9223372036854775808", "9223372036854775807")]:
        cmds += [("ZRANGE", "z", start, stop), ("ZRANGE", "z", start, stop, "WITHSCORES"),
                 ("ZRANGE", "z", start, stop, "REV"),
                 ("ZRANGE", "z", start, stop, "REV", "WITHSCORES"),
                 ("ZREVRANGE", "z", start, stop, "WITHSCORES")]
    cmds += [
        ("ZRANGE", "z", "a", "1"), ("ZRANGE", "z", "0", "1.5"), ("ZRANGE", "z", "0", "-1", "FOO"),
        ("ZRANGE", "z", "0", "-1", "LIMIT", "0", "1"), ("ZRANGE", "z", "0", "-1", "LIMIT", "0", "-1"),
        ("ZRANGE", "z", "0", "-1", "LIMIT", "0"), ("ZRANGE", "z", "0", "-1", "REV", "REV"),
        ("ZRANGE", "z", "0", "-1", "withscores", "rev"), ("ZRANGE", "nope", "0", "-1"),
        ("ZRANGE", "nope", "0", "-1", "WITHSCORES"), ("ZRANGE", "z", "0"),
        ("ZREVRANGE", "z", "0", "-1", "REV"), ("ZREVRANGE", "z", "0", "-1", "LIMIT", "0", "1"),
        ("ZRANGE", "z", "0", "-1", "BYLEX", "WITHSCORES"), ("ZRANGE", "z", "0", "-1", "BYLEX"),
        ("ZRANGE", "z", "-", "+", "BYLEX", "BYSCORE"), ("ZRANGE", "z", "-", "+", "BYLEX", "LIMIT", "0", "2"),
    ]
    run(diff, cmds)
    diff.assert_same()


def test_zrange_by_score(diff):
    cmds = [SCORED]
    ranges = [("-inf", "+inf"), ("2", "3"), ("(2", "3"), ("2", "(3"), ("(2", "(3"), ("(2", "(2"),
              ("2", "2"), ("3", "2"), ("-inf", "-inf"), ("(-inf", "+inf"), ("inf", "inf"),
              ("(5", "+inf"), ("1e400", "inf"), ("  2", "3"), ("", "2"), ("(", "3"),
              ("0x2", "3"), ("-1e400", "2.5"), ("(2.5", "10")]
    for lo, hi in ranges:
        cmds += [("ZRANGEBYSCORE", "z", lo, hi), ("ZRANGEBYSCORE", "z", lo, hi, "WITHSCORES"),
                 ("ZREVRANGEBYSCORE", "z", hi, lo, "WITHSCORES"), ("ZCOUNT", "z", lo, hi),
                 ("ZRANGE", "z", lo, hi, "BYSCORE"), ("ZRANGE", "z", hi, lo, "BYSCORE", "REV")]
    for off, cnt in [("0", "2"), ("1", "2"), ("2", "-1"), ("8", "5"), ("9", "1"), ("100", "1"),
                     ("0", "0"), ("-1", "2"), ("1", "-5"), ("abc", "1"), ("0", "1.5")]:
        cmds += [("ZRANGEBYSCORE", "z", "-inf", "inf", "LIMIT", off, cnt),
                 ("ZRANGEBYSCORE", "z", "-inf", "inf", "WITHSCORES", "LIMIT", off, cnt),
                 ("ZREVRANGEBYSCORE", "z", "inf", "-inf", "LIMIT", off, cnt, "WITHSCORES"),
                 ("ZRANGE", "z", "(1", "5", "BYSCORE", "LIMIT", off, cnt),
                 ("ZRANGE", "z", "5", "(1", "BYSCORE", "REV", "LIMIT", off, cnt, "WITHSCORES")]
    cmds += [
        ("ZRANGEBYSCORE", "z", "a", "1"), ("ZRANGEBYSCORE", "z", "1", "b"),
        ("ZRANGEBYSCORE", "z", "(a", "1"), ("ZRANGEBYSCORE", "z", "nan", "1"),
        ("ZRANGEBYSCORE", "z", "1", "(nan"), ("ZRANGEBYSCORE", "z", "1 ", "2"),
        ("ZCOUNT", "z", "a", "1"), ("ZCOUNT", "nope", "0", "1"), ("ZCOUNT", "nope", "a", "1"),
        ("ZRANGEBYSCORE", "z", "0", "1", "REV"), ("ZRANGEBYSCORE", "z", "0", "1", "BYSCORE"),
        ("ZRANGEBYSCORE", "z", "0", "1", "LIMIT", "1"), ("ZRANGEBYSCORE", "z", "0", "1", "FOO"),
        ("ZRANGEBYSCORE", "nope", "0", "1"), ("ZRANGEBYSCORE", "nope", "x", "1"),
        ("ZRANGE", "z", "0", "1", "BYSCORE", "BYSCORE"), ("ZREVRANGEBYSCORE", "z", "1", "0", "REV"),
        ("ZRANGEBYSCORE", "z", "0"), ("ZCOUNT", "z", "0"),
    ]
    run(diff, cmds)
    diff.assert_same()


def test_zremrange(diff):
    run(diff, [
        SCORED, ("ZREMRANGEBYSCORE", "z", "(2", "3"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZREMRANGEBYSCORE", "z", "3", "2"), ("ZREMRANGEBYSCORE", "z", "(4", "(4"),
        ("ZREMRANGEBYSCORE", "z", "a", "1"), ("ZREMRANGEBYSCORE", "nope", "0", "1"),
        ("ZREMRANGEBYSCORE", "nope", "x", "1"), ("ZREMRANGEBYSCORE", "z", "-inf", "(1"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZREMRANGEBYRANK", "z", "0", "0"), ("ZREMRANGEBYRANK", "z", "-1", "-1"),
        ("ZREMRANGEBYRANK", "z", "5", "10"), ("ZREMRANGEBYRANK", "z", "2", "1"),
        ("ZREMRANGEBYRANK", "z", "a", "1"), ("ZREMRANGEBYRANK", "nope", "0", "1"),
        ("ZREMRANGEBYRANK", "nope", "x", "1"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"),
        ("ZREMRANGEBYRANK", "z", "-100", "100"), ("EXISTS", "z"),
        SCORED, ("ZREMRANGEBYSCORE", "z", "-inf", "+inf"), ("EXISTS", "z"),
        ("SET", "s", "x"), ("ZREMRANGEBYSCORE", "s", "0", "1"), ("ZREMRANGEBYRANK", "s", "0", "1"),
        ("ZREMRANGEBYSCORE", "s", "x", "1"), ("ZREMRANGEBYRANK", "s", "x", "1"),
        ("ZREMRANGEBYSCORE", "z", "0"), ("ZREMRANGEBYRANK", "z", "0", "1", "2"),
    ])
    diff.assert_same()


LEX = ("ZADD", "lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "f", "0", "g",
       "0", "", "0", "aa", "0", b"\xff", "0", "A")


def test_by_lex(diff):
    cmds = [LEX]
    for lo, hi in [("-", "+"), ("[a", "[c"), ("(a", "[c"), ("[a", "(c"), ("(a", "(c"),
                   ("[aa", "[aa"), ("(aa", "[aa"), ("[c", "[a"), ("-", "-"), ("+", "+"),
                   ("+", "-"), ("[", "[b"), ("(", "+"), ("-", "[A"), ("[z", "+"),
                   ("[b", "[\xff"), ("-", "(a")]:
        cmds += [("ZRANGEBYLEX", "lex", lo, hi), ("ZREVRANGEBYLEX", "lex", hi, lo),
                 ("ZRANGE", "lex", lo, hi, "BYLEX"), ("ZRANGE", "lex", hi, lo, "BYLEX", "REV"),
                 ("ZLEXCOUNT", "lex", lo, hi),
                 ("ZRANGEBYLEX", "lex", lo, hi, "LIMIT", "1", "2"),
                 ("ZREVRANGEBYLEX", "lex", hi, lo, "LIMIT", "2", "3")]
    cmds += [
        ("ZRANGEBYLEX", "lex", "a", "[c"), ("ZRANGEBYLEX", "lex", "[a", "c"),
        ("ZRANGEBYLEX", "lex", "+a", "[c"), ("ZRANGEBYLEX", "lex", "-", "++"),
        ("ZRANGEBYLEX", "lex", "", "+"), ("ZLEXCOUNT", "lex", "x", "+"),
        ("ZRANGEBYLEX", "lex", "-", "+", "WITHSCORES"), ("ZRANGE", "lex", "-", "+", "BYLEX", "WITHSCORES"),
        ("ZRANGEBYLEX", "lex", "-", "+", "LIMIT", "-1", "2"), ("ZRANGEBYLEX", "lex", "-", "+", "LIMIT", "0", "0"),
        ("ZRANGEBYLEX", "lex", "-", "+", "LIMIT", "20", "1"), ("ZRANGEBYLEX", "lex", "-", "+", "BYLEX"),
        ("ZRANGEBYLEX", "nope", "-", "+"), ("ZLEXCOUNT", "nope", "-", "+"),
        ("ZREMRANGEBYLEX", "nope", "-", "+"), ("ZREMRANGEBYLEX", "lex", "x", "+"),
        ("ZREMRANGEBYLEX", "lex", "(a", "[c"), ("ZRANGE", "lex", "0", "-1"),
        ("ZREMRANGEBYLEX", "lex", "-", "+"), ("EXISTS", "lex"),
        ("SET", "s", "v"), ("ZRANGEBYLEX", "s", "-", "+"), ("ZLEXCOUNT", "s", "-", "+"),
        ("ZRANGEBYLEX", "s", "x", "+"),
        # Mixed scores: Redis walks in score order from the first member at or past the min.
        ("ZADD", "mixed", "1", "c", "2", "a", "3", "b", "4", "e", "5", "d"),
        ("ZRANGEBYLEX", "mixed", "[b", "[d"), ("ZRANGEBYLEX", "mixed", "-", "[c"),
        ("ZREVRANGEBYLEX", "mixed", "[d", "[b"), ("ZLEXCOUNT", "mixed", "[a", "+"),
        ("ZRANGEBYLEX", "mixed", "[a", "[b"), ("ZREMRANGEBYLEX", "mixed", "[d", "+"),
        ("ZRANGE", "mixed", "0", "-1"),
    ]
    run(diff, cmds)
    diff.assert_same()


def test_nan_results(diff):
    run(diff, [
        ("ZADD", "z", "inf", "a"), ("ZADD", "z", "INCR", "-inf", "a"), ("ZSCORE", "z", "a"),
        ("ZINCRBY", "z", "-inf", "a"), ("ZINCRBY", "z", "+inf", "a"), ("ZSCORE", "z", "a"),
        ("ZADD", "z", "-inf", "b"), ("ZINCRBY", "z", "inf", "b"), ("ZCARD", "z"),
    ])
    diff.assert_same()


def test_large_zset_ranks_and_ranges(diff):
    cmd = ["ZADD", "big"]
    for i in range(400):
        cmd += [str((i * 37) % 101 / 4), f"m{i:03d}"]
    cmds = [tuple(cmd), ("ZCARD", "big")]
    for m in ["m000", "m199", "m399", "m250"]:
        cmds += [("ZRANK", "big", m), ("ZREVRANK", "big", m), ("ZSCORE", "big", m)]
    cmds += [("ZRANGE", "big", "100", "110", "WITHSCORES"), ("ZRANGE", "big", "-20", "-10"),
             ("ZREVRANGE", "big", "300", "305", "WITHSCORES"), ("ZCOUNT", "big", "5", "(10"),
             ("ZRANGEBYSCORE", "big", "(24", "25", "WITHSCORES"),
             ("ZREVRANGEBYSCORE", "big", "3", "1", "LIMIT", "2", "5"),
             ("ZREMRANGEBYRANK", "big", "10", "300"), ("ZCARD", "big"),
             ("ZRANGE", "big", "0", "-1", "WITHSCORES")]
    run(diff, cmds)
    diff.assert_same()


def test_expiry_and_rename_of_zsets(diff):
    run(diff, [
        ("ZADD", "z", "1", "a", "2", "b"), ("EXPIRE", "z", "100"), ("ZADD", "z", "3", "c"),
        ("TTL", "z"), ("ZREM", "z", "a"), ("TTL", "z"), ("RENAME", "z", "y"), ("TTL", "y"),
        ("ZRANGE", "y", "0", "-1", "WITHSCORES"), ("EXISTS", "z"),
        ("ZADD", "w", "9", "old"), ("RENAME", "y", "w"), ("ZRANGE", "w", "0", "-1", "WITHSCORES"),
        ("ZSCORE", "w", "old"), ("DEL", "w"), ("ZCARD", "w"), ("ZADD", "w", "1", "x"),
        ("ZRANGE", "w", "0", "-1", "WITHSCORES"), ("EXPIRE", "w", "-1"), ("ZCARD", "w"),
    ])
    diff.assert_same()


KEYS = ["z0", "z1", "z2", "z3"]
MEMBERS = ["a", "b", "c", "d", "e", "f", ""]
SCORES = ["0", "1", "-1", "2.5", "0.1", "-0", "inf", "-inf", "1e17", "3", "7", "abc", "+5"]
BOUNDS = ["-inf", "+inf", "0", "1", "(1", "2.5", "(2.5", "3", "(-1", "inf", "x", "(inf"]
INDEXES = ["0", "1", "-1", "-2", "2", "5", "-10", "100", "x"]
LEX_BOUNDS = ["-", "+", "[a", "(a", "[c", "(c", "[", "(e", "[f", "x"]
ZADD_FLAGS = [[], [], [], ["NX"], ["XX"], ["GT"], ["LT"], ["CH"], ["INCR"], ["XX", "GT", "CH"],
              ["NX", "INCR"], ["LT", "CH"], ["GT", "LT"], ["NX", "XX"]]


# A member over 64 bytes: a set that ever holds it is stored one entry per member (indexed),
# as Redis moves such a set from its listpack to a skiplist.
LONG_MEMBER = "L" * 65


def _zset_command(rng, members=MEMBERS, scores=SCORES):
    k = rng.choice(KEYS)
    m = rng.choice(members)
    ms = [rng.choice(members) for _ in range(rng.randrange(1, 4))]  # repeats, as clients may
    lo, hi = rng.choice(BOUNDS), rng.choice(BOUNDS)
    i, j = rng.choice(INDEXES), rng.choice(INDEXES)
    extra = []
    if rng.random() < 0.4:
        extra.append("WITHSCORES")
    if rng.random() < 0.3:
        extra += ["LIMIT", rng.choice(["0", "1", "2", "-1"]), rng.choice(["1", "2", "-1", "0"])]
    table = [
        lambda: ("ZADD", k, *rng.choice(ZADD_FLAGS),
                 *[x for mem in ms for x in (rng.choice(scores), mem)]),
        lambda: ("ZADD", k, rng.choice(scores), m),
        lambda: ("ZINCRBY", k, rng.choice(scores), m),
        lambda: ("ZREM", k, *ms),
        lambda: ("ZCARD", k),
        lambda: ("ZSCORE", k, m),
        lambda: ("ZMSCORE", k, *ms),
        lambda: ("ZRANK", k, m),
        lambda: ("ZREVRANK", k, m),
        lambda: ("ZCOUNT", k, lo, hi),
        lambda: ("ZRANGE", k, i, j, *([x for x in extra if x == "WITHSCORES"])),
        lambda: ("ZRANGE", k, i, j, "REV", "WITHSCORES"),
        lambda: ("ZRANGE", k, lo, hi, "BYSCORE", *extra),
        lambda: ("ZRANGE", k, hi, lo, "BYSCORE", "REV", *extra),
        lambda: ("ZRANGEBYSCORE", k, lo, hi, *extra),
        lambda: ("ZREVRANGEBYSCORE", k, hi, lo, *extra),
        lambda: ("ZREVRANGE", k, i, j, "WITHSCORES"),
        lambda: ("ZREMRANGEBYSCORE", k, lo, hi),
        lambda: ("ZREMRANGEBYRANK", k, i, j),
        lambda: ("ZRANGEBYLEX", k, rng.choice(LEX_BOUNDS), rng.choice(LEX_BOUNDS),
                 *([x for x in extra if x != "WITHSCORES"])),
        lambda: ("ZREVRANGEBYLEX", k, rng.choice(LEX_BOUNDS), rng.choice(LEX_BOUNDS)),
        lambda: ("ZLEXCOUNT", k, rng.choice(LEX_BOUNDS), rng.choice(LEX_BOUNDS)),
        lambda: ("ZREMRANGEBYLEX", k, rng.choice(LEX_BOUNDS), rng.choice(LEX_BOUNDS)),
    ]
    return rng.choice(table)()


def test_random_zset_sequences(diff):
    random_sequences(diff, random.Random(20240604), KEYS, _zset_command, sequences=400)


def test_random_zset_sequences_of_indexed_sets(diff):
    """The same random commands where most sets soon hold a member too long to keep inline.
    Without -0: Redis's skiplist keeps a score of -0 where sluice stores 0 in both encodings
    (docs/notes.md)."""
    members = MEMBERS + [LONG_MEMBER] * 3
    scores = [x for x in SCORES if x != "-0"]
    random_sequences(diff, random.Random(20261122), KEYS,
                     lambda rng: _zset_command(rng, members, scores), sequences=300)


def test_sets_growing_past_the_inline_limits(diff):
    """sluice keeps a set of up to 128 members of up to 64 bytes in its record, as Redis keeps a
    listpack; past either limit both move to another encoding. Replies stay the same on the way
    there and back down."""
    cmds = []
    for i in range(130):
        cmds.append(("ZADD", "grow", str(i % 13), f"m{i:03d}"))
        if i in (0, 126, 127, 128, 129):
            cmds += [("ZRANGE", "grow", "0", "-1", "WITHSCORES"), ("ZCARD", "grow"),
                     ("ZRANK", "grow", "m000"), ("ZREVRANGEBYSCORE", "grow", "5", "(2", "LIMIT", "3", "4")]
    cmds += [("ZREMRANGEBYSCORE", "grow", "-inf", "9"), ("ZRANGE", "grow", "0", "-1", "WITHSCORES"),
             ("ZADD", "grow", "-1", "low"), ("ZRANGE", "grow", "0", "2", "WITHSCORES"),
             ("ZREMRANGEBYRANK", "grow", "0", "-3"), ("ZRANGE", "grow", "0", "-1", "WITHSCORES")]
    # One ZADD naming a member twice, in a small set and in one it takes past 128 members.
    cmds += [("ZADD", "dup", "1", "a", "2", "a", "3", "b"), ("ZRANGE", "dup", "0", "-1", "WITHSCORES"),
             ("ZADD", "dup", "CH", "5", "b", "0", "b", "7", "c"), ("ZRANGE", "dup", "0", "-1", "WITHSCORES")]
    many = ["ZADD", "dup"]
    for i in range(140):
        many += [str(i % 9), f"n{i % 135:03d}"]
    cmds += [tuple(many), ("ZCARD", "dup"), ("ZRANGE", "dup", "0", "-1", "WITHSCORES"),
             ("ZADD", "dup", "INCR", "4", "n001"), ("ZRANGEBYSCORE", "dup", "3", "4", "WITHSCORES")]
    long_member = "x" * 64
    longer_member = "y" * 65
    cmds += [("ZADD", "long", "1", long_member, "2", "b"), ("ZRANGE", "long", "0", "-1"),
             ("ZADD", "long", "0", longer_member), ("ZRANGE", "long", "0", "-1", "WITHSCORES"),
             ("ZSCORE", "long", longer_member), ("ZREM", "long", longer_member, long_member),
             ("ZRANGEBYLEX", "long", "-", "+"), ("ZINCRBY", "long", "5", "b"),
             ("ZRANGE", "long", "0", "-1", "WITHSCORES")]
    run(diff, cmds)
    diff.assert_same()


def test_sliding_log_trimmed_at_its_low_end(diff):
    """The limiter libraries' sliding log: add at rising scores, trim the oldest, read the
    oldest, count; long enough to pass the inline limit and come back under it."""
    cmds = []
    for t in range(400):
        window = 150 if t < 250 else 20
        cmds += [("ZREMRANGEBYSCORE", "log", "-inf", str(t - window)), ("ZCARD", "log"),
                 ("ZADD", "log", str(t), f"req-{t}")]
        if t % 25 == 0:
            cmds += [("ZRANGE", "log", "0", "0", "WITHSCORES"), ("ZRANGE", "log", "-1", "-1")]
    run(diff, cmds)
    diff.assert_same()


# ---- ZPOPMIN / ZPOPMAX -------------------------------------------------------------------------
# Redis 7.0: a flat member/score list in RESP2, and in RESP3 too without a count; with a count
# RESP3 nests [member, score] pairs. A count is getPositiveLong's (0 allowed, checked before the
# key), a third argument a syntax error before that.

I64_MAX = "9223372036854775807"
I64_MIN = "-9223372036854775808"


def test_zpopmin_zpopmax(diff):
    run(diff, [
        ("ZADD", "z", "1", "a", "2", "b", "2", "b2", "3", "c", "-inf", "lo", "inf", "hi",
         "2.5", "half"),
        ("ZPOPMIN", "z"), ("ZPOPMAX", "z"), ("ZPOPMIN", "z", "1"), ("ZPOPMAX", "z", "1"),
        ("ZPOPMIN", "z", "0"), ("ZPOPMAX", "z", "0"), ("ZPOPMIN", "z", "2"), ("ZCARD", "z"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("ZPOPMAX", "z", "10"), ("EXISTS", "z"),
        ("TYPE", "z"), ("ZPOPMIN", "z"), ("ZPOPMAX", "z", "3"), ("ZPOPMIN", "z", "0"),
        ("ZPOPMIN", "nope"), ("ZPOPMAX", "nope", "0"), ("ZPOPMIN", "nope", "2"),
        # Count errors come before the key is read, and before a missing key's empty reply.
        ("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"),
        ("ZPOPMIN", "z", "-1"), ("ZPOPMAX", "z", "abc"), ("ZPOPMIN", "z", "1.5"),
        ("ZPOPMIN", "z", ""), ("ZPOPMIN", "z", "01"), ("ZPOPMIN", "z", "+1"), ("ZPOPMIN", "z", "-0"),
        ("ZPOPMIN", "z", " 1"), ("ZPOPMIN", "z", I64_MIN), ("ZPOPMIN", "z", "9223372036854775808"),
        ("ZPOPMIN", "nope", "-1"), ("ZPOPMAX", "nope", "x"), ("ZPOPMIN", "z", "1", "2"),
        ("ZPOPMAX", "z", "x", "y"), ("ZPOPMIN",), ("ZPOPMAX",), ("ZCARD", "z"),
        ("ZPOPMAX", "z", I64_MAX), ("EXISTS", "z"),
        ("SET", "s", "x"), ("ZPOPMIN", "s"), ("ZPOPMIN", "s", "0"), ("ZPOPMAX", "s", "2"),
        ("ZPOPMIN", "s", "-1"), ("ZPOPMAX", "s", "abc"), ("ZPOPMIN", "s", "1", "2"), ("GET", "s"),
        ("HSET", "h", "f", "v"), ("ZPOPMAX", "h"), ("HGET", "h", "f"),
        # Equal scores pop in member order, from either end.
        ("ZADD", "tie", "5", "b", "5", "a", "5", "c", "5", ""), ("ZPOPMIN", "tie"),
        ("ZPOPMAX", "tie", "2"), ("ZRANGE", "tie", "0", "-1"), ("ZPOPMIN", "tie", "1"),
        ("EXISTS", "tie"),
    ])
    diff.assert_same()


def test_zpop_keeps_the_ttl_and_frees_the_name(diff):
    run(diff, [
        ("ZADD", "z", "1", "a", "2", "b", "3", "c"), ("EXPIRE", "z", "1000"), ("ZPOPMIN", "z"),
        ("TTL", "z"), ("ZPOPMAX", "z", "1"), ("TTL", "z"), ("ZPOPMIN", "z", "5"), ("TTL", "z"),
        ("EXISTS", "z"), ("SET", "z", "now a string"), ("GET", "z"), ("DEL", "z"),
        ("ZADD", "z", "7", "fresh"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("TTL", "z"),
        ("MULTI",), ("ZPOPMIN", "z"), ("ZPOPMAX", "z", "1"), ("ZADD", "z", "1", "x"),
        ("ZPOPMAX", "z", "3"), ("EXEC",), ("EXISTS", "z"),
    ])
    diff.assert_same()


def test_zpop_of_indexed_sets(diff):
    """Sets past the inline limits (more than 128 members, or a member over 64 bytes), popped
    from both ends until they are gone, through the limit and back under it."""
    cmd = ["ZADD", "big"]
    for i in range(300):
        cmd += [str((i * 37) % 101 / 4), f"m{i:03d}"]
    cmds = [tuple(cmd)]
    for count in ["1", "7", "50", "0", "100", "3"]:
        cmds += [("ZPOPMIN", "big", count), ("ZPOPMAX", "big", count), ("ZCARD", "big"),
                 ("ZRANGE", "big", "0", "2", "WITHSCORES"), ("ZRANGE", "big", "-2", "-1")]
    cmds += [("ZPOPMIN", "big"), ("ZPOPMAX", "big"), ("ZPOPMAX", "big", "1000"), ("EXISTS", "big"),
             ("ZADD", "long", "1", LONG_MEMBER, "2", "b", "0.5", "a"), ("ZPOPMIN", "long"),
             ("ZPOPMIN", "long", "1"), ("ZPOPMAX", "long"), ("EXISTS", "long"),
             ("ZADD", "long", "3", LONG_MEMBER), ("ZPOPMAX", "long", "2")]
    run(diff, cmds)
    diff.assert_same()


def test_sliding_log_popped_from_its_low_end(diff):
    """A queue: add at rising scores, pop the oldest; long enough to pass the inline limit."""
    cmds = []
    for t in range(400):
        cmds.append(("ZADD", "q", str(t), f"job-{t}"))
        if t % 3 == 0:
            cmds.append(("ZPOPMIN", "q", "2") if t % 2 else ("ZPOPMIN", "q"))
        if t % 50 == 0:
            cmds += [("ZCARD", "q"), ("ZPOPMAX", "q"), ("ZRANGE", "q", "0", "0", "WITHSCORES")]
    run(diff, cmds)
    diff.assert_same()


def _zset_command_with_pops(rng):
    if rng.random() < 0.25:
        k = rng.choice(KEYS)
        return (rng.choice(["ZPOPMIN", "ZPOPMAX"]), k,
                *rng.choice([(), ("0",), ("1",), ("2",), ("5",), ("-1",), ("x",)]))
    return _zset_command(rng)


def test_random_zset_sequences_with_pops(diff):
    random_sequences(diff, random.Random(20260511), KEYS, _zset_command_with_pops, sequences=250)


# ---- ZRANDMEMBER where the reply is determined ---------------------------------------------------
# Random replies are checked by property in test_random_members.py. Here: errors (the count, then
# the option, then WITHSCORES' +-LONG_MAX/2, all before the key), missing keys, wrong types,
# count 0, a one-member set, and a count >= the size, which Redis 7.0 answers with the whole set
# from its highest score down. Never a huge negative count on a set: Redis 7.0 tries to build
# that reply and does not return.

def test_zrandmember_determined_replies(diff):
    run(diff, [
        ("ZRANDMEMBER", "nope"), ("ZRANDMEMBER", "nope", "0"), ("ZRANDMEMBER", "nope", "5"),
        ("ZRANDMEMBER", "nope", "-5"), ("ZRANDMEMBER", "nope", "5", "WITHSCORES"),
        ("ZRANDMEMBER", "nope", "-9223372036854775807"),
        ("ZRANDMEMBER", "nope", "-4611686018427387903", "WITHSCORES"),
        ("ZADD", "z", "1", "a", "2", "b", "2", "b2", "3", "c", "-inf", "lo", "inf", "hi",
         "0.1", "tenth"),
        ("ZRANDMEMBER", "z", "7"), ("ZRANDMEMBER", "z", "8"), ("ZRANDMEMBER", "z", "7", "WITHSCORES"),
        ("ZRANDMEMBER", "z", "100", "withscores"), ("ZRANDMEMBER", "z", I64_MAX),
        ("ZRANDMEMBER", "z", "4611686018427387903", "WITHSCORES"),
        ("ZRANDMEMBER", "z", "0"), ("ZRANDMEMBER", "z", "0", "WITHSCORES"),
        # Errors, in Redis's order.
        ("ZRANDMEMBER", "z", "abc"), ("ZRANDMEMBER", "z", "abc", "WITHSCORES"),
        ("ZRANDMEMBER", "z", "abc", "foo"), ("ZRANDMEMBER", "z", "1", "foo"),
        ("ZRANDMEMBER", "z", "1", "WITHSCORES", "x"), ("ZRANDMEMBER", "z", "abc", "WITHSCORES", "x"),
        ("ZRANDMEMBER", "z", "1", "WITHVALUES"), ("ZRANDMEMBER", "z", I64_MIN),
        ("ZRANDMEMBER", "z", I64_MIN, "WITHSCORES"), ("ZRANDMEMBER", "z", I64_MIN, "foo"),
        ("ZRANDMEMBER", "z", "-9223372036854775807", "WITHSCORES"),
        ("ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES"),
        ("ZRANDMEMBER", "z", "4611686018427387904", "WITHSCORES"),
        ("ZRANDMEMBER", "z", I64_MAX, "WITHSCORES"), ("ZRANDMEMBER", "z", "9223372036854775808"),
        ("ZRANDMEMBER", "z", "9223372036854775808", "foo"), ("ZRANDMEMBER", "z", "+1"),
        ("ZRANDMEMBER", "z", "-0"), ("ZRANDMEMBER", "z", "01"), ("ZRANDMEMBER", "z", " 1"),
        ("ZRANDMEMBER", "z", "1.0"), ("ZRANDMEMBER", "z", ""),
        ("ZRANDMEMBER", "nope", I64_MIN), ("ZRANDMEMBER", "nope", "4611686018427387904", "WITHSCORES"),
        ("ZRANDMEMBER", "nope", "1", "foo"), ("ZRANDMEMBER",),
        # A one-member set.
        ("ZADD", "one", "5", "x"), ("ZRANDMEMBER", "one"), ("ZRANDMEMBER", "one", "1"),
        ("ZRANDMEMBER", "one", "-1"), ("ZRANDMEMBER", "one", "-4"),
        ("ZRANDMEMBER", "one", "-3", "WITHSCORES"), ("ZRANDMEMBER", "one", "3", "WITHSCORES"),
        # Another type.
        ("SET", "s", "x"), ("ZRANDMEMBER", "s"), ("ZRANDMEMBER", "s", "0"),
        ("ZRANDMEMBER", "s", "-1"), ("ZRANDMEMBER", "s", "0", "WITHSCORES"),
        ("ZRANDMEMBER", "s", "abc"), ("ZRANDMEMBER", "s", "1", "foo"),
        ("ZRANDMEMBER", "s", "4611686018427387904", "WITHSCORES"),
        ("HSET", "h", "f", "v"), ("ZRANDMEMBER", "h", "1"),
        # An emptied set is a missing key.
        ("ZPOPMIN", "one"), ("ZRANDMEMBER", "one"), ("ZRANDMEMBER", "one", "-2"),
    ])
    diff.assert_same()


def test_zrandmember_whole_indexed_sets(diff):
    cmd = ["ZADD", "big"]
    for i in range(200):
        cmd += [str(i % 7), f"m{i:03d}"]
    run(diff, [
        tuple(cmd), ("ZRANDMEMBER", "big", "200"), ("ZRANDMEMBER", "big", "201", "WITHSCORES"),
        ("ZRANDMEMBER", "big", I64_MAX), ("ZRANDMEMBER", "big", "0"),
        ("ZADD", "long", "1", LONG_MEMBER, "2", "b", "-1", "a"),
        ("ZRANDMEMBER", "long", "3", "WITHSCORES"), ("ZRANDMEMBER", "long", "5"),
        ("ZADD", "lone", "2", LONG_MEMBER), ("ZRANDMEMBER", "lone"),
        ("ZRANDMEMBER", "lone", "-3", "WITHSCORES"),
    ])
    diff.assert_same()
