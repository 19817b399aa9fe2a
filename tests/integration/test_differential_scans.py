"""HSCAN and ZSCAN: the same commands sent to redis-server and sluiced, replies compared to the
byte in RESP2 and after HELLO 3 (an HSCAN page's pairs as a multiset: see composite_diff.py).

Small hashes (at most 512 fields) and sorted sets (at most 128 members) come whole in one reply
with cursor 0, as Redis returns a listpack whatever the COUNT. Larger ones are paged; the pages differ between
the servers (Redis walks its hash table, sluice the elements in order), so those tests compare
what a whole scan returns, and check Redis's guarantee: every element present from the scan's
start to its end is returned.
"""

import random

import servers
from composite_diff import run

SCORES = ["0", "1", "-1", "1.5", "0.1", "-0", "1e300", "-2.5e-300", "inf", "-inf", "12345678901",
          "1e17", "-2.5e17", "123456789012345678", "4611686018427387904", "1e19", "4.5e15"]


def test_small_hash_comes_whole(diff):
    fields = [("f%d" % i, "v%d" % i) for i in range(512)]
    run(diff, [
        ("HSET", "h", *[x for pair in fields[:3] for x in pair]), ("HSCAN", "h", "0"),
        ("HSCAN", "h", "0", "COUNT", "1"), ("HSCAN", "h", "12345"), ("HSCAN", "h", "-1"),
        ("HSET", "h", *[x for pair in fields for x in pair]), ("HSCAN", "h", "0", "COUNT", "2"),
        ("HSCAN", "h", "0", "MATCH", "f1*"), ("HSCAN", "h", "0", "MATCH", "nothing"),
        ("HSCAN", "h", "0", "MATCH", "f?", "COUNT", "1000"), ("HSCAN", "h", "0", "match", "*7"),
        ("HSET", "b", "", "", b"bin\x00\r\n", b"\xff\x00"), ("HSCAN", "b", "0"),
        ("HSCAN", "b", "0", "MATCH", b"bin\x00*"),
    ])
    diff.assert_same()


def test_small_zset_comes_whole_in_score_order(diff):
    pairs = [x for i, score in enumerate(SCORES) for x in (score, "m%d" % i)]
    run(diff, [
        ("ZADD", "z", *pairs), ("ZSCAN", "z", "0"), ("ZSCAN", "z", "0", "COUNT", "1"),
        ("ZSCAN", "z", "0", "MATCH", "m1*"), ("ZSCAN", "z", "7", "MATCH", "*"),
        ("ZADD", "z", "2", "a", "2", "b", "2", "c"), ("ZSCAN", "z", "0", "MATCH", "[ab]"),
        ("ZADD", "e", "1", ""), ("ZSCAN", "e", "0"),
    ])
    diff.assert_same()


def test_errors_and_missing_keys(diff):
    run(diff, [
        ("HSET", "h", "f", "v"), ("ZADD", "z", "1", "m"), ("SET", "s", "x"),
        ("HSCAN", "h", "x"), ("HSCAN", "h", " 1"), ("HSCAN", "h", "1x"),
        ("HSCAN", "h", "99999999999999999999"), ("HSCAN", "h", ""), ("HSCAN", "h", "+0"),
        ("HSCAN", "h", "0", "COUNT", "0"), ("HSCAN", "h", "0", "COUNT", "-1"),
        ("HSCAN", "h", "0", "COUNT", "x"), ("HSCAN", "h", "0", "COUNT"),
        ("HSCAN", "h", "0", "MATCH"), ("HSCAN", "h", "0", "TYPE", "hash"),
        ("HSCAN", "h", "0", "NOVALUES"), ("HSCAN", "h", "0", "MATCH", "*", "bogus", "1"),
        ("ZSCAN", "z", "x"), ("ZSCAN", "z", "0", "COUNT", "0"), ("ZSCAN", "z", "0", "TYPE", "zset"),
        ("ZSCAN", "z", "0", "COUNT"),
        # A missing key is an empty, finished scan before the options are read; not a bad cursor.
        ("HSCAN", "nope", "0"), ("HSCAN", "nope", "0", "COUNT", "0"), ("HSCAN", "nope", "x"),
        ("ZSCAN", "nope", "5", "bogus"), ("ZSCAN", "nope", "x"),
        ("HSCAN", "s", "0"), ("ZSCAN", "s", "0"), ("HSCAN", "z", "0"), ("ZSCAN", "h", "0"),
        ("HSCAN", "s", "x"), ("HSCAN", "s", "0", "COUNT", "0"),
        ("HSCAN", "h"), ("ZSCAN", "z"), ("HSCAN",), ("ZSCAN",),
    ])
    diff.assert_same()


def full_scan(client, command, key, *options):
    """Every page of one scan: (pages, elements as (name, value) pairs in reply order)."""
    cursor, pages, pairs = b"0", 0, []
    while True:
        reply = client.call(command, key, cursor, *options)
        assert isinstance(reply, list) and len(reply) == 2, reply
        cursor, items = reply
        pages += 1
        pairs += list(zip(items[0::2], items[1::2]))
        if cursor == b"0":
            return pages, pairs


def test_large_hash_and_zset_are_paged_and_scanned_whole(redis_server, sluiced):
    rng = random.Random(7)
    fields = {b"f%04d" % i: b"v" * rng.randrange(0, 100) for i in range(1000)}
    # (-0 left out: a large set keeps it in Redis, sluice stores 0; docs/notes.md.)
    score_texts = [s for s in SCORES if s != "-0"]
    members = {b"m%04d" % i: rng.choice(score_texts + [str(rng.uniform(-1e6, 1e6))]).encode()
               for i in range(1000)}
    for server in (redis_server, sluiced):
        with server.client() as c:
            for name, value in fields.items():
                c.send(servers.encode("HSET", "h", name, value))
            for name, score in members.items():
                c.send(servers.encode("ZADD", "z", score, name))
            for _ in range(2 * 1000):
                c.read()
    results = {}
    for server in (redis_server, sluiced):
        with server.client() as c:
            hash_pages, hash_pairs = full_scan(c, "HSCAN", "h", "COUNT", "10")
            zset_pages, zset_pairs = full_scan(c, "ZSCAN", "z", "COUNT", "10")
            matched = full_scan(c, "HSCAN", "h", "MATCH", "f00*", "COUNT", "50")[1]
            scores = {m: c.call("ZSCORE", "z", m) for m in members}
        assert hash_pages > 10 and zset_pages > 10, (server.kind, hash_pages, zset_pages)
        assert dict(hash_pairs) == fields, server.kind
        # Each member with its score, printed as ZSCORE prints it in RESP2.
        assert dict(zset_pairs) == scores, server.kind
        results[server.kind] = (sorted(hash_pairs), sorted(zset_pairs), sorted(matched))
    redis_result, sluice_result = results.values()
    assert sluice_result == redis_result
    # sluice returns each element once (Redis may repeat one across a rehash).
    assert len(sluice_result[0]) == 1000 and len(sluice_result[1]) == 1000
    assert [f for f, _ in sluice_result[2]] == sorted(f for f in fields if f.startswith(b"f00"))


def test_elements_present_throughout_are_returned_despite_writes(sluiced):
    """Redis's SCAN guarantee, with the hash and the set changing between pages: fields added
    and removed meanwhile may or may not appear, those there all along always do, a member
    whose score changes included."""
    with sluiced.client() as c:
        for i in range(0, 600, 2):
            c.send(servers.encode("HSET", "h", b"f%04d" % i, "v"))
            c.send(servers.encode("ZADD", "z", str(i), b"m%04d" % i))
        for _ in range(600):
            c.read()
        for command, key, prefix in (("HSCAN", "h", b"f"), ("ZSCAN", "z", b"m")):
            seen, cursor, step = set(), b"0", 0
            while True:
                cursor, items = c.call(command, key, cursor, "COUNT", "25")
                seen.update(items[0::2])
                step += 1
                # Between pages: odd names come and go, on both sides of where the scan is.
                odd = b"%s%04d" % (prefix, (step * 37) % 600 | 1)
                if command == "HSCAN":
                    c.call("HSET", key, odd, "new")
                    c.call("HDEL", key, b"%s%04d" % (prefix, (step * 53) % 600 | 1))
                else:
                    c.call("ZADD", key, "-1", odd)
                    c.call("ZREM", key, b"%s%04d" % (prefix, (step * 53) % 600 | 1))
                    # A member there all along moves to either end of the scores.
                    moved = b"%s%04d" % (prefix, (step * 71) % 600 & ~1)
                    c.call("ZINCRBY", key, "-100000" if step % 2 else "100000", moved)
                if cursor == b"0":
                    break
            always = {b"%s%04d" % (prefix, i) for i in range(0, 600, 2)}
            assert always <= seen, (command, sorted(always - seen)[:10])
