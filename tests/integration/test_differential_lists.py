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


def test_lists_crossing_the_inline_limits(diff):
    """sluice keeps a list of up to 128 elements of up to 64 bytes (about 4 KB in all) in its
    record and moves it to sub-entries past any limit (storage/list_type.h): every command on
    both sides of the move, and a move by each command that can make one."""
    cmds = []
    for i in range(140):  # one by one past 128, reading both ends at each step
        cmds += [("RPUSH" if i % 3 else "LPUSH", "grow", f"e{i}"), ("LINDEX", "grow", "0"),
                 ("LINDEX", "grow", "-1"), ("LLEN", "grow")]
    cmds += [("LRANGE", "grow", "0", "-1"), ("LPOP", "grow", "130"), ("LRANGE", "grow", "0", "-1"),
             ("LPUSH", "grow", "again"), ("LRANGE", "grow", "0", "-1")]
    for i in range(70):  # 61 bytes each: past 4 KB at the 67th
        cmds += [("LPUSH", "wide", f"{i:060d}"), ("LINDEX", "wide", "-1"), ("LLEN", "wide")]
    cmds += [("LRANGE", "wide", "60", "-1"), ("LTRIM", "wide", "1", "-2"),
             ("LRANGE", "wide", "0", "2")]
    longest, too_long = "x" * 64, "y" * 65
    for key, edit in [("push", ("RPUSH", "push", too_long)),
                      ("set", ("LSET", "set", "1", too_long)),
                      ("insert", ("LINSERT", "insert", "AFTER", "b", too_long))]:
        cmds += [("RPUSH", key, "a", "b", longest), edit, ("LRANGE", key, "0", "-1"),
                 ("LREM", key, "0", "a"), ("LPOS", key, too_long), ("LRANGE", key, "0", "-1")]
    # Moves between a list in its record and one in sub-entries, both ways, and SORT's STORE.
    cmds += [("RPUSH", "short", "3", "1", "2"), ("RPUSH", "long", *[str(i) for i in range(200)]),
             ("LMOVE", "long", "short", "LEFT", "RIGHT"), ("RPOPLPUSH", "short", "long"),
             ("LRANGE", "short", "0", "-1"), ("LRANGE", "long", "0", "3"),
             ("LRANGE", "long", "-3", "-1"), ("SORT", "short", "STORE", "sorted"),
             ("LRANGE", "sorted", "0", "-1"), ("SORT", "long", "STORE", "sorted"),
             ("LLEN", "sorted"), ("LRANGE", "sorted", "0", "4"), ("OBJECT", "ENCODING", "short"),
             ("OBJECT", "ENCODING", "long"), ("LTRIM", "long", "0", "2"),
             ("LRANGE", "long", "0", "-1")]
    run(diff, cmds)
    diff.assert_same()


# The python `limits` library's moving window (Flask-Limiter, slowapi) as its Redis storage
# runs it, reduced: LINDEX the limit-th newest entry, refuse while it is inside the window,
# else LPUSH the time, LTRIM to the limit and EXPIRE. A list of up to `limit` entries.
MOVING_WINDOW = """
local timestamp, limit, expiry = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local entry = redis.call('LINDEX', KEYS[1], limit - 1)
if entry and tonumber(entry) >= timestamp - expiry then return 0 end
redis.call('LPUSH', KEYS[1], timestamp)
redis.call('LTRIM', KEYS[1], 0, limit - 1)
redis.call('EXPIRE', KEYS[1], expiry)
return 1
"""


def test_a_moving_window_script_over_a_list(diff):
    cmds = []
    for limit in (5, 200):  # a list in its record, and one past 128 entries
        key = f"window:{limit}"
        for second in range(0, 3 * limit, 2):
            cmds += [("EVAL", MOVING_WINDOW, "1", key, str(1_000_000 + second), str(limit),
                      str(limit)), ("LLEN", key)]
        cmds += [("LRANGE", key, "0", "4"), ("LINDEX", key, "-1")]
    run(diff, cmds)
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


# LSET, LREM, LINSERT, LPOS, LMOVE and RPOPLPUSH; the names follow Redis's list.tcl.

BIN = b"bin\x00\r\n\xff"


def test_lset(diff):
    run(diff, [
        ("RPUSH", "l", "a", "b", "c"), ("LSET", "l", "0", "A"), ("LSET", "l", "-1", "C"),
        ("LSET", "l", "1", BIN), ("LRANGE", "l", "0", "-1"), ("LSET", "l", "3", "x"),
        ("LSET", "l", "-4", "x"), ("LSET", "l", "9223372036854775807", "x"),
        ("LSET", "l", "-9223372036854775808", "x"), ("LSET", "l", "x", "y"),
        ("LSET", "l", "1.0", "y"), ("LSET", "l", "", "y"), ("LSET", "l", "-3", ""),
        ("LRANGE", "l", "0", "-1"), ("LSET", "nope", "0", "x"), ("LSET", "nope", "x", "y"),
        ("EXISTS", "nope"), ("LSET", "l", "0"), ("LSET", "l", "0", "a", "b"), ("LSET",),
        ("RPUSH", "t", "a"), ("EXPIRE", "t", "100"), ("LSET", "t", "0", "b"), ("TTL", "t"),
        ("LRANGE", "t", "0", "-1"),
    ])
    diff.assert_same()


def test_lrem(diff):
    cmds = []
    for count in ["0", "1", "2", "-1", "-2", "100", "-100", "9223372036854775807",
                  "-9223372036854775808"]:
        cmds += [("DEL", "l"), ("RPUSH", "l", "x", "a", "x", "b", "x", "x", "c", "x"),
                 ("LREM", "l", count, "x"), ("LRANGE", "l", "0", "-1"), ("LLEN", "l")]
    cmds += [
        ("LREM", "l", "0", "nope"), ("LREM", "l", "x", "a"), ("LREM", "l", "1.5", "a"),
        ("LREM", "l", "", "a"), ("LREM", "nope", "1", "a"), ("LREM", "nope", "x", "a"),
        ("DEL", "l"), ("RPUSH", "l", "a", "a", "a"), ("LREM", "l", "0", "a"), ("EXISTS", "l"),
        ("RPUSH", "l", "a", BIN, "", BIN), ("LREM", "l", "-1", BIN), ("LREM", "l", "1", ""),
        ("LREM", "l", "0", "bin"), ("LRANGE", "l", "0", "-1"), ("LREM", "l", "1"),
        ("LREM", "l", "1", "a", "b"),
        ("RPUSH", "n", "1", "01", "1", "1.0"), ("LREM", "n", "0", "1"), ("LRANGE", "n", "0", "-1"),
    ]
    run(diff, cmds)
    diff.assert_same()


def test_linsert(diff):
    run(diff, [
        ("RPUSH", "l", "a", "b", "c", "b", "d"),
        ("LINSERT", "l", "BEFORE", "b", "x"), ("LINSERT", "l", "after", "b", "y"),
        ("LINSERT", "l", "Before", "a", "first"), ("LINSERT", "l", "AFTER", "d", "last"),
        ("LINSERT", "l", "before", "nope", "z"), ("LRANGE", "l", "0", "-1"), ("LLEN", "l"),
        ("LINSERT", "l", "middle", "a", "z"), ("LINSERT", "l", "", "a", "z"),
        ("LINSERT", "nope", "before", "a", "z"), ("LINSERT", "nope", "bad", "a", "z"),
        ("EXISTS", "nope"), ("LINSERT", "l", "after", "last", BIN),
        ("LINSERT", "l", "before", BIN, ""), ("LINSERT", "l", "after", "", "e"),
        ("LRANGE", "l", "-4", "-1"), ("LINSERT", "l", "before", "a"),
        ("LINSERT", "l", "before", "a", "b", "c"),
    ])
    diff.assert_same()


def test_lpos_basic_usage_and_options(diff):
    cmds = [("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c", "a", BIN)]
    options = [(), ("RANK", "1"), ("RANK", "2"), ("RANK", "3"), ("RANK", "4"), ("RANK", "-1"),
               ("RANK", "-2"), ("RANK", "-3"), ("RANK", "-4"), ("COUNT", "0"), ("COUNT", "1"),
               ("COUNT", "2"), ("COUNT", "10"), ("RANK", "2", "COUNT", "0"),
               ("RANK", "-1", "COUNT", "2"), ("COUNT", "0", "RANK", "-2"), ("MAXLEN", "0"),
               ("MAXLEN", "1"), ("MAXLEN", "3"), ("MAXLEN", "7"), ("COUNT", "0", "MAXLEN", "7"),
               ("RANK", "-1", "MAXLEN", "2"), ("RANK", "-1", "MAXLEN", "3", "COUNT", "0"),
               ("rank", "2", "count", "2", "maxlen", "8"), ("RANK", "1", "RANK", "-1"),
               ("RANK", "9223372036854775807"), ("RANK", "-9223372036854775807"),
               ("RANK", "-9223372036854775808"), ("RANK", "-9223372036854775808", "COUNT", "1"),
               ("RANK", "-9223372036854775808", "COUNT", "0", "MAXLEN", "2")]
    for element in ["c", "a", "nope", BIN, "1"]:
        for opts in options:
            cmds.append(("LPOS", "l", element, *opts))
    for opts in [(), ("COUNT", "0"), ("COUNT", "x"), ("RANK", "0")]:
        cmds.append(("LPOS", "nope", "a", *opts))
    run(diff, cmds)
    diff.assert_same()


def test_lpos_errors(diff):
    cmds = [("RPUSH", "l", "a", "b", "a"), ("SET", "s", "v")]
    for key in ["l", "nope", "s"]:
        for opts in [("RANK", "0"), ("RANK", "x"), ("RANK", "1.5"), ("RANK",), ("COUNT", "-1"),
                     ("COUNT", "x"), ("COUNT",), ("MAXLEN", "-1"), ("MAXLEN", "x"), ("MAXLEN",),
                     ("FOO",), ("FOO", "1"), ("RANK", "1", "FOO"), ("COUNT", "-1", "RANK", "0"),
                     ("RANK", "0", "COUNT", "-1"), ("MAXLEN", "-1", "COUNT", "x"),
                     ("COUNT", "1", "MAXLEN"), ("RANK", "1", "COUNT", "1", "MAXLEN", "1", "x"),
                     (), ("COUNT", "1")]:
            cmds.append(("LPOS", key, "a", *opts))
    cmds += [("LPOS", "l"), ("LPOS",)]
    run(diff, cmds)
    diff.assert_same()


def test_lmove_and_rpoplpush_base_case(diff):
    cmds = [("RPUSH", "src", "a", "b", "c", "d")]
    for wherefrom in ["LEFT", "RIGHT"]:
        for whereto in ["left", "right"]:
            cmds += [("LMOVE", "src", "dst", wherefrom, whereto), ("LRANGE", "src", "0", "-1"),
                     ("LRANGE", "dst", "0", "-1")]
    cmds += [("EXISTS", "src"), ("LMOVE", "src", "dst", "LEFT", "LEFT"),
             ("RPUSH", "src", "x", "y", "z"), ("RPOPLPUSH", "src", "dst"),
             ("RPOPLPUSH", "src", "dst"), ("RPOPLPUSH", "src", "dst"), ("EXISTS", "src"),
             ("RPOPLPUSH", "src", "dst"), ("LRANGE", "dst", "0", "-1"),
             ("RPOPLPUSH", "dst", "fresh"), ("TYPE", "fresh"), ("LRANGE", "fresh", "0", "-1"),
             ("RPUSH", "bin", BIN), ("LMOVE", "bin", "dst", "RIGHT", "LEFT"),
             ("LINDEX", "dst", "0"), ("EXISTS", "bin"),
             ("RPUSH", "ttl", "a", "b"), ("EXPIRE", "dst", "100"),
             ("LMOVE", "ttl", "dst", "LEFT", "RIGHT"), ("TTL", "dst"), ("TTL", "ttl"),
             ("RPOPLPUSH", "ttl", "new"), ("TTL", "new"), ("EXISTS", "ttl")]
    run(diff, cmds)
    diff.assert_same()


def test_lmove_with_the_same_list_as_src_and_dst(diff):
    cmds = [("RPUSH", "l", "a", "b", "c"), ("EXPIRE", "l", "100")]
    for wherefrom in ["LEFT", "RIGHT"]:
        for whereto in ["LEFT", "RIGHT"]:
            cmds += [("LMOVE", "l", "l", wherefrom, whereto), ("LRANGE", "l", "0", "-1")]
    cmds += [("RPOPLPUSH", "l", "l"), ("RPOPLPUSH", "l", "l"), ("LRANGE", "l", "0", "-1"),
             ("TTL", "l"), ("RPUSH", "one", "x"), ("PEXPIRE", "one", "100000"),
             ("LMOVE", "one", "one", "LEFT", "RIGHT"), ("LMOVE", "one", "one", "RIGHT", "LEFT"),
             ("RPOPLPUSH", "one", "one"), ("LRANGE", "one", "0", "-1"), ("TTL", "one"),
             ("RPOPLPUSH", "nope", "nope"), ("LMOVE", "nope", "nope", "LEFT", "LEFT"),
             ("EXISTS", "nope")]
    run(diff, cmds)
    diff.assert_same()


def test_lmove_and_rpoplpush_errors(diff):
    run(diff, [
        ("RPUSH", "l", "a", "b"), ("SET", "s", "v"),
        ("LMOVE", "l", "d", "UP", "LEFT"), ("LMOVE", "l", "d", "LEFT", "DOWN"),
        ("LMOVE", "l", "d", "", ""), ("LMOVE", "nope", "d", "bad", "LEFT"),
        ("LMOVE", "s", "d", "LEFT", "bad"), ("LMOVE", "l", "s", "LEFT", "RIGHT"),
        ("LRANGE", "l", "0", "-1"), ("LMOVE", "s", "l", "LEFT", "RIGHT"),
        ("LMOVE", "nope", "s", "LEFT", "RIGHT"), ("LMOVE", "s", "s", "LEFT", "LEFT"),
        ("RPOPLPUSH", "l", "s"), ("RPOPLPUSH", "s", "l"), ("RPOPLPUSH", "nope", "s"),
        ("RPOPLPUSH", "s", "s"), ("LRANGE", "l", "0", "-1"), ("GET", "s"),
        ("LMOVE", "l", "d", "LEFT"), ("LMOVE", "l", "d", "LEFT", "LEFT", "x"),
        ("RPOPLPUSH", "l"), ("RPOPLPUSH", "l", "d", "x"), ("RPOPLPUSH",),
    ])
    diff.assert_same()


def test_wrongtype_of_the_edit_commands(diff):
    run(diff, [
        ("SET", "s", "v"), ("LSET", "s", "0", "x"), ("LSET", "s", "x", "x"),
        ("LREM", "s", "0", "v"), ("LREM", "s", "x", "v"), ("LINSERT", "s", "BEFORE", "v", "x"),
        ("LINSERT", "s", "bad", "v", "x"), ("LPOS", "s", "v"), ("LPOS", "s", "v", "COUNT", "0"),
        ("HSET", "h", "f", "v"), ("LMOVE", "h", "l", "LEFT", "LEFT"), ("RPOPLPUSH", "h", "h"),
        ("ZADD", "z", "1", "m"), ("LPOS", "z", "m"), ("LREM", "z", "1", "m"),
        ("GET", "s"), ("EXISTS", "l"),
    ])
    diff.assert_same()


def test_edits_in_the_middle_of_a_long_list(diff):
    items = [f"item{i % 250}" for i in range(1000)]
    run(diff, [
        ("RPUSH", "l", *items), ("LINSERT", "l", "AFTER", "item10", "near-head"),
        ("LINSERT", "l", "BEFORE", "item240", "near-tail"), ("LREM", "l", "1", "item3"),
        ("LREM", "l", "-1", "item247"), ("LREM", "l", "2", "item125"),
        ("LREM", "l", "0", "item200"), ("LLEN", "l"), ("LRANGE", "l", "0", "15"),
        ("LRANGE", "l", "-15", "-1"), ("LRANGE", "l", "490", "510"),
        ("LSET", "l", "500", "middle"), ("LPOS", "l", "middle"),
        ("LPOS", "l", "item7", "COUNT", "0"),
        ("LPOS", "l", "item7", "RANK", "-2", "COUNT", "2"), ("LINDEX", "l", "-2"),
        ("LPOP", "l", "3"), ("RPOP", "l", "3"), ("LMOVE", "l", "l", "LEFT", "RIGHT"),
        ("LRANGE", "l", "0", "-1"),
    ])
    diff.assert_same()


def test_reads_and_edits_of_a_list_with_gaps(diff):
    """A queue filing jobs by priority inserts at one place again and again; sluice then keeps
    gaps between its elements' positions (storage/list_type.h), and every read and edit walks
    instead of seeking. A guard of that layout: the replies were Redis's before it too."""
    jobs = [f"job{i}" for i in range(600)]
    cmds = [("RPUSH", "q", *jobs)]
    cmds += [("LINSERT", "q", "BEFORE", "job300", f"p{i}") for i in range(60)]
    cmds += [("LINSERT", "q", "AFTER", f"p{i}", f"p{i}b") for i in range(0, 60, 7)]
    cmds += [("LREM", "q", "1", f"job{i}") for i in range(100, 500, 37)]
    for index in ["0", "1", "299", "330", "331", "400", "-1", "-2", "-300", "-340", "700"]:
        cmds.append(("LINDEX", "q", index))
    for start, stop in [("295", "370"), ("-80", "-60"), ("0", "5"), ("-5", "-1"), ("600", "700")]:
        cmds.append(("LRANGE", "q", start, stop))
    cmds += [
        ("LSET", "q", "320", "set-mid"), ("LSET", "q", "-320", "set-mid2"), ("LLEN", "q"),
        ("LPOS", "q", "set-mid"), ("LPOS", "q", "p30", "RANK", "-1"),
        ("LPOP", "q", "5"), ("RPOP", "q", "5"), ("LMOVE", "q", "q", "LEFT", "RIGHT"),
        ("LMOVE", "q", "q", "RIGHT", "LEFT"), ("LMOVE", "q", "other", "LEFT", "LEFT"),
        ("LTRIM", "q", "10", "-11"), ("LLEN", "q"), ("LINDEX", "q", "300"),
        ("LPUSH", "q", "front"), ("RPUSH", "q", "back"), ("LRANGE", "q", "0", "-1"),
        ("LRANGE", "q", "280", "340"), ("LINDEX", "q", "-1"),
    ]
    run(diff, cmds)
    diff.assert_same()


EDIT_VALUES = ["a", "b", "c", "", BIN]


def _edit_command(rng):
    """The new commands, mixed with the older ones (_list_command) one time in four; pushes
    are frequent enough that most edits find a list, and malformed arguments are rare."""
    if rng.random() < 0.25:
        return _list_command(rng)
    k, k2 = rng.choice(KEYS), rng.choice(KEYS)
    v, v2 = rng.choice(EDIT_VALUES), rng.choice(EDIT_VALUES)
    vs = [rng.choice(EDIT_VALUES) for _ in range(rng.randrange(1, 7))]

    def odd(good, bad):
        return rng.choice(bad) if rng.random() < 0.05 else rng.choice(good)

    def end():
        return odd(["LEFT", "RIGHT", "left", "Right"], ["up", ""])

    pos_options = [("RANK", odd(["1", "2", "-1", "-2", "3"], ["0", "x"])),
                   ("COUNT", odd(["0", "1", "2"], ["-1", "x"])),
                   ("MAXLEN", odd(["0", "1", "3", "10"], ["-1"]))]
    table = [
        lambda: ("RPUSH", k, *vs),
        lambda: ("LPUSH", k, *vs),
        lambda: ("LSET", k, odd(["0", "1", "-1", "-2", "2", "5"], ["x", "-10"]), v),
        lambda: ("LREM", k, odd(["0", "1", "2", "-1", "-2"], ["x"]), v),
        lambda: ("LINSERT", k, odd(["BEFORE", "AFTER", "after"], ["bad"]), v, v2),
        lambda: ("LPOS", k, v, *[x for opt in rng.sample(pos_options, rng.randrange(0, 4))
                                 for x in opt]),
        lambda: ("LMOVE", k, k2, end(), end()),
        lambda: ("RPOPLPUSH", k, k2),
        lambda: ("LRANGE", k, "0", "-1"),
    ]
    return rng.choice(table)()


def test_random_edit_sequences(diff):
    random_sequences(diff, random.Random(20240611), KEYS, _edit_command, sequences=250,
                     steps=(20, 80))
