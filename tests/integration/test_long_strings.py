"""Long strings (over 16 KB), whose bytes sluiced keeps in 4 KB chunks apart from the key's
record (storage/long_string.h): SETRANGE, APPEND, SETBIT and BITFIELD write the chunks they
touch, GETRANGE, GETBIT, BITCOUNT and BITPOS read the chunks of their range, and a chunk of
zeros is not stored.

The replies are compared with a real redis-server's on random sequences that cross chunk
edges, the inline limit and the strings' ends; what is stored is counted with DEBUG RAWSUBKEYS
(raw element entries on disk, old versions included until a compaction drops them).
Nothing here depends on the wall clock.
"""

import random

from composite_diff import check, random_sequences

CHUNK = 4096
KEYS = ["s1", "s2", "s3"]
# Offsets around chunk edges, the 16 KB inline limit, and far past the strings' ends.
EDGES = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK - 2, 16384 - 1, 16384, 16385,
         5 * CHUNK, 7 * CHUNK + 3, 20000, 40000, 65536, 100000, 300000]


def _offset(rng):
    return max(0, rng.choice(EDGES) + rng.randrange(-3, 4))


def _bytes(rng):
    size = rng.choice([1, 2, 3, 8, 100, CHUNK - 1, CHUNK + 5, 9000])
    kind = rng.random()
    if kind < 0.3:
        return b"\x00" * size
    if kind < 0.6:
        return bytes(rng.randrange(256) for _ in range(min(size, 64))) * (size // 64 + 1)
    return (b"abcdefgh" * (size // 8 + 1))[:size]


def _range_args(rng):
    unit = rng.choice([None, "BYTE", "BIT"])
    scale = 8 if unit == "BIT" else 1
    start = rng.choice([_offset(rng) * scale, -rng.randrange(1, 30000) * scale])
    end = rng.choice([start + rng.randrange(0, 3 * CHUNK * scale), -1, -rng.randrange(1, 5000)])
    return [str(start), str(end)] + ([unit] if unit else [])


def _long_string_command(rng):
    k = rng.choice(KEYS)
    table = [
        lambda: ("SETRANGE", k, str(_offset(rng)), _bytes(rng)),
        lambda: ("SETRANGE", k, str(_offset(rng)), _bytes(rng)),
        lambda: ("APPEND", k, _bytes(rng)),
        lambda: ("APPEND", k, ""),
        lambda: ("SETBIT", k, str(_offset(rng) * 8 + rng.randrange(8)), rng.choice("01")),
        lambda: ("SETBIT", k, str(_offset(rng) * 8 + rng.randrange(8)), "1"),
        lambda: ("GETBIT", k, str(_offset(rng) * 8 + rng.randrange(8))),
        lambda: ("GETRANGE", k, *_range_args(rng)[:2]),
        lambda: ("GETRANGE", k, *_range_args(rng)[:2]),
        lambda: ("BITCOUNT", k, *_range_args(rng)),
        lambda: ("BITPOS", k, rng.choice("01"), *_range_args(rng)),
        lambda: ("BITPOS", k, rng.choice("01"), str(_offset(rng))),
        lambda: ("BITPOS", k, rng.choice("01")),
        lambda: ("BITFIELD", k, "SET", "u8", str(_offset(rng) * 8 + rng.randrange(8)),
                 str(rng.randrange(256)), "GET", "i16", f"#{rng.randrange(40000)}",
                 "INCRBY", "u4", str(_offset(rng) * 8), str(rng.randrange(-20, 20))),
        lambda: ("BITFIELD_RO", k, "GET", "u32", str(_offset(rng) * 8 + rng.randrange(8))),
        lambda: ("STRLEN", k),
        lambda: ("SET", k, _bytes(rng) * rng.choice([1, 3, 5])),
        lambda: ("GET", k),
    ]
    return rng.choice(table)()


def test_random_range_commands_on_long_strings_as_redis(diff):
    random_sequences(diff, random.Random(20261129), KEYS, _long_string_command, sequences=60,
                     steps=(10, 60), key_ratio=0.1)


def test_bitpos_and_bitcount_between_stored_chunks_as_redis(diff):
    """BITPOS and BITCOUNT look at a long string's stored chunks alone: the bytes between them,
    and after the last, are zeros. Strings with runs of missing chunks, answered as Redis's."""
    setup = [
        ("SETBIT", "sp", "3", "1"), ("SETBIT", "sp", str(100_000 * 8 + 3), "1"),
        ("SETRANGE", "sp", "50000", b"\xff" * 5000), ("SETRANGE", "zeros", "70000", b"\x00"),
        ("SET", "ones", b"\xff" * 20000), ("SETRANGE", "ones", "40000", b"\xff" * 9000),
        ("SETRANGE", "tail", "30000", b"\xff" * 10), ("SETBIT", "far", str(2**24), "1"),
    ]
    for cmd in setup:
        check(diff, *cmd)
    rng = random.Random(20261130)
    points = [0, 1, 2, 4095, 4096, 8191, 20000, 29999, 30000, 40000, 49999, 50000, 55000,
              70000, 100000, 100001, 2**21, 2**21 + 1]
    for key in ["sp", "zeros", "ones", "tail", "far"]:
        check(diff, "BITPOS", key, "0")
        check(diff, "BITPOS", key, "1")
        check(diff, "BITCOUNT", key)
        for _ in range(40):
            start = rng.choice(points + [-p for p in points[1:]])
            end = rng.choice(points + [-1, -2, -4096, -30000])
            unit = rng.choice([[], ["BYTE"], ["BIT"]])
            scale = 8 if unit == ["BIT"] else 1
            s, e = str(start * scale), str(end * scale)
            check(diff, "BITPOS", key, rng.choice("01"), s)
            check(diff, "BITPOS", key, rng.choice("01"), s, e, *unit)
            check(diff, "BITCOUNT", key, s, e, *unit)
    diff.assert_same()


def test_range_writes_store_only_the_chunks_they_touch(debug_sluiced):
    """A 1 MB string is 256 chunks. A SETRANGE, SETBIT, APPEND or BITFIELD within it rewrites
    one chunk in place, so the count of raw entries stays 256 with no compaction in between,
    where a rewrite of the whole string would add a copy under a new version each time."""
    value = bytes(range(256)) * 4096
    with debug_sluiced.client() as c:
        assert c.call("SET", "long", value) == "OK"
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 256
        for i in range(20):
            assert c.call("SETRANGE", "long", str(i * 50_000), b"xyz") == len(value)
            assert c.call("SETBIT", "long", str(i * 400_001), "1") in (0, 1)
            assert c.call("BITFIELD", "long", "INCRBY", "u8", f"#{i * 40_000}", "1")[0] >= 0
        assert c.call("DEBUG", "RAWSUBKEYS") == 256
        assert c.call("APPEND", "long", b"!" * 10) == len(value) + 10  # one chunk more
        assert c.call("DEBUG", "RAWSUBKEYS") == 257
        expected = bytearray(value)
        for i in range(20):
            expected[i * 50_000:i * 50_000 + 3] = b"xyz"
            expected[i * 400_001 // 8] |= 0x80 >> (i * 400_001 % 8)
            expected[i * 40_000] = (expected[i * 40_000] + 1) % 256
        expected += b"!" * 10
        assert c.call("GET", "long") == bytes(expected)
    debug_sluiced.restart()
    with debug_sluiced.client() as c:
        assert c.call("GET", "long") == bytes(expected)
        assert c.call("GETRANGE", "long", "49999", "50003") == bytes(expected[49999:50004])


def test_a_sparse_bitmap_stores_its_set_chunks_only(debug_sluiced):
    """SETBIT at the last offset proto-max-bulk-len allows makes a 512 MB string, all zeros
    but one bit. Redis allocates all of it; sluiced stores the one chunk with the bit."""
    last_bit = 2**32 - 1
    with debug_sluiced.client() as c:
        assert c.call("SETBIT", "sparse", str(last_bit), "1") == 0
        assert c.call("STRLEN", "sparse") == 2**29
        assert c.call("GETBIT", "sparse", str(last_bit)) == 1
        assert c.call("GETBIT", "sparse", "12345") == 0
        assert c.call("BITCOUNT", "sparse", "-10", "-1") == 1
        assert c.call("BITPOS", "sparse", "1", "-3") == last_bit
        assert c.call("SETBIT", "sparse", "1000000", "1") == 0
        assert c.call("BITCOUNT", "sparse", "0", "200000") == 1
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 2
        assert c.call("MEMORY", "USAGE", "sparse") > 2**29  # as if whole, as Redis's would be


def test_bitfield_reads_and_writes_only_the_bytes_of_its_fields(debug_sluiced):
    """Two counters at the ends of a sparse 512 MB bitmap are two small windows: the bytes
    between them are neither read nor written (nor stored), as with two SETBITs."""
    last_bit = 2**32 - 1
    with debug_sluiced.client() as c:
        assert c.call("SETBIT", "sp", str(last_bit), "1") == 0
        assert c.call("BITFIELD", "sp", "SET", "u1", "0", "1", "INCRBY", "u8", "#20000000", "5",
                      "GET", "u2", str(last_bit - 1), "SET", "u1", str(last_bit - 1), "1") == \
            [0, 5, 1, 0]
        assert c.call("BITFIELD_RO", "sp", "GET", "u1", "0", "GET", "u8", "#20000000",
                      "GET", "u2", str(last_bit - 1)) == [1, 5, 3]
        assert c.call("BITFIELD_RO", "missing", "GET", "u8", "0", "GET", "u8",
                      str(last_bit - 15)) == [0, 0]
        assert c.call("STRLEN", "sp") == 2**29
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 3  # the chunks of bytes 0, 20000000 and the last
        # A missing key written at both ends: its chunks of zeros are not stored either.
        assert c.call("BITFIELD", "new", "SET", "u8", "0", "7", "SET", "u8", "#100000", "9") == \
            [0, 0]
        assert c.call("BITFIELD_RO", "new", "GET", "u8", "0", "GET", "u8", "#100000") == [7, 9]
        assert c.call("STRLEN", "new") == 100001
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWSUBKEYS") == 5


def test_a_long_string_written_in_pieces_survives_multi_discard_and_restart(debug_sluiced):
    """Range writes in a transaction are its writes: EXEC applies them with the rest, DISCARD
    and a failed WATCH apply none; what was committed is there after a restart."""
    with debug_sluiced.client() as c, debug_sluiced.client() as other:
        assert c.call("SETRANGE", "k", "30000", b"end") == 30003
        assert c.call("WATCH", "k") == "OK"
        other.call("SETRANGE", "k", "10", b"x")  # a chunk write alone breaks the WATCH
        assert c.call("MULTI") == "OK"
        assert c.call("SETRANGE", "k", "0", b"lost") == "QUEUED"
        assert c.call("EXEC") is None
        assert c.call("MULTI") == "OK"
        assert c.call("APPEND", "k", b"-tail") == "QUEUED"
        assert c.call("SETBIT", "k", str(20000 * 8), "1") == "QUEUED"
        assert c.call("GETRANGE", "k", "19999", "20001") == "QUEUED"
        assert c.call("EXEC") == [30008, 0, b"\x00\x80\x00"]
        assert c.call("MULTI") == "OK"
        assert c.call("SETRANGE", "k", "5", b"discarded") == "QUEUED"
        assert c.call("DISCARD") == "OK"
    expected = bytearray(30008)
    expected[10:11] = b"x"
    expected[20000] = 0x80
    expected[30000:30008] = b"end-tail"
    debug_sluiced.restart()
    with debug_sluiced.client() as c:
        assert c.call("GET", "k") == bytes(expected)
        assert c.call("STRLEN", "k") == len(expected)
        # Of its 8 chunks, the 3 written to: the SETRANGE at 30000 made the others zeros.
        assert c.call("DEBUG", "RAWSUBKEYS") == 3
