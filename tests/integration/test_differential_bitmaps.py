"""Bitmap commands on strings (SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO): the
same sequences sent to redis-server and sluiced, every reply compared to the byte, in RESP2 and
after HELLO 3; WATCH, MULTI/EXEC, scripts, COMMAND INFO and keyspace hits as Redis's; expiry
on sluiced's test clock.

Nothing here depends on the wall clock: relative expiries are >= 100 s, and TTL replies are
compared with differential.CLOCK_TOLERANCE.
"""

import random

import pytest

from composite_diff import random_sequences, run
from differential import assert_command_info_as_redis
from frozen_clock import Clock
from keyspace_counts import assert_counters_move_as_redis, case_ids

I64_MAX = "9223372036854775807"
I64_MIN = "-9223372036854775808"


def test_setbit_getbit(diff):
    run(diff, [
        ("SETBIT", "k", "7", "1"), ("GET", "k"), ("SETBIT", "k", "7", "1"),
        ("SETBIT", "k", "7", "0"),
        ("GET", "k"), ("STRLEN", "k"), ("SETBIT", "k", "0", "1"), ("GETBIT", "k", "0"),
        ("GETBIT", "k", "1"), ("GETBIT", "k", "7"), ("GETBIT", "k", "8"), ("GETBIT", "k", "100"),
        # The string grows with zero bytes up to the byte of the offset.
        ("SETBIT", "k", "100", "1"), ("STRLEN", "k"), ("GET", "k"), ("GETBIT", "k", "100"),
        ("SETBIT", "k", "100", "0"), ("STRLEN", "k"), ("GETBIT", "missing", "0"),
        ("GETBIT", "missing", "4294967295"), ("EXISTS", "missing"),
        # On an existing string, an integer one, an empty one, binary bytes.
        ("SET", "s", "`"), ("GETBIT", "s", "1"), ("GETBIT", "s", "2"), ("GETBIT", "s", "3"),
        ("SETBIT", "s", "3", "1"), ("GET", "s"), ("SET", "n", "12345"), ("GETBIT", "n", "2"),
        ("SETBIT", "n", "7", "0"), ("GET", "n"), ("INCR", "n"), ("SET", "e", ""),
        ("GETBIT", "e", "0"), ("SETBIT", "e", "9", "1"), ("GET", "e"),
        ("SET", "b", b"\x00\xff\r\n"), ("GETBIT", "b", "8"), ("SETBIT", "b", "0", "1"),
        ("GET", "b"),
        # The TTL stays.
        ("SET", "t", "a", "EX", "100"), ("SETBIT", "t", "20", "1"), ("TTL", "t"), ("GET", "t"),
        ("setbit", "t", "1", "1"), ("GetBit", "t", "1"),
    ])
    diff.assert_same()


def test_setbit_getbit_errors(diff):
    run(diff, [
        ("SET", "k", "v"), ("RPUSH", "l", "a"), ("HSET", "h", "f", "v"),
        ("SETBIT", "k", "-1", "1"), ("SETBIT", "k", "4294967296", "1"), ("SETBIT", "k", "abc", "1"),
        ("SETBIT", "k", "1.5", "1"), ("SETBIT", "k", "", "1"), ("SETBIT", "k", "+1", "1"),
        ("SETBIT", "k", " 1", "1"), ("SETBIT", "k", "01", "1"), ("SETBIT", "k", I64_MAX, "1"),
        ("SETBIT", "k", "9223372036854775808", "1"), ("SETBIT", "k", "#1", "1"),
        ("SETBIT", "k", "0", "2"), ("SETBIT", "k", "0", "-1"), ("SETBIT", "k", "0", "a"),
        ("SETBIT", "k", "0", ""), ("SETBIT", "k", "0", "1.0"), ("SETBIT", "k", "0", "01"),
        ("SETBIT", "k", "0", I64_MIN), ("SETBIT", "k", "-1", "2"), ("GET", "k"),
        ("GETBIT", "k", "-1"), ("GETBIT", "k", "4294967296"), ("GETBIT", "k", "x"),
        ("GETBIT", "k", "#0"),
        # Argument errors come before the type; WRONGTYPE before the size.
        ("SETBIT", "l", "1", "1"), ("SETBIT", "l", "1", "2"), ("SETBIT", "l", "-1", "1"),
        ("GETBIT", "h", "1"), ("GETBIT", "h", "-1"), ("SETBIT", "h", "4294967295", "1"),
        ("TYPE", "l"), ("TYPE", "h"),
        ("SETBIT", "k", "1"), ("SETBIT", "k"), ("SETBIT",), ("SETBIT", "k", "1", "1", "1"),
        ("GETBIT", "k"), ("GETBIT", "k", "1", "2"), ("GETBIT",),
    ])
    diff.assert_same()


def test_bitcount(diff):
    run(diff, [
        ("SET", "s", "foobar"), ("BITCOUNT", "s"), ("BITCOUNT", "s", "0", "0"),
        ("BITCOUNT", "s", "1", "1"), ("BITCOUNT", "s", "1", "1", "BYTE"),
        ("BITCOUNT", "s", "1", "1", "BIT"), ("BITCOUNT", "s", "5", "30", "BIT"),
        ("BITCOUNT", "s", "5", "30", "bit"), ("BITCOUNT", "s", "0", "-1", "byte"),
        ("BITCOUNT", "s", "-2", "-1"), ("BITCOUNT", "s", "-1", "-2"), ("BITCOUNT", "s", "-1", "-5"),
        # Both negative with start after end: 0; both before the string otherwise: byte 0.
        ("BITCOUNT", "s", "-10", "-20"), ("BITCOUNT", "s", "-20", "-10"),
        ("BITCOUNT", "s", "-20", "-10", "BIT"), ("BITCOUNT", "s", "-100", "-60", "BIT"),
        ("BITCOUNT", "s", "-60", "-100", "BIT"), ("BITCOUNT", "s", "-3", "-1", "BIT"),
        ("BITCOUNT", "s", "0", "100"), ("BITCOUNT", "s", "6", "100"), ("BITCOUNT", "s", "3", "2"),
        ("BITCOUNT", "s", "47", "47", "BIT"), ("BITCOUNT", "s", "48", "100", "BIT"),
        ("BITCOUNT", "s", "7", "8", "BIT"), ("BITCOUNT", "s", "9", "14", "BIT"),
        ("BITCOUNT", "s", I64_MIN, I64_MAX), ("BITCOUNT", "s", I64_MIN, I64_MAX, "BIT"),
        ("BITCOUNT", "s", I64_MAX, I64_MIN), ("BITCOUNT", "s", "0", I64_MIN),
        ("BITCOUNT", "missing"), ("BITCOUNT", "missing", "0", "-1"),
        ("BITCOUNT", "missing", "0", "1", "BIT"),
        ("SET", "e", ""), ("BITCOUNT", "e"), ("BITCOUNT", "e", "0", "-1"),
        ("BITCOUNT", "e", "0", "0", "BIT"), ("SET", "n", "-123"), ("BITCOUNT", "n"),
        ("SET", "ones", b"\xff" * 9), ("BITCOUNT", "ones"), ("BITCOUNT", "ones", "3", "66", "BIT"),
        ("BITCOUNT", "ones", "1", "-2"),
    ])
    diff.assert_same()


def test_bitcount_errors(diff):
    # Redis 7.0 looks the key up before it reads the range: a missing key is 0 whatever the
    # arguments, another type WRONGTYPE, a string gets the arguments' error.
    run(diff, [
        ("SET", "s", "foobar"), ("RPUSH", "l", "a"),
        ("BITCOUNT", "s", "a", "1"), ("BITCOUNT", "s", "0", "1.5"), ("BITCOUNT", "s", "0", ""),
        ("BITCOUNT", "s", "0", "9223372036854775808"), ("BITCOUNT", "s", "0", "1", "BITS"),
        ("BITCOUNT", "s", "0", "1", ""), ("BITCOUNT", "s", "0"),
        ("BITCOUNT", "s", "0", "1", "BIT", "x"),
        ("BITCOUNT", "s", "x", "1", "BOGUS"), ("BITCOUNT", "s", "0", "1", "BOGUS", "x"),
        ("BITCOUNT", "missing", "a", "b"), ("BITCOUNT", "missing", "0"),
        ("BITCOUNT", "missing", "0", "1", "BOGUS"), ("BITCOUNT", "missing", "0", "1", "2", "3"),
        ("BITCOUNT", "l"), ("BITCOUNT", "l", "a", "b"), ("BITCOUNT", "l", "0"),
        ("BITCOUNT", "l", "0", "1", "BIT"), ("BITCOUNT",),
        # Redis compares the unit as a C string: it ends at a NUL byte.
        ("BITCOUNT", "s", "0", "1", b"bit\x00x"), ("BITCOUNT", "s", "0", "1", b"\x00"),
        # Both from the end with start after end: 0 before the unit is read.
        ("BITCOUNT", "s", "-1", "-5", "BITS"), ("BITCOUNT", "s", "-1", I64_MIN, "x"),
        ("BITCOUNT", "s", "-5", "-1", "BITS"),
    ])
    diff.assert_same()


def test_bitpos(diff):
    run(diff, [
        ("SET", "a", b"\xff\xf0\x00"), ("BITPOS", "a", "0"), ("BITPOS", "a", "1"),
        ("SET", "b", b"\x00\xff\xf0"), ("BITPOS", "b", "1", "0"), ("BITPOS", "b", "1", "2"),
        ("BITPOS", "b", "1", "2", "-1", "BYTE"), ("BITPOS", "b", "1", "7", "15", "BIT"),
        ("BITPOS", "b", "1", "7", "-3", "bit"), ("BITPOS", "b", "0", "8", "15", "BIT"),
        ("BITPOS", "b", "0", "8", "-1", "BIT"), ("BITPOS", "b", "0", "8", "BIT"),
        ("BITPOS", "b", "1", "-1"), ("BITPOS", "b", "1", "-2", "-2"),
        ("BITPOS", "b", "1", "-1", "-2"),
        ("BITPOS", "b", "1", "-10", "-20"), ("BITPOS", "b", "0", "-10", "-20"),
        ("BITPOS", "b", "1", "-100", "-20", "BIT"), ("BITPOS", "b", "1", "2", "1"),
        ("BITPOS", "b", "1", "100"), ("BITPOS", "b", "0", "100"), ("BITPOS", "b", "0", "3", "100"),
        ("BITPOS", "b", "1", I64_MIN, I64_MAX), ("BITPOS", "b", "0", I64_MIN, I64_MAX, "BIT"),
        ("BITPOS", "b", "1", I64_MAX), ("BITPOS", "b", "1", "20", "21", "BIT"),
        ("BITPOS", "b", "1", "20", "19", "BIT"), ("BITPOS", "b", "0", "17", "19", "BIT"),
        ("BITPOS", "b", "0", "23", "23", "BIT"), ("BITPOS", "b", "1", "3", "3", "BIT"),
        ("SET", "n", "0"), ("BITPOS", "n", "1"), ("BITPOS", "n", "0"),
    ])
    diff.assert_same()


def test_bitpos_special_cases(diff):
    # Looking for 0 in all ones: the bit after the string without an end (the string continues
    # with zeros), -1 with one. Looking for 1 in all zeros: -1. Empty string: -1 for both; a
    # missing key: 0 for 0 (endless zeros), -1 for 1.
    run(diff, [
        ("SET", "ones", b"\xff\xff\xff"),
        ("BITPOS", "ones", "0"), ("BITPOS", "ones", "0", "0"), ("BITPOS", "ones", "0", "1"),
        ("BITPOS", "ones", "0", "-1"), ("BITPOS", "ones", "0", "0", "-1"),
        ("BITPOS", "ones", "0", "0", "2"), ("BITPOS", "ones", "0", "0", "100"),
        ("BITPOS", "ones", "0", "0", "-1", "BYTE"), ("BITPOS", "ones", "0", "0", "-1", "BIT"),
        ("BITPOS", "ones", "0", "5", "BIT"), ("BITPOS", "ones", "0", "5", "BYTE"),
        ("BITPOS", "ones", "0", "3", "20", "BIT"), ("BITPOS", "ones", "1"),
        ("BITPOS", "ones", "1", "3", "20", "BIT"), ("BITPOS", "ones", "0", "3"),
        ("SET", "zeros", b"\x00\x00\x00"),
        ("BITPOS", "zeros", "1"), ("BITPOS", "zeros", "1", "0", "-1"),
        ("BITPOS", "zeros", "1", "1"),
        ("BITPOS", "zeros", "1", "3", "20", "BIT"), ("BITPOS", "zeros", "0"),
        ("BITPOS", "zeros", "0", "1"), ("BITPOS", "zeros", "0", "9", "BIT"),
        ("BITPOS", "zeros", "0", "-1", "-1"),
        ("SET", "e", ""), ("BITPOS", "e", "0"), ("BITPOS", "e", "1"), ("BITPOS", "e", "0", "0"),
        ("BITPOS", "e", "0", "0", "-1"), ("BITPOS", "e", "1", "0", "-1", "BIT"),
        ("BITPOS", "missing", "0"), ("BITPOS", "missing", "1"), ("BITPOS", "missing", "0", "5"),
        ("BITPOS", "missing", "1", "0", "-1", "BIT"), ("BITPOS", "missing", "0", "3", "2"),
    ])
    diff.assert_same()


def test_bitpos_errors(diff):
    run(diff, [
        ("SET", "s", "foobar"), ("RPUSH", "l", "a"),
        ("BITPOS", "s", "2"), ("BITPOS", "s", "-1"), ("BITPOS", "s", "a"), ("BITPOS", "s", ""),
        ("BITPOS", "s", "1.0"), ("BITPOS", "s", "01"), ("BITPOS", "s", "9223372036854775808"),
        ("BITPOS", "s", "1", "a"), ("BITPOS", "s", "1", "0", "a"),
        ("BITPOS", "s", "1", "0", "1", "BITS"),
        ("BITPOS", "s", "1", "a", "1", "BOGUS"), ("BITPOS", "s", "1", "0", "a", "BOGUS"),
        ("BITPOS", "s", "1", "0", "a", "BIT"), ("BITPOS", "s", "1", "0", "1", "BIT", "x"),
        # The bit is read before the key; the range after it (a missing key ignores it).
        ("BITPOS", "missing", "2"), ("BITPOS", "missing", "x"), ("BITPOS", "missing", "1", "a"),
        ("BITPOS", "missing", "0", "0", "1", "BOGUS"),
        ("BITPOS", "missing", "1", "0", "1", "BIT", "x"),
        ("BITPOS", "l", "2"), ("BITPOS", "l", "1"), ("BITPOS", "l", "1", "a"),
        ("BITPOS", "l", "0", "0", "1", "BOGUS"),
        ("BITPOS", "s"), ("BITPOS",), ("bitpos", "s", "1", "0", "1", "bit"),
    ])
    diff.assert_same()


def test_bitop(diff):
    run(diff, [
        ("SET", "a", "foobar"), ("SET", "b", "abcdef"), ("SET", "short", b"\xff\x0f"),
        ("BITOP", "AND", "d", "a", "b"), ("GET", "d"), ("BITOP", "OR", "d", "a", "b"), ("GET", "d"),
        ("BITOP", "XOR", "d", "a", "b"), ("GET", "d"), ("BITOP", "NOT", "d", "a"), ("GET", "d"),
        ("BITOP", "and", "d", "a", "short"), ("GET", "d"), ("BITOP", "Or", "d", "short", "a"),
        ("GET", "d"), ("BITOP", "xOr", "d", "a", "short", "b"), ("GET", "d"),
        ("BITOP", "AND", "d", "a"), ("GET", "d"), ("BITOP", "AND", "d", "a", "missing"),
        ("GET", "d"),
        ("BITOP", "OR", "d", "missing", "short"), ("GET", "d"), ("BITOP", "NOT", "d", "short"),
        ("GET", "d"), ("BITOP", "XOR", "d", "a", "a"), ("GET", "d"),
        # The destination among the sources.
        ("BITOP", "NOT", "a", "a"), ("GET", "a"), ("BITOP", "OR", "short", "short", "b"),
        ("GET", "short"),
        # Integer and empty strings.
        ("SET", "n", "123"), ("SET", "e", ""), ("BITOP", "OR", "d", "n", "e"), ("GET", "d"),
        ("BITOP", "NOT", "d", "n"), ("GET", "d"),
    ])
    diff.assert_same()


def test_bitop_destination(diff):
    # The result replaces the destination of any type, without a TTL; an empty result deletes it.
    run(diff, [
        ("SET", "a", "foo"), ("RPUSH", "l", "x"), ("HSET", "h", "f", "v"), ("SADD", "st", "m"),
        ("ZADD", "z", "1", "m"), ("SET", "t", "old", "EX", "100"),
        ("BITOP", "OR", "l", "a"), ("TYPE", "l"), ("GET", "l"), ("BITOP", "AND", "h", "a", "a"),
        ("TYPE", "h"), ("BITOP", "XOR", "st", "a"), ("TYPE", "st"), ("BITOP", "NOT", "z", "a"),
        ("GET", "z"), ("BITOP", "OR", "t", "a"), ("TTL", "t"), ("GET", "t"),
        ("SET", "t2", "old", "EX", "100"), ("BITOP", "OR", "t2", "missing"), ("EXISTS", "t2"),
        ("HSET", "h2", "f", "v"), ("BITOP", "AND", "h2", "missing", "nope"), ("EXISTS", "h2"),
        ("SET", "e", ""), ("SET", "d", "x"), ("BITOP", "NOT", "d", "e"), ("EXISTS", "d"),
        ("BITOP", "OR", "never", "missing"), ("EXISTS", "never"), ("DBSIZE",),
    ])
    diff.assert_same()


def test_bitop_errors(diff):
    run(diff, [
        ("SET", "a", "foo"), ("RPUSH", "l", "x"), ("SET", "d", "keep"),
        ("BITOP", "NOT", "d", "a", "a"), ("BITOP", "NOT", "d", "missing", "a"),
        ("BITOP", "NAND", "d", "a"), ("BITOP", "", "d", "a"), ("BITOP", "ANDX", "d", "a"),
        ("BITOP", "AND", "d", "a", "l"), ("BITOP", "OR", "d", "l", "a"),
        ("BITOP", "OR", "d", "missing", "l"), ("BITOP", "NOT", "d", "l"), ("GET", "d"),
        # The syntax and NOT's count before any key.
        ("BITOP", "FOO", "d", "l"), ("BITOP", "NOT", "d", "l", "l"),
        ("BITOP", "AND", "d"), ("BITOP", "AND"), ("BITOP",), ("BITOP", "NOT", "d"),
        ("BITOP", b"and\x00x", "d", "a"), ("GET", "d"), ("BITOP", b"\x00", "d", "a"),
        ("BITPOS", "a", "1", "0", "1", b"BYTE\x00"),
        ("GET", "d"), ("TYPE", "l"),
    ])
    diff.assert_same()


def test_long_strings(diff):
    # Past 16 KB a string's bytes live apart from its record in sluice; 20000 bytes runs
    # through the word-at-a-time paths too.
    ones = b"\xff" * 20000
    run(diff, [
        ("SETBIT", "big", "160000", "1"), ("STRLEN", "big"), ("BITCOUNT", "big"),
        ("BITPOS", "big", "1"), ("BITPOS", "big", "0"), ("BITPOS", "big", "1", "100"),
        ("BITPOS", "big", "1", "0", "159999", "BIT"), ("SETBIT", "big", "7", "1"),
        ("BITPOS", "big", "1", "1"), ("BITCOUNT", "big", "1", "-1"), ("GETBIT", "big", "160000"),
        ("SET", "ones", ones), ("BITPOS", "ones", "0"), ("BITPOS", "ones", "0", "0", "-1"),
        ("SETBIT", "ones", "123457", "0"), ("BITPOS", "ones", "0"),
        ("BITPOS", "ones", "0", "15433"),
        ("BITPOS", "ones", "0", "123458", "-1", "BIT"), ("BITCOUNT", "ones"),
        ("BITCOUNT", "ones", "123450", "123460", "BIT"), ("BITOP", "AND", "d", "big", "ones"),
        ("BITCOUNT", "d"), ("BITOP", "XOR", "d", "big", "ones"), ("BITCOUNT", "d"),
        ("BITOP", "NOT", "d", "ones"), ("BITPOS", "d", "1"), ("STRLEN", "d"),
        ("BITOP", "OR", "small", "missing", "d"), ("GETBIT", "small", "123457"),
        ("SET", "grow", "x"), ("SETBIT", "grow", "140000", "1"), ("BITCOUNT", "grow"),
        ("GETRANGE", "grow", "17498", "-1"),
    ])
    diff.assert_same()


def test_multi_exec_and_watch(pair):
    a, b = pair
    run(a, [
        ("MULTI",), ("SETBIT", "k", "3", "1"), ("GETBIT", "k", "3"), ("BITCOUNT", "k"),
        ("BITPOS", "k", "1"), ("BITOP", "NOT", "d", "k"), ("SETBIT", "k", "-1", "1"), ("GET", "d"),
        ("EXEC",), ("GET", "k"),
        ("RPUSH", "l", "x"), ("MULTI",), ("SETBIT", "l", "0", "1"), ("SETBIT", "k", "0", "1"),
        ("EXEC",), ("GET", "k"), ("MULTI",), ("BITOP", "NOT", "d", "a", "b"), ("EXEC",),
    ])
    steps = [
        # A SETBIT signals its key when it changes the bit or grows the string, not otherwise.
        (a, ("WATCH", "k")), (b, ("SETBIT", "k", "3", "1")), (a, ("MULTI",)), (a, ("GET", "k")),
        (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("SETBIT", "k", "100", "0")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("SETBIT", "k", "3", "0")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        # Reads and failed writes do not.
        (a, ("WATCH", "k")), (b, ("GETBIT", "k", "3")), (b, ("BITCOUNT", "k")),
        (b, ("SETBIT", "k", "1", "2")), (b, ("BITPOS", "k", "0")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        # BITOP signals its destination, not its sources; deleting nothing signals nothing.
        (a, ("WATCH", "k", "dest")), (b, ("BITOP", "OR", "other", "k")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        (a, ("WATCH", "dest")), (b, ("BITOP", "AND", "dest", "k", "missing")), (a, ("MULTI",)),
        (a, ("EXISTS", "dest")), (a, ("EXEC",)),
        (a, ("WATCH", "dest")), (b, ("BITOP", "OR", "dest", "k")), (a, ("MULTI",)),
        (a, ("GET", "dest")), (a, ("EXEC",)),
        (a, ("WATCH", "dest")), (b, ("BITOP", "AND", "dest", "k", "missing")), (a, ("MULTI",)),
        (a, ("EXISTS", "dest")), (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        run(d, [cmd])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def test_scripts_call_bitmap_commands(diff):
    run(diff, [
        ("EVAL", "return redis.call('SETBIT', KEYS[1], ARGV[1], 1)", "1", "k", "9"),
        ("EVAL", "return redis.call('SETBIT', KEYS[1], 9, 0)", "1", "k"),
        ("EVAL", "redis.call('SETBIT', KEYS[1], 2, 1); return redis.call('GETBIT', KEYS[1], 2)",
         "1", "k"),
        ("EVAL", "return {redis.call('BITCOUNT', KEYS[1]), redis.call('BITPOS', KEYS[1], 1),"
                 " redis.call('BITPOS', KEYS[1], 0, 0, -1, 'BIT')}", "1", "k"),
        ("EVAL", "return redis.call('BITOP', 'NOT', KEYS[2], KEYS[1])", "2", "k", "d"),
        ("EVAL", "return redis.call('GET', KEYS[1])", "1", "d"),
        ("EVAL", "return redis.pcall('SETBIT', KEYS[1], -1, 1)", "1", "k"),
        ("EVAL", "return redis.pcall('BITPOS', KEYS[1], 3)", "1", "k"),
        ("EVAL", "return redis.pcall('BITOP', 'NOT', KEYS[1], 'a', 'b')", "1", "k"),
        ("EVAL", "redis.call('RPUSH', KEYS[1], 'x'); return redis.pcall('GETBIT', KEYS[1], 0)",
         "1", "l"),
        ("EVAL", "return redis.call('SETBIT', KEYS[1], 1.5, 1)", "1", "k"),
        ("EVAL_RO", "return redis.call('BITCOUNT', KEYS[1], 0, -1, 'BIT')", "1", "k"),
        ("EVAL_RO", "return redis.call('GETBIT', KEYS[1], 9)", "1", "k"),
        ("EVAL_RO", "return redis.call('SETBIT', KEYS[1], 1, 1)", "1", "k"),
        ("EVAL_RO", "return redis.call('BITOP', 'OR', KEYS[1], KEYS[1])", "1", "k"),
        ("GET", "k"),
    ])
    diff.assert_same()


def test_command_info_and_getkeys(diff):
    run(diff, [
        ("COMMAND", "GETKEYS", "BITOP", "AND", "d", "a", "b"),
        ("COMMAND", "GETKEYS", "BITOP", "NOT", "d", "a"),
        ("COMMAND", "GETKEYS", "SETBIT", "k", "1", "1"),
        ("COMMAND", "GETKEYS", "BITCOUNT", "k", "0", "1"),
        ("COMMAND", "GETKEYS", "BITPOS", "k", "1"),
    ])
    diff.assert_same()
    assert_command_info_as_redis(
        diff, ["setbit", "getbit", "bitcount", "bitpos", "bitop", "bitfield", "bitfield_ro"])


# ---- Keyspace hits and misses -----------------------------------------------------------------

HITS_SETUP = [("FLUSHALL",), ("SET", "s", "foobar"), ("RPUSH", "l", "a")]

HITS_CASES = [
    [("GETBIT", "s", "1")], [("GETBIT", "nope", "1")], [("GETBIT", "l", "1")],
    [("GETBIT", "s", "-1")], [("BITCOUNT", "s")], [("BITCOUNT", "nope", "0", "1")],
    [("BITCOUNT", "s", "x", "1")], [("BITPOS", "s", "1")], [("BITPOS", "nope", "0")],
    [("BITPOS", "s", "2")], [("BITPOS", "s", "1", "x")], [("SETBIT", "s", "1", "1")],
    [("SETBIT", "nope", "1", "1")], [("SETBIT", "l", "1", "1")],
    [("BITOP", "AND", "d", "s", "nope")], [("BITOP", "OR", "s", "s")],
    [("BITOP", "OR", "d", "s", "l", "nope")], [("BITOP", "NOT", "d", "nope")],
    [("BITOP", "NOT", "d", "s", "s")],
    [("BITFIELD", "s", "GET", "u8", "0")],
    [("BITFIELD", "nope", "GET", "u8", "0", "GET", "i4", "2")],
    [("BITFIELD", "s")], [("BITFIELD", "s", "SET", "u8", "0", "1")],
    [("BITFIELD", "nope", "INCRBY", "u8", "0", "1", "GET", "u8", "0")],
    [("BITFIELD", "l", "GET", "u8", "0")], [("BITFIELD", "s", "GET", "u64", "0")],
    [("BITFIELD_RO", "s", "GET", "u8", "0")], [("BITFIELD_RO", "nope", "GET", "u8", "0")],
    [("BITFIELD_RO", "s", "SET", "u8", "0", "1")],
    [("EVAL", "return redis.call('BITCOUNT', 's')", "0")],
    [("MULTI",), ("GETBIT", "s", "0"), ("BITPOS", "nope", "1"), ("EXEC",)],
]


@pytest.mark.parametrize("case", HITS_CASES, ids=case_ids(HITS_CASES))
def test_keyspace_hits_and_misses_move_as_redis(emptied_servers, case):
    assert_counters_move_as_redis(emptied_servers, HITS_SETUP, case)


# ---- Expiry on the test clock (sluiced alone: Redis's clock cannot be frozen) ----------------

def test_expired_keys_are_missing_to_bitmap_commands(shared_debug_sluiced):
    with shared_debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call("SET", "k", b"\xff", "PX", "1000") == "OK"
        assert c.call("SET", "src", b"\x0f", "PX", "1000") == "OK"
        assert c.call("SET", "dest", "x", "PX", "1000") == "OK"
        assert c.call("SETBIT", "k", "15", "1") == 0  # a live key: the TTL stays
        assert c.call("PTTL", "k") == 1000
        clock.at(1000)
        assert c.call("GETBIT", "k", "0") == 1  # expired strictly after its time, as Redis
        clock.at(1001)
        assert c.call("GETBIT", "k", "0") == 0
        assert c.call("BITCOUNT", "k") == 0
        assert c.call("BITPOS", "k", "0") == 0
        assert c.call("BITPOS", "k", "1") == -1
        assert c.call("BITOP", "OR", "d", "k", "src") == 0
        assert c.call("EXISTS", "d") == 0
        assert c.call("BITOP", "NOT", "dest", "src") == 0  # an expired destination: no key left
        assert c.call("EXISTS", "dest") == 0
        # SETBIT on an expired key starts a new one, without the old bytes or TTL.
        assert c.call("SETBIT", "k", "3", "1") == 0
        assert c.call("GET", "k") == b"\x10"
        assert c.call("PTTL", "k") == -1
        assert c.call("BITCOUNT", "k") == 1
        assert c.call("DBSIZE") == 1


# ---- Random sequences ---------------------------------------------------------------------------

KEYS = ["b0", "b1", "b2", "b3"]
OFFSETS = ["0", "1", "7", "8", "9", "15", "16", "23", "31", "40", "63", "64", "100", "200"]
INDEXES = ["0", "1", "2", "3", "-1", "-2", "-3", "5", "10", "-10", "100", "-100"]
BIT_INDEXES = INDEXES + ["7", "8", "15", "17", "-8", "-9", "31", "33", "64"]
STRINGS = ["", "a", "foobar", "\x00", "\xff\xff", "\xff\x00\xff", "\x00\x00\x01", "12", "\x80"]


def _range(rng):
    unit = rng.choice([None, "BYTE", "BIT"])
    pool = BIT_INDEXES if unit == "BIT" else INDEXES
    args = [rng.choice(pool), rng.choice(pool)]
    return args + ([unit] if unit else [])


def _bitmap_command(rng):
    k = rng.choice(KEYS)
    keys = [rng.choice(KEYS + ["nope"]) for _ in range(rng.randrange(1, 4))]
    table = [
        lambda: ("SETBIT", k, rng.choice(OFFSETS), rng.choice(["0", "1", "1"])),
        lambda: ("SETBIT", k, rng.choice(OFFSETS), rng.choice(["0", "1", "1"])),
        lambda: ("SETBIT", k, rng.choice(OFFSETS), rng.choice(["0", "1", "1"])),
        lambda: ("GETBIT", k, rng.choice(OFFSETS)),
        lambda: ("BITCOUNT", k),
        lambda: ("BITCOUNT", k, *_range(rng)),
        lambda: ("BITPOS", k, rng.choice(["0", "1"])),
        lambda: ("BITPOS", k, rng.choice(["0", "1"]), rng.choice(BIT_INDEXES)),
        lambda: ("BITPOS", k, rng.choice(["0", "1"]), *_range(rng)),
        lambda: ("BITPOS", k, rng.choice(["0", "1"]), rng.choice(BIT_INDEXES),
                 rng.choice(BIT_INDEXES), "BIT"),
        lambda: ("BITOP", rng.choice(["AND", "OR", "XOR"]), rng.choice(KEYS), *keys),
        lambda: ("BITOP", "NOT", rng.choice(KEYS), rng.choice(KEYS + ["nope"])),
        lambda: ("GET", k),
        lambda: ("SET", k, rng.choice(STRINGS)),
        lambda: ("APPEND", k, rng.choice(STRINGS)),
        lambda: ("SETRANGE", k, rng.choice(["0", "1", "3"]), rng.choice(STRINGS)),
        lambda: ("STRLEN", k),
        lambda: ("RPUSH", k, "x"),
    ]
    return rng.choice(table)()


def test_random_bitmap_sequences(diff):
    random_sequences(diff, random.Random(20251126), KEYS, _bitmap_command, sequences=250)


# ---- BITFIELD and BITFIELD_RO ----------------------------------------------------------------

def test_bitfield(diff):
    run(diff, [
        ("BITFIELD", "k", "SET", "u5", "7", "23"), ("GET", "k"),
        ("BITFIELD", "k", "GET", "u5", "7"),
        ("BITFIELD", "k", "GET", "i5", "7", "GET", "u16", "0", "GET", "i64", "0"),
        ("BITFIELD", "k", "INCRBY", "u5", "7", "10", "GET", "u5", "7"),
        ("BITFIELD", "k", "SET", "i8", "#1", "-100", "GET", "i8", "#1", "GET", "u8", "8"),
        ("BITFIELD", "k", "INCRBY", "i8", "#1", "-100"),
        ("BITFIELD", "k", "INCRBY", "i8", "#1", "-100"),
        ("BITFIELD", "k"), ("BITFIELD", "missing"), ("EXISTS", "missing"),
        ("BITFIELD", "missing", "GET", "u8", "0", "GET", "i64", "1000"), ("EXISTS", "missing"),
        ("BITFIELD", "k", "GET", "u63", "1", "GET", "i64", "3", "GET", "i1", "0", "GET", "u1", "0"),
        ("bitfield", "k", "get", "u8", "0", "set", "u8", "0", "255", "incrby", "u8", "0", "1"),
        ("GET", "k"), ("STRLEN", "k"),
        # Growth: to the byte of the farthest field written, also past a GET's.
        ("BITFIELD", "g", "GET", "u8", "100", "SET", "u4", "20", "1"), ("GET", "g"),
        ("BITFIELD", "g", "SET", "i64", "#3", "1"), ("STRLEN", "g"),
        ("BITFIELD", "g", "SET", "u8", "0", "1", "SET", "u8", "100", "2"), ("STRLEN", "g"),
        # The TTL stays; strings of all kinds.
        ("SET", "t", "abc", "EX", "100"), ("BITFIELD", "t", "INCRBY", "u8", "0", "1"), ("TTL", "t"),
        ("GET", "t"), ("SET", "n", "12"), ("BITFIELD", "n", "GET", "u16", "0"),
        ("BITFIELD", "n", "INCRBY", "u8", "8", "1"), ("GET", "n"),
        ("BITFIELD_RO", "n", "GET", "u8", "0", "GET", "i4", "#3"), ("BITFIELD_RO", "n"),
        ("BITFIELD_RO", "missing", "GET", "i8", "0"),
    ])
    diff.assert_same()


def test_bitfield_overflow(diff):
    run(diff, [
        ("BITFIELD", "o", "SET", "u8", "0", "250"),
        ("BITFIELD", "o", "INCRBY", "u8", "0", "10"), ("BITFIELD", "o", "GET", "u8", "0"),
        ("BITFIELD", "o", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "300"),
        ("BITFIELD", "o", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1", "GET", "u8", "0"),
        ("BITFIELD", "o", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "-1000"),
        ("BITFIELD", "o", "OVERFLOW", "WRAP", "INCRBY", "u8", "0", "-1"),
        # OVERFLOW applies to what follows it, until the next one.
        ("BITFIELD", "o", "INCRBY", "i8", "8", "127", "OVERFLOW", "SAT", "INCRBY", "i8", "8", "1",
         "OVERFLOW", "FAIL", "INCRBY", "i8", "8", "1", "INCRBY", "i8", "8", "-1",
         "OVERFLOW", "wrap", "INCRBY", "i8", "8", "2"),
        ("BITFIELD", "o", "OVERFLOW", "SAT", "SET", "u8", "0", "-1", "SET", "i8", "8", "200",
         "SET", "i8", "16", "-200", "SET", "i8", "24", I64_MIN, "SET", "i8", "32", I64_MAX,
         "SET", "u8", "40", "256", "SET", "u63", "48", I64_MIN),
        ("GET", "o"),
        ("BITFIELD", "o", "OVERFLOW", "WRAP", "SET", "u8", "0", "-1", "SET", "i8", "8", "200",
         "SET", "i8", "16", "-200", "SET", "i8", "24", I64_MIN, "SET", "u63", "48", "-1"),
        ("GET", "o"),
        ("BITFIELD", "o", "OVERFLOW", "FAIL", "SET", "u8", "0", "-1", "SET", "i8", "8", "200",
         "SET", "i8", "16", "-128", "SET", "u63", "48", I64_MAX, "GET", "u63", "48"),
        ("BITFIELD", "w", "SET", "i64", "0", I64_MAX, "INCRBY", "i64", "0", "1",
         "OVERFLOW", "SAT", "INCRBY", "i64", "0", I64_MIN, "INCRBY", "i64", "0", I64_MIN,
         "INCRBY", "i64", "0", "-1", "OVERFLOW", "FAIL", "INCRBY", "i64", "0", "-1",
         "INCRBY", "i64", "0", I64_MAX, "INCRBY", "i64", "0", "1"),
        ("BITFIELD", "w", "SET", "i1", "0", "1", "GET", "i1", "0", "INCRBY", "u1", "0", "1",
         "OVERFLOW", "SAT", "INCRBY", "i1", "0", "5", "INCRBY", "u2", "0", "-5"),
        # A write refused under FAIL still creates and grows the string, as Redis's.
        ("BITFIELD", "f", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "5"), ("EXISTS", "f"),
        ("GET", "f"), ("BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u8", "16", "256"), ("GET", "f"),
        # The "#n" form multiplies without a check, as Redis.
        ("BITFIELD", "h", "GET", "i8", "#2305843009213693952", "SET", "u8", "#2305843009213693952",
         "5"), ("GET", "h"),
    ])
    diff.assert_same()


def test_bitfield_errors(diff):
    run(diff, [
        ("SET", "s", "foo"), ("RPUSH", "l", "a"),
        ("BITFIELD", "s", "GET", "u64", "0"), ("BITFIELD", "s", "GET", "i65", "0"),
        ("BITFIELD", "s", "GET", "i0", "0"), ("BITFIELD", "s", "GET", "x8", "0"),
        ("BITFIELD", "s", "GET", "", "0"), ("BITFIELD", "s", "GET", "U8", "0"),
        ("BITFIELD", "s", "GET", b"u8\x00x", "0"), ("BITFIELD", "s", "GET", "i08", "0"),
        ("BITFIELD", "s", "GET", "u8", "-1"), ("BITFIELD", "s", "GET", "u8", "4294967296"),
        ("BITFIELD", "s", "GET", "u8", "4294967295"), ("BITFIELD", "s", "GET", "u8", "#536870912"),
        ("BITFIELD", "s", "GET", "u8", "#-1"), ("BITFIELD", "s", "GET", "u8", "#"),
        ("BITFIELD", "s", "GET", "u8", "x"), ("BITFIELD", "s", "SET", "u8", "0", "x"),
        ("BITFIELD", "s", "SET", "u8", "0", "1.5"), ("BITFIELD", "s", "INCRBY", "u8", "0", ""),
        ("BITFIELD", "s", "INCRBY", "u8", "0", "9223372036854775808"),
        ("BITFIELD", "s", "OVERFLOW", "BOGUS", "GET", "u8", "0"), ("BITFIELD", "s", "OVERFLOW"),
        ("BITFIELD", "s", "GET", "u8"), ("BITFIELD", "s", "SET", "u8", "0"),
        ("BITFIELD", "s", "INCRBY", "u8", "0"), ("BITFIELD", "s", "FOO", "u8", "0"),
        ("BITFIELD", "s", "GET", "u8", "0", "EXTRA"), ("BITFIELD", "s", b"get\x00", "u8", "0"),
        ("BITFIELD", "s", "OVERFLOW", b"sat\x00x", "INCRBY", "u8", "0", "1000"),
        # Every argument is checked before any operation runs.
        ("BITFIELD", "s", "SET", "u8", "0", "0", "GET", "u64", "0"), ("GET", "s"),
        # Argument errors come before the type; WRONGTYPE before any operation.
        ("BITFIELD", "l", "GET", "u64", "0"), ("BITFIELD", "l", "GET", "u8", "0"),
        ("BITFIELD", "l", "SET", "u8", "0", "1"), ("BITFIELD", "l"),
        ("BITFIELD_RO", "s", "SET", "u8", "0", "1"), ("BITFIELD_RO", "s", "INCRBY", "u8", "0", "1"),
        ("BITFIELD_RO", "s", "GET", "u8", "0", "SET", "u8", "0", "1"),
        ("BITFIELD_RO", "l", "SET", "u8", "0", "1"), ("BITFIELD_RO", "l", "GET", "u8", "0"),
        ("BITFIELD_RO", "s", "SET", "u8", "0", "x"), ("BITFIELD_RO", "s", "OVERFLOW", "SAT"),
        ("BITFIELD_RO", "s", "OVERFLOW", "BOGUS"), ("GET", "s"),
        ("BITFIELD",), ("BITFIELD_RO",),
    ])
    diff.assert_same()


def test_bitfield_in_transactions_and_scripts(pair):
    a, b = pair
    run(a, [
        ("MULTI",), ("BITFIELD", "k", "SET", "u8", "0", "200", "INCRBY", "u8", "0", "100"),
        ("BITFIELD_RO", "k", "GET", "u8", "0"), ("BITFIELD", "k", "GET", "u64", "0"), ("EXEC",),
        ("EVAL", "return redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'FAIL', 'INCRBY', 'u8', 0,"
                 " 1000, 'GET', 'u8', 0)", "1", "k"),
        ("EVAL_RO", "return redis.call('BITFIELD_RO', KEYS[1], 'GET', 'i8', 0)", "1", "k"),
        ("EVAL_RO", "return redis.call('BITFIELD', KEYS[1], 'GET', 'i8', 0)", "1", "k"),
        ("EVAL_RO", "return redis.pcall('BITFIELD_RO', KEYS[1], 'SET', 'i8', 0, 1)", "1", "k"),
    ])
    steps = [
        # A write signals the key; GETs and writes refused under FAIL do not.
        (a, ("WATCH", "k")), (b, ("BITFIELD", "k", "GET", "u8", "0")),
        (b, ("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "1000")),
        (b, ("BITFIELD_RO", "k", "GET", "u8", "0")), (a, ("MULTI",)), (a, ("GET", "k")),
        (a, ("EXEC",)),
        # A SET of the value the field holds changes nothing; one of another value does.
        (a, ("WATCH", "k")), (b, ("BITFIELD", "k", "SET", "u8", "0", "44")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("BITFIELD", "k", "SET", "u8", "0", "45")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("BITFIELD", "k", "INCRBY", "u4", "4", "16")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
        (a, ("WATCH", "k")), (b, ("BITFIELD", "k", "INCRBY", "u4", "4", "1")), (a, ("MULTI",)),
        (a, ("GET", "k")), (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        run(d, [cmd])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def _bitfield_command(rng):
    k = rng.choice(KEYS)
    ops = []
    for _ in range(rng.randrange(1, 4)):
        kind = rng.choice(["GET", "SET", "INCRBY", "OVERFLOW"])
        if kind == "OVERFLOW":
            ops += ["OVERFLOW", rng.choice(["WRAP", "SAT", "FAIL"])]
            continue
        sign = rng.choice("iu")
        width = rng.choice([1, 2, 3, 5, 8, 13, 16, 31, 32, 63] + ([64] if sign == "i" else []))
        offset = rng.choice(["0", "1", "7", "9", "#1", "#2", "20"])
        ops += [kind, f"{sign}{width}", offset]
        if kind != "GET":
            ops.append(rng.choice(["0", "1", "-1", "5", "-5", "100", "-100", "127", "128", "255",
                                   "256", I64_MAX, I64_MIN]))
    return ("BITFIELD", k, *ops)


def test_random_bitfield_sequences(diff):
    def command(rng):
        return _bitfield_command(rng) if rng.random() < 0.4 else _bitmap_command(rng)
    random_sequences(diff, random.Random(20251127), KEYS, command, sequences=150)
