"""Backups: SAVE and BGSAVE make a RocksDB checkpoint under dir/checkpoints/<unix time>
(LASTSAVE and INFO persistence report it, the newest three are kept), and the README's
restore procedure works: stop, copy a checkpoint as `dir`, start."""

import shutil
import time
from pathlib import Path

import servers


def info_persistence(c):
    text = c.call("INFO", "persistence").decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def wait_bgsave_done(c, timeout=30):
    deadline = time.monotonic() + timeout
    while info_persistence(c)["rdb_bgsave_in_progress"] != "0":
        assert time.monotonic() < deadline, "BGSAVE still running"
        time.sleep(0.05)
    return info_persistence(c)


def test_bgsave_makes_a_checkpoint_that_restores(sluiced_factory, tmp_path):
    starting = time.time()
    server = sluiced_factory()
    with server.client() as c:
        # As Redis, the data counts as saved at start: a second (the server's clock, cut to
        # whole seconds) from when the start began, however slow it was, to now.
        assert int(starting) <= c.call("LASTSAVE") <= time.time()
        sending = time.time()
        c.send(b"".join(servers.encode("SET", f"k{i}", i) for i in range(1000)) +
               servers.encode("RL.FIXEDWINDOW", "rl", 10, 3_600_000) +
               servers.encode("BGSAVE"))
        for _ in range(1001):
            c.read()
        assert c.read() == "Background saving started"  # the batch's writes are in it
        answered = time.time()
        info = wait_bgsave_done(c)
        assert info["rdb_last_bgsave_status"] == "ok", info
        checkpoint = Path(info["last_checkpoint"])
        assert checkpoint.parent == (server.data_dir / "checkpoints").resolve()
        assert (checkpoint / "CURRENT").exists()
        # The second BGSAVE began in: between the request and its answer.
        assert int(sending) <= c.call("LASTSAVE") <= answered
        assert int(info["rdb_last_save_time"]) == c.call("LASTSAVE")
        # Writes after the checkpoint are not in it.
        assert c.call("SET", "after", "1") == "OK"
        assert c.call("RL.FIXEDWINDOW", "rl", 10, 3_600_000)[2] == 8
    # Restore: stop, copy the checkpoint as a new dir, start on it.
    assert server.terminate() == 0
    restored_dir = tmp_path / "restored"
    shutil.copytree(checkpoint, restored_dir)
    restored = sluiced_factory(data_dir=restored_dir)
    with restored.client() as c:
        assert c.call("DBSIZE") == 1001
        assert c.call("GET", "k999") == b"999"
        assert c.call("EXISTS", "after") == 0
        assert c.call("RL.FIXEDWINDOW", "rl", 10, 3_600_000, "COST", 0)[2] == 9


def test_save_and_bgsave_keep_the_newest_three(sluiced_factory):
    server = sluiced_factory()
    with server.client() as c:
        assert c.call("SET", "k", "v") == "OK"
        paths = []
        for i in range(5):
            if i % 2:
                assert c.call("BGSAVE") == "Background saving started"
                paths.append(wait_bgsave_done(c)["last_checkpoint"])
            else:
                assert c.call("SAVE") == "OK"
                paths.append(info_persistence(c)["last_checkpoint"])
        assert len(set(paths)) == 5  # same second: suffixed, never overwritten
        kept = sorted(p.name for p in (server.data_dir / "checkpoints").iterdir())
        assert kept == sorted(Path(p).name for p in paths[-3:]), kept


def test_bgsave_while_one_runs(sluiced_factory, redis_server):
    """A second BGSAVE while one runs is refused with Redis's text, BGSAVE SCHEDULE too (as
    Redis 7.0: SCHEDULE only waits for an AOF rewrite); bad arguments are Redis's syntax
    error."""
    server = sluiced_factory()
    with server.client() as c:
        c.send(servers.encode("BGSAVE") + servers.encode("BGSAVE") +
               servers.encode("BGSAVE", "SCHEDULE"))
        first, second, third = c.read(), c.read(), c.read()
        assert first == "Background saving started"
        # The first may already have finished on a fast disk.
        assert second in ("Background saving started",
                          servers.Error("ERR Background save already in progress")), second
        assert third in ("Background saving started",
                         servers.Error("ERR Background save already in progress")), third
        wait_bgsave_done(c)
        with redis_server.client() as r:
            assert c.call_raw("BGSAVE", "NOW") == r.call_raw("BGSAVE", "NOW")


def test_bgsave_inside_exec_is_scheduled_and_takes_the_transaction_in(sluiced_factory,
                                                                      redis_server):
    """Redis answers BGSAVE inside EXEC "Background saving scheduled" and saves at its next
    tick: the checkpoint then holds the whole transaction."""
    server = sluiced_factory()
    with server.client() as c, redis_server.client() as r:
        block = [("MULTI",), ("SET", "a", "1"), ("BGSAVE",), ("SET", "b", "2"), ("EXEC",)]
        assert [c.call_raw(*cmd) for cmd in block] == [r.call_raw(*cmd) for cmd in block]
        servers.wait_for(lambda: info_persistence(c)["last_checkpoint"],
                         "the scheduled BGSAVE to run", timeout=30)
        checkpoint = Path(wait_bgsave_done(c)["last_checkpoint"])
    assert server.terminate() == 0
    restored = sluiced_factory(data_dir=checkpoint)
    with restored.client() as c:
        assert c.call("MGET", "a", "b") == [b"1", b"2"]


def wal_bytes(server):
    return sum(f.stat().st_size for f in server.data_dir.glob("*.log"))


def test_bgrewriteaof_flushes_the_log_so_a_crash_replays_only_what_came_after(sluiced_factory,
                                                                              redis_server):
    """sluice's append-only file is the WAL: BGREWRITEAOF flushes the memtables to table
    files, after which the WAL that held the writes is deleted. A crash then loses nothing."""
    server = sluiced_factory()
    with server.client() as c:
        c.send(b"".join(servers.encode("SET", f"k{i}", "v" * 100) for i in range(2000)))
        for _ in range(2000):
            assert c.read() == "OK"
        logged = wal_bytes(server)
        assert logged > 2000 * 100
        assert info_persistence(c)["rocksdb_live_sst_bytes"] == "0"
        assert c.call("BGREWRITEAOF") == "Background append only file rewriting started"
        servers.wait_for(lambda: info_persistence(c)["aof_rewrite_in_progress"] == "0",
                         "the flush to finish", timeout=30)
        info = info_persistence(c)
        assert info["aof_rewrites"] == "1"
        assert int(info["rocksdb_live_sst_bytes"]) > 0
        assert c.call("CONFIG", "RESETSTAT") == "OK"  # a stat, reset as Redis resets it
        assert info_persistence(c)["aof_rewrites"] == "0"
        servers.wait_for(lambda: wal_bytes(server) < logged / 10, "the old WAL to go",
                         timeout=30)
        assert c.call("SET", "after", "1") == "OK"
        # Redis's replies for a wrong argument count and inside a transaction.
        with redis_server.client() as r:
            block = [("BGREWRITEAOF", "x"), ("MULTI",), ("SET", "a", "1"), ("BGREWRITEAOF",),
                     ("EXEC",)]
            assert [c.call_raw(*cmd) for cmd in block] == [r.call_raw(*cmd) for cmd in block]
    server.kill()
    restarted = sluiced_factory(data_dir=server.data_dir)
    with restarted.client() as c:
        assert c.call("DBSIZE") == 2002
        assert c.call("MGET", "k0", "k1999", "after", "a") == [b"v" * 100] * 2 + [b"1", b"1"]
