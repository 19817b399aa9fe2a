"""metrics-port: /metrics in Prometheus's text format, checked with our own parser, and the
counters it exposes moving as traffic goes through; the HTTP server's limits (request size,
methods, concurrent connections, idle timeout) and that it never stalls the Redis port."""

import socket
import time
import urllib.error
import urllib.request

import pytest

import prometheus_text
import servers


HTTP_DEADLINE_S = 5  # the metrics server's deadline per connection


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        return prometheus_text.parse(response.read().decode())


def start_with_metrics(sluiced_factory, **directives):
    port = servers.free_port()
    server = sluiced_factory(metrics_port=port, **directives)
    return server, port


def decisions(metrics, algorithm, policy, result):
    return metrics.get("sluice_limiter_decisions_total", algorithm=algorithm, policy=policy,
                       result=result)


def test_metrics_format_and_families(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    metrics = scrape(port)
    for family, kind in {
        "sluice_build_info": "gauge",
        "sluice_connected_clients": "gauge",
        "sluice_commands_processed_total": "counter",
        "sluice_commands_total": "counter",
        "sluice_command_seconds_total": "counter",
        "sluice_error_replies_total": "counter",
        "sluice_limiter_decisions_total": "counter",
        "sluice_limiter_requests_total": "counter",
        "sluice_limiter_waiting_requests": "gauge",
        "sluice_limiter_decision_duration_seconds": "histogram",
        "sluice_keys_estimated": "gauge",
        "sluice_wal_commits_total": "counter",
        "sluice_wal_syncs_total": "counter",
        "sluice_rocksdb_background_error": "gauge",
        "sluice_rocksdb_live_data_bytes": "gauge",
        "sluice_rocksdb_pending_compaction_bytes": "gauge",
        "sluice_rocksdb_running_flushes": "gauge",
        "sluice_rocksdb_running_compactions": "gauge",
        "sluice_rocksdb_write_stops_total": "counter",
        "sluice_rocksdb_write_delays_total": "counter",
        "sluice_rocksdb_flushes_total": "counter",
        "sluice_rocksdb_compactions_total": "counter",
        "process_resident_memory_bytes": "gauge",
    }.items():
        assert metrics.types.get(family) == kind, f"{family}: {metrics.types.get(family)}"
        assert metrics.help.get(family), f"{family} has no HELP"
    for family, kind in metrics.types.items():
        if kind == "counter":
            assert family.endswith("_total"), family
    build = metrics.series("sluice_build_info")
    assert len(build) == 1 and build[0][0]["redis_version"] == "7.0.0"
    assert metrics.get("sluice_rocksdb_background_error") == 0
    assert metrics.get("sluice_appendfsync", mode="everysec") == 1
    prometheus_text.check_histogram(metrics, "sluice_limiter_decision_duration_seconds")
    # Every algorithm has its series from the start, so rate() works from the first request.
    for algorithm in ("fixedwindow", "slidinglog", "slidingwindow", "tokenbucket",
                      "leakybucket", "gcra", "smooth"):
        for result in ("allowed", "refused", "blocked", "timed_out"):
            assert decisions(metrics, algorithm, "", result) == 0


def test_counters_follow_traffic(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    with server.client() as c:
        for i in range(7):
            assert c.call("SET", f"k{i}", "v") == "OK"
        assert c.call("SET", "ttl", "v", "EX", "1000") == "OK"
        assert c.call("GET", "k1") == b"v"
        assert c.call("NOSUCHCOMMAND").startswith("ERR unknown command")
        # Token bucket of 2: two allowed, three refused.
        replies = [c.call("RL.TOKENBUCKET", "tb", 2, 1, 60000)[0] for _ in range(5)]
        assert replies == [1, 1, 0, 0, 0]
        assert c.call("RL.POLICY", "SET", "api", "FIXEDWINDOW", 1, 60000) == "OK"
        assert c.call("RL.POLICY", "SET", "burst", "TOKENBUCKET", 10, 10, 1000) == "OK"
        assert [c.call("RL.TAKE", "user", "api", "burst")[0] for _ in range(3)] == [1, 0, 0]
        assert [c.call("CL.THROTTLE", "cell", 0, 1, 60)[0] for _ in range(2)] == [0, 1]
        assert c.call("RL.SMOOTH", "smooth", 1) == 0
        # Refused before any decision: not timed.
        assert c.call("CL.THROTTLE", "cell", "x", 1, 60).startswith("ERR")
        assert c.call("RL.TOKENBUCKET", "tb2", 0, 1, 60000).startswith("ERR")
        # Inside EXEC and a script: each decision timed once, the container not at all.
        assert c.call("MULTI") == "OK"
        assert c.call("RL.FIXEDWINDOW", "inner", 5, 60000) == "QUEUED"
        assert c.call("EXEC")[0][0] == 1
        script = "return redis.call('RL.FIXEDWINDOW', KEYS[1], 5, 60000)"
        assert c.call("EVAL", script, 1, "inner")[0] == 1

        metrics = scrape(port)
        assert metrics.get("sluice_commands_total", command="set") == 8
        assert metrics.get("sluice_commands_total", command="get") == 1
        assert 0 < metrics.get("sluice_command_seconds_total", command="set") < 1
        assert metrics.get("sluice_error_replies_total") >= 1
        assert metrics.get("sluice_connected_clients") >= 1
        assert decisions(metrics, "tokenbucket", "", "allowed") == 2
        assert decisions(metrics, "tokenbucket", "", "refused") == 3
        assert decisions(metrics, "fixedwindow", "api", "allowed") == 1
        assert decisions(metrics, "fixedwindow", "api", "refused") == 2
        assert decisions(metrics, "tokenbucket", "burst", "refused") == 2  # the request's outcome
        assert decisions(metrics, "gcra", "", "allowed") == 1
        assert decisions(metrics, "gcra", "", "refused") == 1
        assert decisions(metrics, "smooth", "", "allowed") == 1
        assert decisions(metrics, "fixedwindow", "", "allowed") == 2
        assert metrics.get("sluice_limiter_requests_total", result="allowed") == 2 + 1 + 1 + 1 + 2
        assert metrics.get("sluice_limiter_requests_total", result="refused") == 3 + 2 + 1
        assert metrics.get("sluice_policies") == 2
        histogram = prometheus_text.check_histogram(
            metrics, "sluice_limiter_decision_duration_seconds")
        assert histogram[-1][1] == 5 + 3 + 2 + 1 + 2
        assert metrics.get("sluice_limiter_decision_duration_seconds_sum") > 0
        # Counted exactly at the first scrape (a small database): 8 strings, 4 limiter keys
        # with state (tb, user, cell, inner) and the smooth limiter, all limiters with a TTL.
        assert metrics.get("sluice_keys") == 8 + 5
        assert metrics.get("sluice_keys_with_ttl") == 1 + 5
        assert metrics.get("sluice_keys_estimated") >= 1
        assert metrics.get("sluice_wal_commits_total") >= 1

        before_errors = metrics.get("sluice_error_replies_total")
        before_get = metrics.get("sluice_commands_total", command="get")
        assert c.call("GET", "k2") == b"v"
        assert c.call("INCR", "k2").startswith("ERR")
        again = scrape(port)
        assert again.get("sluice_commands_total", command="get") == before_get + 1
        assert again.get("sluice_error_replies_total") == before_errors + 1

        # CONFIG RESETSTAT starts every count over, the decisions' too; the policies stay.
        assert c.call("CONFIG", "RESETSTAT") == "OK"
        reset = scrape(port)
        assert reset.value("sluice_commands_total", command="get") == 0
        assert reset.get("sluice_error_replies_total") == 0
        for result in ("allowed", "refused"):
            assert reset.get("sluice_limiter_requests_total", result=result) == 0
            assert decisions(reset, "tokenbucket", "", result) == 0
            assert decisions(reset, "fixedwindow", "api", result) == 0
        assert reset.get("sluice_limiter_decision_duration_seconds_count") == 0
        assert reset.get("sluice_policies") == 2


def test_flushes_and_compactions_are_counted(sluiced_factory):
    """RocksDB's background jobs, in INFO persistence and /metrics alike: a fresh server has
    run none; DEBUG COMPACT flushes the memtable it wrote to, then compacts what it flushed."""
    server, port = start_with_metrics(sluiced_factory, enable_debug_command="yes")
    fields = {"rocksdb_flushes": "sluice_rocksdb_flushes_total",
              "rocksdb_compactions": "sluice_rocksdb_compactions_total"}
    with server.client() as c:
        info = servers.info_fields(c, "persistence")
        assert [info[field] for field in fields] == ["0", "0"], info
        assert c.call("SET", "k", "v") == "OK"
        assert c.call("DEBUG", "COMPACT") == "OK"
        info = servers.info_fields(c, "persistence")
    metrics = scrape(port)
    for field, family in fields.items():
        assert int(info[field]) >= 1, info
        assert metrics.get(family) == int(info[field]), family
    assert info["rocksdb_write_stops"] == "0"


def test_keys_are_counted_exactly_after_a_large_flushall(sluiced_factory):
    """RocksDB's key estimate ignores range deletions: after a FLUSHALL of more keys than
    /metrics counts exactly, the estimate still holds them until compaction, so the exact
    count, bounded, decides whether the database is small."""
    server, port = start_with_metrics(sluiced_factory)
    with server.client() as c:
        n = 12000
        c.send(b"".join(servers.encode("SET", f"k:{i}", "v") for i in range(n)))
        assert all(c.read() == "OK" for _ in range(n))
        assert c.call("FLUSHALL") == "OK"
        assert c.call("MSET", "a", "1", "b", "2") == "OK"
    metrics = scrape(port)  # the first scrape counts
    assert metrics.get("sluice_keys_estimated") > 10000
    assert metrics.get("sluice_keys") == 2


def test_block_queue_depth_and_timeouts(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory, enable_debug_command="yes")
    bucket = ("RL.TOKENBUCKET", "q", 2, 1, 1000)
    with server.client() as c, server.client() as waiter:
        assert c.call("DEBUG", "CLOCK", "FREEZE", 1_700_000_000_000) == "OK"
        assert c.call(*bucket, "COST", 2)[0] == 1
        # Would fit at +2000 ms, so it waits; a request without BLOCK then takes the first
        # token back, and the waiter's 2500 ms run out.
        waiter.send(servers.encode(*bucket, "COST", 2, "BLOCK", 2500))
        deadline = time.monotonic() + 10
        while scrape(port).get("sluice_limiter_waiting_requests") != 1:
            assert time.monotonic() < deadline, "the BLOCK request never showed as waiting"
        assert decisions(scrape(port), "tokenbucket", "", "blocked") == 1
        assert c.call("DEBUG", "CLOCK", "ADVANCE", 1000) == "OK"
        assert c.call(*bucket)[0] == 1
        assert c.call("DEBUG", "CLOCK", "ADVANCE", 1500) == "OK"
        assert waiter.read()[0] == 0
        metrics = scrape(port)
        assert metrics.get("sluice_limiter_waiting_requests") == 0
        assert decisions(metrics, "tokenbucket", "", "timed_out") == 1
        assert metrics.get("sluice_limiter_requests_total", result="timed_out") == 1


def http_exchange(port, request, timeout=10):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return data
            data += chunk


def test_http_requests_are_bounded(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    assert http_exchange(port, b"GET /nope HTTP/1.1\r\nHost: x\r\n\r\n").startswith(
        b"HTTP/1.1 404 ")
    reply = http_exchange(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 405 ") and b"Allow: GET, HEAD" in reply
    huge = b"GET /metrics HTTP/1.1\r\nX-Padding: " + b"a" * 20000 + b"\r\n\r\n"
    assert http_exchange(port, huge).startswith(b"HTTP/1.1 431 ")
    assert http_exchange(port, b"garbage\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    head = http_exchange(port, b"HEAD /metrics HTTP/1.1\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and head.endswith(b"\r\n\r\n")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/missing", timeout=10)
    assert err.value.code == 404


def test_idle_http_connections_never_stall_redis(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    opened = time.monotonic()  # before any of the four is accepted, so before its deadline starts
    idle = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(4)]
    try:
        with server.client() as c:  # four silent HTTP peers cost the Redis port nothing
            assert c.call("PING") == "PONG"
        # A fifth connection is turned away at once rather than queued behind the others.
        # (It sends nothing: a request the server has not read yet may turn its close into a
        # reset.)
        # Until the four are accepted a newcomer may still get a slot (and, sending nothing,
        # an empty reply at its deadline): then try again.
        deadline = time.monotonic() + 30
        while not http_exchange(port, b"").startswith(b"HTTP/1.1 503 "):
            assert time.monotonic() < deadline, "a fifth connection was never turned away"
        # The idle ones are closed by the 5 s connection deadline: not before it, and within
        # a margin after it (30 s, a bound on failure only: a loaded machine may be slow to
        # run the timer; or at once, if the loop above already took longer than that).
        close_by = max(opened + HTTP_DEADLINE_S + 30, time.monotonic() + 1)
        for s in idle:
            s.settimeout(max(close_by - time.monotonic(), 0.1))
            try:
                assert s.recv(1) == b""
            except socket.timeout:
                raise AssertionError(f"an idle HTTP connection was still open "
                                     f"{time.monotonic() - opened:.1f} s after it was "
                                     f"opened") from None
            lived = time.monotonic() - opened
            assert lived >= HTTP_DEADLINE_S - 0.5, f"closed {lived:.2f} s after it was opened"
    finally:
        for s in idle:
            s.close()
    assert scrape(port).get("sluice_connected_clients") == 0


def test_metrics_port_in_use_is_a_start_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        busy = taken.getsockname()[1]
        proc = servers.run_sluiced_expect_exit(
            ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", tmp_path / "data",
             "--metrics-port", busy], cwd=tmp_path)
    assert proc.returncode == 1
    assert b"metrics-port" in proc.stderr, proc.stderr


def test_shutdown_with_http_connections_open(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    idle = socket.create_connection(("127.0.0.1", port), timeout=10)
    partial = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        partial.sendall(b"GET /metrics HTTP/1.1\r\n")  # head never finished
        with server.client() as c:
            assert c.call("PING") == "PONG"
        assert server.terminate() == 0  # stops at once, exit code 0 (no sanitizer report)
        assert idle.recv(1) == b"" and partial.recv(1) == b""
    finally:
        idle.close()
        partial.close()
