"""Disk trouble (contract section 7): on a full disk (a 16 MB tmpfs mounted for the test),
writes and PING answer -MISCONF, reads keep working, nothing acknowledged is lost, the daemon
never exits, INFO persistence shows the state, and writes resume by themselves once space is
free again. Skipped where this process may not mount a tmpfs."""

import os
import subprocess
import time
from pathlib import Path

import pytest

import servers

VALUE = b"v" * 64 * 1024


@pytest.fixture
def small_disk(tmp_path):
    """A 16 MB tmpfs of our own (unmounted afterwards); skips where mounting is refused."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root and CAP_SYS_ADMIN): "
                    f"{proc.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def fill(path, size):
    with open(path, "wb") as f:
        f.write(b"\0" * size)
        f.flush()
        os.fsync(f.fileno())


def info_persistence(c):
    text = c.call("INFO", "persistence").decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def write_until_misconf(c, limit=1000):
    """SETs of 64 KB, each followed by an INCR and an allowed RL.FIXEDWINDOW, until a reply is
    -MISCONF. Returns (acknowledged SET indexes, acknowledged INCR value, acknowledged RL
    count, the MISCONF reply)."""
    acked, counter, allowed = [], 0, 0
    for i in range(limit):
        c.send(servers.encode("SET", f"k{i}", VALUE) + servers.encode("INCR", "counter") +
               servers.encode("RL.FIXEDWINDOW", "rl", 1_000_000, 3_600_000))
        replies = [c.read() for _ in range(3)]
        if any(isinstance(r, servers.Error) for r in replies):
            # The batch failed as a whole: every write in it answers MISCONF.
            assert all(isinstance(r, servers.Error) and r.startswith("MISCONF")
                       for r in replies), replies
            return acked, counter, allowed, replies[0]
        assert replies[0] == "OK" and replies[1] == counter + 1 and replies[2][0] == 1, replies
        acked.append(i)
        counter += 1
        allowed += 1
    raise AssertionError(f"no MISCONF after {limit} writes of 64 KB on a 16 MB disk")


def check_everything_acknowledged_is_there(c, acked, counter, allowed):
    assert c.call("GET", "counter") == str(counter).encode()
    reply = c.call("RL.FIXEDWINDOW", "rl", 1_000_000, 3_600_000, "COST", 0)
    assert 1_000_000 - reply[2] == allowed, reply
    missing = [i for i in acked if c.call("EXISTS", f"k{i}") != 1]
    assert not missing, f"acknowledged keys lost: {missing[:10]} ({len(missing)})"


@pytest.mark.parametrize("mode", ["always", "everysec", "no"])
def test_full_disk_misconf_then_recovers_by_itself(sluiced_factory, small_disk, mode):
    filler = small_disk / "filler"
    fill(filler, 6 << 20)  # freed later: what lets RocksDB resume
    server = sluiced_factory(data_dir=small_disk / "data", appendfsync=mode)
    with server.client() as c:
        acked, counter, allowed, misconf = write_until_misconf(c)
        assert len(acked) > 10
        assert misconf.startswith("MISCONF "), misconf
        # Writes and PING are refused up front; reads still work.
        assert c.call("PING").startswith("MISCONF"), "PING must answer MISCONF"
        assert c.call("SET", "more", "x").startswith("MISCONF")
        assert c.call("INCR", "counter").startswith("MISCONF")
        assert c.call("GET", "counter") == str(counter).encode()
        assert c.call("STRLEN", f"k{acked[-1]}") == len(VALUE)
        assert c.call("EXISTS", "more") == 0
        reply = c.call("RL.FIXEDWINDOW", "rl", 1_000_000, 3_600_000)
        assert isinstance(reply, servers.Error) and reply.startswith("MISCONF"), reply
        info = info_persistence(c)
        assert info["aof_last_write_status"] == "err", info
        assert "No space left on device" in info["rocksdb_background_error"], info
        # A while later it is still up and still refusing writes (nothing retries into a
        # crash: the everysec WAL sync, the cron's resume attempts).
        time.sleep(2.5)
        assert c.call("PING").startswith("MISCONF")
        assert server.alive()

        filler.unlink()  # space comes back: writes resume by themselves
        deadline = time.monotonic() + 20
        while (reply := c.call("PING")) != "PONG":
            assert time.monotonic() < deadline, f"still {reply!r} 20 s after space came back"
            time.sleep(0.2)
        assert c.call("SET", "after", "1") == "OK"
        info = info_persistence(c)
        assert info["aof_last_write_status"] == "ok", info
        assert info["rocksdb_background_error"] == "none", info
        check_everything_acknowledged_is_there(c, acked, counter, allowed)
        assert c.call("EXISTS", "more") == 0  # refused writes never appear
    # kill -9 and restart: everything acknowledged before and after the trouble is there.
    server.kill()
    server.start()
    with server.client() as c:
        check_everything_acknowledged_is_there(c, acked, counter, allowed)
        assert c.call("GET", "after") == b"1"
        assert c.call("EXISTS", "more") == 0


def test_full_disk_clean_shutdown_and_restart(sluiced_factory, small_disk):
    """SIGTERM while the disk is full: exit 0, no crash, nothing acknowledged lost; the daemon
    starts again once there is room."""
    filler = small_disk / "filler"
    fill(filler, 6 << 20)
    server = sluiced_factory(data_dir=small_disk / "data")
    with server.client() as c:
        acked, counter, allowed, _ = write_until_misconf(c)
    assert server.terminate() == 0, server.stderr()
    filler.unlink()
    server.start()
    with server.client() as c:
        check_everything_acknowledged_is_there(c, acked, counter, allowed)
        assert c.call("SET", "after", "1") == "OK"


def test_rocksdb_log_on_a_full_disk_does_not_kill_the_daemon(sluiced_factory, small_disk):
    """RocksDB's own LOG lives on the same disk: lines it cannot write are dropped (its default
    logger would abort the process on the next line in Debian's build)."""
    filler = small_disk / "filler"
    fill(filler, 6 << 20)
    server = sluiced_factory(data_dir=small_disk / "data")
    with server.client() as c:
        write_until_misconf(c)
        for _ in range(20):  # resume attempts and INFO make RocksDB log more lines
            c.call("INFO")
            time.sleep(0.1)
        assert server.alive()
    assert (small_disk / "data" / "LOG").exists()


def test_flush_failure_on_a_full_disk(sluiced_factory, small_disk):
    """The WAL still fits but a memtable flush does not (SAVE flushes before its checkpoint):
    RocksDB stops writes on the flush error, writes and PING answer -MISCONF, reads work, and
    writes resume once there is room for the flush."""
    server = sluiced_factory(data_dir=small_disk / "data")
    with server.client() as c:
        c.send(b"".join(servers.encode("SET", f"k{i}", VALUE) for i in range(64)))
        assert all(c.read() == "OK" for _ in range(64))
        st = os.statvfs(small_disk)
        free = st.f_bavail * st.f_frsize
        filler = small_disk / "filler"
        fill(filler, free - (256 << 10))  # room for a few more WAL records, not for 4 MB of SST
        reply = c.call("SAVE")
        assert isinstance(reply, servers.Error), reply
        deadline = time.monotonic() + 10
        while not (reply := c.call("PING")).startswith("MISCONF"):
            assert time.monotonic() < deadline, f"PING still {reply!r} after a failed flush"
            time.sleep(0.1)
        assert c.call("SET", "more", "x").startswith("MISCONF")
        assert c.call("STRLEN", "k63") == len(VALUE)
        info = info_persistence(c)
        assert info["rocksdb_background_error"] != "none", info
        assert server.alive()
        filler.unlink()
        deadline = time.monotonic() + 20
        while (reply := c.call("PING")) != "PONG":
            assert time.monotonic() < deadline, f"still {reply!r} 20 s after space came back"
            time.sleep(0.2)
        assert c.call("SET", "after", "1") == "OK"
        assert c.call("SAVE") == "OK"
    server.kill()
    server.start()
    with server.client() as c:
        assert all(c.call("STRLEN", f"k{i}") == len(VALUE) for i in range(64))
        assert c.call("GET", "after") == b"1"
        assert c.call("EXISTS", "more") == 0
