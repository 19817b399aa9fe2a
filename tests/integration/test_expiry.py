"""Expiry on the test clock (DEBUG CLOCK FREEZE/ADVANCE): TTLs count down with the clock, keys
vanish when it passes their time, TIME follows it, and compaction drops expired keys from disk.
Nothing sleeps: time moves only when a test moves it."""

import pytest

import servers

T0 = 1_700_000_000_000  # 2023-11-14T22:13:20Z in ms

DEBUG_NOT_ALLOWED = (
    b"-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "
    b"you can run it from a local connection, otherwise you need to set this option in the "
    b"configuration file, and then restart the server.\r\n")


@pytest.fixture
def frozen(debug_sluiced):
    """A client of a sluiced whose clock is frozen at T0."""
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"
        yield c


def advance(c, ms):
    assert c.call("DEBUG", "CLOCK", "ADVANCE", ms) == "OK"


def test_debug_clock_reports_the_frozen_time(frozen):
    assert frozen.call("DEBUG", "CLOCK") == T0
    assert frozen.call("DEBUG", "CLOCK") == T0  # frozen: it does not move by itself
    advance(frozen, 1)
    assert frozen.call("DEBUG", "CLOCK") == T0 + 1
    advance(frozen, 86_400_000)
    assert frozen.call("DEBUG", "CLOCK") == T0 + 1 + 86_400_000


def test_time_follows_the_test_clock(debug_sluiced):
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", T0 + 123) == "OK"
        assert c.call("TIME") == [b"1700000000", b"123000"]
        advance(c, 1500)
        assert c.call("TIME") == [b"1700000001", b"623000"]
        assert c.call("DEBUG", "CLOCK") == T0 + 1623


def test_freeze_now_and_resume(debug_sluiced):
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE") == "OK"
        frozen_at = c.call("DEBUG", "CLOCK")
        assert isinstance(frozen_at, int)
        assert c.call("TIME")[0] == str(frozen_at // 1000).encode()
        assert c.call("DEBUG", "CLOCK") == frozen_at
        assert c.call("DEBUG", "CLOCK", "RESUME") == "OK"
        assert c.call("DEBUG", "CLOCK") >= frozen_at


def test_debug_clock_errors_name_the_problem(debug_sluiced):
    """A bad value is refused with what is wrong with it, and the clock stays where it was.
    (Values past the microsecond clock's range said "must be a non-negative integer" until
    session 48.)"""
    big = 2**63 - 1
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "ADVANCE", 1) == (
            "ERR the clock is not frozen: use DEBUG CLOCK FREEZE first")
        assert c.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"
        assert c.call("DEBUG", "CLOCK", "FREEZE", -1) == "ERR unix_ms must be a non-negative integer"
        assert c.call("DEBUG", "CLOCK", "FREEZE", big) == "ERR unix_ms would overflow the clock"
        assert c.call("DEBUG", "CLOCK", "ADVANCE", "x") == "ERR ms must be a non-negative integer"
        assert c.call("DEBUG", "CLOCK", "ADVANCE", big) == "ERR ms would overflow the clock"
        assert c.call("DEBUG", "CLOCK", "ADVANCE", big // 1000 - T0 + 1) == (
            "ERR ms would overflow the clock")
        assert c.call("DEBUG", "CLOCK") == T0


def test_ttl_counts_down_with_the_clock(frozen):
    c = frozen
    assert c.call("SET", "a", "v", "PX", "1000") == "OK"
    assert c.call("SET", "b", "v", "EX", "10") == "OK"
    assert c.call("SET", "c", "v") == "OK"
    assert c.call("PTTL", "a") == 1000
    assert c.call("TTL", "b") == 10
    assert c.call("PEXPIRETIME", "a") == T0 + 1000
    assert c.call("EXPIRETIME", "b") == T0 // 1000 + 10
    advance(c, 400)
    assert c.call("PTTL", "a") == 600
    assert c.call("TTL", "a") == 1  # Redis rounds: (600 + 500) / 1000
    assert c.call("PTTL", "b") == 9600
    assert c.call("TTL", "b") == 10
    assert c.call("PEXPIRETIME", "a") == T0 + 1000  # absolute: does not move
    advance(c, 600)  # exactly at a's expiry time: Redis keeps it until now > when
    assert c.call("PTTL", "a") == 0
    assert c.call("GET", "a") == b"v"
    advance(c, 1)
    assert c.call("GET", "a") is None
    assert c.call("PTTL", "a") == -2
    assert c.call("TTL", "a") == -2
    assert c.call("EXISTS", "a", "b", "c") == 2
    advance(c, 9000)
    assert c.call("EXISTS", "b") == 0
    assert c.call("TTL", "c") == -1
    assert c.call("GET", "c") == b"v"
    assert c.call("KEYS", "*") == [b"c"]
    assert c.call("DBSIZE") == 1


def test_expired_keys_behave_as_missing(frozen):
    c = frozen
    for key in ("s", "n", "ap", "gs", "rn", "ex", "nx", "ty"):
        assert c.call("SET", key, "7", "PX", "50") == "OK"
    assert c.call("SET", "kept", "1") == "OK"
    advance(c, 51)
    assert c.call("MGET", "s", "kept") == [None, b"1"]
    assert c.call("INCR", "n") == 1
    assert c.call("TTL", "n") == -1  # a fresh key, not the old one with its TTL
    assert c.call("APPEND", "ap", "x") == 1
    assert c.call("GETSET", "gs", "new") is None
    assert c.call("RENAME", "rn", "other") == servers.Error("ERR no such key")
    assert c.call("EXPIRE", "ex", "100") == 0
    assert c.call("SET", "nx", "fresh", "NX") == "OK"
    assert c.call("GET", "nx") == b"fresh"
    assert c.call("TYPE", "ty") == "none"
    assert c.call("STRLEN", "ty") == 0
    assert c.call("SET", "xx", "1", "PX", "10") == "OK"
    advance(c, 11)
    assert c.call("SET", "xx", "2", "XX") is None
    assert sorted(c.call("KEYS", "*")) == [b"ap", b"gs", b"kept", b"n", b"nx"]


def test_expired_keys_counts_keys_a_read_found_expired(frozen):
    """INFO's expired_keys counts every key deleted as expired, as Redis: those a command found
    expired too, not only the active cycle's."""
    c = frozen
    assert c.call("CONFIG", "RESETSTAT") == "OK"
    for i in range(5):
        assert c.call("SET", f"k{i}", "v", "PX", "100") == "OK"
    # Read in the same pipeline as the clock moves: before any active cycle step can run.
    c.send(servers.encode("DEBUG", "CLOCK", "ADVANCE", "200") + servers.encode("GET", "k0") +
           servers.encode("EXISTS", "k1") + servers.encode("TTL", "k2"))
    assert [c.read() for _ in range(4)] == ["OK", None, 0, -2]
    expired = lambda: int(servers.info_fields(c, "stats")["expired_keys"])
    servers.wait_for(lambda: expired() == 5, "the active cycle to expire the last two")
    assert c.call("DBSIZE") == 0


def test_the_active_cycles_deletions_take_no_sync_of_their_own_under_always(sluiced_factory):
    """Deleting an expired key acknowledges nothing: under appendfsync always the active
    cycle's deletions go to the WAL unsynced (a step synced every 20 deletions before, holding
    the loop), and the next acknowledged write's sync takes them along."""
    server = sluiced_factory(enable_debug_command="yes", appendfsync="always")
    with server.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"
        keys = [f"k{i}" for i in range(300)]
        c.send(b"".join(servers.encode("SET", k, "v", "PX", "100") for k in keys))
        assert [c.read() for _ in keys] == ["OK"] * len(keys)
        persistence = lambda: servers.info_fields(c, "persistence")
        expired = lambda: int(servers.info_fields(c, "stats")["expired_keys"])
        before = persistence()
        advance(c, 200)
        servers.wait_for(lambda: expired() == len(keys), "the active cycle to expire every key")
        after = persistence()
        assert int(after["wal_commits"]) >= int(before["wal_commits"]) + len(keys) // 20
        assert after["wal_syncs"] == before["wal_syncs"]
        assert c.call("SET", "written", "v") == "OK"
        assert int(persistence()["wal_syncs"]) == int(before["wal_syncs"]) + 1
        assert c.call("DBSIZE") == 1


def test_keys_expire_as_of_exec_for_the_whole_transaction(frozen):
    """As Redis 7.0 fixes the expiry time while EXEC runs, every command of a transaction sees
    the same keys, however long it takes (here DEBUG CLOCK ADVANCE inside it); relative times
    (PTTL, PEXPIRE) still count from the moving clock, as Redis 7.0's do, scripts included."""
    c = frozen
    assert c.call("SET", "k", "v", "PX", "100") == "OK"
    assert c.call("SET", "p", "persistent") == "OK"
    assert c.call("RL.FIXEDWINDOW", "rl", 1, 100) == [1, 1, 0, -1, 100]
    block = [("GET", "k"), ("DEBUG", "CLOCK", "ADVANCE", "200"), ("GET", "k"), ("EXISTS", "k"),
             ("PTTL", "k"), ("SET", "k", "new", "NX"), ("PEXPIRE", "p", "1000"),
             ("EVAL", "return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1])}", "1",
              "k"),
             ("RL.FIXEDWINDOW", "rl", 1, 100)]
    assert c.call("MULTI") == "OK"
    for command in block:
        assert c.call(*command) == "QUEUED"
    replies = c.call("EXEC")
    assert replies[:8] == [b"v", "OK", b"v", 1, 0, None, 1, [b"v", 0]], replies
    # A limiter decides on the server clock, which moved: its window is over.
    assert replies[8] == [1, 1, 0, -1, 100]
    assert c.call("GET", "k") is None  # after EXEC, as of now
    assert c.call("PTTL", "p") == 1000, "PEXPIRE counted from the clock, not from EXEC's start"


def test_a_limiter_in_exec_sees_keys_as_of_exec_too(frozen):
    """Inside EXEC (and scripts) keys expire as of its start for the limiter commands too: a
    string live for the rest of the transaction is not replaced by a limiter."""
    c = frozen
    assert c.call("SET", "k", "5", "PX", "100") == "OK"
    assert c.call("MULTI") == "OK"
    for cmd in [("TYPE", "k"), ("DEBUG", "CLOCK", "ADVANCE", "200"), ("EXISTS", "k"),
                ("RL.FIXEDWINDOW", "k", "5", "1000"), ("TYPE", "k")]:
        assert c.call(*cmd) == "QUEUED"
    replies = c.call("EXEC")
    assert replies[:3] == ["string", "OK", 1]
    assert replies[3].startswith("WRONGTYPE"), replies
    assert replies[4] == "string"
    assert c.call("EXISTS", "k") == 0  # expired once EXEC is over


def test_a_compaction_inside_exec_keeps_what_exec_sees_live(frozen):
    """A compaction that starts while EXEC runs drops nothing EXEC still reads as live: a hash
    that expires after EXEC's start keeps its record and its fields until EXEC ends (the same
    holds for a script, whose expiry time is fixed at its start as well)."""
    c = frozen
    assert c.call("HSET", "h", "a", "1", "b", "2") == 2
    assert c.call("SET", "big", "x" * 20000, "PX", "1") == "OK"
    assert c.call("PEXPIRE", "h", "1") == 1
    assert c.call("MULTI") == "OK"
    for command in [("DEBUG", "CLOCK", "ADVANCE", "10"), ("DEBUG", "COMPACT"), ("HLEN", "h"),
                    ("HGETALL", "h"), ("STRLEN", "big"), ("GET", "big")]:
        assert c.call(*command) == "QUEUED"
    assert c.call("EXEC") == ["OK", "OK", 2, [b"a", b"1", b"b", b"2"], 20000, b"x" * 20000]
    assert c.call("EXISTS", "h", "big") == 0
    assert c.call("DEBUG", "COMPACT") == "OK"
    assert c.call("DEBUG", "RAWKEYS") == 0
    assert c.call("DEBUG", "RAWSUBKEYS") == 0


def test_a_compaction_before_a_batch_is_committed_keeps_what_it_revives(frozen):
    """A PEXPIRE or PERSIST staged for a key that expires before its batch is committed keeps
    the key alive: a compaction in between (in the same pipelined batch) must not drop its
    elements, or the key would come back with its count and none of them."""
    c = frozen
    long = b"y" * 65  # past the 64 bytes a list keeps in its record: its elements are sub-entries
    assert c.call("HSET", "h", "a", "1", "b", "2") == 2
    assert c.call("RPUSH", "l", "x", long) == 2
    assert c.call("PEXPIRE", "h", "1000") == 1
    assert c.call("PEXPIRE", "l", "1000") == 1
    c.send(servers.encode("PEXPIRE", "h", "100000") + servers.encode("PERSIST", "l")
           + servers.encode("DEBUG", "CLOCK", "ADVANCE", "2000")
           + servers.encode("DEBUG", "COMPACT"))
    assert [c.read() for _ in range(4)] == [1, 1, "OK", "OK"]
    assert c.call("HGETALL", "h") == [b"a", b"1", b"b", b"2"]
    assert c.call("PTTL", "h") == 98000
    assert c.call("LRANGE", "l", "0", "-1") == [b"x", long]
    assert c.call("DEBUG", "COMPACT") == "OK"
    assert c.call("DEBUG", "RAWSUBKEYS") == 4


def test_expire_commands_on_the_test_clock(frozen):
    c = frozen
    now_s = T0 // 1000
    assert c.call("SET", "k", "v") == "OK"
    assert c.call("EXPIREAT", "k", now_s + 5) == 1
    assert c.call("TTL", "k") == 5
    assert c.call("PTTL", "k") == 5000
    assert c.call("PEXPIREAT", "k", T0 + 2500, "LT") == 1
    assert c.call("PTTL", "k") == 2500
    assert c.call("SET", "k2", "v", "EXAT", now_s + 100) == "OK"
    assert c.call("TTL", "k2") == 100
    assert c.call("SET", "k3", "v", "PXAT", T0 + 1) == "OK"
    assert c.call("PTTL", "k3") == 1
    assert c.call("SET", "k4", "v", "PXAT", T0 - 1) == "OK"  # already past: gone at once
    assert c.call("EXISTS", "k4") == 0
    assert c.call("SET", "k5", "v") == "OK"
    assert c.call("PEXPIREAT", "k5", T0 - 1) == 1
    assert c.call("EXISTS", "k5") == 0
    assert c.call("SET", "k6", "v") == "OK"
    assert c.call("PEXPIREAT", "k6", T0) == 1  # not in the future: deleted, as Redis
    assert c.call("EXISTS", "k6") == 0
    assert c.call("SET", "p", "v", "PX", "100") == "OK"
    assert c.call("PERSIST", "p") == 1
    assert c.call("SET", "kt", "v", "PX", "100") == "OK"
    assert c.call("SET", "kt", "w", "KEEPTTL") == "OK"
    assert c.call("SET", "inc", "1", "PX", "100") == "OK"
    assert c.call("INCR", "inc") == 2
    advance(c, 100)
    assert c.call("PTTL", "kt") == 0 and c.call("PTTL", "inc") == 0
    advance(c, 1)
    assert c.call("GET", "p") == b"v"
    assert c.call("GET", "kt") is None
    assert c.call("GET", "inc") is None
    advance(c, 2500)
    assert c.call("EXISTS", "k", "k3") == 0
    assert c.call("TTL", "k2") == 97


def test_set_get_option_on_expired_key(frozen):
    c = frozen
    assert c.call("SET", "g", "old", "PX", "5") == "OK"
    advance(c, 6)
    assert c.call("SET", "g", "new", "GET") is None
    assert c.call("GETDEL", "g") == b"new"


def test_debug_refused_when_not_enabled(sluiced, redis_server):
    with sluiced.client() as s, redis_server.client() as r:
        for cmd in [("DEBUG", "CLOCK"), ("DEBUG", "CLOCK", "FREEZE"),
                    ("DEBUG", "CLOCK", "ADVANCE", "1000"), ("DEBUG", "RAWKEYS")]:
            assert s.call_raw(*cmd) == DEBUG_NOT_ALLOWED
            assert r.call_raw(*cmd) == DEBUG_NOT_ALLOWED  # the text is Redis 7.0's
        assert s.call("SET", "k", "v", "EX", "100") == "OK"
        assert s.call("TTL", "k") == 100  # and the clock was not touched


def test_debug_refused_before_authentication_as_redis(sluiced_factory, redis_factory):
    """With requirepass set and DEBUG not enabled, an unauthenticated DEBUG gets DEBUG's
    refusal, not NOAUTH: Redis 7.0 checks protected commands first."""
    sluiced = sluiced_factory(requirepass="pw")
    redis_server = redis_factory("--requirepass", "pw")
    with sluiced.client() as s, redis_server.client() as r:
        assert s.call_raw("DEBUG", "SLEEP", "0") == r.call_raw("DEBUG", "SLEEP", "0") \
            == DEBUG_NOT_ALLOWED
        assert s.call_raw("GET", "k") == r.call_raw("GET", "k") \
            == b"-NOAUTH Authentication required.\r\n"


def test_debug_local_allows_loopback_clients(sluiced_factory):
    server = sluiced_factory(enable_debug_command="local")
    with server.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"
        assert c.call("DEBUG", "CLOCK") == T0


def test_compaction_drops_expired_keys_from_disk(frozen):
    c = frozen
    expiring, persistent, long_lived = 1000, 10, 5
    batch = b"".join(servers.encode("SET", f"exp:{i}", "x" * 20, "PX", "1000")
                     for i in range(expiring))
    batch += b"".join(servers.encode("SET", f"keep:{i}", "v") for i in range(persistent))
    batch += b"".join(servers.encode("SET", f"long:{i}", "v", "PX", "100000")
                      for i in range(long_lived))
    c.send(batch)
    assert all(c.read() == "OK" for _ in range(expiring + persistent + long_lived))
    total = expiring + persistent + long_lived
    assert c.call("DEBUG", "RAWKEYS") >= total
    # ADVANCE and RAWKEYS in one send: answered back to back, so the expired keys are still on
    # disk when counted (nothing has read them, no compaction has run).
    c.send(servers.encode("DEBUG", "CLOCK", "ADVANCE", "2000") + servers.encode("DEBUG", "RAWKEYS"))
    assert c.read() == "OK"
    raw_before = c.read()
    assert raw_before >= expiring, "expired keys were gone from disk before any compaction"
    assert c.call("DEBUG", "COMPACT") == "OK"
    assert c.call("DEBUG", "RAWKEYS") == persistent + long_lived
    assert c.call("GET", "exp:0") is None
    assert c.call("GET", "keep:0") == b"v"
    assert c.call("PTTL", "long:0") == 98000
    assert c.call("DBSIZE") == persistent + long_lived


def test_keys_that_expire_again_and_again_are_counted_once_and_start_fresh(frozen):
    """A small expired record is not deleted but rewritten in place as swept (docs/notes.md,
    "Expired records are swept in place"): each expiry is still counted once, whether a read or
    the active cycle found it; the key reads as missing everywhere; written again, a limiter
    decides as for a new key; and a compaction drops what is left on disk."""
    c = frozen
    assert c.call("CONFIG", "RESETSTAT") == "OK"
    expired = lambda: int(servers.info_fields(c, "stats")["expired_keys"])
    strings = [f"s:{i}" for i in range(40)]
    limiters = [f"tb:{i}" for i in range(40)]
    for round_ in range(1, 4):
        c.send(b"".join(servers.encode("SET", k, "v", "PX", "100") for k in strings) +
               b"".join(servers.encode("RL.TOKENBUCKET", k, "10", "1", "100") for k in limiters))
        assert [c.read() for _ in strings] == ["OK"] * len(strings)
        # Each limiter decides as a new key would: the swept record of its last round is gone.
        assert [c.read()[:3] for _ in limiters] == [[1, 10, 9]] * len(limiters)
        assert c.call("DBSIZE") == len(strings) + len(limiters)
        # Half the strings are found expired by reads, in the same send as the clock moves
        # (before any step of the cycle can run); the cycle finds the rest.
        c.send(servers.encode("DEBUG", "CLOCK", "ADVANCE", "2000") +
               b"".join(servers.encode("GET", k) for k in strings[::2]))
        assert c.read() == "OK"
        assert [c.read() for _ in strings[::2]] == [None] * len(strings[::2])
        counted = round_ * (len(strings) + len(limiters))
        servers.wait_for(lambda: expired() >= counted, "the active cycle to find the rest")
        assert expired() == counted
        assert c.call("DBSIZE") == 0
        assert c.call("KEYS", "*") == []
        assert _scan_all(c, "TYPE", "string") == []
        assert c.call("EXISTS", *strings, *limiters) == 0
        assert c.call("GET", strings[1]) is None
        assert expired() == counted  # found again, counted once
    assert c.call("DEBUG", "COMPACT") == "OK"
    assert c.call("DEBUG", "RAWKEYS") == 0


def _scan_all(c, *options):
    """Every key a full SCAN returns, page after page."""
    cursor, keys = b"0", []
    while True:
        cursor, page = c.call("SCAN", cursor, *options)
        keys += page
        if cursor == b"0":
            return keys
