"""Durability and start-up: writes survive clean restarts in every appendfsync mode, kill -9
loses no acknowledged write, the data directory is locked, bad configuration is refused with
one line on stderr and exit code 1."""

import shutil
import signal
import subprocess
import threading

import pytest

import servers

MODES = ["always", "everysec", "no"]
FAR_MS = 4102444800123  # 2100-01-01, ms


def _write_sample(c):
    assert c.call("SET", "str", "hello") == "OK"
    assert c.call("SET", "bin", b"\x00\xff\r\n") == "OK"
    assert c.call("SET", "big", "b" * 1_000_000) == "OK"
    for _ in range(100):
        c.call("INCR", "counter")
    assert c.call("INCRBYFLOAT", "float", "2.5") == b"2.5"
    assert c.call("SET", "far", "v", "PXAT", FAR_MS) == "OK"
    assert c.call("SET", "rel", "v", "EX", "1000") == "OK"
    assert c.call("MSET", "m1", "1", "m2", "2", "gone", "x") == "OK"
    assert c.call("DEL", "gone") == 1
    assert c.call("SET", "renamed-from", "r") == "OK"
    assert c.call("RENAME", "renamed-from", "renamed-to") == "OK"
    assert c.call("SET", "persisted", "p", "EX", "100") == "OK"
    assert c.call("PERSIST", "persisted") == 1
    assert c.call("APPEND", "str", " world") == 11


def _check_sample(c):
    assert c.call("GET", "str") == b"hello world"
    assert c.call("GET", "bin") == b"\x00\xff\r\n"
    assert c.call("STRLEN", "big") == 1_000_000
    assert c.call("GET", "counter") == b"100"
    assert c.call("GET", "float") == b"2.5"
    assert c.call("PEXPIRETIME", "far") == FAR_MS
    assert 990 <= c.call("TTL", "rel") <= 1000
    assert c.call("MGET", "m1", "m2", "gone") == [b"1", b"2", None]
    assert c.call("EXISTS", "renamed-from", "renamed-to") == 1
    assert c.call("TTL", "persisted") == -1
    assert c.call("DBSIZE") == 11


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stop", ["shutdown", "sigterm", "sigint"])
def test_writes_survive_clean_restart(sluiced_factory, mode, stop):
    server = sluiced_factory(appendfsync=mode)
    with server.client() as c:
        _write_sample(c)
    if stop == "shutdown":
        code = server.shutdown()
    else:
        code = server.terminate(signal.SIGTERM if stop == "sigterm" else signal.SIGINT)
    assert code == 0, f"exit code {code} after {stop}; stderr:\n{server.stderr()}"
    server.start()
    with server.client() as c:
        _check_sample(c)
        assert c.call("INCR", "counter") == 101
    assert server.terminate() == 0
    server.start()  # a second restart sees the write made after the first one
    with server.client() as c:
        assert c.call("GET", "counter") == b"101"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("stop", ["shutdown", "sigterm"])
def test_a_clean_stop_leaves_no_wal_to_replay(sluiced_factory, mode, stop):
    """A clean stop flushes the memtables, so the next start replays nothing: a WAL of random
    keys costs a second of CPU to replay, a flush a fraction of that."""
    server = sluiced_factory(appendfsync=mode)
    with server.client() as c:
        for i in range(0, 20_000, 1_000):
            c.send(b"".join(servers.encode("SET", f"k{j}", "v") for j in range(i, i + 1_000)))
            assert [c.read() for _ in range(1_000)] == ["OK"] * 1_000
        wal_bytes = sum(wal.stat().st_size for wal in server.data_dir.glob("*.log"))
        assert wal_bytes > 20_000  # the writes are in the WAL and nowhere else yet
    code = server.shutdown() if stop == "shutdown" else server.terminate()
    assert code == 0, server.stderr()
    assert sum(wal.stat().st_size for wal in server.data_dir.glob("*.log")) == 0
    server.start()
    with server.client() as c:
        assert c.call("DBSIZE") == 20_000
        assert c.call("GET", "k19999") == b"v"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("batch", [1, 50], ids=["one_at_a_time", "pipelined_50"])
def test_kill_9_loses_no_acknowledged_incr(sluiced_factory, mode, batch):
    """A client INCRs as fast as it can; the server is killed with SIGKILL mid-stream; after a
    restart the counter is at least the last value the client saw acknowledged."""
    server = sluiced_factory(appendfsync=mode)
    kill_after = 1000
    reached = threading.Event()
    killer = threading.Thread(target=lambda: reached.wait(120) and server.kill())
    killer.start()
    last_ack = 0
    in_flight = 0
    try:
        with server.client() as c:
            while True:
                try:
                    c.send(servers.encode("INCR", "counter") * batch)
                    in_flight = batch
                    for _ in range(batch):
                        value = c.read()
                        assert isinstance(value, int) and value == last_ack + 1, value
                        last_ack = value
                        in_flight -= 1
                except (servers.ConnectionClosed, OSError):
                    break
                if last_ack >= kill_after:
                    reached.set()
                assert last_ack < 10_000_000, "the server was never killed"
    finally:
        reached.set()
        killer.join()
    assert server.returncode == -signal.SIGKILL
    server.start()
    with server.client() as c:
        value = int(c.call("GET", "counter") or 0)
    assert last_ack >= kill_after
    assert last_ack <= value <= last_ack + in_flight, \
        f"acknowledged {last_ack} (+{in_flight} in flight), found {value} after restart"


def _set_pipelined(c, prefix, n):
    """SET <prefix>:<i> <i> for every i < n in one pipeline; every reply must be OK."""
    c.send(b"".join(servers.encode("SET", f"{prefix}:{i}", i) for i in range(n)))
    assert all(c.read() == "OK" for _ in range(n))


def test_appendfsync_always_starts_every_wal_zeroed(sluiced_factory):
    """Under always each new WAL file starts as a zeroed file made ready beforehand, whose
    syncs cost less (storage/zeroed_wal.h): the first at start, the next when SAVE's flush
    switches WAL files. Writes to both survive kill -9, and CONFIG SET appendfsync turns the
    zeroed files off and on."""
    server = sluiced_factory(appendfsync="always")
    zeroed_file = server.data_dir / "sluice-zeroed-wal"
    with server.client() as c:
        def persistence():
            return servers.info_fields(c, "persistence")
        assert persistence()["wal_zeroed_files_used"] == "1"
        servers.wait_for(lambda: persistence()["wal_zeroed_file_ready"] == "1",
                         "a zeroed file for the next WAL")
        assert zeroed_file.stat().st_size > 1 << 20
        _set_pipelined(c, "before", 2000)
        assert c.call("SAVE") == "OK"
        assert persistence()["wal_zeroed_files_used"] == "2"
        _set_pipelined(c, "after", 2000)
    server.kill()
    server.start()
    with server.client() as c:
        assert c.call("DBSIZE") == 4000
        assert c.call("MGET", "before:1999", "after:0", "after:1999") == [b"1999", b"0", b"1999"]
        assert c.call("CONFIG", "SET", "appendfsync", "everysec") == "OK"
        assert servers.info_fields(c, "persistence")["wal_zeroed_file_ready"] == "0"
        assert not zeroed_file.exists()
        assert c.call("CONFIG", "SET", "appendfsync", "always") == "OK"
        servers.wait_for(
            lambda: servers.info_fields(c, "persistence")["wal_zeroed_file_ready"] == "1",
            "a zeroed file once always is back")
        assert zeroed_file.exists()


def test_full_wals_never_stop_writes(memory_dir, sluiced_factory):
    """SETs of a few hundred keys to values of one size update the key space's memtable in
    place, so the WAL cap (four memtables: 4 MB here) is what ends WAL files, a hundred times
    below. At each end RocksDB switches the memtable of every column family, the idle ones
    too, and its next check may come before their (empty) flushes ran: with two memtables a
    family allowed, the idle families then stopped every write (9 to 28 times a run).
    redis-benchmark writes fast enough to meet that; a Python client would not."""
    if servers.sluiced_is_sanitized():
        pytest.skip("a sanitized sluiced writes too slowly to meet the race; the release "
                    "pass runs this test")
    benchmark = shutil.which("redis-benchmark")
    if benchmark is None:
        pytest.fail("redis-benchmark (redis-tools) is not installed")
    server = sluiced_factory(data_dir=memory_dir / "data", rocksdb_write_buffer_size="1mb")
    # 600 MB through the WAL: SET key:<one of 500> <1,000 bytes>.
    subprocess.run([benchmark, "-p", str(server.port), "-c", "50", "-P", "16", "-n", "600000",
                    "-r", "500", "-d", "1000", "-t", "set", "-q"],
                   check=True, capture_output=True, timeout=300)
    with server.client() as c:
        wal_ends = (server.data_dir / "LOG").read_text(errors="replace").count(
            "Flushing all column families with data in WAL")
        assert wal_ends >= 50, wal_ends
        info = servers.info_fields(c, "persistence")
        assert info["rocksdb_write_stops"] == "0", info
        keys = c.call("KEYS", "key:*")
        assert 0 < len(keys) <= 500
        assert all(len(v) == 1000 for v in c.call("MGET", *keys))


def test_kill_9_keeps_every_key_written(sluiced_factory):
    """Many distinct acknowledged keys (not one counter) all survive a kill -9."""
    server = sluiced_factory(appendfsync="everysec")
    with server.client() as c:
        _set_pipelined(c, "key", 5000)
    server.kill()
    server.start()
    with server.client() as c:
        assert c.call("DBSIZE") == 5000
        assert c.call("MGET", "key:0", "key:2500", "key:4999") == [b"0", b"2500", b"4999"]


def test_a_scan_cursor_kept_across_a_restart_misses_no_key(sluiced_factory):
    """A cursor handed out before a restart is unknown after it (the scan starts again), never
    another client's new cursor, which would resume at that client's place: Redis's cursors
    stay valid across a restart, and a scan returns every key."""
    server = sluiced_factory()
    names = [chr(c).encode() for c in range(ord("a"), ord("z") + 1)]
    with server.client() as c:
        c.call("MSET", *[x for n in names for x in (n, "v")])
        cursor, seen = c.call("SCAN", "0", "COUNT", "2")
    server.restart()
    with server.client() as other, server.client() as c:
        other.call("SCAN", "0", "COUNT", "20")  # a new scan that stops part way
        while cursor != b"0":
            cursor, page = c.call("SCAN", cursor, "COUNT", "100")
            seen += page
    assert sorted(set(seen)) == names


def test_deletes_survive_kill_9(sluiced_factory):
    """Deleted stays deleted: DEL, GETDEL, RENAME's source, FLUSHALL, an expiry in the past."""
    server = sluiced_factory()
    with server.client() as c:
        assert c.call("MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5") == "OK"
        assert c.call("DEL", "a") == 1
        assert c.call("GETDEL", "b") == b"2"
        assert c.call("RENAME", "c", "c2") == "OK"
        assert c.call("PEXPIREAT", "d", "1") == 1
    server.kill()
    server.start()
    with server.client() as c:
        assert sorted(c.call("KEYS", "*")) == [b"c2", b"e"]
        assert c.call("FLUSHALL") == "OK"
        assert c.call("SET", "after-flush", "1") == "OK"
    server.kill()
    server.start()
    with server.client() as c:
        assert c.call("KEYS", "*") == [b"after-flush"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("keys", [5, 5000], ids=["few_keys", "many_keys"])
def test_keys_rewritten_after_flushall_survive_kill_9(sluiced_factory, mode, keys):
    """Keys written again after a FLUSHALL, at the same size (rewritten in place in the
    memtable), are there after a kill -9: FLUSHALL's range deletion hides only older writes,
    also when the WAL replays them. Limiter states too."""
    server = sluiced_factory(appendfsync=mode)
    with server.client() as c:
        _set_pipelined(c, "key", keys)
        assert c.call("RL.FIXEDWINDOW", "limiter", "10", "60000")[0] == 1
        assert c.call("FLUSHALL") == "OK"
        _set_pipelined(c, "key", keys)
        for _ in range(3):
            assert c.call("RL.FIXEDWINDOW", "limiter", "10", "60000")[0] == 1
        assert c.call("DBSIZE") == keys + 1
    server.kill()
    server.start()
    with server.client() as c:
        assert c.call("DBSIZE") == keys + 1
        assert c.call("GET", f"key:{keys - 1}") == str(keys - 1).encode()
        assert c.call("RL.FIXEDWINDOW", "limiter", "10", "60000")[2] == 10 - 4  # remaining


@pytest.mark.parametrize("mode", MODES)
def test_writes_without_replies_reach_the_log_by_themselves(sluiced_factory, mode):
    """CLIENT REPLY OFF: no reply waits for the writes, yet they go to the WAL with their batch,
    with no other client around to commit them (they waited for one before), and survive a
    kill -9."""
    server = sluiced_factory(appendfsync=mode)
    marker = b"written-with-no-reply-" + mode.encode()
    with server.client() as c:
        c.send(servers.encode("CLIENT", "REPLY", "OFF") + servers.encode("SET", "k", marker))

        def logged():
            return any(marker in wal.read_bytes() for wal in server.data_dir.glob("*.log"))

        servers.wait_for(logged, "the write in the WAL")
    server.kill()
    server.start()
    with server.client() as c:
        assert c.call("GET", "k") == marker


def test_shutdown_nosave_keeps_acknowledged_writes(sluiced_factory):
    """Unlike Redis's RDB, nothing waits for a save: what was acknowledged is logged."""
    server = sluiced_factory()
    with server.client() as c:
        assert c.call("SET", "k", "v") == "OK"
        c.send(servers.encode("SHUTDOWN", "NOSAVE"))
        with pytest.raises(servers.ConnectionClosed):
            c.read()
    assert server.wait() == 0, server.stderr()
    server.start()
    with server.client() as c:
        assert c.call("GET", "k") == b"v"


def test_expiry_times_are_absolute_across_restarts(sluiced_factory):
    """A key written on a frozen clock in the past has expired by the time the restarted
    server (on the real clock) reads it; a far-future one keeps its exact expiry time."""
    server = sluiced_factory(enable_debug_command="yes")
    with server.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", 1_600_000_000_000) == "OK"
        assert c.call("SET", "past", "v", "PX", "1000") == "OK"
        assert c.call("SET", "future", "v", "PXAT", FAR_MS) == "OK"
        assert c.call("PTTL", "past") == 1000
    server.restart()
    with server.client() as c:
        assert c.call("GET", "past") is None
        assert c.call("PEXPIRETIME", "future") == FAR_MS
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("DEBUG", "RAWKEYS") == 1


@pytest.mark.parametrize("stop", ["restart", "kill_9"])
def test_a_deleted_keys_elements_stay_gone_on_a_clock_that_stood_still(sluiced_factory, stop):
    """A deleted hash's fields and a deleted long string's bytes wait for compaction under
    their key's version: a server started again on the test clock frozen at the same time (as
    a clock set back would be) hands out new versions, so a new key of the same name is empty."""
    server = sluiced_factory(enable_debug_command="yes")
    with server.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", FAR_MS) == "OK"
        assert c.call("HSET", "h", "a", "1", "b", "2") == 2
        assert c.call("SET", "big", "x" * 20000) == "OK"
        assert c.call("DEL", "h", "big") == 2
    if stop == "kill_9":
        server.kill()
        server.start()
    else:
        server.restart()
    with server.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", FAR_MS) == "OK"
        assert c.call("HSET", "h", "c", "3") == 1
        assert c.call("HGETALL", "h") == [b"c", b"3"]
        assert c.call("HSET", "big", "f", "1") == 1
        assert c.call("HGETALL", "big") == [b"f", b"1"]
        assert c.call("DEBUG", "COMPACT") == "OK"
        assert c.call("HGETALL", "h") == [b"c", b"3"]


def test_second_daemon_on_the_same_dir_exits_1(sluiced_factory, tmp_path):
    first = sluiced_factory()
    with first.client() as c:
        assert c.call("SET", "k", "v") == "OK"
    result = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", first.data_dir],
        cwd=tmp_path)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 1, f"exit {result.returncode}; stderr:\n{stderr}"
    assert any(w in stderr.lower() for w in ("lock", "in use", "already")), stderr
    with first.client() as c:  # the first one is untouched
        assert c.call("GET", "k") == b"v"


def test_second_daemon_under_always_leaves_the_first_ones_files_alone(sluiced_factory, tmp_path):
    """The data directory is locked before sluiced touches a file there (storage/dir_lock.h).
    A second start used to get as far as starting the RocksDB LOG anew and rewriting, then
    deleting, the zeroed file the first one's next WAL was to take."""
    first = sluiced_factory(appendfsync="always")
    zeroed_file = first.data_dir / "sluice-zeroed-wal"
    log = first.data_dir / "LOG"
    with first.client() as c:
        servers.wait_for(
            lambda: servers.info_fields(c, "persistence")["wal_zeroed_file_ready"] == "1",
            "a zeroed file for the next WAL")
    zeroed_inode, log_inode = zeroed_file.stat().st_ino, log.stat().st_ino
    result = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", first.data_dir,
         "--appendfsync", "always"], cwd=tmp_path)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 1, f"exit {result.returncode}; stderr:\n{stderr}"
    assert "is locked by another sluiced process" in stderr, stderr
    assert zeroed_file.stat().st_ino == zeroed_inode
    assert log.stat().st_ino == log_inode
    assert not (first.data_dir / "sluice-zeroed-wal.tmp").exists()
    with first.client() as c:  # the next WAL still takes the zeroed file
        assert c.call("SET", "k", "v") == "OK"
        assert c.call("SAVE") == "OK"
        assert servers.info_fields(c, "persistence")["wal_zeroed_files_used"] == "2"


BAD_ARGS = {
    "unknown_directive": ["--no-such-directive", "1"],
    "port_not_a_number": ["--port", "abc"],
    "port_out_of_range": ["--port", "70000"],
    "appendfsync_bad_value": ["--appendfsync", "sometimes"],
    "maxclients_not_a_number": ["--maxclients", "many"],
    "timeout_negative": ["--timeout", "-1"],
    "enable_debug_command_bad_value": ["--enable-debug-command", "maybe"],
    "loglevel_bad_value": ["--loglevel", "loud"],
    "protected_mode_bad_value": ["--protected-mode", "perhaps"],
    "proto_max_bulk_len_bad_value": ["--proto-max-bulk-len", "lots"],
}


@pytest.mark.parametrize("args", BAD_ARGS.values(), ids=BAD_ARGS.keys())
def test_bad_configuration_exits_1_with_one_line(tmp_path, args):
    result = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", tmp_path / "data", *args],
        cwd=tmp_path)
    _assert_refused(result)


def _assert_refused(result):
    stderr = result.stderr.decode(errors="replace")
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert result.returncode == 1, f"exit {result.returncode}; stderr:\n{stderr}"
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"


def test_unknown_directive_in_config_file_exits_1(tmp_path):
    config = tmp_path / "sluice.conf"
    config.write_text("# a comment\nport 0\nno-such-directive yes\n")
    result = servers.run_sluiced_expect_exit(
        [config, "--port", servers.free_port(), "--dir", tmp_path / "data"], cwd=tmp_path)
    _assert_refused(result)


def test_missing_config_file_exits_1(tmp_path):
    result = servers.run_sluiced_expect_exit(
        [tmp_path / "nonexistent.conf", "--port", servers.free_port(), "--dir", tmp_path / "d"],
        cwd=tmp_path)
    _assert_refused(result)


def test_unusable_dir_exits_1(tmp_path):
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    result = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", not_a_dir], cwd=tmp_path)
    _assert_refused(result)


def test_config_file_and_command_line_override(sluiced_factory, tmp_path):
    config = tmp_path / "sluice.conf"
    config.write_text("# sluice test config\n"
                      "requirepass from-file\n"
                      "\n"
                      "enable-debug-command yes\n"
                      "maxclients 77\n")
    from_file = sluiced_factory(config_file=config)
    with from_file.client() as c:
        assert c.call("AUTH", "from-file") == "OK"
        assert c.call("CONFIG", "GET", "maxclients") == [b"maxclients", b"77"]
        assert isinstance(c.call("DEBUG", "CLOCK"), int)
    assert from_file.shutdown(password="from-file") == 0

    overridden = sluiced_factory(config_file=config, requirepass="from-cli", maxclients=88)
    with overridden.client() as c:
        assert c.call("AUTH", "from-file") == servers.Error(
            "WRONGPASS invalid username-password pair or user is disabled.")
        assert c.call("AUTH", "from-cli") == "OK"
        assert c.call("CONFIG", "GET", "maxclients") == [b"maxclients", b"88"]
    assert overridden.shutdown(password="from-cli") == 0


def test_data_dir_is_created(sluiced_factory, tmp_path):
    nested = tmp_path / "a" / "b" / "data"
    server = sluiced_factory(data_dir=nested)
    with server.client() as c:
        assert c.call("SET", "k", "v") == "OK"
    assert nested.is_dir()
