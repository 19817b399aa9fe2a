"""MEMORY STATS, DOCTOR, MALLOC-STATS, PURGE and HELP against Redis 7.0: replies compared byte
for byte where they do not depend on the process's memory (errors, PURGE), their shape where
they do (MEMORY STATS's field names, order and types in RESP2 and RESP3; DOCTOR's and
MALLOC-STATS's reply type), and sluiced's figures checked against what it holds (keys.count
and DBSIZE, total.allocated after writing, the script and function caches)."""

import servers


def _pairs(reply):
    """A RESP3 map, or its RESP2 flat array, as a list of (name, value) in the server's order."""
    if isinstance(reply, servers.Map):
        return list(reply)
    return list(zip(reply[0::2], reply[1::2]))


def _kind(value):
    """What a client sees a value as: an integer, a double (a bulk string in RESP2), a map."""
    if isinstance(value, (servers.Map, list)):
        return ("map", [(name, _kind(v)) for name, v in _pairs(value)])
    if isinstance(value, servers.Double) or isinstance(value, bytes):
        float(value)  # a double, in RESP2 as its text
        return "double"
    assert isinstance(value, int), value
    return "integer"


def _stats(client):
    return dict(_pairs(client.call("MEMORY", "STATS")))


SLUICE_FIELDS = [b"rocksdb.memtables", b"rocksdb.block-cache", b"rocksdb.table-readers",
                 b"record-cache"]


def test_memory_stats_fields_as_redis(diff):
    """Redis's 27 fields and a db.N map for each database holding keys (in Redis's place, after
    functions.caches), with the same names, order and types; sluiced's own come after them."""
    for db in ("0", "3"):
        diff.check("SELECT", db)
        diff.check("SET", "k" + db, "v")
    diff.check("SET", "ttl", "v", "EX", "100")
    diff.check("SELECT", "0")
    theirs = [(name, _kind(value)) for name, value in _pairs(diff.redis.call("MEMORY", "STATS"))]
    ours = [(name, _kind(value)) for name, value in _pairs(diff.sluice.call("MEMORY", "STATS"))]
    assert len(theirs) == 29
    assert ours[:len(theirs)] == theirs
    assert ours[len(theirs):] == [(name, "integer") for name in SLUICE_FIELDS]
    assert [name for name, _ in ours if name.startswith(b"db.")] == [b"db.0", b"db.3"]
    assert dict(ours)[b"dataset.percentage"] == "double"
    if diff.protocol == 3:
        assert isinstance(diff.sluice.call("MEMORY", "STATS"), servers.Map)


def test_memory_errors_and_purge_as_redis(diff):
    for cmd in [("MEMORY", "PURGE"), ("MEMORY", "PURGE", "x"), ("MEMORY", "STATS", "x"),
                ("MEMORY", "DOCTOR", "x"), ("MEMORY", "MALLOC-STATS", "x"), ("MEMORY", "NOSUCH"),
                ("MEMORY",), ("MEMORY", "HELP", "x"), ("memory", "purge")]:
        diff.check(*cmd)
    diff.assert_same()


def test_memory_help_lists_redis_subcommands(diff):
    """The same subcommands in the same order (USAGE's text is sluice's: it counts stored
    bytes), and Redis's text for those that mean the same here."""
    theirs = diff.redis.call("MEMORY", "HELP")
    ours = diff.sluice.call("MEMORY", "HELP")
    assert ours[0] == theirs[0]
    assert [line for line in ours if not line.startswith(" ")] == \
        [line for line in theirs if not line.startswith(" ")]
    for line in ("    Return memory problems reports.",
                 "    Return internal statistics report from the memory allocator.",
                 "    Attempt to purge dirty pages for reclamation by the allocator.",
                 "    Return information about the memory usage of the server."):
        assert line in ours and line in theirs


def test_memory_doctor_and_malloc_stats_reply_as_redis_does(diff):
    """Both verbatim texts (a bulk string in RESP2). DOCTOR's is one of Redis's reports;
    MALLOC-STATS is jemalloc's own report when sluiced runs on jemalloc, as Redis's."""
    for sub in ("DOCTOR", "MALLOC-STATS"):
        theirs = diff.redis.call("MEMORY", sub)
        ours = diff.sluice.call("MEMORY", sub)
        assert type(ours) is type(theirs), (sub, ours[:80], theirs[:80])
    doctor = _text(diff.sluice.call("MEMORY", "DOCTOR")).decode()
    assert doctor.startswith(("Hi Sam, this instance is empty", "Hi Sam, I can't find any",
                              "Sam, I detected a few issues")), doctor
    assert doctor.endswith("\n")
    allocator = _info_field(diff.sluice, "mem_allocator")
    report = _text(diff.sluice.call("MEMORY", "MALLOC-STATS"))
    if allocator.startswith("jemalloc"):
        first_line = _text(diff.redis.call("MEMORY", "MALLOC-STATS")).split(b"\n")[0]
        assert report.split(b"\n")[0] == first_line == b"___ Begin jemalloc statistics ___"
    elif allocator == "libc":
        assert report.startswith(b"<malloc version=")
    else:
        assert report == b"Stats not supported for the current allocator"


def _text(reply):
    """A verbatim string's text (RESP3: after its "txt:" format), or a bulk string."""
    if isinstance(reply, servers.Verbatim):
        assert reply.startswith(b"txt:"), reply[:8]
        return bytes(reply[4:])
    return bytes(reply)


def _info_field(client, name):
    text = _text(client.call("INFO", "memory")).decode()
    for line in text.split("\r\n"):
        if line.startswith(name + ":"):
            return line.split(":", 1)[1]
    raise AssertionError(f"no {name} in INFO memory")


def test_memory_stats_figures(sluiced):
    """keys.count is DBSIZE over the databases; writing 20,000 keys makes total.allocated grow
    (RocksDB's memtable and the record cache hold them); overhead.total is Redis's sum of the
    parts sluiced has, and dataset.bytes the rest; a loaded script and library count in the
    caches by their bytes."""
    with sluiced.client() as c:
        before = _stats(c)
        assert before[b"keys.count"] == 0 and before[b"keys.bytes-per-key"] == 0
        assert before[b"startup.allocated"] > 0
        assert not any(name.startswith(b"db.") for name in before)
        c.call("EVAL", "for i = 1, 20000 do redis.call('SET', 'key:' .. i, string.rep('x', 100))"
                       " end", "0")
        c.call("SELECT", "2")
        c.call("SET", "other", "v")
        after = _stats(c)
        assert after[b"keys.count"] == 20001 == c.call("DBSIZE") + 20000
        assert after[b"total.allocated"] > before[b"total.allocated"] + 2_000_000, (before, after)
        assert after[b"rocksdb.memtables"] > 2_000_000
        assert _pairs(after[b"db.2"]) == [(b"overhead.hashtable.main", 0),
                                          (b"overhead.hashtable.expires", 0),
                                          (b"overhead.hashtable.slot-to-keys", 0)]
        parts = (b"startup.allocated", b"clients.normal", b"lua.caches", b"functions.caches")
        assert after[b"overhead.total"] == sum(after[p] for p in parts)
        assert after[b"dataset.bytes"] == after[b"total.allocated"] - after[b"overhead.total"]
        net = after[b"total.allocated"] - after[b"startup.allocated"]
        assert after[b"keys.bytes-per-key"] == net // 20001
        for zero in (b"replication.backlog", b"clients.slaves", b"cluster.links", b"aof.buffer"):
            assert after[zero] == 0
        body = "return 'a script of some length'"
        lua_before = after[b"lua.caches"]
        c.call("SCRIPT", "LOAD", body)
        assert _stats(c)[b"lua.caches"] == lua_before + len(body) + 40  # body and SHA1
        code = "#!lua name=mylib\nredis.register_function('f', function() return 1 end)"
        functions_before = _stats(c)[b"functions.caches"]
        assert c.call("FUNCTION", "LOAD", code) == b"mylib"
        assert _stats(c)[b"functions.caches"] == functions_before + len(code)
        assert c.call("MEMORY", "PURGE") == "OK"
