"""SLOWLOG against Redis 7.0: the same commands logged the same way (arguments cut at 32 and at
128 bytes, passwords redacted, EXEC left out but the commands it ran logged, a script's calls
with peer "?:0"), the same replies and errors from SLOWLOG and its directives; then a command
that is really slow, logged with its duration under the default threshold, and the time it
took counted in INFO commandstats."""

import time

import servers
from frozen_clock import Clock

LOGGED = [
    ("SET", "k", "v"),
    ("GET", "k"),
    ("SET", "long", "x" * 200),
    ("DEL", *[f"k{i}" for i in range(40)]),
    ("CLIENT", "SETNAME", "worker"),
    ("HELLO", "2", "AUTH", "default", "not-the-password"),  # refused by both, still logged
    ("AUTH", "not-the-password"),
    ("MULTI",),
    ("SET", "counter", "1"),
    ("INCR", "counter"),
    ("EXEC",),
    ("EVAL", "redis.call('set', KEYS[1], 'x'); return redis.call('get', KEYS[1])", "1", "s"),
    ("CONFIG", "SET", "slowlog-max-len", "128"),
]


def _logged_entries(server):
    """Every command of LOGGED sent to `server` with the slow log taking everything; then the
    log, oldest first, as (args, peer with the port taken out, client name)."""
    with server.client() as c:
        assert c.call("CONFIG", "SET", "slowlog-log-slower-than", "0") == "OK"
        assert c.call("SLOWLOG", "RESET") == "OK"
        for cmd in LOGGED:
            c.call(*cmd)
        entries = c.call("SLOWLOG", "GET", "-1")
        assert c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000") == "OK"
    ids = [entry[0] for entry in entries]
    assert ids == list(range(ids[0], ids[0] - len(ids), -1)), ids  # newest first, one apart
    now = time.time()
    seen = []
    for _, timestamp, duration, args, peer, name in reversed(entries):
        assert abs(timestamp - now) < 60 and duration >= 0, (timestamp, duration)
        host, _, port = peer.decode().rpartition(":")
        seen.append(([a.decode() for a in args], host if port != "0" else peer.decode(),
                     name.decode()))
    return seen


def test_slowlog_logs_commands_as_redis(sluiced, redis_server):
    ours = _logged_entries(sluiced)
    assert ours == _logged_entries(redis_server)
    logged = [args for args, _, _ in ours]
    assert logged[0] == ["SLOWLOG", "RESET"]
    assert ["SET", "long", "x" * 128 + "... (72 more bytes)"] in logged
    cut = next(args for args in logged if args[0] == "DEL")
    assert len(cut) == 32 and cut[-1] == "... (10 more arguments)"
    assert ["HELLO", "2", "AUTH", "(redacted)", "(redacted)"] in logged
    assert ["AUTH", "(redacted)"] in logged
    assert ["EXEC"] not in logged and ["INCR", "counter"] in logged
    from_script = [(args, peer, name) for args, peer, name in ours if peer == "?:0"]
    assert from_script == [(["set", "s", "x"], "?:0", ""), (["get", "s"], "?:0", "")]
    assert ("127.0.0.1", "worker") in {(peer, name) for _, peer, name in ours}


def test_slowlog_replies_and_errors_as_redis(diff):
    diff.check("CONFIG", "SET", "slowlog-log-slower-than", "-1")
    diff.check("SLOWLOG", "RESET")
    for cmd in [("SLOWLOG", "LEN"), ("SLOWLOG", "GET"), ("SLOWLOG", "GET", "0"),
                ("SLOWLOG", "GET", "-1"), ("SLOWLOG", "GET", "-2"), ("SLOWLOG", "GET", "x"),
                ("SLOWLOG", "GET", "1", "2"), ("SLOWLOG", "LEN", "x"), ("SLOWLOG", "FOO"),
                ("SLOWLOG",), ("SLOWLOG", "HELP"),
                ("CONFIG", "SET", "slowlog-log-slower-than", "-2"),
                ("CONFIG", "SET", "slowlog-max-len", "-1"),
                ("CONFIG", "SET", "slowlog-max-len", "many"),
                ("CONFIG", "GET", "slowlog-max-len"),
                ("CONFIG", "GET", "slowlog-log-slower-than")]:
        diff.check(*cmd)
    # slowlog-max-len 0 empties the log at the next command (while it logs).
    diff.check("CONFIG", "SET", "slowlog-log-slower-than", "0")
    diff.check("SLOWLOG", "RESET")
    diff.check("CONFIG", "SET", "slowlog-max-len", "0")
    diff.check("SLOWLOG", "LEN")
    diff.check("SLOWLOG", "GET")
    diff.check("CONFIG", "SET", "slowlog-max-len", "128")
    diff.check("CONFIG", "SET", "slowlog-log-slower-than", "10000")
    diff.assert_same()


def test_a_slow_command_is_logged_and_timed(debug_sluiced):
    with debug_sluiced.client() as c:
        clock = Clock(c)  # entries carry the server's time, the test clock's here
        assert c.call("CONFIG", "GET", "slowlog-log-slower-than") == [b"slowlog-log-slower-than",
                                                                       b"10000"]
        c.call("CONFIG", "RESETSTAT")
        assert c.call("SLOWLOG", "RESET") == "OK"
        # A command that takes 50 ms: the slow log is for exactly that.
        assert c.call("DEBUG", "SLEEP", "0.05") == "OK"
        [entry_id, timestamp, duration, args, peer, name] = next(
            entry for entry in c.call("SLOWLOG", "GET", "-1") if entry[3][0] == b"DEBUG")
        assert args == [b"DEBUG", b"SLEEP", b"0.05"]
        assert duration >= 50_000, duration
        assert timestamp == clock.t0 // 1000
        assert peer.decode().startswith("127.0.0.1:") and name == b""
        stats = servers.info_fields(c, "commandstats")
        calls, usec, per_call = (field.split("=")[1]
                                 for field in stats["cmdstat_debug"].split(",")[:3])
        assert calls == "1" and int(usec) >= 50_000 and float(per_call) >= 50_000.0
        # A shorter bound drops the oldest entries as the next command is logged (the CONFIG
        # SET itself here), so the DEBUG SLEEP is gone. (Durations are wall time: on a busy
        # machine the SLOWLOG GET or INFO above may pass 10 ms and be logged too, so the
        # entries are told by their arguments; ids only go on counting, one apart.)
        assert c.call("CONFIG", "SET", "slowlog-log-slower-than", "0") == "OK"
        assert c.call("CONFIG", "SET", "slowlog-max-len", "2") == "OK"
        assert c.call("SLOWLOG", "LEN") == 2  # then logged itself
        newest, older = c.call("SLOWLOG", "GET", "-1")
        assert (newest[3], older[3]) == ([b"SLOWLOG", b"LEN"],
                                         [b"CONFIG", b"SET", b"slowlog-max-len", b"2"])
        assert newest[0] == older[0] + 1 and older[0] >= entry_id + 2, (newest, older, entry_id)
