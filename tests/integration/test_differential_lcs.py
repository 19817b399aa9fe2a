"""LCS: the same commands sent to redis-server and sluiced, every reply compared to the byte, in
RESP2 and after HELLO 3 (IDX's reply is a map there): the subsequence, LEN, IDX with
MINMATCHLEN and WITHMATCHLEN, the errors and their order, the memory guard
(proto-max-bulk-len), scripts, COMMAND INFO, keyspace hits and misses, and seeded random
strings.
"""

import random

import pytest

from differential import assert_command_info_as_redis
from keyspace_counts import assert_counters_move_as_redis, case_ids


def run(d, commands):
    for cmd in commands:
        d.check(*cmd)


def test_lcs_basics(diff):
    run(diff, [
        ("MSET", "a", "ohmytext", "b", "mynewtext"), ("LCS", "a", "b"), ("LCS", "b", "a"),
        ("LCS", "a", "b", "LEN"), ("LCS", "a", "b", "IDX"), ("LCS", "b", "a", "IDX"),
        ("LCS", "a", "b", "IDX", "MINMATCHLEN", "4"), ("LCS", "a", "b", "IDX", "WITHMATCHLEN"),
        ("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"),
        ("LCS", "a", "b", "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN"),
        ("LCS", "a", "b", "IDX", "MINMATCHLEN", "100"), ("LCS", "a", "b", "MINMATCHLEN", "2"),
        ("LCS", "a", "b", "WITHMATCHLEN"), ("LCS", "a", "b", "LEN", "LEN"),
        ("LCS", "a", "b", "IDX", "IDX", "MINMATCHLEN", "1", "MINMATCHLEN", "3"),
        ("lcs", "a", "b", "idx", "withmatchlen"), ("LCS", "a", "a"), ("LCS", "a", "a", "IDX"),
        ("LCS", "a", "missing"), ("LCS", "missing", "b", "IDX"), ("LCS", "nope", "nope", "LEN"),
        ("SET", "n1", "12345"), ("SET", "n2", "2468"), ("LCS", "n1", "n2", "IDX", "WITHMATCHLEN"),
        ("SET", "bin1", "a\x00b\xffc"), ("SET", "bin2", "\x00\xffcb"), ("LCS", "bin1", "bin2"),
        ("LCS", "bin1", "bin2", "IDX"), ("SET", "e", ""), ("LCS", "e", "a", "IDX"),
        ("LCS", "a", "e"),
        ("MSET", "x", "rosettacode", "y", "raisethysword"), ("LCS", "x", "y"),
        ("LCS", "x", "y", "IDX", "WITHMATCHLEN"),
    ])
    diff.assert_same()


def test_lcs_errors_and_their_order(diff):
    run(diff, [
        ("MSET", "a", "abc", "b", "abd"), ("RPUSH", "l", "x"), ("HSET", "h", "f", "v"),
        ("LCS",), ("LCS", "a"), ("LCS", "a", "l"), ("LCS", "l", "a"), ("LCS", "l", "missing"),
        ("LCS", "h", "l", "LEN", "IDX"), ("LCS", "l", "a", "foo"), ("LCS", "a", "b", "foo"),
        ("LCS", "a", "b", "LEN", "IDX"), ("LCS", "a", "b", "IDX", "LEN", "WITHMATCHLEN"),
        ("LCS", "a", "b", "MINMATCHLEN"), ("LCS", "a", "b", "MINMATCHLEN", "x"),
        ("LCS", "a", "b", "MINMATCHLEN", "1.5", "IDX"), ("LCS", "a", "b", "LEN", "IDX", "foo"),
        ("LCS", "a", "b", "foo", "LEN", "IDX"), ("LCS", "a", "b", "MINMATCHLEN", "x", "LEN", "IDX"),
        ("LCS", "a", "b", "len\x00x"), ("PFADD", "hll", "x"), ("LCS", "hll", "a"),
    ])
    diff.assert_same()


def test_lcs_memory_guard(diff):
    try:
        run(diff, [
            ("CONFIG", "SET", "proto-max-bulk-len", "1mb"),
            ("SET", "x", "a" * 511), ("SET", "y", "b" * 511), ("LCS", "x", "y", "LEN"),
            ("SET", "y", "b" * 512), ("LCS", "x", "y", "LEN"), ("LCS", "x", "y"),
            ("LCS", "y", "x", "IDX"), ("LCS", "x", "y", "LEN", "IDX"), ("LCS", "x", "y", "foo"),
            ("SET", "y", "ab" * 200), ("LCS", "x", "y", "IDX", "MINMATCHLEN", "2"),
        ])
    finally:
        run(diff, [("CONFIG", "SET", "proto-max-bulk-len", "512mb")])
    diff.assert_same()


def test_lcs_in_scripts_and_transactions(diff):
    run(diff, [
        ("MSET", "a", "ohmytext", "b", "mynewtext"),
        ("EVAL", "return redis.call('LCS', KEYS[1], KEYS[2])", "2", "a", "b"),
        ("EVAL", "return redis.call('LCS', KEYS[1], KEYS[2], 'IDX')", "2", "a", "b"),
        ("EVAL_RO", "return redis.call('LCS', KEYS[1], KEYS[2], 'LEN')", "2", "a", "b"),
        ("EVAL", "return redis.pcall('LCS', KEYS[1], KEYS[2], 'LEN', 'IDX')", "2", "a", "b"),
        ("MULTI",), ("LCS", "a", "b"), ("LCS", "a", "b", "IDX", "WITHMATCHLEN"), ("EXEC",),
    ])
    diff.assert_same()


def test_command_info_and_getkeys(diff):
    run(diff, [
        ("COMMAND", "INFO", "lcs"), ("COMMAND", "GETKEYS", "LCS", "a", "b"),
        ("COMMAND", "GETKEYS", "LCS", "a", "b", "IDX"), ("COMMAND", "GETKEYS", "LCS", "a"),
    ])
    diff.assert_same()
    assert_command_info_as_redis(diff, ["lcs"])


HITS_SETUP = [("FLUSHALL",), ("MSET", "a", "abc", "b", "bcd"), ("RPUSH", "l", "x")]
HITS_CASES = [
    [("LCS", "a", "b")], [("LCS", "a", "nope")], [("LCS", "nope", "nope2", "IDX")],
    [("LCS", "a", "l")], [("LCS", "l", "a")], [("LCS", "a", "b", "foo")],
    [("LCS", "a", "b", "LEN", "IDX")],
    [("EVAL", "return redis.call('LCS', 'a', 'b')", "0")],
]


@pytest.mark.parametrize("case", HITS_CASES, ids=case_ids(HITS_CASES))
def test_keyspace_hits_and_misses_move_as_redis(emptied_servers, case):
    assert_counters_move_as_redis(emptied_servers, HITS_SETUP, case)


def test_random_strings(diff):
    rng = random.Random(20251126)
    for _ in range(300):
        alphabet = rng.choice(["ab", "abc", "acgt", "abcdefgh"])
        a = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        diff.check("MSET", "a", a, "b", b)
        options = rng.choice([(), ("LEN",), ("IDX",), ("IDX", "WITHMATCHLEN"),
                              ("IDX", "MINMATCHLEN", str(rng.randrange(0, 5))),
                              ("IDX", "MINMATCHLEN", str(rng.randrange(0, 5)), "WITHMATCHLEN")])
        diff.check("LCS", "a", "b", *options)
        if len(diff.mismatches) > 40:
            break
    # Longer strings: a few hundred bytes each.
    for _ in range(5):
        a = "".join(rng.choice("abcd") for _ in range(rng.randrange(200, 400)))
        b = "".join(rng.choice("abcd") for _ in range(rng.randrange(200, 400)))
        run(diff, [("MSET", "a", a, "b", b), ("LCS", "a", "b"),
                   ("LCS", "a", "b", "IDX", "MINMATCHLEN", "3", "WITHMATCHLEN")])
    diff.assert_same()
