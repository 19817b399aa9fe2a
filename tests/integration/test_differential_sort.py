"""SORT and SORT_RO: the same sequences sent to redis-server and sluiced, every reply compared to
the byte, in RESP2 and after HELLO 3: lists, sets and sorted sets, numeric and ALPHA, ASC and
DESC, LIMIT, BY (nosort, keys, hash fields), GET, STORE, the errors and their order, scripts,
MULTI/WATCH, COMMAND INFO and GETKEYS, keyspace hits and misses, and seeded random sequences;
expiry on sluiced's test clock.

Orders Redis does not define are compared as multisets: a set of strings (a hash table in
Redis) read with a BY that sorts nothing. Elsewhere the tests avoid ALPHA-BY ties on sets and
sorted sets, and on lists with LIMIT (docs/notes.md, "SORT and LCS").
"""

import random

import pytest

from differential import assert_command_info_as_redis
from frozen_clock import Clock
from keyspace_counts import assert_counters_move_as_redis, case_ids
import servers

I64_MAX = "9223372036854775807"
I64_MIN = "-9223372036854775808"


def run(d, commands):
    for cmd in commands:
        d.check(*cmd)


def check_unordered(d, *cmd):
    """A reply whose order Redis leaves to its hash table: the same elements, the same type;
    with LIMIT, which elements is left to it too: as many, of the same type."""
    d.count += 1
    (rv, rraw), (sv, sraw) = d.both(*cmd)
    if rraw == sraw:
        return
    if type(rv) is type(sv) and isinstance(rv, list):
        def key(value):  # nil (a GET that found nothing) among bulk strings
            return (value is not None, value or b"")
        if sorted(rv, key=key) == sorted(sv, key=key) or ("LIMIT" in cmd and len(rv) == len(sv)):
            return
    d.mismatches.append((cmd, rraw, sraw))


def test_sort_lists(diff):
    run(diff, [
        ("RPUSH", "l", "3", "1", "2", "10", "-1.5", "1e3", " 7", "0x10", "", "inf", "-inf", "2"),
        ("SORT", "l"), ("SORT", "l", "DESC"), ("SORT", "l", "ASC"), ("SORT", "l", "ALPHA"),
        ("SORT", "l", "ALPHA", "DESC"), ("SORT", "l", "LIMIT", "0", "3"),
        ("SORT", "l", "LIMIT", "2", "4", "DESC"), ("SORT", "l", "LIMIT", "-5", "2"),
        ("SORT", "l", "LIMIT", "5", "-1"), ("SORT", "l", "LIMIT", "0", "0"),
        ("SORT", "l", "LIMIT", "12", "1"), ("SORT", "l", "LIMIT", "11", "5"),
        ("SORT", "l", "LIMIT", "1", I64_MAX), ("SORT", "l", "LIMIT", I64_MAX, I64_MAX),
        ("SORT", "l", "LIMIT", "1", I64_MIN), ("SORT", "l", "LIMIT", I64_MIN, "2"),
        ("sort", "l", "desc", "alpha", "limit", "1", "3"), ("SORT_RO", "l"),
        ("SORT_RO", "l", "ALPHA", "DESC", "LIMIT", "3", "3"),
        # Equal weights go by the element's bytes.
        ("RPUSH", "eq", "1.0", "1", "01", "1e0", "+1", "0.5", "-0", "0"), ("SORT", "eq"),
        ("SORT", "eq", "DESC"),
        # Not numbers.
        ("RPUSH", "words", "b", "a", "C", "aa", "", "a b", "10", "9"), ("SORT", "words"),
        ("SORT", "words", "ALPHA"), ("SORT", "words", "ALPHA", "DESC", "LIMIT", "1", "2"),
        ("RPUSH", "nan", "1", "nan"), ("SORT", "nan"),
        ("RPUSH", "trail", "1", "2 "), ("SORT", "trail"),
        ("RPUSH", "nul", "3\x00x", "1", "2", "\x00"), ("SORT", "nul"),
        ("SORT", "missing"), ("SORT", "missing", "ALPHA", "DESC", "LIMIT", "0", "1"),
        # BY nosort keeps the list's order, DESC reverses it, LIMIT pages it.
        ("SORT", "l", "BY", "nosort"), ("SORT", "l", "BY", "nosort", "DESC"),
        ("SORT", "l", "BY", "nosort", "LIMIT", "2", "3"),
        ("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "2", "3"),
        ("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "10", "5"),
        ("SORT", "l", "BY", "nosort", "LIMIT", "20", "5"),
        ("SORT", "words", "BY", "nosort", "ALPHA", "DESC", "LIMIT", "-1", "100"),
        # Last: Redis reads errno without clearing it, so after an overflow (ERANGE) its later
        # numeric sorts on this connection fail too, until errno changes (docs/notes.md).
        ("RPUSH", "big", "1", "1e400"), ("SORT", "big"), ("RPUSH", "tiny", "1", "1e-400"),
        ("SORT", "tiny"),
    ])
    diff.assert_same()


def test_sort_large_list(diff):
    rng = random.Random(11)
    values = [str(rng.randrange(-1000, 1000)) for _ in range(1500)]
    run(diff, [
        ("RPUSH", "l", *values), ("SORT", "l"), ("SORT", "l", "DESC", "LIMIT", "700", "20"),
        ("SORT", "l", "ALPHA", "LIMIT", "1490", "100"),
        ("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1000", "10"),
        ("SORT", "l", "STORE", "d"), ("LRANGE", "d", "0", "-1"), ("LLEN", "d"),
    ])
    diff.assert_same()


def test_sort_sets(diff):
    run(diff, [
        # An intset: Redis walks it in numeric order.
        ("SADD", "ints", "10", "-3", "7", "100", "0", "42"), ("SORT", "ints"),
        ("SORT", "ints", "DESC"), ("SORT", "ints", "ALPHA"), ("SORT", "ints", "BY", "nosort"),
        ("SORT", "ints", "BY", "nosort", "DESC", "LIMIT", "1", "3"),
        ("SORT", "ints", "LIMIT", "2", "2"),
        ("SADD", "s", "banana", "apple", "cherry", "date", "egg", "fig", "Apple", "b\x00z"),
        ("SORT", "s", "ALPHA"), ("SORT", "s", "ALPHA", "DESC", "LIMIT", "2", "3"), ("SORT", "s"),
        ("SORT_RO", "s", "ALPHA", "LIMIT", "0", "2"),
        # BY nosort with STORE is sorted ALPHA after all (binary comparison), as Redis does.
        ("SORT", "s", "BY", "nosort", "STORE", "d"), ("LRANGE", "d", "0", "-1"),
        ("SORT", "s", "BY", "nosort", "DESC", "LIMIT", "1", "2", "STORE", "d"),
        ("LRANGE", "d", "0", "-1"), ("SORT", "ints", "BY", "nokey", "STORE", "d"),
        ("LRANGE", "d", "0", "-1"),
        ("SORT", "s", "BY", "nosort", "GET", "#", "GET", "x_*", "STORE", "d"),
        ("LRANGE", "d", "0", "-1"),
    ])
    # A hash table's order is Redis's own: the same members, in any order.
    check_unordered(diff, "SORT", "s", "BY", "nosort")
    check_unordered(diff, "SORT", "s", "BY", "nosort", "DESC")
    check_unordered(diff, "SORT_RO", "s", "BY", "nokey", "ALPHA")
    diff.assert_same()


def test_sort_sorted_sets(diff):
    rng = random.Random(3)
    run(diff, [
        ("ZADD", "z", "3", "a", "1", "b", "2", "c", "2", "bb", "-1", "zz"), ("SORT", "z"),
        ("SORT", "z", "ALPHA"), ("SORT", "z", "ALPHA", "DESC"),
        # BY nosort: the sorted set's own order (by score), DESC reversed.
        ("SORT", "z", "BY", "nosort"), ("SORT", "z", "BY", "nosort", "DESC"),
        ("SORT", "z", "BY", "nosort", "LIMIT", "1", "2"),
        ("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "5"),
        ("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "5", "5"),
        ("SORT", "z", "BY", "nosort", "STORE", "d"), ("LRANGE", "d", "0", "-1"),
        ("ZADD", "nums", "5", "10", "4", "9", "3", "100", "2", "-1", "1", "1.5"), ("SORT", "nums"),
        ("SORT", "nums", "DESC", "LIMIT", "0", "2"), ("SORT", "nums", "BY", "nosort"),
        # Past 128 members: sluice's indexed sorted set.
        ("ZADD", "large", *[x for i in range(300) for x in (str(rng.randrange(50)), f"m{i}")]),
        ("SORT", "large", "BY", "nosort", "LIMIT", "100", "10"),
        ("SORT", "large", "BY", "nosort", "DESC", "LIMIT", "100", "10"),
        ("SORT", "large", "ALPHA", "LIMIT", "0", "20"), ("SORT", "large", "BY", "nosort"),
    ])
    diff.assert_same()


def test_by_and_get_patterns(diff):
    run(diff, [
        ("RPUSH", "l", "3", "1", "2", "10", "4"),
        ("MSET", "w_3", "30", "w_1", "10", "w_2", "5", "w_10", "-1", "nw_1", "x", "sw_4", "9"),
        ("HSET", "h_1", "f", "one", "n", "5"), ("HSET", "h_2", "f", "two", "n", "-2"),
        ("HSET", "h_3", "g", "x", "n", "5"), ("HSET", "h_4", "f", "one", "n", "5"),
        ("SORT", "l", "BY", "w_*"), ("SORT", "l", "BY", "w_*", "DESC"),
        ("SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*", "GET", "h_*->f"),
        ("SORT", "l", "BY", "h_*->n"), ("SORT", "l", "BY", "h_*->n", "DESC"),
        # ALPHA BY: a missing value first, ties in the list's order (no LIMIT).
        ("SORT", "l", "BY", "h_*->f", "ALPHA"), ("SORT", "l", "BY", "h_*->f", "ALPHA", "DESC"),
        ("SORT", "l", "BY", "w_*", "ALPHA"), ("SORT", "l", "BY", "w_*", "ALPHA", "LIMIT", "1", "2"),
        ("SORT", "l", "BY", "nw_*"), ("SORT", "l", "BY", "h_*->f"),
        ("SORT", "l", "BY", "sw_*", "LIMIT", "1", "2"),
        ("SORT", "l", "GET", "#"), ("SORT", "l", "GET", "nostar"), ("SORT", "l", "GET", "w_*->"),
        ("SORT", "l", "GET", "h_*->f", "GET", "h_*->n", "GET", "h_*->missing"),
        ("SORT", "l", "GET", "l"), ("SORT", "l", "GET", "*"), ("SORT", "l", "GET", "h_*"),
        ("SORT", "l", "GET", "w_*", "LIMIT", "1", "2", "DESC"),
        ("SORT", "l", "BY", "nosort", "GET", "#", "GET", "w_*"),
        # A BY without a star sorts nothing, whatever BY comes after it.
        ("SORT", "l", "BY", "nosort", "BY", "w_*"), ("SORT", "l", "BY", "w_*", "BY", "nosort"),
        ("SORT", "l", "BY", "nosort", "BY", "w_*", "DESC", "LIMIT", "1", "3"),
        ("SORT_RO", "l", "BY", "w_*", "GET", "w_*", "GET", "#"),
        # Patterns: only the first star; the first arrow after it; NUL bytes.
        ("SET", "a3*b", "x"), ("SORT", "l", "GET", "a*", "GET", "a*b", "GET", "a*\x00b"),
        ("HSET", "k->3", "f", "v"), ("HSET", "k3", "->f", "arrow"),
        ("SORT", "l", "GET", "k->*->f", "GET", "k*->->f", "GET", "k*->"),
        ("HSET", "h_1", "f\x00g", "nul field"),
        ("SORT", "l", "GET", "h_*->f\x00g", "GET", "h_*\x00->f", "GET", "#\x00x"),
        ("SORT", "l", "BY", "*", "GET", "#"), ("SORT", "l", "BY", "#"),
        ("SET", "3", "c"), ("SET", "1", "a"), ("SORT", "l", "BY", "*", "ALPHA", "GET", "*"),
        # Weights of other types are missing.
        ("RPUSH", "w_4", "x"), ("SORT", "l", "BY", "w_*"), ("SORT", "l", "GET", "w_*"),
        ("SORT", "l", "BY", "l_*->f"),
    ])
    diff.assert_same()


def test_sort_by_on_sets_and_sorted_sets(diff):
    run(diff, [
        ("SADD", "s", "a", "b", "c", "d"), ("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"),
        ("MSET", "w_a", "4", "w_b", "3", "w_c", "1", "w_d", "2"),
        ("MSET", "v_a", "d", "v_b", "c", "v_c", "a", "v_d", "b"),
        ("SORT", "s", "BY", "w_*"), ("SORT", "s", "BY", "w_*", "DESC", "GET", "#", "GET", "v_*"),
        ("SORT", "z", "BY", "w_*"), ("SORT", "z", "BY", "v_*", "ALPHA", "LIMIT", "1", "2"),
        ("SORT", "s", "BY", "v_*", "ALPHA", "DESC", "STORE", "d"), ("LRANGE", "d", "0", "-1"),
        ("SORT", "z", "BY", "missing_*"), ("SORT", "s", "BY", "missing_*", "DESC"),
        ("SORT", "z", "BY", "w_*", "LIMIT", "1", "2", "GET", "v_*"),
        ("SORT", "s", "BY", "nosort", "BY", "w_*", "STORE", "d"), ("LRANGE", "d", "0", "-1"),
        ("SORT", "z", "BY", "nosort", "BY", "w_*", "DESC"),
    ])
    diff.assert_same()


def test_store(diff):
    run(diff, [
        ("RPUSH", "l", "3", "1", "2"), ("MSET", "w_1", "a", "w_3", "c"),
        ("SORT", "l", "STORE", "d"), ("TYPE", "d"), ("LRANGE", "d", "0", "-1"),
        ("SORT", "l", "DESC", "GET", "#", "GET", "w_*", "STORE", "d"), ("LRANGE", "d", "0", "-1"),
        ("LLEN", "d"),
        # The destination is replaced whatever it held, without its TTL.
        ("SET", "str", "x", "EX", "1000"), ("SORT", "l", "STORE", "str"), ("TYPE", "str"),
        ("TTL", "str"), ("HSET", "hash", "f", "v"),
        ("SORT", "l", "LIMIT", "0", "1", "STORE", "hash"),
        ("LRANGE", "hash", "0", "-1"), ("RPUSH", "t", "x"), ("EXPIRE", "t", "1000"),
        ("SORT", "l", "STORE", "t"), ("TTL", "t"), ("LRANGE", "t", "0", "-1"),
        # Onto itself.
        ("SORT", "l", "DESC", "STORE", "l"), ("LRANGE", "l", "0", "-1"),
        # Empty: the destination goes, and the count is 0.
        ("SORT", "missing", "STORE", "d"), ("EXISTS", "d"), ("SORT", "missing", "STORE", "d"),
        ("SORT", "l", "LIMIT", "5", "5", "STORE", "str"), ("EXISTS", "str"),
        ("SORT", "l", "GET", "w_*", "GET", "nostar", "STORE", "d"), ("LRANGE", "d", "0", "-1"),
        ("SORT", "l", "STORE", "d", "STORE", "d2"), ("EXISTS", "d2"),
        # An error stores nothing.
        ("RPUSH", "bad", "x", "1"), ("SET", "keep", "v"), ("SORT", "bad", "STORE", "keep"),
        ("GET", "keep"), ("SORT", "keep", "STORE", "d2"), ("LRANGE", "d2", "0", "-1"),
    ])
    diff.assert_same()


def test_errors_and_their_order(diff):
    run(diff, [
        ("SET", "str", "x"), ("HSET", "h", "f", "v"), ("RPUSH", "l", "1", "2", "a"),
        ("SORT",), ("SORT_RO",), ("SORT", "l", "foo"), ("SORT", "str"), ("SORT", "h"),
        ("SORT", "str", "foo"), ("SORT", "str", "LIMIT", "a", "b"),
        ("SORT", "l", "LIMIT", "a", "1"),
        ("SORT", "l", "LIMIT", "1", "b"), ("SORT", "l", "LIMIT", "1"), ("SORT", "l", "LIMIT"),
        ("SORT", "l", "LIMIT", "1", "1.5"), ("SORT", "l", "LIMIT", "01", "1"),
        ("SORT", "l", "STORE"), ("SORT", "l", "BY"), ("SORT", "l", "GET"),
        ("SORT", "l", "GET", "#", "foo"), ("SORT", "l"), ("SORT", "l", "BY", "nosort"),
        ("SORT", "l", "ALPHA"), ("SORT", "l", "LIMIT", "0", "2"),
        ("SORT", "l", "GET", "#", "LIMIT", "0", "1"),
        ("SORT_RO", "l", "STORE", "d"), ("SORT_RO", "str", "STORE", "d"), ("SORT_RO", "str"),
        ("SORT", "str", "BY", "nosort", "STORE", "d"), ("EXISTS", "d"),
        ("SORT", "l", "desc\x00x", "ALPHA"), ("SORT", "l", "foo\x00"),
        ("PFADD", "hll", "a"), ("SORT", "hll"),
    ])
    diff.assert_same()


def test_scripts(diff):
    run(diff, [
        ("SADD", "s", "banana", "apple", "cherry", "date", "egg", "fig"),
        ("SADD", "ints", "5", "3", "9"), ("RPUSH", "l", "c", "a", "b"),
        # In a script, a set read BY nosort is sorted ALPHA, as Redis does for determinism.
        ("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "s"),
        ("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort', 'DESC')", "1", "s"),
        ("EVAL", "return redis.call('SORT_RO', KEYS[1], 'BY', 'nosort', 'LIMIT', 1, 2)", "1", "s"),
        ("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "ints"),
        ("EVAL", "return redis.call('SORT', KEYS[1], 'BY', 'nosort')", "1", "l"),
        ("EVAL", "return redis.call('SORT', KEYS[1], 'ALPHA', 'STORE', KEYS[2])", "2", "l", "d"),
        ("LRANGE", "d", "0", "-1"),
        ("EVAL", "return redis.pcall('SORT', KEYS[1])", "1", "s"),
        ("EVAL", "return redis.pcall('SORT', KEYS[1], 'foo')", "1", "s"),
        ("EVAL_RO", "return redis.call('SORT_RO', KEYS[1], 'ALPHA')", "1", "l"),
        ("EVAL_RO", "return redis.call('SORT', KEYS[1], 'ALPHA')", "1", "l"),
        ("EVAL", "return redis.call('SORT', KEYS[1], 'GET', 'nope')", "1", "l"),
    ])
    diff.assert_same()


def test_multi_and_watch(pair):
    a, b = pair
    run(a, [
        ("RPUSH", "l", "2", "1"), ("MULTI",), ("SORT", "l"), ("SORT", "l", "STORE", "d"),
        ("SORT", "l", "foo"), ("SORT_RO", "d", "DESC"), ("EXEC",), ("LRANGE", "d", "0", "-1"),
        ("MULTI",), ("SORT", "l", "LIMIT"), ("EXEC",),
    ])
    steps = [
        # STORE breaks the WATCH of its destination, not of the key it sorts.
        (a, ("WATCH", "d")), (b, ("SORT", "l", "STORE", "d")), (a, ("MULTI",)),
        (a, ("LRANGE", "d", "0", "-1")), (a, ("EXEC",)),
        (a, ("WATCH", "l")), (b, ("SORT", "l", "DESC", "STORE", "d")), (a, ("MULTI",)),
        (a, ("LRANGE", "l", "0", "-1")), (a, ("EXEC",)),
        # An empty result deletes the destination (a change), or leaves a missing one alone.
        (a, ("WATCH", "d")), (b, ("SORT", "missing", "STORE", "d")), (a, ("MULTI",)),
        (a, ("EXISTS", "d")), (a, ("EXEC",)),
        (a, ("WATCH", "d")), (b, ("SORT", "missing", "STORE", "d")), (a, ("MULTI",)),
        (a, ("EXISTS", "d")), (a, ("EXEC",)),
        # Reads change nothing; nor does an error.
        (a, ("WATCH", "l")), (b, ("SORT", "l")), (b, ("SORT_RO", "l", "BY", "nosort")),
        (b, ("SORT", "l", "STORE")), (a, ("MULTI",)), (a, ("SORT", "l")), (a, ("EXEC",)),
        # Onto itself.
        (a, ("WATCH", "l")), (b, ("SORT", "l", "DESC", "STORE", "l")), (a, ("MULTI",)),
        (a, ("LRANGE", "l", "0", "-1")), (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        d.check(*cmd)
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def _wait_until_blocked(client):
    """Polls INFO clients until a client is blocked (a bounded wait for the other connection's
    command to be parked, not for time to pass)."""
    for _ in range(500):
        if b"blocked_clients:1" in client.call("INFO", "clients"):
            return
    raise AssertionError("the BLPOP never blocked")


def test_store_serves_a_waiting_blpop(pair):
    a, b = pair
    b.check("RPUSH", "src", "3", "1", "2")
    for waiter, other in ((a.redis, b.redis), (a.sluice, b.sluice)):
        waiter.send(servers.encode("BLPOP", "dest", "0"))
        _wait_until_blocked(other)
    b.check("SORT", "src", "STORE", "dest")
    assert a.redis.read_reply_raw()[1] == a.sluice.read_reply_raw()[1] == \
        b"*2\r\n$4\r\ndest\r\n$1\r\n1\r\n"
    b.check("LRANGE", "dest", "0", "-1")
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def test_command_info_and_getkeys(diff):
    run(diff, [
        ("COMMAND", "GETKEYS", "SORT", "k"), ("COMMAND", "GETKEYS", "SORT", "k", "STORE", "d"),
        ("COMMAND", "GETKEYS", "SORT", "k", "GET", "store", "x", "STORE", "d", "STORE", "e"),
        ("COMMAND", "GETKEYS", "SORT", "k", "store"),
        ("COMMAND", "GETKEYS", "SORT", "k", "LIMIT", "store", "x", "y"),
        ("COMMAND", "GETKEYS", "SORT", "k", "BY", "w_*", "STORE", "d", "LIMIT", "0", "1"),
        ("COMMAND", "GETKEYS", "SORT_RO", "k", "STORE", "d"),
        ("COMMAND", "GETKEYS", "SORT_RO", "k"),
        ("COMMAND", "GETKEYS", "SORT"),
        ("COMMAND", "INFO", "sort_ro"),
    ])
    diff.check("COMMAND", "LIST", "FILTERBY", "PATTERN", "sort*", sort=True)
    diff.assert_same()
    assert_command_info_as_redis(diff, ["sort", "sort_ro"])
    # The key specs too, including the ones Redis marks "unknown" (BY/GET, STORE).
    [theirs] = diff.redis.call("COMMAND", "INFO", "sort")
    [ours] = diff.sluice.call("COMMAND", "INFO", "sort")
    assert ours[7:] == theirs[7:]
    for name in ("sort", "sort_ro"):
        assert name.encode() in diff.sluice.call("COMMAND", "LIST", "FILTERBY", "ACLCAT",
                                                 "sortedset")


# ---- Keyspace hits and misses -----------------------------------------------------------------

HITS_SETUP = [("FLUSHALL",), ("RPUSH", "l", "1", "2", "3"), ("SADD", "s", "a", "b"),
              ("ZADD", "z", "1", "a"), ("MSET", "w_1", "5", "w_2", "1", "str", "x"),
              ("HSET", "h_a", "f", "v")]

HITS_CASES = [
    [("SORT", "l")], [("SORT", "nope")], [("SORT", "str")], [("SORT", "l", "foo")],
    [("SORT", "l", "BY", "w_*")], [("SORT", "l", "BY", "nosort", "GET", "w_*")],
    [("SORT", "l", "BY", "w_*", "LIMIT", "0", "1", "GET", "#", "GET", "w_*", "GET", "h_*->f")],
    [("SORT", "s", "ALPHA", "BY", "h_*->f", "GET", "h_*->f")], [("SORT", "s", "ALPHA", "GET", "x")],
    [("SORT", "l", "STORE", "d")], [("SORT", "l", "GET", "w_*", "STORE", "l")],
    [("SORT", "s", "BY", "w_*")], [("SORT_RO", "z", "GET", "w_*", "GET", "#")],
    [("SORT", "l", "BY", "str_*", "GET", "str")],
    [("EVAL", "return redis.call('SORT', 'l', 'BY', 'w_*')", "0")],
    [("MULTI",), ("SORT", "l", "GET", "w_*"), ("SORT_RO", "nope"), ("EXEC",)],
]


@pytest.mark.parametrize("case", HITS_CASES, ids=case_ids(HITS_CASES))
def test_keyspace_hits_and_misses_move_as_redis(emptied_servers, case):
    assert_counters_move_as_redis(emptied_servers, HITS_SETUP, case)


# ---- Expiry on the test clock (sluiced alone: Redis's clock cannot be frozen) ----------------

def test_expired_keys_are_missing_to_sort(shared_debug_sluiced):
    with shared_debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call("RPUSH", "l", "2", "1", "3") == 3
        assert c.call("MSET", "w_1", "3", "w_2", "2", "w_3", "1") == "OK"
        assert c.call("PEXPIRE", "w_3", "1000") == 1
        assert c.call("SORT", "l", "BY", "w_*") == [b"3", b"2", b"1"]
        assert c.call("RPUSH", "d", "old") == 1
        assert c.call("PEXPIRE", "d", "5000") == 1
        clock.at(1001)
        assert c.call("SORT", "l", "BY", "w_*", "GET", "w_*") == [None, b"2", b"3"]
        assert c.call("SORT", "l", "BY", "w_*", "STORE", "d") == 3
        assert c.call("PTTL", "d") == -1
        assert c.call("PEXPIRE", "l", "1000") == 1
        clock.at(2002)
        assert c.call("SORT", "l") == []
        assert c.call("SORT", "l", "STORE", "d") == 0
        assert c.call("EXISTS", "d") == 0


# ---- Random sequences ---------------------------------------------------------------------------

KEYS = ["k0", "k1", "k2"]
POOL = ["1", "2", "3", "10", "-4", "2.5", "a", "b", "ab", "B", "", "07"]
NUMERIC_POOL = ["1", "2", "3", "10", "-4", "2.5", "07", "1e2", "-0"]
EVERY = sorted(set(POOL + NUMERIC_POOL))


def _weights_setup(rng):
    """Weights for every element under w_ (distinct numbers), v_ (distinct strings) and
    h_*->f and h_*->n (distinct), so that no two elements tie in an ALPHA BY (whose ties Redis
    leaves in its hash table's order), and sparse ones under m_ (missing for some): random per
    sequence."""
    numbers = rng.sample(range(-50, 50), len(EVERY))
    words = rng.sample([f"{c}{d}" for c in "xyzXY" for d in "01234"], len(EVERY))
    fields = rng.sample(range(100), len(EVERY))
    commands = [("MSET", *[x for e, n in zip(EVERY, numbers) for x in (f"w_{e}", str(n))]),
                ("MSET", *[x for e, w in zip(EVERY, words) for x in (f"v_{e}", w)])]
    commands += [("HSET", f"h_{e}", "f", f"f{n:03d}", "n", str(n)) for e, n in zip(EVERY, fields)]
    sparse = [e for e in EVERY if rng.random() < 0.5]
    if sparse:
        commands.append(("MSET", *[x for e in sparse for x in (f"m_{e}", str(rng.randrange(5)))]))
    return commands


def _sort_command(rng):
    key = rng.choice(KEYS)
    numeric_by = rng.choice([None, None, "w_*", "m_*", "h_*->n", "nosort"])
    alpha_by = rng.choice([None, None, "v_*", "h_*->f", "nosort"])
    alpha = rng.random() < 0.4
    args = ["SORT_RO" if rng.random() < 0.2 else "SORT", key]
    by = alpha_by if alpha else numeric_by
    if by:
        args += ["BY", by]
        if rng.random() < 0.1:  # a second BY: the last pattern, but a first "nosort" stays
            args += ["BY", rng.choice(["w_*", "nosort"])]
    if alpha:
        args.append("ALPHA")
    if rng.random() < 0.4:
        args.append(rng.choice(["ASC", "DESC"]))
    if rng.random() < 0.4:
        args += ["LIMIT", str(rng.randrange(-2, 8)), str(rng.randrange(-2, 8))]
    for _ in range(rng.choice([0, 0, 1, 2])):
        args += ["GET", rng.choice(["#", "w_*", "m_*", "h_*->f", "v_*", "nostar"])]
    if args[0] == "SORT" and rng.random() < 0.25:
        args += ["STORE", rng.choice(KEYS + ["dest"])]
    return tuple(args)


def _random_command(rng):
    k = rng.choice(KEYS)
    pool = rng.choice([POOL, NUMERIC_POOL])
    some = [rng.choice(pool) for _ in range(rng.randrange(1, 5))]
    table = [
        lambda: ("RPUSH", k, *some),
        lambda: ("LPUSH", k, *some),
        lambda: ("SADD", k, *some),
        lambda: ("ZADD", k, *[x for e in some for x in (str(rng.randrange(-3, 4)), e)]),
        lambda: ("LRANGE", k, "0", "-1"),
        lambda: ("LRANGE", "dest", "0", "-1"),
    ]
    if rng.random() < 0.5:
        return _sort_command(rng)
    return rng.choice(table)()


def _check_sort_sequence(d, rng):
    """One sequence from an empty key space. A set of strings read BY nosort (not in a script,
    without STORE) comes in Redis's hash-table order: compared as a multiset."""
    d.check("DEL", *KEYS, "dest")
    for cmd in _weights_setup(rng):
        d.check(*cmd)
    types = {}
    for _ in range(rng.randrange(5, 30)):
        cmd = _random_command(rng)
        name = cmd[0].upper()
        if name in ("RPUSH", "LPUSH", "SADD", "ZADD"):
            types.setdefault(cmd[1], name)
        unordered = (name in ("SORT", "SORT_RO") and "nosort" in cmd and "STORE" not in cmd
                     and types.get(cmd[1]) == "SADD")
        if unordered:
            check_unordered(d, *cmd)
        else:
            d.check(*cmd)


def test_random_sort_sequences(diff):
    rng = random.Random(20251126)
    for _ in range(150):
        _check_sort_sequence(diff, rng)
        if len(diff.mismatches) > 40:
            break
    diff.assert_same()
