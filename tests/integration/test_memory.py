"""MEMORY STATS, DOCTOR, MALLOC-STATS, PURGE and HELP, and INFO's memory section, against Redis
7.0: replies compared byte for byte where they do not depend on the process's memory (errors,
PURGE), their shape where they do (MEMORY STATS's field names, order and types in RESP2 and
RESP3; INFO memory's field names and order; DOCTOR's and MALLOC-STATS's reply type), and
sluiced's figures checked against what it holds (keys.count and DBSIZE, total.allocated after
writing, the script and function caches) and INFO's against MEMORY STATS's."""

import struct

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


def test_jemalloc_background_thread_as_redis(diff):
    """jemalloc-bg-thread, on by default as in Redis: jemalloc's purge thread gives pages freed
    in a burst (thousands of connections, a bulk load) back to the system while the server
    idles. Without it they stayed resident until the next allocations in their arena: 130 MB
    of RSS for 5,000 idle connections, 33 MB with it."""
    for server in (diff.redis, diff.sluice):
        reply = server.call("CONFIG", "GET", "jemalloc-bg-thread")
        assert _pairs(reply) == [(b"jemalloc-bg-thread", b"yes")]
    c = diff.sluice
    if not _info_field(c, "mem_allocator").startswith("jemalloc"):
        return  # the sanitizers' allocator has no such thread
    def threads():
        report = _text(c.call("MEMORY", "MALLOC-STATS")).decode()
        return int(report.split("Background threads: ", 1)[1].split(",", 1)[0])
    assert threads() == 1
    try:
        assert c.call("CONFIG", "SET", "jemalloc-bg-thread", "no") == "OK"
        assert threads() == 0
    finally:
        assert c.call("CONFIG", "SET", "jemalloc-bg-thread", "yes") == "OK"
    assert threads() == 1


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


SLUICE_INFO_FIELDS = ["rocksdb_memtables_bytes", "rocksdb_block_cache_bytes",
                      "rocksdb_table_readers_bytes", "record_cache_bytes", "record_cache_size",
                      "record_cache_keys"]


def _info_memory(client):
    """INFO memory's (name, value) lines in order, past its "# Memory" header."""
    lines = _text(client.call("INFO", "memory")).decode().split("\r\n")
    assert lines[0] == "# Memory" and lines[-1] == "", lines
    return [tuple(line.split(":", 1)) for line in lines[1:-1]]


def test_info_memory_fields_as_redis(diff):
    """Redis 7.0.15's 51 fields with its names in its order, then sluiced's storage figures."""
    theirs = [name for name, _ in _info_memory(diff.redis)]
    ours = [name for name, _ in _info_memory(diff.sluice)]
    assert len(theirs) == 51, theirs
    assert ours == theirs + SLUICE_INFO_FIELDS


def _bytes_to_human(n):
    """Redis's bytesToHuman."""
    if n < 1024:
        return f"{n}B"
    for power, unit in enumerate("KMGTP", start=1):
        if n < 1024 ** (power + 1):
            return "%.2f%s" % (n / 1024 ** power, unit)
    return f"{n}B"


def _f32(x):
    """x rounded to a C float, as Redis computes its ratios."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _float_ratio(numerator, denominator, scale=1):
    return _f32(_f32(_f32(numerator) * scale) / _f32(denominator))


def test_info_memory_figures(sluiced):
    """INFO memory's figures hold together as Redis's: the peak is at least what is allocated
    now, each *_human field formats its byte field, overhead and dataset add up to
    used_memory, the ratios and differences come from the same reading, and loading a script
    or a function library counts in them."""
    with sluiced.client() as c:
        info = dict(_info_memory(c))
        number = {name: int(value) for name, value in info.items()
                  if value.lstrip("-").isdigit()}
        used = number["used_memory"]
        assert 0 < number["used_memory_startup"] <= number["used_memory_peak"]
        assert used <= number["used_memory_peak"]
        for name, value in info.items():
            if name.endswith("_human"):
                assert value == _bytes_to_human(number[name[:-len("_human")]]), name
        assert (number["used_memory_dataset"] + number["used_memory_overhead"]) % 2**64 == used
        assert info["used_memory_peak_perc"] == \
            "%.2f%%" % _float_ratio(used, number["used_memory_peak"], 100)
        net = max(used - number["used_memory_startup"], 1)
        dataset = number["used_memory_dataset"]
        dataset = dataset - 2**64 if dataset >= 2**63 else dataset
        assert info["used_memory_dataset_perc"] == "%.2f%%" % _float_ratio(dataset, net, 100)
        rss = number["used_memory_rss"]
        allocated, active, resident = (number["allocator_" + part]
                                       for part in ("allocated", "active", "resident"))
        assert allocated == used
        for ratio, difference, numerator, denominator in [
                ("allocator_frag_ratio", "allocator_frag_bytes", active, allocated),
                ("allocator_rss_ratio", "allocator_rss_bytes", resident, active),
                ("rss_overhead_ratio", "rss_overhead_bytes", rss, resident),
                ("mem_fragmentation_ratio", "mem_fragmentation_bytes", rss, used)]:
            assert info[ratio] == "%.2f" % _float_ratio(numerator, denominator), ratio
            assert number[difference] % 2**64 == (numerator - denominator) % 2**64, difference
        assert number["used_memory_lua"] == number["used_memory_vm_eval"] > 0
        assert number["used_memory_vm_total"] == \
            number["used_memory_vm_eval"] + number["used_memory_vm_functions"]
        assert number["used_memory_scripts"] == \
            number["used_memory_scripts_eval"] + number["used_memory_functions"]
        assert number["total_system_memory"] > 0
        assert info["maxmemory_policy"] == "noeviction"
        for zero in ("maxmemory", "mem_not_counted_for_evict", "mem_replication_backlog",
                     "mem_total_replication_buffers", "mem_clients_slaves", "mem_cluster_links",
                     "mem_aof_buffer", "active_defrag_running", "lazyfree_pending_objects",
                     "lazyfreed_objects"):
            assert number[zero] == 0, zero

        body = "return 'a script of some length'"
        c.call("SCRIPT", "LOAD", body)
        after_script = {name: int(value) for name, value in _info_memory(c)
                        if value.lstrip("-").isdigit()}
        assert after_script["number_of_cached_scripts"] == number["number_of_cached_scripts"] + 1
        assert after_script["used_memory_scripts_eval"] == \
            number["used_memory_scripts_eval"] + len(body) + 40  # body and SHA1
        code = ("#!lua name=infolib\nredis.register_function('f1', function() return 1 end)\n"
                "redis.register_function('f2', function() return 2 end)")
        assert c.call("FUNCTION", "LOAD", code) == b"infolib"
        after_library = {name: int(value) for name, value in _info_memory(c)
                         if value.lstrip("-").isdigit()}
        assert after_library["number_of_functions"] == number["number_of_functions"] + 2
        assert after_library["number_of_libraries"] == number["number_of_libraries"] + 1
        assert after_library["used_memory_functions"] == \
            number["used_memory_functions"] + len(code)
        assert after_library["used_memory_vm_functions"] > 0


def test_info_memory_agrees_with_memory_stats(sluiced):
    """Read back to back on an idle server, INFO memory and MEMORY STATS give the same figures
    where both have them: the same startup count, script and function caches, replication,
    cluster and AOF parts (0) and storage figures; a peak between the two INFO readings; an
    allocated count within what the replies themselves allocate."""
    with sluiced.client() as c:
        c.call("SCRIPT", "LOAD", "return 1")
        assert c.call("FUNCTION", "LOAD",
                      "#!lua name=lib\nredis.register_function('f', function() return 1 end)"
                      ) == b"lib"
        first = {name: int(value) for name, value in _info_memory(c)
                 if value.lstrip("-").isdigit()}
        stats = _stats(c)
        second = {name: int(value) for name, value in _info_memory(c)
                  if value.lstrip("-").isdigit()}
        for info_name, stats_name in [
                ("used_memory_startup", b"startup.allocated"),
                ("used_memory_scripts_eval", b"lua.caches"),
                ("used_memory_functions", b"functions.caches"),
                ("mem_replication_backlog", b"replication.backlog"),
                ("mem_clients_slaves", b"clients.slaves"),
                ("mem_cluster_links", b"cluster.links"),
                ("mem_aof_buffer", b"aof.buffer"),
                ("rocksdb_memtables_bytes", b"rocksdb.memtables"),
                ("rocksdb_block_cache_bytes", b"rocksdb.block-cache"),
                ("rocksdb_table_readers_bytes", b"rocksdb.table-readers"),
                ("record_cache_bytes", b"record-cache")]:
            assert first[info_name] == stats[stats_name] == second[info_name], info_name
        assert first["used_memory_peak"] <= stats[b"peak.allocated"] <= second["used_memory_peak"]
        for info_name, stats_name in [("used_memory", b"total.allocated"),
                                      ("allocator_allocated", b"allocator.allocated")]:
            assert abs(first[info_name] - stats[stats_name]) < 128 * 1024, info_name
            assert abs(second[info_name] - stats[stats_name]) < 128 * 1024, info_name
