"""HyperLogLog commands (PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST): the same sequences sent to
redis-server and sluiced, every reply compared to the byte, in RESP2 and after HELLO 3, and
the HLL strings themselves (GET) compared byte for byte, sparse and dense; corrupt HLLs,
hll-sparse-max-bytes, WATCH, MULTI/EXEC, scripts, COMMAND INFO and keyspace hits as Redis's;
expiry on sluiced's test clock.

Nothing here depends on the wall clock: relative expiries are >= 100 s, and TTL replies are
compared with differential.CLOCK_TOLERANCE.
"""

import random

import pytest

from composite_diff import random_sequences, run
from differential import assert_command_info_as_redis
from frozen_clock import Clock
from keyspace_counts import assert_counters_move_as_redis, case_ids
import servers

HEADER_SPARSE = b"HYLL\x01" + b"\x00" * 11
HEADER_DENSE = b"HYLL\x00" + b"\x00" * 11
DENSE_SIZE = 16 + 12288
# Elements whose register is below 100 (register, value): 55 (2), 90 (1), 77 (3).
LOW_ELEMENTS = ["e70", "e169", "e213"]


def _elements(rng, n, pool=100000):
    return [f"m{rng.randrange(pool)}" for _ in range(n)]


def test_pfadd_pfcount_basics(diff):
    run(diff, [
        ("PFADD", "h"), ("GET", "h"), ("PFCOUNT", "h"), ("GET", "h"),
        ("PFADD", "h", "a", "b", "c"), ("GET", "h"), ("PFADD", "h", "a"), ("GET", "h"),
        ("PFCOUNT", "h"), ("GET", "h"), ("PFCOUNT", "h"), ("PFADD", "h", "a", "d"),
        ("PFCOUNT", "h"), ("PFDEBUG", "ENCODING", "h"), ("PFDEBUG", "DECODE", "h"),
        ("PFADD", "h"), ("PFCOUNT", "missing"), ("EXISTS", "missing"), ("TYPE", "h"),
        ("STRLEN", "h"), ("PFADD", "bin", "", "\x00", "\xff\xfe", "a" * 100), ("GET", "bin"),
        ("PFCOUNT", "bin"), ("pfadd", "h", "A"), ("PfCount", "h"),
        # Copied bytes are an HLL: a client may move them between servers.
        ("SET", "copy", b"HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"
         b"\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a"),
        ("PFCOUNT", "copy"), ("GET", "copy"), ("PFADD", "copy", "a", "b", "c"),
        ("PFADD", "copy", "e"), ("GET", "copy"),
    ])
    diff.assert_same()


def test_sparse_to_dense_promotion(diff):
    rng = random.Random(1)
    for n in (1, 5, 50, 200):
        run(diff, [("PFADD", "h", *_elements(rng, n)), ("PFDEBUG", "ENCODING", "h"),
                   ("STRLEN", "h"), ("GET", "h"), ("PFCOUNT", "h"), ("GET", "h")])
    # Past 3000 bytes: dense, 12304 bytes, and it stays dense.
    for n in (300, 400, 500, 2000, 20000):
        run(diff, [("PFADD", "h", *_elements(rng, n)), ("PFDEBUG", "ENCODING", "h"),
                   ("STRLEN", "h"), ("PFCOUNT", "h"), ("GET", "h")])
    run(diff, [("PFADD", "h", "x"), ("GET", "h"), ("PFDEBUG", "GETREG", "h")])
    diff.assert_same()


def test_pfcount_of_several_keys(diff):
    rng = random.Random(2)
    run(diff, [
        ("PFADD", "a", *_elements(rng, 30)), ("PFADD", "b", *_elements(rng, 3000)),
        ("PFADD", "c", *_elements(rng, 500, pool=600)), ("PFADD", "d", "x"),
        ("PFCOUNT", "a", "b"), ("PFCOUNT", "a", "c", "d"), ("PFCOUNT", "a", "missing"),
        ("PFCOUNT", "missing", "nope"), ("PFCOUNT", "a", "a"), ("PFCOUNT", "b", "c", "d", "a"),
        # The union is stored nowhere: the caches stay as they were.
        ("GET", "a"), ("GET", "c"), ("PFCOUNT", "a"), ("PFCOUNT", "b"), ("PFCOUNT", "c"),
        ("PFCOUNT", "a", "b", "c"), ("GET", "a"),
    ])
    diff.assert_same()


def test_pfmerge(diff):
    rng = random.Random(3)
    run(diff, [
        ("PFADD", "s1", *_elements(rng, 20)), ("PFADD", "s2", *_elements(rng, 40)),
        ("PFADD", "big", *_elements(rng, 3000)),
        # A new destination; then the destination among the sources; then alone.
        ("PFMERGE", "d", "s1", "s2"), ("GET", "d"), ("PFCOUNT", "d"), ("GET", "d"),
        ("PFMERGE", "d", "d", "s1"), ("GET", "d"), ("PFMERGE", "d"), ("GET", "d"),
        ("PFMERGE", "s1", "s2"), ("GET", "s1"), ("PFMERGE", "new"), ("GET", "new"),
        ("PFMERGE", "new2", "missing", "nope"), ("GET", "new2"),
        # A dense source makes the destination dense; a dense destination stays dense.
        ("PFMERGE", "d2", "s2", "big"), ("PFDEBUG", "ENCODING", "d2"), ("GET", "d2"),
        ("PFCOUNT", "d2"), ("PFMERGE", "s2", "big"), ("GET", "s2"),
        ("PFMERGE", "big", "s1"), ("GET", "big"), ("PFCOUNT", "big"),
        # Sparse sources whose union passes hll-sparse-max-bytes: promoted while written.
        ("PFADD", "p1", *_elements(rng, 600)), ("PFADD", "p2", *_elements(rng, 600)),
        ("PFDEBUG", "ENCODING", "p1"), ("PFMERGE", "p3", "p1", "p2"),
        ("PFDEBUG", "ENCODING", "p3"), ("GET", "p3"), ("PFCOUNT", "p3", "p1"),
        # The destination keeps its TTL, a new one has none.
        ("PFADD", "t", "a"), ("EXPIRE", "t", "100"), ("PFMERGE", "t", "s1"), ("TTL", "t"),
        ("PFMERGE", "t"), ("TTL", "t"), ("TTL", "new"),
    ])
    diff.assert_same()


def test_pfdebug(diff):
    rng = random.Random(4)
    run(diff, [
        ("PFADD", "h", *_elements(rng, 10)), ("PFDEBUG", "DECODE", "h"),
        ("PFDEBUG", "ENCODING", "h"), ("PFDEBUG", "decode", "h"), ("PFDEBUG", "GETREG", "h"),
        # GETREG left it dense.
        ("PFDEBUG", "ENCODING", "h"), ("GET", "h"), ("PFDEBUG", "DECODE", "h"),
        ("PFDEBUG", "TODENSE", "h"), ("PFADD", "h2", "a"), ("PFDEBUG", "TODENSE", "h2"),
        ("GET", "h2"), ("PFCOUNT", "h2"), ("PFDEBUG", "GETREG", "h2"),
        ("PFDEBUG", "FOO", "h"), ("PFDEBUG", "FOO", "missing"), ("PFDEBUG", "GETREG", "missing"),
        ("PFDEBUG", b"getreg\x00x", "h2"), ("PFDEBUG", b"bad\x00name", "h2"),
        ("PFDEBUG", "", "h2"), ("SET", "s", "not an hll"), ("PFDEBUG", "ENCODING", "s"),
        ("RPUSH", "l", "x"), ("PFDEBUG", "ENCODING", "l"), ("PFDEBUG", "FOO", "l"),
        ("PFDEBUG", "GETREG"), ("PFDEBUG", "GETREG", "h", "x"), ("PFDEBUG",),
        ("PFADD", "t", "a"), ("EXPIRE", "t", "100"), ("PFDEBUG", "TODENSE", "t"), ("TTL", "t"),
    ])
    diff.assert_same()


def test_errors_and_wrongtype(diff):
    run(diff, [
        ("SET", "s", "abc"), ("SET", "n", "12345"), ("SET", "e", ""), ("RPUSH", "l", "x"),
        ("SET", "long", "x" * 40), ("PFADD", "h", "a"),
        ("PFADD", "s", "a"), ("PFADD", "s"), ("PFADD", "n", "a"), ("PFADD", "e", "a"),
        ("PFADD", "l", "a"), ("PFADD", "long", "a"), ("PFCOUNT", "s"), ("PFCOUNT", "l"),
        ("PFCOUNT", "h", "s"), ("PFCOUNT", "s", "l"), ("PFCOUNT", "l", "s"),
        ("PFCOUNT", "missing", "l"), ("PFCOUNT", "h", "missing", "e"),
        ("PFMERGE", "d", "h", "s"), ("EXISTS", "d"), ("PFMERGE", "s", "h"), ("GET", "s"),
        ("PFMERGE", "l", "h"), ("PFMERGE", "h", "l"), ("GET", "h"),
        ("PFADD",), ("PFCOUNT",), ("PFMERGE",), ("PFSELFTEST", "x"),
        ("GET", "s"), ("TYPE", "l"),
        # Header checks: the magic, the encoding byte, a dense string's exact length.
        ("SET", "m", b"HYLX\x01" + b"\x00" * 11 + b"\x7f\xff"), ("PFCOUNT", "m"),
        ("SET", "enc", b"HYLL\x02" + b"\x00" * 11 + b"\x7f\xff"), ("PFADD", "enc", "a"),
        ("SET", "raw", b"HYLL\xff" + b"\x00" * 11 + b"\x7f\xff"), ("PFCOUNT", "raw"),
        ("SET", "short", b"HYLL\x01" + b"\x00" * 10), ("PFCOUNT", "short"),
        ("SET", "dn", HEADER_DENSE + b"\x00" * 12287), ("PFCOUNT", "dn"),
        ("SET", "dn2", HEADER_DENSE + b"\x00" * 12289), ("PFMERGE", "x", "dn2"),
        ("SET", "sparse_dense_len", HEADER_SPARSE + b"\x7f\xff" + b"\x00" * 12286),
        ("PFCOUNT", "sparse_dense_len"),
    ])
    diff.assert_same()


def test_corrupt_hlls(diff):
    valid_cache = b"HYLL\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00"
    run(diff, [
        # Only a header: no opcodes.
        ("SET", "empty", HEADER_SPARSE), ("PFCOUNT", "empty"), ("PFADD", "empty", "a"),
        ("PFADD", "empty"), ("GET", "empty"), ("PFMERGE", "d", "empty"), ("EXISTS", "d"),
        ("PFCOUNT", "empty", "empty"), ("PFDEBUG", "GETREG", "empty"),
        ("PFDEBUG", "TODENSE", "empty"), ("PFDEBUG", "DECODE", "empty"),
        ("PFDEBUG", "ENCODING", "empty"),
        # A valid cache is answered without reading the registers.
        ("SET", "cached", valid_cache), ("PFCOUNT", "cached"), ("PFCOUNT", "cached", "cached"),
        # 100 registers only: adds inside them work, one past them stops the command.
        ("SET", "short", HEADER_SPARSE[:-1] + b"\x80" + b"\x40\x63"),
        ("PFADD", "short", *LOW_ELEMENTS), ("GET", "short"), ("PFDEBUG", "DECODE", "short"),
        ("PFADD", "short", "a"), ("PFADD", "short", "e70", "a"), ("GET", "short"),
        ("PFCOUNT", "short"),
        ("SET", "short2", HEADER_SPARSE + b"\x40\x63"), ("PFADD", "short2", "b", "e70"),
        ("GET", "short2"),
        # The elements before the corrupt one stay added (Redis changes the string in place).
        ("SET", "short3", HEADER_SPARSE + b"\x40\x63"), ("PFADD", "short3", "e169", "a"),
        ("GET", "short3"), ("PFDEBUG", "DECODE", "short3"),
        # Twice the registers; a VAL run past the last register; a truncated XZERO.
        ("SET", "twice", HEADER_SPARSE[:-1] + b"\x80" + b"\x7f\xff\x7f\xff"),
        ("PFCOUNT", "twice"), ("PFCOUNT", "twice", "missing"), ("PFMERGE", "d", "twice"),
        ("PFADD", "twice", "a", "b"), ("GET", "twice"), ("PFDEBUG", "DECODE", "twice"),
        ("SET", "past", HEADER_SPARSE[:-1] + b"\x80" + b"\x7f\xfe\x83"),
        ("PFCOUNT", "past"), ("PFMERGE", "d", "past"), ("PFDEBUG", "TODENSE", "past"),
        ("PFDEBUG", "DECODE", "past"),
        ("SET", "cut", HEADER_SPARSE[:-1] + b"\x80" + b"\x40"), ("PFDEBUG", "DECODE", "cut"),
        ("PFCOUNT", "cut"), ("PFMERGE", "d", "cut"), ("EXISTS", "d"),
        # A corrupt source leaves the destination as it was.
        ("PFADD", "dest", "a"), ("PFMERGE", "dest", "twice"), ("GET", "dest"),
        # Dense registers above 51 (all 63): the estimator's edge.
        ("SET", "ones", HEADER_DENSE[:-1] + b"\x80" + b"\xff" * 12288), ("PFCOUNT", "ones"),
        ("GET", "ones"), ("PFCOUNT", "ones", "missing"),
        ("SET", "mid", HEADER_DENSE[:-1] + b"\x80" + b"\x55" * 12288), ("PFCOUNT", "mid"),
        ("GET", "mid"), ("PFMERGE", "m2", "mid", "dest"), ("GET", "m2"),
    ])
    diff.assert_same()


def test_sparse_max_bytes_config(diff):
    rng = random.Random(5)
    try:
        run(diff, [
            ("CONFIG", "GET", "hll-sparse-max-bytes"),
            ("CONFIG", "SET", "hll-sparse-max-bytes", "-1"),
            ("CONFIG", "SET", "hll-sparse-max-bytes", "abc"),
            ("CONFIG", "SET", "hll-sparse-max-bytes", "1kb"),
            ("CONFIG", "GET", "hll-sparse-max-bytes"),
            ("CONFIG", "SET", "hll-sparse-max-bytes", "100"),
            ("CONFIG", "GET", "hll-sparse-max-bytes"),
        ])
        for n in (5, 10, 20, 40):
            run(diff, [("PFADD", f"h{n}", *_elements(rng, n)), ("PFDEBUG", "ENCODING", f"h{n}"),
                       ("GET", f"h{n}")])
        run(diff, [
            ("PFADD", "a", *_elements(rng, 12)), ("PFADD", "b", *_elements(rng, 12)),
            ("PFMERGE", "c", "a", "b"), ("PFDEBUG", "ENCODING", "c"), ("GET", "c"),
            ("CONFIG", "SET", "hll-sparse-max-bytes", "0"), ("PFADD", "z", "a"),
            ("PFDEBUG", "ENCODING", "z"), ("PFADD", "z2"), ("PFDEBUG", "ENCODING", "z2"),
            ("CONFIG", "SET", "hll-sparse-max-bytes", "100000"),
            ("PFADD", "w", *_elements(rng, 5000)), ("PFDEBUG", "ENCODING", "w"),
            ("STRLEN", "w"), ("GET", "w"), ("PFCOUNT", "w"),
        ])
    finally:
        run(diff, [("CONFIG", "SET", "hll-sparse-max-bytes", "3000")])
    diff.assert_same()


def test_ttl_is_kept(diff):
    run(diff, [
        ("PFADD", "h", "a"), ("EXPIRE", "h", "100"), ("PFADD", "h", "b"), ("TTL", "h"),
        ("PFCOUNT", "h"), ("TTL", "h"), ("PFADD", "h", "b"), ("TTL", "h"),
        ("SET", "x", "y", "EX", "100"), ("PFADD", "x", "a"), ("TTL", "x"),
    ])
    diff.assert_same()


def test_multi_exec_and_watch(pair):
    a, b = pair
    run(a, [
        ("MULTI",), ("PFADD", "k", "x", "y"), ("PFCOUNT", "k"), ("PFMERGE", "d", "k"),
        ("PFADD", "s"), ("PFCOUNT", "k", "d"), ("GET", "d"), ("EXEC",), ("GET", "k"),
        ("SET", "str", "abc"), ("MULTI",), ("PFADD", "str", "a"), ("PFADD", "k", "z"),
        ("EXEC",), ("GET", "k"), ("MULTI",), ("PFDEBUG", "GETREG"), ("EXEC",),
    ])
    steps = [
        # PFADD signals its key when a register changes, not otherwise.
        (a, ("WATCH", "k")), (b, ("PFADD", "k", "x")), (a, ("MULTI",)), (a, ("GET", "k")),
        (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("PFADD", "k", "new")), (a, ("MULTI",)), (a, ("GET", "k")),
        (a, ("EXEC",)),
        # PFCOUNT writes its cache when stale, which Redis signals; a fresh cache is only read.
        (a, ("WATCH", "k")), (b, ("PFCOUNT", "k")), (a, ("MULTI",)), (a, ("GET", "k")),
        (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("PFCOUNT", "k")), (a, ("MULTI",)), (a, ("GET", "k")),
        (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("PFCOUNT", "k", "d")), (b, ("PFADD", "str", "a")),
        (a, ("MULTI",)), (a, ("GET", "k")), (a, ("EXEC",)),
        # PFMERGE signals its destination (even when nothing changed), not its sources.
        (a, ("WATCH", "k")), (b, ("PFMERGE", "d", "k")), (a, ("MULTI",)), (a, ("GET", "d")),
        (a, ("EXEC",)),
        (a, ("WATCH", "d")), (b, ("PFMERGE", "d", "k")), (a, ("MULTI",)), (a, ("GET", "d")),
        (a, ("EXEC",)),
        (a, ("WATCH", "d")), (b, ("PFMERGE", "d", "str")), (a, ("MULTI",)), (a, ("GET", "d")),
        (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        run(d, [cmd])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def test_scripts_call_hll_commands(diff):
    run(diff, [
        ("EVAL", "return redis.call('PFADD', KEYS[1], ARGV[1], ARGV[2])", "1", "h", "a", "b"),
        ("EVAL", "return redis.call('PFCOUNT', KEYS[1])", "1", "h"),
        ("EVAL", "return redis.call('GET', KEYS[1])", "1", "h"),
        ("EVAL", "redis.call('PFADD', KEYS[1], 'c'); return redis.call('PFCOUNT', KEYS[1])",
         "1", "h"),
        ("EVAL", "return redis.call('PFMERGE', KEYS[2], KEYS[1])", "2", "h", "d"),
        ("EVAL", "return redis.call('PFDEBUG', 'ENCODING', KEYS[1])", "1", "d"),
        ("EVAL", "return redis.call('PFCOUNT', KEYS[1], KEYS[2])", "2", "h", "d"),
        ("SET", "s", "x"),
        ("EVAL", "return redis.pcall('PFADD', KEYS[1], 'a')", "1", "s"),
        ("EVAL", "return redis.pcall('PFCOUNT', KEYS[1])", "1", "s"),
        ("SET", "bad", HEADER_SPARSE),
        ("EVAL", "return redis.pcall('PFCOUNT', KEYS[1])", "1", "bad"),
        ("EVAL", "return redis.call('PFCOUNT', KEYS[1])", "1", "bad"),
        ("EVAL_RO", "return redis.call('PFCOUNT', KEYS[1])", "1", "h"),
        ("PFADD", "h", "zz"),
        # Not in a read-only script: PFCOUNT may write its cache (Redis's may_replicate).
        ("EVAL_RO", "return redis.call('PFCOUNT', KEYS[1])", "1", "h"), ("GET", "h"),
        ("EVAL_RO", "return redis.call('PFADD', KEYS[1], 'x')", "1", "h"),
        ("EVAL_RO", "return redis.call('PFMERGE', KEYS[1], KEYS[1])", "1", "h"),
    ])
    diff.assert_same()


def test_command_info_and_getkeys(diff):
    # Not "COMMAND GETKEYS PFMERGE d": Redis's second key spec (the sources, from index 2)
    # makes it an error there, sluice answers [d] (docs/notes.md).
    run(diff, [
        ("COMMAND", "GETKEYS", "PFADD", "k", "a", "b"), ("COMMAND", "GETKEYS", "PFADD", "k"),
        ("COMMAND", "GETKEYS", "PFCOUNT", "a", "b", "c"),
        ("COMMAND", "GETKEYS", "PFMERGE", "d", "a", "b"),
        ("COMMAND", "GETKEYS", "PFMERGE", "d", "a"),
        ("COMMAND", "GETKEYS", "PFDEBUG", "GETREG", "k"),
        ("COMMAND", "GETKEYS", "PFSELFTEST"),
    ])
    diff.assert_same()
    assert_command_info_as_redis(diff, ["pfadd", "pfcount", "pfmerge", "pfdebug", "pfselftest"])


def test_pfselftest(diff):
    run(diff, [("PFSELFTEST",)])
    diff.assert_same()


# ---- Keyspace hits and misses -----------------------------------------------------------------

HITS_SETUP = [("FLUSHALL",), ("PFADD", "h", "a"), ("PFADD", "g", "b"), ("PFCOUNT", "g"),
              ("SET", "s", "foobar"), ("RPUSH", "l", "a")]

HITS_CASES = [
    [("PFADD", "h", "b")], [("PFADD", "nope", "a")], [("PFADD", "l", "a")], [("PFADD", "s")],
    [("PFCOUNT", "h")], [("PFCOUNT", "g")], [("PFCOUNT", "nope")], [("PFCOUNT", "s")],
    [("PFCOUNT", "l")], [("PFCOUNT", "h", "nope", "g")], [("PFCOUNT", "h", "s", "nope")],
    [("PFMERGE", "h", "g")], [("PFMERGE", "nope", "h")], [("PFMERGE", "d", "nope", "s", "h")],
    [("PFMERGE", "l", "h")], [("PFDEBUG", "ENCODING", "h")], [("PFDEBUG", "GETREG", "nope")],
    [("EVAL", "return redis.call('PFCOUNT', 'h', 'g')", "0")],
    [("MULTI",), ("PFCOUNT", "h"), ("PFADD", "nope", "x"), ("EXEC",)],
]


@pytest.mark.parametrize("case", HITS_CASES, ids=case_ids(HITS_CASES))
def test_keyspace_hits_and_misses_move_as_redis(emptied_servers, case):
    assert_counters_move_as_redis(emptied_servers, HITS_SETUP, case)


# ---- Expiry on the test clock (sluiced alone: Redis's clock cannot be frozen) ----------------

def test_expired_keys_are_missing_to_hll_commands(shared_debug_sluiced):
    with shared_debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call("PFADD", "h", "a", "b") == 1
        assert c.call("PEXPIRE", "h", "1000") == 1
        assert c.call("PFADD", "src", "c") == 1
        assert c.call("PEXPIRE", "src", "1000") == 1
        assert c.call("PFADD", "h", "c") == 1  # a live key: the TTL stays
        assert c.call("PFCOUNT", "h") == 3
        assert c.call("PTTL", "h") == 1000
        clock.at(1001)
        assert c.call("PFCOUNT", "h") == 0
        assert c.call("PFCOUNT", "h", "src") == 0
        assert c.call("PFMERGE", "d", "h", "src") == "OK"
        assert c.call("PFCOUNT", "d") == 0
        # PFADD on an expired key starts a new one, without the old registers or TTL.
        assert c.call("PFADD", "h", "z") == 1
        assert c.call("PFCOUNT", "h") == 1
        assert c.call("PTTL", "h") == -1


# ---- Random sequences ---------------------------------------------------------------------------

KEYS = ["h0", "h1", "h2", "h3"]
SMALL_POOL = ["a", "b", "c", "", "\x00", "foo", "bar", "e70", "e169", "e213"]


def _hll_command(rng):
    k = rng.choice(KEYS)
    keys = [rng.choice(KEYS + ["nope"]) for _ in range(rng.randrange(1, 4))]
    table = [
        lambda: ("PFADD", k, *rng.sample(SMALL_POOL, rng.randrange(0, 4))),
        lambda: ("PFADD", k, *_elements(rng, rng.randrange(1, 6))),
        lambda: ("PFADD", k, *_elements(rng, rng.randrange(1, 6))),
        lambda: ("PFADD", k, *_elements(rng, rng.choice([50, 200, 600]))),
        lambda: ("PFCOUNT", k),
        lambda: ("PFCOUNT", k),
        lambda: ("PFCOUNT", *keys),
        lambda: ("PFMERGE", rng.choice(KEYS), *keys),
        lambda: ("PFMERGE", k),
        lambda: ("GET", k),
        lambda: ("GET", k),
        lambda: ("PFDEBUG", rng.choice(["ENCODING", "DECODE", "TODENSE"]), k),
        lambda: ("SET", k, rng.choice(["x", "HYLL"])),
        lambda: ("APPEND", k, "x"),
        lambda: ("STRLEN", k),
        lambda: ("RPUSH", k, "x"),
    ]
    return rng.choice(table)()


def test_random_hll_sequences(diff):
    random_sequences(diff, random.Random(20251128), KEYS, _hll_command, sequences=150)
