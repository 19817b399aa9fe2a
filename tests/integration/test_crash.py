"""Crash consistency: the kill -9 tool (tests/crash/crash_test.py) in every appendfsync mode,
and, for appendfsync always, a syscall trace proving that every reply acknowledging a write
is sent only after the WAL was written and fdatasync'ed."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import servers

CRASH_TOOL = Path(__file__).resolve().parent.parent / "crash" / "crash_test.py"


def load_crash_tool(monkeypatch):
    spec = importlib.util.spec_from_file_location("crash_test", CRASH_TOOL)
    tool = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "crash_test", tool)
    spec.loader.exec_module(tool)
    return tool


def acked_writes_checked(tool, runs):
    """The tool's ModeRun, also failing a check when no write was acknowledged since the previous
    one (before the kill -9 or the clean stop it follows): with nothing acknowledged, "nothing
    acknowledged was lost" proves nothing. Each run is appended to `runs`."""

    class AckedWritesRun(tool.ModeRun):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.acked_writes = []  # per check, in order
            # Per check: WAL files the restarted server started as zeroed files (appendfsync
            # always), so the kills after the first hit zeroed WALs.
            self.zeroed_wals = []
            self._mark()
            runs.append(self)

        def _mark(self):
            self._since = [(s.counter, s.pairs, s.seq_acked) for s in self.states]

        def _acked_writes(self):
            # Replies come in order, so every INCR, EXEC and SET up to the last acknowledged
            # one was acknowledged; a limiter decision writes only when it allows.
            return sum((s.counter - counter) + (s.pairs - pairs) + (s.seq_acked - seq) +
                       sum(s.allowed_acked.values())
                       for s, (counter, pairs, seq) in zip(self.states, self._since))

        def check(self, c, after):
            writes = self._acked_writes()  # before the check resets what the clients saw
            super().check(c, after)
            self.acked_writes.append(writes)
            self.zeroed_wals.append(
                int(servers.info_fields(c, "persistence")["wal_zeroed_files_used"]))
            self._expect(writes > 0, f"no write was acknowledged before {after}")
            self._mark()

    return AckedWritesRun


def test_kill_9_at_random_moments_loses_nothing_acknowledged(tmp_path, capsys, monkeypatch):
    """Several clients (INCR, MULTI/EXEC pairs, SET, RL.FIXEDWINDOW and RL.SLIDINGLOG with known
    limits), kill -9 at random moments, restarts on the same dir, in every appendfsync mode:
    no acknowledged write is lost, and no limiter admits more than its limit over the kills.
    Each kill comes after acknowledged writes (checked), so each has something to lose. Under
    always every server writes a WAL that started as a zeroed file (storage/zeroed_wal.h), so
    the restarts recover from WAL files whose records are followed by zeros."""
    modes, kills = ["always", "everysec", "no"], 4
    tool = load_crash_tool(monkeypatch)
    runs = []
    monkeypatch.setattr(tool, "ModeRun", acked_writes_checked(tool, runs))
    monkeypatch.setenv("SLUICED", servers.sluiced_path())  # the tool sets it; restored after
    code = tool.main(["--sluiced", servers.sluiced_path(), "--modes", ",".join(modes),
                      "--kills", str(kills), "--clients", "4", "--min-run", "0.3",
                      "--max-run", "1.5", "--workdir", str(tmp_path)])
    out = capsys.readouterr().out
    with capsys.disabled():  # the figures belong in the CI log even when the test passes
        print("\n" + out.strip())
        for run in runs:
            print(f"appendfsync {run.mode}: writes acknowledged before each kill -9, then "
                  f"before the clean stop: {run.acked_writes}")
    assert code == 0, out
    assert "0 failed mode(s)" in out
    assert [run.mode for run in runs] == modes
    for run in runs:
        assert len(run.acked_writes) == kills + 1 and min(run.acked_writes) > 0, \
            (run.mode, run.acked_writes)
        if run.mode == "always":
            assert min(run.zeroed_wals) >= 1, run.zeroed_wals
        else:
            assert max(run.zeroed_wals) == 0, (run.mode, run.zeroed_wals)


# --- appendfsync always under strace -----------------------------------------------------------

TRACED_CALLS = "write,writev,pwrite64,pwritev,fdatasync,fsync,sendto,sendmsg"
# "1234 name(args) = ret", "1234 name(args <unfinished ...>", "1234 <... name resumed>...".
CALL_RE = re.compile(r"^(\d+) +(\w+)\((.*)$")
RESUMED_RE = re.compile(r"^(\d+) +<\.\.\. (\w+) resumed>")
FD_RE = re.compile(r"^(\d+)<([^>]*)>")
PAYLOAD_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
ESCAPES = {"r": b"\r", "n": b"\n", "t": b"\t", "v": b"\v", "f": b"\f", '"': b'"', "\\": b"\\"}


def _ptrace_permitted():
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace)"
    proc = subprocess.run(["strace", "-f", "-o", os.devnull, "true"], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        return f"ptrace is not permitted here: {proc.stderr.strip()}"
    return None


class TracedSluiced(servers.Sluiced):
    """sluiced run under strace, its trace in a file."""

    def __init__(self, workdir, trace_path, **directives):
        super().__init__(workdir, **directives)
        self.trace_path = trace_path

    def _command(self):
        return ["strace", "-f", "-qq", "-yy", "-s", "65536", "-e", f"trace={TRACED_CALLS}",
                "-o", str(self.trace_path), "--"] + super()._command()


def unescape(text):
    """The bytes of a string as strace prints it (C escapes, octal \\ooo, hex \\xNN)."""
    out = bytearray()
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out += ch.encode()
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in ESCAPES:
            out += ESCAPES[nxt]
            i += 2
        elif nxt == "x":
            out.append(int(text[i + 2:i + 4], 16))
            i += 4
        else:
            digits = re.match(r"[0-7]{1,3}", text[i + 1:]).group(0)
            out.append(int(digits, 8))
            i += 1 + len(digits)
    return bytes(out)


def count_write_acks(payload):
    """Top-level replies in a send that acknowledge a write: +OK, an integer (INCR), or a
    limiter reply whose first field is 1 (allowed: counted and written). A refused limiter
    decision writes nothing."""
    acks = 0
    pos = 0

    def skip():  # one RESP2 value starting at pos; returns its first integer field if any
        nonlocal pos
        end = payload.index(b"\r\n", pos)
        kind, rest = payload[pos:pos + 1], payload[pos + 1:end]
        pos = end + 2
        if kind == b"$" and int(rest) >= 0:
            pos += int(rest) + 2
        elif kind == b"*":
            first = None
            for k in range(int(rest)):
                value = skip()
                if k == 0:
                    first = value
            return first
        return int(rest) if kind == b":" else rest

    while pos < len(payload):
        kind = payload[pos:pos + 1]
        value = skip()
        if (kind == b"+" and value == b"OK") or kind == b":" or (kind == b"*" and value == 1):
            acks += 1
    return acks


def threads_of(path, data_dir):
    """(threads that sent replies, threads that synced a WAL file, threads that synced the
    data directory) in a trace."""
    senders, syncers, dir_syncers = set(), set(), set()
    for line in Path(path).read_text(errors="replace").splitlines():
        m = CALL_RE.match(line)
        fd = FD_RE.match(m.group(3)) if m else None
        if not fd:
            continue
        tid, name, target = m.group(1), m.group(2), fd.group(2)
        if name in ("sendto", "sendmsg", "write", "writev") and target.startswith("TCP:"):
            senders.add(tid)
        elif name in ("fdatasync", "fsync") and target.endswith(".log"):
            syncers.add(tid)
        elif name in ("fdatasync", "fsync") and target == str(data_dir):
            dir_syncers.add(tid)
    return senders, syncers, dir_syncers


def parse_trace(path, acknowledges=lambda payload: True):
    """[(kind, detail)] in completion order: ("wal_write", fd), ("wal_sync", writes),
    ("ack_send", n_acks). Calls split by strace (<unfinished ...>) count where they resume;
    a sync's `writes` is how many WAL writes had completed when it started, the ones it
    covers (the WAL syncer's thread syncs while the loop thread goes on writing). A WAL write
    whose bytes `acknowledges` says no client waits for (the expiry cycle's deletions) is
    left out: nothing has to sync it before a reply."""
    events = []
    pending = {}
    writes_done = 0

    def complete(event):
        nonlocal writes_done
        events.append(event)
        writes_done += event[0] == "wal_write"

    for line in Path(path).read_text(errors="replace").splitlines():
        m = RESUMED_RE.match(line)
        if m:
            start = pending.pop((m.group(1), m.group(2)), None)
            if start is not None:
                complete(start)
            continue
        m = CALL_RE.match(line)
        if not m:
            continue
        tid, name, rest = m.groups()
        fd = FD_RE.match(rest)
        if not fd:
            continue
        target = fd.group(2)
        if name in ("write", "writev", "pwrite64", "pwritev") and target.endswith(".log"):
            payload = PAYLOAD_RE.search(rest)
            if payload and not acknowledges(unescape(payload.group(1))):
                continue
            event = ("wal_write", target)
        elif name in ("fdatasync", "fsync") and target.endswith(".log"):
            event = ("wal_sync", writes_done)
        elif name in ("sendto", "sendmsg", "write", "writev") and target.startswith("TCP:"):
            payload = PAYLOAD_RE.search(rest)
            acks = count_write_acks(unescape(payload.group(1))) if payload else 0
            if acks == 0:
                continue
            # A send is checked where it starts: everything before it must be done.
            events.append(("ack_send", acks))
            continue
        else:
            continue
        if rest.endswith("<unfinished ...>"):
            pending[(tid, name)] = event
        else:
            complete(event)
    return events


def check_acks_follow_wal_sync(events):
    """Every reply that acknowledges a write follows a WAL write since the previous such reply,
    and every WAL write before it was covered by an fdatasync (fsync) that started after the
    write and finished before the reply. Returns the number of acknowledgements checked."""
    writes = 0
    synced = 0  # how many of the first WAL writes a finished sync covers
    write_since_ack = False
    acks = 0
    for i, (kind, detail) in enumerate(events):
        if kind == "wal_write":
            writes += 1
            write_since_ack = True
        elif kind == "wal_sync":
            synced = max(synced, detail)
        else:
            unsynced_write = synced < writes
            assert write_since_ack, f"event {i}: a reply acknowledging {detail} write(s) was " \
                                    "sent without a WAL write since the previous one"
            assert not unsynced_write, f"event {i}: a reply acknowledging {detail} write(s) " \
                                       "was sent before the WAL write was synced"
            write_since_ack = False
            acks += detail
    return acks


@pytest.mark.parametrize("mode", ["always", "everysec"])
def test_appendfsync_always_syncs_the_wal_before_every_acknowledgement(tmp_path, mode):
    """appendfsync always: the trace shows WAL write, fdatasync, then the reply, for every
    acknowledged write. appendfsync everysec is traced the same way to prove that the check
    can fail: there the replies go out before any sync."""
    reason = _ptrace_permitted()
    if reason:
        pytest.skip(reason)
    trace = tmp_path / "strace.txt"
    workdir = tmp_path / "sluiced"
    workdir.mkdir()
    server = TracedSluiced(workdir, trace, appendfsync=mode, enable_debug_command="yes")
    # LeakSanitizer cannot run under ptrace; the other sanitizers still do.
    asan = os.environ.get("ASAN_OPTIONS", "")
    os.environ["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "detect_leaks=0"
    try:
        server.start()
    finally:
        if asan:
            os.environ["ASAN_OPTIONS"] = asan
        else:
            del os.environ["ASAN_OPTIONS"]
    sent = 0
    try:
        with server.client() as one, server.client() as piped:
            # The writes below run while the active expiry cycle works through a backlog.
            # Under always its deletions reach the WAL with no sync of their own, but a step
            # that runs after a session staged its writes (a session yields to the loop before
            # its commit) commits those writes too, and must sync them: every acknowledgement
            # still needs a sync covering every WAL write before it. (DEBUG's +OK reads as an
            # acknowledgement here; each goes out in the same send as the replies to writes.)
            expiring, chunk = 30000, 5000  # a send's replies stay within strace's -s 65536
            for first in range(0, expiring, chunk):
                freeze = servers.encode("DEBUG", "CLOCK", "FREEZE", "1700000000000")
                piped.send((freeze if first == 0 else b"") + b"".join(
                    servers.encode("SET", f"x{i}", "v", "PX", "100")
                    for i in range(first, first + chunk)))
                replies = chunk + (first == 0)
                assert [piped.read() for _ in range(replies)] == ["OK"] * replies
                sent += replies
            piped.send(servers.encode("DEBUG", "CLOCK", "ADVANCE", "200") +
                       servers.encode("SET", "advanced", "v"))
            assert [piped.read(), piped.read()] == ["OK", "OK"]
            sent += 2
            for i in range(100):  # one write per round trip
                assert one.call("INCR", "counter") == i + 1
                sent += 1
            for batch in range(20):  # pipelined: one WAL write and sync per batch
                cmds = [servers.encode("INCR", "piped") if j % 2 else
                        servers.encode("SET", f"k{batch}:{j}", "v") for j in range(25)]
                piped.send(b"".join(cmds))
                for j in range(25):
                    reply = piped.read()
                    assert reply == ("OK" if j % 2 == 0 else batch * 12 + (j + 1) // 2), reply
                sent += 25
                allowed = one.call("RL.FIXEDWINDOW", "rl", 10, 60000)[0]
                assert allowed == (1 if batch < 10 else 0)
                sent += allowed  # a refused decision writes nothing
            servers.wait_for(
                lambda: int(servers.info_fields(one, "stats")["expired_keys"]) == expiring,
                "the active cycle to delete the expired keys", timeout=60)
            if mode == "everysec":  # one timed sync at least, before the one at shutdown
                servers.wait_for(lambda: int(servers.info_fields(one)["wal_syncs"]) >= 1,
                                 "a timed WAL sync")
        assert server.shutdown() == 0
    finally:
        server.cleanup()
    # After the clock moved, a WAL write that holds none of the keys written below is the
    # expiry cycle's alone (its deletions of the x keys). A record's key follows its length.
    written = re.compile(rb"\x07counter|\x05piped|\x02rl|\x08advanced|[\x04-\x06]k[0-9]+:[0-9]+")
    moved = False

    def acknowledges(payload):
        nonlocal moved
        if b"advanced" in payload:
            moved = True
        return not moved or written.search(payload) is not None

    events = parse_trace(trace, acknowledges)
    syncs = sum(1 for kind, _ in events if kind == "wal_sync")
    if mode == "everysec":
        with pytest.raises(AssertionError, match="before the WAL write was synced"):
            check_acks_follow_wal_sync(events)
        assert syncs < 20, f"{syncs} WAL syncs under appendfsync everysec"
        # The once-a-second sync runs off the event loop (the thread that sends replies),
        # which only syncs at shutdown.
        loop, syncing, dir_syncing = threads_of(trace, server.data_dir.resolve())
        assert syncing - loop, f"every WAL sync ran on the event loop {loop}: {syncing}"
        # Its first sync finds a WAL file it has not synced before, so it syncs the directory
        # too (a new file is only on disk once its directory entry is).
        assert dir_syncing & (syncing - loop), \
            f"the WAL syncer {syncing - loop} never synced the data directory ({dir_syncing})"
        return
    acks = check_acks_follow_wal_sync(events)
    # Every acknowledgement was seen in the trace (the parser missed no send).
    assert acks == sent, f"found {acks} acknowledgements in the trace, sent {sent} writes"
    assert syncs >= 100 + 20 + 10  # one per round trip, per pipelined batch, per allowed RL
