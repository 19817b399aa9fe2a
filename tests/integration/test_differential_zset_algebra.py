"""Sorted-set algebra (ZUNION ZINTER ZDIFF, their STORE forms, ZRANGESTORE): the same sequences
sent to redis-server and sluiced, every reply compared to the byte in RESP2 and after HELLO 3.
"""

import random

import pytest

from composite_diff import random_sequences, run
from test_differential_zsets import KEYS, LONG_MEMBER, _zset_command

SETUP = [
    ("ZADD", "a", "1", "x", "2", "y", "3", "z"), ("ZADD", "b", "10", "y", "20", "z", "30", "w"),
    ("ZADD", "c", "5", "z", "6", "v"), ("SET", "str", "plain"), ("HSET", "h", "f", "v"),
]


def test_union_inter_diff_replies(diff):
    run(diff, SETUP + [
        ("ZUNION", "2", "a", "b"), ("ZUNION", "2", "a", "b", "WITHSCORES"),
        ("ZUNION", "3", "a", "b", "c", "WITHSCORES"), ("ZUNION", "1", "nope", "WITHSCORES"),
        ("ZUNION", "2", "a", "nope", "WITHSCORES"), ("ZUNION", "2", "a", "a", "WITHSCORES"),
        ("ZINTER", "2", "a", "b"), ("ZINTER", "2", "a", "b", "WITHSCORES"),
        ("ZINTER", "3", "a", "b", "c", "WITHSCORES"), ("ZINTER", "2", "a", "nope", "WITHSCORES"),
        ("ZINTER", "2", "a", "a", "WITHSCORES"), ("ZINTER", "1", "a", "WITHSCORES"),
        ("ZDIFF", "2", "a", "b"), ("ZDIFF", "2", "a", "b", "WITHSCORES"),
        ("ZDIFF", "3", "b", "a", "c", "WITHSCORES"), ("ZDIFF", "1", "a", "WITHSCORES"),
        ("ZDIFF", "2", "nope", "a"), ("ZDIFF", "2", "a", "nope", "WITHSCORES"),
        ("ZDIFF", "2", "a", "a"),
        ("ZUNION", "2", "a", "b", "WEIGHTS", "2", "0.5", "WITHSCORES"),
        ("ZUNION", "2", "a", "b", "AGGREGATE", "MIN", "WITHSCORES"),
        ("ZUNION", "2", "a", "b", "AGGREGATE", "max", "WITHSCORES"),
        ("ZUNION", "2", "a", "b", "aggregate", "sum", "weights", "-1", "1", "withscores"),
        ("ZINTER", "2", "a", "b", "WEIGHTS", "3", "-2", "AGGREGATE", "MAX", "WITHSCORES"),
        ("ZINTER", "2", "a", "b", "AGGREGATE", "MIN", "WEIGHTS", "1", "1", "WITHSCORES"),
        # Repeated options: the last one wins, as Redis's loop reads them.
        ("ZUNION", "2", "a", "b", "AGGREGATE", "MIN", "AGGREGATE", "MAX", "WITHSCORES"),
        ("ZUNION", "2", "a", "b", "WEIGHTS", "1", "2", "WEIGHTS", "3", "4", "WITHSCORES"),
        ("ZUNION", "1", "a", "WITHSCORES", "WITHSCORES"),
        ("ZUNION", "2", "a", "b", "WEIGHTS", "1e3", "0x10", "WITHSCORES"),
        ("ZUNION", "2", "a", "b", "WEIGHTS", "0", "-0", "WITHSCORES"),
    ])
    diff.assert_same()


def test_store_forms_replace_the_destination(diff):
    run(diff, SETUP + [
        ("ZUNIONSTORE", "d", "2", "a", "b"), ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("TYPE", "d"), ("ZINTERSTORE", "d", "2", "a", "b", "WEIGHTS", "2", "3"),
        ("ZRANGE", "d", "0", "-1", "WITHSCORES"), ("ZDIFFSTORE", "d", "2", "b", "a"),
        ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        # Of another type, with a TTL: replaced, and the TTL goes.
        ("SET", "s", "v", "EX", "1000"), ("ZUNIONSTORE", "s", "1", "a"), ("TTL", "s"),
        ("TYPE", "s"), ("ZRANGE", "s", "0", "-1", "WITHSCORES"),
        ("HSET", "h2", "f", "v"), ("ZINTERSTORE", "h2", "2", "a", "c"), ("TYPE", "h2"),
        ("ZADD", "t", "1", "old"), ("EXPIRE", "t", "1000"), ("ZDIFFSTORE", "t", "1", "c"),
        ("TTL", "t"), ("ZRANGE", "t", "0", "-1", "WITHSCORES"),
        # The destination is one of the sources.
        ("ZUNIONSTORE", "a", "2", "a", "b"), ("ZRANGE", "a", "0", "-1", "WITHSCORES"),
        ("ZINTERSTORE", "b", "2", "a", "b", "AGGREGATE", "MIN"),
        ("ZRANGE", "b", "0", "-1", "WITHSCORES"), ("ZDIFFSTORE", "c", "2", "c", "b"),
        ("ZRANGE", "c", "0", "-1", "WITHSCORES"), ("ZUNIONSTORE", "a", "1", "a", "WEIGHTS", "2"),
        ("ZRANGE", "a", "0", "-1", "WITHSCORES"),
        # An empty result deletes the destination (of any type); a missing one stays missing.
        ("ZINTERSTORE", "a", "2", "a", "nope"), ("EXISTS", "a"),
        ("ZUNIONSTORE", "str", "1", "nope"), ("EXISTS", "str"),
        ("ZDIFFSTORE", "b", "2", "b", "b"), ("EXISTS", "b"),
        ("ZUNIONSTORE", "never", "2", "nope", "nope2"), ("EXISTS", "never"),
        ("ZINTERSTORE", "never", "1", "nope"), ("ZDIFFSTORE", "never", "1", "nope"),
        ("EXISTS", "never"), ("DBSIZE",),
    ])
    diff.assert_same()


def test_infinities_and_nan(diff):
    run(diff, [
        ("ZADD", "p", "inf", "m", "-inf", "n", "0", "o", "5", "q"),
        ("ZADD", "n", "-inf", "m", "inf", "n", "inf", "o", "-5", "q"),
        # +inf + -inf is 0, not NaN.
        ("ZUNION", "2", "p", "n", "WITHSCORES"), ("ZINTER", "2", "p", "n", "WITHSCORES"),
        ("ZUNIONSTORE", "d", "2", "p", "n"), ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        # A weight of 0 times an infinite score is NaN: 0 in a union, and in an intersection
        # 0 for SUM while MIN and MAX keep the score so far.
        ("ZUNION", "2", "p", "n", "WEIGHTS", "0", "1", "WITHSCORES"),
        ("ZUNION", "2", "p", "n", "WEIGHTS", "1", "0", "AGGREGATE", "MIN", "WITHSCORES"),
        ("ZUNION", "2", "p", "n", "WEIGHTS", "0", "0", "AGGREGATE", "MAX", "WITHSCORES"),
        ("ZINTER", "2", "p", "n", "WEIGHTS", "1", "0", "WITHSCORES"),
        ("ZINTER", "2", "p", "n", "WEIGHTS", "1", "0", "AGGREGATE", "MIN", "WITHSCORES"),
        ("ZINTER", "2", "p", "n", "WEIGHTS", "1", "0", "AGGREGATE", "MAX", "WITHSCORES"),
        ("ZINTER", "2", "p", "n", "WEIGHTS", "0", "1", "AGGREGATE", "MIN", "WITHSCORES"),
        ("ZINTERSTORE", "d", "2", "p", "n", "WEIGHTS", "inf", "-inf"),
        ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("ZUNION", "2", "p", "n", "WEIGHTS", "inf", "1", "WITHSCORES"),
        ("ZUNION", "2", "p", "n", "WEIGHTS", "-inf", "-inf", "AGGREGATE", "MAX", "WITHSCORES"),
        ("ZUNION", "2", "p", "n", "WEIGHTS", "1e308", "1e308", "WITHSCORES"),
    ])
    diff.assert_same()


def test_sums_add_up_in_redis_order(diff):
    """Sources are taken smallest first (stably), so float sums round as Redis's do."""
    run(diff, [
        ("ZADD", "big", "0.1", "m", "1", "k1", "2", "k2"), ("ZADD", "mid", "0.2", "m", "1", "k1"),
        ("ZADD", "small", "0.3", "m"), ("ZADD", "s2", "1e16", "m"),
        ("ZUNION", "3", "big", "mid", "small", "WITHSCORES"),
        ("ZUNION", "3", "small", "mid", "big", "WITHSCORES"),
        ("ZUNION", "4", "big", "s2", "small", "mid", "WITHSCORES"),
        ("ZINTER", "4", "big", "s2", "small", "mid", "WITHSCORES"),
        ("ZINTER", "3", "s2", "big", "small", "WEIGHTS", "1", "-1", "1", "WITHSCORES"),
        ("ZUNION", "3", "s2", "small", "mid", "WEIGHTS", "-1", "1", "1", "WITHSCORES"),
    ])
    diff.assert_same()


def test_errors(diff):
    run(diff, SETUP + [
        # The key count: an integer, at least 1, no more than the arguments left.
        ("ZUNIONSTORE", "d", "0", "a"), ("ZINTERSTORE", "d", "-1", "a"),
        ("ZDIFFSTORE", "d", "0", "a"), ("ZUNION", "0", "a"), ("ZINTER", "-5", "a"),
        ("ZDIFF", "0", "a"), ("ZUNIONSTORE", "d", "x", "a"), ("ZUNION", "1.5", "a"),
        ("ZUNION", "99999999999999999999", "a"), ("ZUNIONSTORE", "d", "3", "a", "b"),
        ("ZINTER", "2", "a"), ("ZDIFF", "4", "a", "b", "c"), ("ZUNION", "2", "a", "WEIGHTS"),
        ("zunionstore", "d", "0", "a"), ("ZUnion", "0", "a"),
        # Arity.
        ("ZUNIONSTORE", "d", "1"), ("ZINTERSTORE", "d"), ("ZDIFFSTORE",), ("ZUNION", "1"),
        ("ZINTER",), ("ZDIFF", "0"), ("ZRANGESTORE", "d", "a", "0"),
        # Wrong types, before the options are judged; a syntax error in the count first.
        ("ZUNION", "2", "a", "str"), ("ZINTER", "2", "nope", "h", "WITHSCORES"),
        ("ZDIFF", "2", "a", "str"), ("ZUNIONSTORE", "d", "2", "a", "str"),
        ("ZUNIONSTORE", "d", "2", "str", "a", "WEIGHTS", "x"),
        ("ZINTERSTORE", "d", "2", "a", "h", "bogus"), ("ZDIFFSTORE", "d", "1", "h", "WEIGHTS", "1"),
        ("ZUNIONSTORE", "d", "3", "str", "a"), ("ZUNION", "1", "str", "AGGREGATE", "AVG"),
        # Weights: floats only, one per key.
        ("ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"), ("ZUNION", "2", "a", "b", "WEIGHTS", "nan", "1"),
        ("ZINTER", "2", "a", "b", "WEIGHTS", "1", "1e400"),
        ("ZINTER", "2", "a", "b", "WEIGHTS", "1", " 1"), ("ZINTER", "2", "a", "b", "WEIGHTS", "", "1"),
        ("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1"),
        ("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2", "3"),
        ("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "x", "AGGREGATE", "MIN"),
        # AGGREGATE, WITHSCORES, and ZDIFF's refusal of both.
        ("ZUNION", "2", "a", "b", "AGGREGATE"), ("ZUNION", "2", "a", "b", "AGGREGATE", "AVG"),
        ("ZUNIONSTORE", "d", "2", "a", "b", "WITHSCORES"), ("ZDIFFSTORE", "d", "1", "a", "WITHSCORES"),
        ("ZDIFF", "2", "a", "b", "WEIGHTS", "1", "2"), ("ZDIFF", "1", "a", "AGGREGATE", "MIN"),
        ("ZINTER", "1", "a", "WITHSCORE"), ("ZUNION", "1", "a", "LIMIT", "0", "1"),
        # Nothing was written by any of them.
        ("EXISTS", "d"), ("ZRANGE", "a", "0", "-1", "WITHSCORES"),
    ])
    diff.assert_same()


def test_zrangestore(diff):
    run(diff, SETUP + [
        ("ZADD", "lex", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"),
        ("ZRANGESTORE", "d", "a", "0", "-1"), ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "d", "b", "0", "1", "REV"), ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "d", "b", "(10", "+inf", "BYSCORE"), ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "d", "b", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", "1"),
        ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "d", "lex", "[b", "(e", "BYLEX"), ("ZRANGE", "d", "0", "-1"),
        ("ZRANGESTORE", "d", "lex", "+", "-", "BYLEX", "REV", "LIMIT", "0", "2"),
        ("ZRANGE", "d", "0", "-1"), ("ZRANGESTORE", "d", "a", "0", "-1", "LIMIT", "0", "-1"),
        # Over another type with a TTL; onto its own source.
        ("SET", "s", "v", "EX", "1000"), ("ZRANGESTORE", "s", "a", "1", "2"), ("TTL", "s"),
        ("TYPE", "s"), ("ZRANGESTORE", "a", "a", "1", "-1"), ("ZRANGE", "a", "0", "-1", "WITHSCORES"),
        # An empty range, or a missing source, deletes the destination.
        ("ZRANGESTORE", "d", "a", "5", "9"), ("EXISTS", "d"), ("ZRANGESTORE", "s", "nope", "0", "-1"),
        ("EXISTS", "s"), ("ZRANGESTORE", "d", "lex", "(z", "+", "BYLEX"),
        ("ZRANGESTORE", "never", "nope", "0", "-1"), ("EXISTS", "never"),
        # Errors: the destination stays.
        ("ZRANGESTORE", "a", "str", "0", "-1"), ("ZRANGESTORE", "a", "b", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "a", "b", "0", "-1", "LIMIT", "0", "1"),
        ("ZRANGESTORE", "a", "b", "0", "-1", "BYLEX"), ("ZRANGESTORE", "a", "b", "x", "1"),
        ("ZRANGESTORE", "a", "b", "x", "1", "BYSCORE"), ("ZRANGESTORE", "a", "b", "0", "1", "LIMIT", "1"),
        ("ZRANGESTORE", "a", "b", "0", "1", "BYSCORE", "BYLEX"), ("ZRANGESTORE", "a", "b", "0", "1", "REV", "REV"),
        ("ZRANGESTORE", "a", "b", "0", "1", "LIMIT", "x", "1", "BYSCORE"),
        ("ZRANGE", "a", "0", "-1", "WITHSCORES"),
    ])
    diff.assert_same()


def test_large_and_indexed_sources(diff):
    """Sets past the inline limits (129 members, a member over 64 bytes), in and out."""
    big = [x for i in range(300) for x in (str(i % 17), f"m{i:03}")]
    odd = [x for i in range(1, 300, 2) for x in (str(i), f"m{i:03}")]
    run(diff, [
        ("ZADD", "big", *big), ("ZADD", "odd", *odd), ("ZADD", "long", "1", LONG_MEMBER, "2", "m001"),
        ("ZUNIONSTORE", "u", "3", "big", "odd", "long"), ("ZCARD", "u"),
        ("ZRANGE", "u", "0", "-1", "WITHSCORES"), ("ZINTERSTORE", "i", "2", "big", "odd"),
        ("ZRANGE", "i", "100", "-1", "WITHSCORES"), ("ZDIFFSTORE", "df", "2", "big", "odd"),
        ("ZCARD", "df"), ("ZRANGE", "df", "0", "5", "WITHSCORES"),
        ("ZINTER", "2", "long", "big", "WITHSCORES"), ("ZDIFF", "2", "long", "big", "WITHSCORES"),
        ("ZUNIONSTORE", "small", "2", "long", "nope"), ("ZRANGE", "small", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "r", "big", "10", "200"), ("ZRANGE", "r", "0", "-1", "WITHSCORES"),
        ("ZRANGESTORE", "r", "big", "-3", "-1"), ("ZRANGE", "r", "0", "-1", "WITHSCORES"),
        ("ZUNIONSTORE", "big", "2", "big", "odd", "WEIGHTS", "1", "-1"),
        ("ZRANGE", "big", "0", "-1", "WITHSCORES"), ("ZINTERSTORE", "big", "2", "big", "nope"),
        ("EXISTS", "big"), ("ZRANGEBYSCORE", "u", "5", "(7", "WITHSCORES"),
    ])
    diff.assert_same()


def test_a_small_source_against_large_ones(diff):
    """ZINTER and ZDIFF of a few members against sources hundreds of times larger (sorted sets,
    a plain set, inline and indexed, missing keys): sluiced asks the large ones for the few
    members alone. Scores, weights, aggregates and the order of sums as Redis's."""
    rng = random.Random(20261129)
    large = [x for i in range(4000) for x in (str(rng.choice([i % 13, i / 7, -i, 1e300])),
                                               f"m{i:04}")]
    small = [x for i in range(0, 4000, 211) for x in (str(i % 5 - 2), f"m{i:04}")] + \
        ["1", "absent-everywhere", "-inf", "m3999"]
    run(diff, [
        ("ZADD", "large", *large), ("ZADD", "large2", *large[:6000]),
        ("SADD", "plain", *[f"m{i:04}" for i in range(0, 4000, 3)]),
        ("ZADD", "small", *small), ("ZADD", "tiny", "5", "m0211"),
    ])
    cases = [
        ("ZINTER", "2", "small", "large"), ("ZINTER", "2", "large", "small"),
        ("ZINTER", "3", "large", "small", "large2"), ("ZINTER", "3", "plain", "large", "tiny"),
        ("ZINTER", "2", "small", "nope"), ("ZINTER", "3", "large", "small", "plain"),
        ("ZDIFF", "2", "small", "large"), ("ZDIFF", "3", "small", "large2", "plain"),
        ("ZDIFF", "2", "tiny", "large"), ("ZDIFF", "2", "small", "nope"),
        ("ZDIFF", "2", "large", "small"),
    ]
    for case in cases:
        check_all = [case + ("WITHSCORES",)]
        if case[0] == "ZINTER":
            n = int(case[1])
            for aggregate in ["SUM", "MIN", "MAX"]:
                weights = [str(w) for w in [2, -0.5, 3][:n]]
                check_all.append(case + ("WEIGHTS", *weights, "AGGREGATE", aggregate,
                                         "WITHSCORES"))
        store = ("ZINTERSTORE" if case[0] == "ZINTER" else "ZDIFFSTORE", "dest") + case[1:]
        run(diff, check_all + [store, ("ZRANGE", "dest", "0", "-1", "WITHSCORES")])
    run(diff, [("ZINTERCARD", "2", "small", "large"), ("ZINTERCARD", "3", "small", "large",
                                                       "plain")])
    diff.assert_same()


def test_zintercard(diff):
    run(diff, SETUP + [
        ("SADD", "set", "y", "z", "q"),
        ("ZINTERCARD", "2", "a", "b"), ("ZINTERCARD", "3", "a", "b", "c"),
        ("ZINTERCARD", "1", "a"), ("ZINTERCARD", "2", "a", "nope"), ("ZINTERCARD", "1", "nope"),
        ("ZINTERCARD", "2", "a", "a"), ("ZINTERCARD", "2", "a", "set"),
        ("ZINTERCARD", "2", "a", "b", "LIMIT", "1"), ("ZINTERCARD", "2", "a", "b", "limit", "0"),
        ("ZINTERCARD", "2", "a", "b", "LIMIT", "5"),
        ("ZINTERCARD", "2", "a", "b", "LIMIT", "1", "LIMIT", "0"),
        ("ZINTERCARD", "1", "a", "LIMIT", "9223372036854775807"),
        # The count, then the keys' types, then the options.
        ("ZINTERCARD", "0", "a"), ("ZINTERCARD", "-1", "a"), ("ZINTERCARD", "x", "a"),
        ("ZINTERCARD", "1.5", "a"), ("ZINTERCARD", "9223372036854775808", "a"),
        ("ZINTERCARD", "3", "a", "b"), ("ZINTERCARD", "2", "a"), ("ZINTERCARD", "1", "a", "b"),
        ("ZINTERCARD", "1", "a", "LIMIT"), ("ZINTERCARD", "1", "a", "LIMIT", "-1"),
        ("ZINTERCARD", "1", "a", "LIMIT", "x"), ("ZINTERCARD", "1", "a", "LIMIT", "1", "x"),
        ("ZINTERCARD", "1", "a", "LIMIT", "9223372036854775808"),
        ("ZINTERCARD", "1", "a", "WEIGHTS", "1"), ("ZINTERCARD", "1", "a", "WITHSCORES"),
        ("ZINTERCARD", "1", "a", "AGGREGATE", "SUM"),
        ("ZINTERCARD", "2", "a", "str"), ("ZINTERCARD", "2", "nope", "h"),
        ("ZINTERCARD", "2", "a", "str", "LIMIT", "x"), ("ZINTERCARD", "1", "str", "bogus"),
        ("ZINTERCARD",), ("ZINTERCARD", "1"),
        ("COMMAND", "GETKEYS", "ZINTERCARD", "2", "a", "b", "LIMIT", "1"),
        ("COMMAND", "GETKEYS", "ZINTERCARD", "3", "a", "b"),
        ("COMMAND", "INFO", "ZINTERCARD"),
    ])
    diff.assert_same()


def test_command_getkeys_of_the_algebra(diff):
    run(diff, [
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "2", "a", "b"),
        ("COMMAND", "GETKEYS", "ZINTERSTORE", "d", "1", "a", "WEIGHTS", "2"),
        ("COMMAND", "GETKEYS", "ZDIFFSTORE", "d", "3", "a", "b", "c"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "0", "a"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "3", "a", "b"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "x", "a"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "-1", "a"),
        ("COMMAND", "GETKEYS", "ZUNION", "2", "a", "b", "WITHSCORES"),
        ("COMMAND", "GETKEYS", "ZINTER", "1", "a"), ("COMMAND", "GETKEYS", "ZDIFF", "0", "a"),
        ("COMMAND", "GETKEYS", "ZDIFF", "3", "a", "b"), ("COMMAND", "GETKEYS", "ZUNION", "1"),
        ("COMMAND", "GETKEYS", "ZRANGESTORE", "d", "s", "0", "-1"),
        ("COMMAND", "GETKEYS", "ZRANGESTORE", "d", "s", "0"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "0"),
    ])
    diff.assert_same()


@pytest.mark.parametrize("write", [
    ("ZUNIONSTORE", "d", "2", "z", "nope"), ("ZINTERSTORE", "d", "1", "z"),
    ("ZDIFFSTORE", "d", "1", "z"), ("ZRANGESTORE", "d", "z", "0", "0"),
    ("ZUNIONSTORE", "d", "1", "nope"), ("ZRANGESTORE", "d", "nope", "0", "-1"),
], ids=lambda w: " ".join(w))
def test_a_store_breaks_the_watch_of_its_destination(pair, write):
    """A destination written (or deleted) breaks its WATCH; a missing one left missing does not
    (the second round, where d no longer exists when the result is empty)."""
    a, b = pair
    for _ in range(2):
        run(a, [("ZADD", "z", "1", "m"), ("ZADD", "d", "5", "old")])
        run(a, [("WATCH", "d")])
        run(b, [write])
        run(a, [("MULTI",), ("ZCARD", "d"), ("EXEC",)])
    run(a, [("DEL", "d"), ("WATCH", "d")])
    run(b, [write, ("ZCARD", "d")])
    run(a, [("MULTI",), ("EXISTS", "d"), ("EXEC",)])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def test_sorted_set_algebra_takes_sets(diff):
    """Redis 7.0's ZUNION and its kin read a set's members with score 1."""
    run(diff, [
        ("SADD", "s", "a", "b", "c"), ("ZADD", "z", "1", "b", "5", "c", "7", "d"),
        ("ZUNION", "2", "s", "z", "WITHSCORES"), ("ZINTER", "2", "z", "s", "WITHSCORES"),
        ("ZDIFF", "2", "s", "z", "WITHSCORES"), ("ZDIFF", "2", "z", "s", "WITHSCORES"),
        ("ZUNION", "1", "s", "WEIGHTS", "2.5", "WITHSCORES"),
        ("ZINTER", "2", "s", "z", "AGGREGATE", "MAX", "WITHSCORES"),
        ("ZUNIONSTORE", "d", "2", "s", "z"), ("TYPE", "d"),
        ("ZRANGE", "d", "0", "-1", "WITHSCORES"), ("ZINTERSTORE", "s", "2", "s", "z"),
        ("TYPE", "s"), ("ZRANGE", "s", "0", "-1", "WITHSCORES"),
        ("SADD", "s2", "x"), ("ZUNION", "2", "s2", "nope", "WEIGHTS", "1", "x"),
        ("SET", "str", "v"), ("ZUNION", "2", "s2", "str"), ("ZUNION", "2", "str", "s2", "bogus"),
        ("ZRANGESTORE", "d", "s2", "0", "-1"),
        ("SADD", "bigs", *[f"m{i:03}" for i in range(600)]),
        ("ZUNIONSTORE", "u", "2", "bigs", "z", "WEIGHTS", "3", "1"), ("ZCARD", "u"),
        ("ZRANGE", "u", "590", "-1", "WITHSCORES"), ("ZINTER", "2", "bigs", "bigs", "WITHSCORES"),
    ])
    diff.assert_same()


ALGEBRA = ["ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZUNION", "ZINTER", "ZDIFF"]


def _algebra_command(rng):
    if rng.random() < 0.55:
        return _zset_command(rng)
    name = rng.choice(ALGEBRA + ["ZRANGESTORE"])
    dest = [rng.choice(KEYS)] if name.endswith("STORE") else []
    if name == "ZRANGESTORE":
        lo, hi = rng.choice([("0", "-1"), ("1", "2"), ("-2", "-1"), ("5", "9")])
        opts = rng.choice([[], ["REV"], ["BYSCORE"], ["BYSCORE", "REV"], ["BYLEX"]])
        if "BYSCORE" in opts:
            lo, hi = rng.choice([("-inf", "+inf"), ("(0", "3"), ("1", "1"), ("+inf", "-inf")])
            if rng.random() < 0.3:
                opts = opts + ["LIMIT", rng.choice(["0", "1"]), rng.choice(["1", "-1"])]
        if "BYLEX" in opts:
            lo, hi = rng.choice([("-", "+"), ("[b", "(e"), ("(a", "[c")])
        if "REV" in opts:
            lo, hi = hi, lo
        return (name, *dest, rng.choice(KEYS), lo, hi, *opts)
    keys = [rng.choice(KEYS) for _ in range(rng.randrange(1, 4))]
    cmd = [name, *dest, str(len(keys)), *keys]
    if not name.startswith("ZDIFF"):
        if rng.random() < 0.4:
            cmd += ["WEIGHTS", *[rng.choice(["1", "2", "-1", "0", "0.5", "inf"]) for _ in keys]]
        if rng.random() < 0.4:
            cmd += ["AGGREGATE", rng.choice(["SUM", "MIN", "MAX"])]
    if not dest and rng.random() < 0.6:
        cmd.append("WITHSCORES")
    return tuple(cmd)


def test_random_algebra_sequences(diff):
    random_sequences(diff, random.Random(20250917), KEYS, _algebra_command, sequences=300)
