"""List commands: the same sequences sent to redis-server and sluiced, every reply compared to
the byte in RESP2 and after HELLO 3.
"""

import random

from composite_diff import random_sequences, run


def test_push_pop_basics(diff):
    run(diff, [
        ("LPUSH", "l", "a"), ("LPUSH", "l", "b", "c"), ("RPUSH", "l", "x", "y"), ("LLEN", "l"),
        ("LRANGE", "l", "0", "-1"), ("LPOP", "l"), ("RPOP", "l"), ("LRANGE", "l", "0", "-1"),
        ("LPOP", "l", "2"), ("RPOP", "l", "5"), ("EXISTS", "l"), ("LPOP", "l"), ("RPOP", "l"),
        ("LPOP", "l", "1"), ("RPOP", "l", "0"), ("LLEN", "l"),
        ("RPUSH", "l", "1", "2", "3"), ("LPOP", "l", "0"), ("RPOP", "l", "0"), ("LLEN", "l"),
        ("LPOP", "l", "-1"), ("LPOP", "l", "abc"), ("LPOP", "l", "1.5"), ("RPOP", "l", "1", "2"),
        ("LPOP", "nope", "-1"), ("LPOP", "nope", "x"), ("LPOP", "nope", "0"), ("RPOP", "nope"),
        ("RPOP", "l", "9223372036854775807"), ("EXISTS", "l"), ("TYPE", "l"),
        ("LPUSHX", "l", "a"), ("RPUSHX", "l", "a"), ("EXISTS", "l"), ("RPUSH", "l", "z"),
        ("LPUSHX", "l", "a", "b"), ("RPUSHX", "l", "c"), ("LRANGE", "l", "0", "-1"),
        ("RPUSH", "l", "", b"bin\x00\r\n\xff"), ("LRANGE", "l", "-2", "-1"),
        ("LPUSH", "l"), ("RPUSH", "l"), ("LPOP",), ("LLEN",), ("LLEN", "l", "x"),
    ])
    diff.assert_same()


def test_lrange_and_lindex(diff):
    cmds = [("RPUSH", "l", "a", "b", "c", "d", "e")]
    for start, stop in [("0", "-1"), ("0", "0"), ("1", "3"), ("-2", "-1"), ("-100", "1"),
                        ("3", "100"), ("3", "1"), ("5", "6"), ("0", "-6"), ("-1", "-2"),
                        ("-9223372036854775808", "9223372036854775807")]:
        cmds.append(("LRANGE", "l", start, stop))
    for index in ["0", "4", "5", "-1", "-5", "-6", "100", "x", "1.0", "9223372036854775807",
                  "-9223372036854775808"]:
        cmds += [("LINDEX", "l", index), ("LINDEX", "nope", index)]
    cmds += [("LRANGE", "l", "a", "1"), ("LRANGE", "l", "0", "b"), ("LRANGE", "nope", "0", "-1"),
             ("LRANGE", "nope", "x", "1"), ("LRANGE", "l", "0"), ("LINDEX", "l")]
    run(diff, cmds)
    diff.assert_same()


def test_ltrim(diff):
    cmds = []
    for start, stop in [("1", "-2"), ("0", "-1"), ("2", "2"), ("-3", "-1"), ("0", "100"),
                        ("3", "1"), ("10", "20"), ("-100", "1"), ("0", "-10")]:
        cmds += [("DEL", "l"), ("RPUSH", "l", "a", "b", "c", "d", "e"),
                 ("LTRIM", "l", start, stop), ("LRANGE", "l", "0", "-1"), ("LLEN", "l"),
                 ("EXISTS", "l"), ("LINDEX", "l", "0")]
    cmds += [("LTRIM", "nope", "0", "1"), ("LTRIM", "nope", "x", "1"), ("LTRIM", "l", "0", "x"),
             ("LTRIM", "l", "0"), ("EXISTS", "nope")]
    run(diff, cmds)
    diff.assert_same()


def test_wrongtype(diff):
    run(diff, [
        ("SET", "s", "v"), ("LPUSH", "s", "a"), ("RPUSH", "s", "a"), ("LPUSHX", "s", "a"),
        ("LPOP", "s"), ("RPOP", "s", "2"), ("LLEN", "s"), ("LRANGE", "s", "0", "-1"),
        ("LTRIM", "s", "0", "1"), ("LINDEX", "s", "0"), ("LINDEX", "s", "x"),
        ("LPOP", "s", "x"), ("LRANGE", "s", "x", "0"), ("LTRIM", "s", "x", "0"),
        ("RPUSH", "l", "a"), ("GET", "l"), ("HGET", "l", "a"), ("ZCARD", "l"), ("INCR", "l"),
    ])
    diff.assert_same()


def test_expiry_and_rename_of_lists(diff):
    run(diff, [
        ("RPUSH", "l", "a", "b", "c"), ("EXPIRE", "l", "100"), ("LPUSH", "l", "z"), ("TTL", "l"),
        ("LPOP", "l"), ("TTL", "l"), ("LTRIM", "l", "0", "0"), ("TTL", "l"),
        ("RENAME", "l", "m"), ("TTL", "m"), ("LRANGE", "m", "0", "-1"), ("EXISTS", "l"),
        ("RPUSH", "m", "x"), ("RENAME", "m", "m"), ("LRANGE", "m", "0", "-1"),
        ("DEL", "m"), ("LRANGE", "m", "0", "-1"), ("RPUSH", "m", "fresh"),
        ("LRANGE", "m", "0", "-1"), ("PEXPIRE", "m", "0"), ("LLEN", "m"),
    ])
    diff.assert_same()


def test_long_list(diff):
    items = [f"item{i}" for i in range(1000)]
    run(diff, [
        ("RPUSH", "l", *items), ("LPUSH", "l", *items[:300]), ("LLEN", "l"),
        ("LINDEX", "l", "650"), ("LINDEX", "l", "-1"), ("LRANGE", "l", "295", "305"),
        ("LTRIM", "l", "100", "-100"), ("LLEN", "l"), ("LRANGE", "l", "0", "4"),
        ("LRANGE", "l", "-5", "-1"), ("LPOP", "l", "250"), ("RPOP", "l", "3"), ("LLEN", "l"),
    ])
    diff.assert_same()


KEYS = ["l0", "l1", "l2"]
VALUES = ["a", "b", "c", "", "1", "long" * 20]
INDEXES = ["0", "1", "2", "-1", "-2", "-3", "5", "-10", "100", "x"]
COUNTS = ["1", "2", "3", "0", "10", "-1", "x"]


def _list_command(rng):
    k = rng.choice(KEYS)
    vs = [rng.choice(VALUES) for _ in range(rng.randrange(1, 5))]
    i, j = rng.choice(INDEXES), rng.choice(INDEXES)
    table = [
        lambda: ("LPUSH", k, *vs),
        lambda: ("RPUSH", k, *vs),
        lambda: ("LPUSHX", k, *vs),
        lambda: ("RPUSHX", k, *vs),
        lambda: ("LPOP", k),
        lambda: ("RPOP", k),
        lambda: ("LPOP", k, rng.choice(COUNTS)),
        lambda: ("RPOP", k, rng.choice(COUNTS)),
        lambda: ("LLEN", k),
        lambda: ("LRANGE", k, i, j),
        lambda: ("LRANGE", k, "0", "-1"),
        lambda: ("LTRIM", k, i, j),
        lambda: ("LINDEX", k, i),
    ]
    return rng.choice(table)()


def test_random_list_sequences(diff):
    random_sequences(diff, random.Random(20240605), KEYS, _list_command, sequences=400)
