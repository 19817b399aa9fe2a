"""MULTI/EXEC/DISCARD/WATCH over hashes, sorted sets and lists: the same sequences sent to
redis-server and sluiced on two connections each (A runs the transactions, B interferes), every
reply compared to the byte in RESP2 and after HELLO 3.

A write that changes nothing (a DEL of a missing key, a WRONGTYPE error) leaves a WATCH alone
on both servers, and a write that names several keys breaks the WATCH of those it changed only.
"""

import random

import pytest

from composite_diff import check, run
from test_differential_hashes import _hash_command
from test_differential_lists import _list_command
from test_differential_zsets import _zset_command


def _assert_same(*ds):
    problems = [d.report() for d in ds if d.mismatches]
    assert not problems, "\n".join(problems)


def test_multi_exec_over_composite_types(pair):
    a, _ = pair
    run(a, [
        ("MULTI",), ("HSET", "h", "f", "1", "g", "2"), ("HINCRBY", "h", "f", "41"),
        ("ZADD", "z", "1", "x", "2", "y"), ("ZINCRBY", "z", "2.5", "x"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("RPUSH", "l", "a", "b", "c"), ("LPOP", "l", "2"),
        ("HGET", "h", "f"), ("ZSCORE", "z", "x"), ("LRANGE", "l", "0", "-1"), ("EXEC",),
        ("HGETALL", "h"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("LLEN", "l"),
    ])
    _assert_same(a)


def test_runtime_errors_inside_exec(pair):
    a, _ = pair
    run(a, [
        ("SET", "s", "v"), ("MULTI",), ("HSET", "s", "f", "v"), ("ZADD", "z", "NX", "XX", "1", "m"),
        ("ZADD", "z", "1", "m"), ("ZADD", "z", "INCR", "1", "m", "2", "n"),
        ("ZRANGEBYSCORE", "z", "x", "1"), ("LPOP", "l", "-1"), ("HINCRBY", "h", "f", "x"),
        ("RPUSH", "s", "x"), ("ZCARD", "z"), ("ZADD", "z", "INCR", "-inf", "m"),
        ("ZADD", "z", "INCR", "inf", "m"), ("ZADD", "z", "INCR", "-inf", "m"), ("EXEC",),
        ("ZSCORE", "z", "m"), ("GET", "s"),
    ])
    _assert_same(a)


def test_queue_time_errors_abort(pair):
    a, _ = pair
    run(a, [
        ("MULTI",), ("HSET", "h", "f", "v"), ("HSET", "h"), ("ZADD", "z", "1", "m"), ("EXEC",),
        ("EXISTS", "h", "z"),
        ("MULTI",), ("RPUSH", "l", "a"), ("NOSUCHCOMMAND", "x"), ("LLEN", "l"), ("EXEC",),
        ("EXISTS", "l"),
        ("MULTI",), ("LPUSH", "l"), ("ZRANGE", "z"), ("EXEC",),
        ("MULTI",), ("MULTI",), ("HSET", "h", "a", "1"), ("EXEC",), ("HGET", "h", "a"),
        ("EXEC",), ("DISCARD",),
        ("MULTI",), ("HSET", "h", "b", "2"), ("DISCARD",), ("HGET", "h", "b"),
        ("MULTI",), ("EXEC",),
    ])
    _assert_same(a)


def test_watch_aborts_on_interference(pair):
    a, b = pair
    steps = [
        (a, ("HSET", "h", "n", "1")), (a, ("WATCH", "h")), (b, ("HINCRBY", "h", "n", "1")),
        (a, ("MULTI",)), (a, ("HINCRBY", "h", "n", "10")), (a, ("EXEC",)), (a, ("HGET", "h", "n")),
        (a, ("WATCH", "h")), (a, ("MULTI",)), (a, ("HINCRBY", "h", "n", "10")), (a, ("EXEC",)),
        (a, ("HGET", "h", "n")),
        (a, ("ZADD", "z", "1", "m")), (a, ("WATCH", "z", "l")), (b, ("RPUSH", "l", "x")),
        (a, ("MULTI",)), (a, ("ZADD", "z", "2", "m")), (a, ("EXEC",)), (a, ("ZSCORE", "z", "m")),
        (a, ("WATCH", "z")), (b, ("ZINCRBY", "z", "5", "m")), (a, ("UNWATCH",)),
        (a, ("MULTI",)), (a, ("ZINCRBY", "z", "1", "m")), (a, ("EXEC",)),
        (a, ("WATCH", "l")), (b, ("DEL", "l")), (a, ("MULTI",)), (a, ("RPUSH", "l", "y")),
        (a, ("EXEC",)), (a, ("LRANGE", "l", "0", "-1")),
        (a, ("WATCH", "l")), (a, ("MULTI",)), (a, ("RPUSH", "l", "z")), (a, ("DISCARD",)),
        (b, ("RPUSH", "l", "w")), (a, ("MULTI",)), (a, ("RPUSH", "l", "v")), (a, ("EXEC",)),
        (a, ("LRANGE", "l", "0", "-1")),
        (a, ("WATCH", "h")), (b, ("HSET", "h", "n", "same")), (b, ("HSET", "h", "n", "same")),
        (a, ("MULTI",)), (a, ("HGET", "h", "n")), (a, ("EXEC",)),
        (a, ("WATCH", "z")), (b, ("ZREM", "z", "m")), (a, ("MULTI",)), (a, ("ZCARD", "z")),
        (a, ("EXEC",)), (a, ("WATCH", "z")), (b, ("ZADD", "z", "1", "m")), (a, ("MULTI",)),
        (a, ("WATCH", "z")), (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        check(d, *cmd)
    _assert_same(a, b)


# Writes that change nothing leave a WATCH alone on both servers (Redis signals a key only when
# it changed); each is followed by a write that does change it, which aborts the EXEC.
NOOP_WRITES = [
    ("HDEL", "h", "nope"), ("ZREM", "z", "nope"), ("LPOP", "missing"),
    ("ZADD", "z", "XX", "1", "nope"), ("LTRIM", "missing", "0", "1"), ("DEL", "missing"),
    ("UNLINK", "missing"), ("SET", "s", "other", "NX"), ("SETNX", "s", "other"),
    ("HSETNX", "h", "f", "other"), ("ZREMRANGEBYSCORE", "z", "100", "200"),
    ("ZREMRANGEBYRANK", "z", "5", "9"), ("ZPOPMIN", "missing"), ("RPUSHX", "missing", "x"),
    ("EXPIRE", "missing", "100"), ("PERSIST", "s"), ("GETDEL", "missing"),
    ("INCR", "s"), ("HSET", "z", "f", "v"), ("LPUSH", "h", "x"), ("ZINCRBY", "s", "1", "m"),
    ("HINCRBY", "h", "f", "1"), ("INCRBYFLOAT", "s", "x"), ("RENAMENX", "h", "s"),
    ("ZUNIONSTORE", "missing", "2", "nope", "nope2"), ("ZINTERSTORE", "missing", "2", "z", "nope"),
    ("ZDIFFSTORE", "missing", "2", "z", "z"), ("ZRANGESTORE", "missing", "z", "5", "9"),
    ("ZUNIONSTORE", "missing", "1", "s"),
]


@pytest.mark.parametrize("noop", NOOP_WRITES, ids=[" ".join(c) for c in NOOP_WRITES])
def test_a_write_that_changes_nothing_keeps_the_watch(pair, noop):
    a, b = pair
    key = noop[1]
    run(a, [("FLUSHALL",), ("SET", "s", "v"), ("HSET", "h", "f", "v"),
             ("ZADD", "z", "1", "m", "2", "n")])
    run(a, [("WATCH", key)])
    run(b, [noop])
    run(a, [("MULTI",), ("EXISTS", key), ("EXEC",)])  # runs on both
    run(a, [("WATCH", key)])
    run(b, [noop, ("SET", key, "changed")])
    run(a, [("MULTI",), ("EXISTS", key), ("EXEC",)])  # aborts on both
    _assert_same(a, b)


# Writes that leave their key as it was and that Redis still signals (its LTRIM and LMOVE
# signal the key whatever they did): they break a WATCH on both servers.
SIGNALLED_WRITES = [
    ("LTRIM", "l", "0", "-1"), ("LTRIM", "l", "-100", "100"), ("LMOVE", "l", "l", "LEFT", "LEFT"),
    ("LMOVE", "l", "l", "RIGHT", "RIGHT"), ("BLMOVE", "l", "l", "LEFT", "LEFT", "0"),
]


@pytest.mark.parametrize("write", SIGNALLED_WRITES, ids=[" ".join(c) for c in SIGNALLED_WRITES])
def test_a_write_that_redis_signals_breaks_the_watch_though_it_changed_nothing(pair, write):
    a, b = pair
    run(a, [("FLUSHALL",), ("RPUSH", "l", "a", "b", "c"), ("WATCH", "l")])
    run(b, [write])
    run(a, [("MULTI",), ("LRANGE", "l", "0", "-1"), ("EXEC",)])  # aborts on both
    _assert_same(a, b)


# Writes that name several keys and change some of them: the WATCH of a key the command named
# but left as it was stays, on both servers (Redis signals each key it changed).
MULTI_KEY_WRITES = [
    ("DEL", "s", "missing"), ("UNLINK", "missing", "h"), ("DEL", "missing", "z", "missing2"),
    ("COPY", "s", "missing"), ("COPY", "h", "copied"), ("MSET", "s", "1", "missing", "2"),
    ("RENAME", "s", "missing"), ("LMOVE", "l", "missing", "LEFT", "RIGHT"),
    ("RPOPLPUSH", "l", "missing"), ("LMOVE", "missing", "l", "LEFT", "LEFT"),
    ("MSETNX", "s", "1", "missing", "2"), ("DEL", "s", "s"),
    ("ZRANGESTORE", "missing", "z", "0", "-1"), ("ZUNIONSTORE", "missing", "1", "z"),
    ("ZINTERSTORE", "z", "2", "z", "missing"),
]


@pytest.mark.parametrize("write", MULTI_KEY_WRITES, ids=[" ".join(c) for c in MULTI_KEY_WRITES])
def test_a_multi_key_write_breaks_the_watch_of_the_keys_it_changed(pair, write):
    a, b = pair
    not_keys = ("-1", "0", "1", "2", "LEFT", "RIGHT")
    for key in [arg for arg in dict.fromkeys(write[1:]) if arg not in not_keys]:
        run(a, [("FLUSHALL",), ("SET", "s", "v"), ("HSET", "h", "f", "v"),
                 ("ZADD", "z", "1", "m"), ("RPUSH", "l", "x", "y")])
        run(a, [("WATCH", key)])
        run(b, [write])
        run(a, [("MULTI",), ("EXISTS", key), ("EXEC",)])  # runs or aborts: the same on both
    _assert_same(a, b)


WATCH_KEYS = ["h0", "z0", "l0", "h1", "z1", "l1"]


def _interfering_write(rng):
    """A single-key write that changes its key, or may change nothing (a missing field or
    member, an empty list, the wrong type)."""
    return rng.choice([
        lambda: ("HSET", rng.choice(["h0", "h1"]), "w", str(rng.random())),
        lambda: ("HINCRBY", rng.choice(["h0", "h1"]), "cnt", "1"),
        lambda: ("ZINCRBY", rng.choice(["z0", "z1"]), "1", "w"),
        lambda: ("RPUSH", rng.choice(["l0", "l1"]), "w"),
        lambda: ("SET", rng.choice(WATCH_KEYS), "clobbered"),
        lambda: ("HDEL", rng.choice(WATCH_KEYS), "w"),
        lambda: ("ZREM", rng.choice(WATCH_KEYS), "w"),
        lambda: ("LPOP", rng.choice(WATCH_KEYS)),
        lambda: ("DEL", rng.choice(WATCH_KEYS)),
    ])()


def _queued_command(rng):
    while True:
        cmd = rng.choice([_hash_command, _zset_command, _list_command])(rng)
        # Whole-hash reads are compared unordered elsewhere; inside EXEC's array they would
        # differ in order only.
        if cmd[0] not in ("HGETALL", "HKEYS", "HVALS"):
            break
    # The generators use their own key names: map them onto the watched ones.
    rename = {"h2": "h0", "h3": "h1", "z2": "z0", "z3": "z1", "l2": "l0"}
    return (cmd[0], rename.get(cmd[1], cmd[1]), *cmd[2:]) if len(cmd) > 1 else cmd


def test_random_transactions(pair):
    a, b = pair
    rng = random.Random(20240606)
    for _ in range(300):
        if rng.random() < 0.1:
            check(a, "DEL", *WATCH_KEYS)
        watched = rng.sample(WATCH_KEYS, rng.randrange(0, 3))
        if watched:
            check(a, "WATCH", *watched)
        if rng.random() < 0.4:
            check(b, *_interfering_write(rng))
        check(a, "MULTI")
        for _ in range(rng.randrange(0, 6)):
            check(a, *_queued_command(rng))
        if rng.random() < 0.05:
            check(a, "HSET", "h0")  # arity error: EXECABORT
        if rng.random() < 0.4 and not watched:
            check(b, *_interfering_write(rng))  # between MULTI and EXEC, nothing watched
        check(a, "DISCARD" if rng.random() < 0.1 else "EXEC")
        check(a, "UNWATCH")
        if len(a.mismatches) + len(b.mismatches) > 40:
            break
    _assert_same(a, b)


def test_subcommand_errors_abort_at_queue_time(pair):
    a, _ = pair
    run(a, [
        ("MULTI",), ("SET", "a", "1"), ("CONFIG", "NOSUCH"), ("EXEC",), ("EXISTS", "a"),
        ("MULTI",), ("SET", "a", "1"), ("CLIENT", "ID", "extra"), ("EXEC",), ("EXISTS", "a"),
        ("MULTI",), ("SCRIPT", "exists"), ("COMMAND", "nosuch"), ("EXEC",),
        ("MULTI",), ("SET", "a", "1"), ("CONFIG", "GET", "maxclients"), ("CLIENT", "GETNAME"),
        ("EXEC",), ("EXISTS", "a"),
        ("CLIENT", "NOSUCH"), ("CONFIG", "get"), ("Config", "Set", "x"), ("COMMAND", "GETKEYS"),
    ])
    _assert_same(a)


def test_refused_exec_discards_the_transaction(pair):
    a, _ = pair
    # EXEC refused before it runs (here its arity) answers EXECABORT and leaves MULTI: what
    # follows runs at once, and a second EXEC or DISCARD finds no transaction.
    run(a, [
        ("SET", "x", "0"), ("MULTI",), ("SET", "y", "1"), ("EXEC", "extra"),
        ("SET", "x", "1"), ("GET", "x"), ("EXISTS", "y"), ("EXEC",), ("DISCARD",),
        ("EXEC", "extra"),
    ])
    _assert_same(a)


def test_save_and_shutdown_are_refused_inside_multi(pair):
    a, _ = pair
    run(a, [
        ("MULTI",), ("SET", "a", "1"), ("SHUTDOWN",), ("SAVE",), ("EXEC",), ("EXISTS", "a"),
        ("MULTI",), ("SHUTDOWN", "NOSAVE"), ("DISCARD",),
        ("SHUTDOWN", "SAVE", "NOSAVE"), ("SHUTDOWN", "NOSAVE", "SAVE"), ("PING",),
    ])
    _assert_same(a)


def test_flushall_breaks_the_watch_of_removed_keys_only(pair):
    a, b = pair
    for flush in (("FLUSHALL",), ("FLUSHDB",)):
        run(a, [("WATCH", "missing")])
        run(b, [flush])
        run(a, [("MULTI",), ("GET", "missing"), ("EXEC",)])  # runs: nothing was removed
        run(a, [("SET", "present", "1"), ("WATCH", "present", "missing")])
        run(b, [flush])
        run(a, [("MULTI",), ("GET", "present"), ("EXEC",)])  # aborts: "present" went
    _assert_same(a, b)
