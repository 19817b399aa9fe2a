"""record-cache-size (sluice's own directive): the record cache in front of RocksDB, sized at
start and with CONFIG SET, and what INFO and /metrics tell about it (how much it holds, how
many reads it answered). Whatever its size, every read answers the same."""

import servers
from test_metrics import scrape, start_with_metrics

DEFAULT_BYTES = 128 << 20


def cache_fields(client):
    memory = servers.info_fields(client, "memory")
    stats = servers.info_fields(client, "stats")
    return {"bytes": int(memory["record_cache_bytes"]),
            "size": int(memory["record_cache_size"]),
            "keys": int(memory["record_cache_keys"]),
            "hits": int(stats["record_cache_hits"]),
            "misses": int(stats["record_cache_misses"])}


def write_keys(client, n):
    client.send(b"".join(servers.encode("SET", f"key:{i}", f"value:{i}") for i in range(n)))
    assert all(client.read() == "OK" for _ in range(n))


def assert_values(client, n):
    client.send(b"".join(servers.encode("GET", f"key:{i}") for i in range(n)))
    assert [client.read() for _ in range(n)] == [f"value:{i}".encode() for i in range(n)]


def test_default_size_and_what_a_read_counts(sluiced_factory):
    server = sluiced_factory()
    with server.client() as c:
        assert c.call("CONFIG", "GET", "record-cache-size") == [b"record-cache-size",
                                                                 str(DEFAULT_BYTES).encode()]
        assert cache_fields(c)["size"] == DEFAULT_BYTES
        assert c.call("SET", "k", "v") == "OK"
        before = cache_fields(c)
        assert c.call("GET", "k") == b"v"  # the commit put it in the cache
        after = cache_fields(c)
        assert (after["hits"], after["misses"]) == (before["hits"] + 1, before["misses"])
        assert c.call("GET", "nope") is None  # asked of RocksDB, then known absent
        assert c.call("GET", "nope") is None
        last = cache_fields(c)
        assert (last["hits"], last["misses"]) == (after["hits"] + 1, after["misses"] + 1)
        assert last["keys"] >= 2 and last["bytes"] > 0
        # MEMORY STATS's record-cache is the same figure as INFO's.
        stats = c.call("MEMORY", "STATS")
        assert stats[stats.index(b"record-cache") + 1] == last["bytes"]

        assert c.call("CONFIG", "RESETSTAT") == "OK"
        reset = cache_fields(c)
        assert (reset["hits"], reset["misses"]) == (0, 0)
        assert reset["keys"] == last["keys"], "RESETSTAT keeps what the cache holds"


def test_config_set_shrinks_at_once_and_reads_stay_right(sluiced_factory):
    server = sluiced_factory()
    n = 2000
    with server.client() as c:
        write_keys(c, n)
        full = cache_fields(c)
        assert full["keys"] >= n, full

        assert c.call("CONFIG", "SET", "record-cache-size", "10kb") == "OK"
        small = cache_fields(c)
        assert small["size"] == 10 * 1024
        assert 0 < small["bytes"] <= 10 * 1024, small
        assert small["keys"] < n // 10, small
        assert_values(c, n)
        assert cache_fields(c)["bytes"] <= 10 * 1024

        assert c.call("CONFIG", "SET", "record-cache-size", "0") == "OK"
        off = cache_fields(c)
        assert (off["bytes"], off["keys"]) == (0, 0), off
        assert_values(c, n)
        after = cache_fields(c)
        assert (after["keys"], after["hits"] - off["hits"]) == (0, 0), "nothing is stored"
        assert after["misses"] - off["misses"] == n

        assert c.call("CONFIG", "SET", "record-cache-size", "1mb") == "OK"
        assert_values(c, n)
        assert cache_fields(c)["keys"] >= 100, "it stores again"


def test_a_large_shrink_goes_in_steps_with_clients_served(sluiced_factory):
    # Lowering the size of a cache of millions of entries freed them all in one go, and every
    # client waited (about 0.2 s a million). A step frees at most 4,096 entries; the next
    # steps run between the clients' requests.
    server = sluiced_factory()
    n, per_step = 20000, 4096
    with server.client() as c:
        write_keys(c, n)
        assert cache_fields(c)["keys"] >= n
        # In one batch, so that no later step runs before INFO answers.
        c.send(servers.encode("CONFIG", "SET", "record-cache-size", "10kb") +
               servers.encode("INFO", "memory"))
        assert c.read() == "OK"
        memory = dict(line.split(":", 1) for line in c.read().decode().split("\r\n")
                      if ":" in line and not line.startswith("#"))
        assert int(memory["record_cache_size"]) == 10 * 1024
        assert int(memory["record_cache_keys"]) >= n - per_step, "one step at once, at most"
        assert_values(c, n)  # right, whatever the steps have freed so far
        servers.wait_for(lambda: cache_fields(c)["bytes"] <= 10 * 1024,
                         "the later steps to bring the cache down to its size")
        assert cache_fields(c)["keys"] < n // 10
        assert_values(c, n)


def test_a_full_cache_takes_in_new_keys(sluiced_factory):
    # Users come and go: once the cache is full, a key written now must still be answered
    # from it a little later. (Until session 57 a full cache evicted its newest entries
    # first and kept its first keys for good: every read below went to RocksDB.)
    server = sluiced_factory(record_cache_size="64kb")  # several hundred of these keys
    with server.client() as c:
        n = 6000
        c.send(b"".join(servers.encode("RL.FIXEDWINDOW", f"user:{i}", "10", "60000")
                        for i in range(n)))
        assert all(c.read()[0] == 1 for _ in range(n))
        before = cache_fields(c)
        assert 200 < before["keys"] < n // 4, before
        rounds, per_round = 20, 100
        for r in range(rounds):
            # 100 new keys, then (in a batch of its own, so the cache answers) the 100 before.
            written = range(n + r * per_round, n + (r + 1) * per_round)
            c.send(b"".join(servers.encode("SET", f"new:{i}", "v") for i in written))
            assert all(c.read() == "OK" for _ in written)
            if r > 0:
                c.send(b"".join(servers.encode("GET", f"new:{i - per_round}") for i in written))
                assert all(c.read() == b"v" for _ in written)
        gets = (rounds - 1) * per_round
        hits = cache_fields(c)["hits"] - before["hits"]
        assert hits >= 0.95 * gets, (hits, gets)


def test_bad_values_are_refused_and_change_nothing(sluiced_factory, tmp_path):
    server = sluiced_factory(record_cache_size="1mb")
    with server.client() as c:
        assert cache_fields(c)["size"] == 1 << 20
        for bad in ("-1", "lots", "1tbb"):
            reply = c.call("CONFIG", "SET", "record-cache-size", bad)
            assert isinstance(reply, servers.Error), reply
            assert "record-cache-size" in reply, reply
        assert c.call("CONFIG", "GET", "record-cache-size") == [b"record-cache-size",
                                                                 str(1 << 20).encode()]
    result = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", tmp_path / "data",
         "--record-cache-size", "-5"], cwd=tmp_path)
    assert result.returncode == 1
    assert b"'record-cache-size' must be a memory value" in result.stderr, result.stderr


def test_zero_at_start_runs_without_the_cache(sluiced_factory):
    server = sluiced_factory(record_cache_size="0")
    with server.client() as c:
        write_keys(c, 100)
        assert_values(c, 100)
        fields = cache_fields(c)
        assert (fields["size"], fields["bytes"], fields["keys"], fields["hits"]) == (0, 0, 0, 0)
        assert fields["misses"] >= 100


def test_metrics_match_info(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory, record_cache_size="4mb")
    with server.client() as c:
        write_keys(c, 50)
        assert_values(c, 50)
        fields = cache_fields(c)
    metrics = scrape(port)
    for family, kind, field in [("sluice_record_cache_bytes", "gauge", "bytes"),
                                ("sluice_record_cache_capacity_bytes", "gauge", "size"),
                                ("sluice_record_cache_keys", "gauge", "keys"),
                                ("sluice_record_cache_hits_total", "counter", "hits"),
                                ("sluice_record_cache_misses_total", "counter", "misses")]:
        assert metrics.types.get(family) == kind, family
        assert metrics.get(family) == fields[field], family
    assert fields["size"] == 4 << 20 and fields["hits"] >= 50
