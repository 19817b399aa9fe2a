"""Databases (SELECT, MOVE, COPY ... DB, FLUSHDB, INFO keyspace, `databases`): the same commands
sent to redis-server and sluiced and compared to the byte, in RESP2 and after HELLO 3, where
Redis has the behaviour; what sluice adds (persistence across restarts, the test clock's
expiry in every database, BLOCK's queues) on sluiced alone.

Nothing here depends on the wall clock: relative expiries are >= 100 s, TTL replies are
compared with differential.CLOCK_TOLERANCE, and expiry is moved with DEBUG CLOCK.
"""

import pytest

from differential import assert_command_info_as_redis
from frozen_clock import Clock
import servers


def _keyspace_lines(client):
    """INFO keyspace as {db: "keys=..,expires=.."} (avg_ttl left out: each server estimates it)."""
    lines = {}
    for name, value in servers.info_fields(client, "keyspace").items():
        if name.startswith("db"):
            lines[name] = ",".join(value.split(",")[:2])
    return lines


def test_select_keeps_keys_apart(diff):
    diff.run([
        ("SET", "k", "zero"), ("SELECT", "1"), ("GET", "k"), ("EXISTS", "k"), ("DBSIZE",),
        ("SET", "k", "one"), ("HSET", "h", "f", "v"), ("RPUSH", "l", "a", "b"),
        ("ZADD", "z", "1", "m"), ("SADD", "s", "x"), ("GET", "k"), ("DBSIZE",),
    ])
    diff.check("KEYS", "*", sort=True)
    diff.run([
        ("SELECT", "0"), ("GET", "k"), ("KEYS", "*"), ("DBSIZE",), ("HGETALL", "h"),
        ("SELECT", "15"), ("DBSIZE",), ("SELECT", "1"), ("HGETALL", "h"),
        ("LRANGE", "l", "0", "-1"), ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("SMEMBERS", "s"),
        ("TYPE", "h"), ("SCAN", "0", "MATCH", "k", "COUNT", "100"), ("SELECT", "0"),
        ("RANDOMKEY",),
    ])
    diff.assert_same()


@pytest.mark.parametrize("index", ["16", "-1", "abc", "1.5", "", "99999999999", "2147483648",
                                   "-2147483649", " 1", "01"])
def test_select_errors_as_redis(diff, index):
    diff.run([("SELECT", "1"), ("SET", "k", "one"), ("SELECT", index), ("GET", "k")])
    diff.assert_same()


def test_move(diff):
    diff.run([
        ("SET", "s", "v"), ("PEXPIRE", "s", "500000"), ("HSET", "h", "a", "1", "b", "2"),
        ("RPUSH", "l", "1", "2", "3"), ("ZADD", "z", "1", "a", "2", "b"), ("SADD", "set", "m"),
        ("SET", "big", "x" * 20000), ("SET", "taken", "here"),
        ("MOVE", "s", "3"), ("MOVE", "h", "3"), ("MOVE", "l", "3"), ("MOVE", "z", "3"),
        ("MOVE", "set", "3"), ("MOVE", "big", "3"), ("MOVE", "missing", "3"),
        ("MOVE", "taken", "0"), ("MOVE", "taken", "16"), ("MOVE", "taken", "x"),
        ("MOVE", "taken", "-1"), ("MOVE", "taken", "99999999999"),
        ("KEYS", "*"), ("SELECT", "3"), ("SET", "taken", "there"), ("SELECT", "0"),
        ("MOVE", "taken", "3"), ("GET", "taken"), ("SELECT", "3"),
        ("GET", "s"), ("HGETALL", "h"), ("LRANGE", "l", "0", "-1"),
        ("ZRANGE", "z", "0", "-1", "WITHSCORES"), ("SMEMBERS", "set"), ("STRLEN", "big"),
        ("GET", "taken"), ("HSET", "h", "c", "3"), ("HGETALL", "h"), ("LPOP", "l"),
        ("MOVE", "h", "0"), ("SELECT", "0"), ("HGETALL", "h"), ("DBSIZE",),
    ])
    diff.check("PTTL", "s", clock=True)
    diff.check("SELECT", "3")
    diff.check("PTTL", "s", clock=True)
    diff.assert_same()


def test_copy_to_another_database(diff):
    diff.run([
        ("HSET", "h", "a", "1"), ("SET", "s", "v"), ("EXPIRE", "s", "1000"),
        ("COPY", "h", "h", "DB", "2"), ("COPY", "h", "h"), ("COPY", "h", "h", "DB", "0"),
        ("COPY", "s", "t", "DB", "2"), ("COPY", "s", "t", "DB", "2"),
        ("COPY", "s", "t", "DB", "2", "REPLACE"), ("COPY", "s", "t", "DB", "16"),
        ("COPY", "s", "t", "DB", "x"), ("COPY", "missing", "t", "DB", "2"),
        ("HSET", "h", "b", "2"), ("SELECT", "2"), ("HGETALL", "h"), ("GET", "t"),
        ("HSET", "h", "c", "3"), ("SELECT", "0"), ("HGETALL", "h"),
    ])
    diff.check("SELECT", "2")
    diff.check("TTL", "t", clock=True)
    diff.assert_same()


def test_flushdb_and_flushall(diff):
    diff.run([
        ("SET", "a", "0"), ("SELECT", "1"), ("SET", "a", "1"), ("HSET", "h", "f", "v"),
        ("SELECT", "2"), ("SET", "a", "2"), ("SELECT", "1"), ("FLUSHDB",), ("DBSIZE",),
        ("HGETALL", "h"), ("SELECT", "2"), ("GET", "a"), ("SELECT", "0"), ("GET", "a"),
        ("FLUSHDB", "ASYNC"), ("GET", "a"), ("SELECT", "2"), ("GET", "a"), ("FLUSHALL",),
        ("GET", "a"), ("DBSIZE",),
    ])
    diff.assert_same()


def test_flushes_inside_a_transaction_and_a_script(diff):
    """The flush is one of the batch's writes: what the transaction or script wrote before it
    is gone, what it wrote after it stays, and its reads in between see the databases empty."""
    diff.run([
        ("SET", "a", "0"), ("HSET", "h", "f", "v"), ("SELECT", "1"), ("SET", "a", "1"),
        ("SELECT", "0"),
        ("MULTI",), ("SET", "b", "0"), ("FLUSHDB",), ("GET", "a"), ("HGETALL", "h"),
        ("DBSIZE",), ("KEYS", "*"), ("HSET", "h", "g", "w"), ("SET", "c", "0"), ("SELECT", "1"),
        ("GET", "a"), ("FLUSHALL",), ("GET", "a"), ("SET", "d", "1"), ("SELECT", "0"),
        ("DBSIZE",), ("EXEC",),
    ])
    diff.check("KEYS", "*", sort=True)
    diff.run([
        ("HGETALL", "h"), ("SELECT", "1"), ("KEYS", "*"), ("SELECT", "0"),
        ("SET", "a", "0"), ("RPUSH", "l", "x"),
        ("EVAL", "redis.call('set', 'e', '1') redis.call('flushall') "
                 "local before = {redis.call('get', 'a'), redis.call('dbsize'), "
                 "redis.call('lrange', 'l', 0, -1)} "
                 "redis.call('rpush', 'l', 'y') redis.call('set', 'a', 'after') "
                 "return {before, redis.call('lrange', 'l', 0, -1), redis.call('dbsize')}", "0"),
        ("GET", "a"), ("GET", "e"), ("LRANGE", "l", "0", "-1"),
    ])
    diff.check("KEYS", "*", sort=True)
    diff.assert_same()


def test_info_keyspace_lists_each_database(emptied_servers):
    lines = []
    for server in emptied_servers:
        with servers.RespClient(server.port) as client:
            for db, n, with_ttl in ((0, 2, 1), (3, 1, 0), (7, 4, 2)):
                assert client.call("SELECT", str(db)) == "OK"
                for i in range(n):
                    client.call("SET", f"k{i}", "v")
                for i in range(with_ttl):
                    client.call("EXPIRE", f"k{i}", "1000")
            assert client.call("SELECT", "9") == "OK"  # selected, but holds nothing
            lines.append(_keyspace_lines(client))
    assert lines[0] == lines[1] == {"db0": "keys=2,expires=1", "db3": "keys=1,expires=0",
                                    "db7": "keys=4,expires=2"}


def test_transaction_and_script_select(diff):
    diff.run([
        ("MULTI",), ("SELECT", "4"), ("SET", "k", "in 4"), ("EXEC",), ("GET", "k"),
        ("SELECT", "0"), ("GET", "k"),
        # A script's SELECT is its own: the caller stays where it was.
        ("EVAL", "redis.call('SELECT', 5); redis.call('SET', KEYS[1], 'in 5'); "
                 "return redis.call('GET', KEYS[1])", "1", "k"),
        ("GET", "k"), ("SELECT", "5"), ("GET", "k"),
        ("EVAL", "return redis.call('GET', KEYS[1])", "1", "k"),
        ("EVAL", "return redis.pcall('SELECT', 16)", "0"),
        ("EVAL", "return redis.pcall('SELECT', 'x')", "0"),
    ])
    diff.assert_same()


def test_watch_belongs_to_its_database(pair):
    a, b = pair
    for other_db, aborted in (("0", False), ("1", True)):
        a.run([("SELECT", "1"), ("SET", "k", "v"), ("WATCH", "k")])
        b.run([("SELECT", other_db), ("SET", "k", "changed")])
        a.run([("MULTI",), ("GET", "k"), ("EXEC",)])
    # FLUSHDB of another database leaves the watch alone; of the key's own, it breaks it.
    for flushed_db in ("0", "1"):
        a.run([("SET", "k", "v"), ("WATCH", "k")])
        b.run([("SELECT", flushed_db), ("FLUSHDB",)])
        a.run([("MULTI",), ("GET", "k"), ("EXEC",)])
    a.assert_same()
    b.assert_same()


def test_blocked_pop_wakes_only_in_its_database(emptied_servers):
    for server in emptied_servers:
        with servers.RespClient(server.port) as waiter, \
                servers.RespClient(server.port) as writer:
            assert waiter.call("SELECT", "2") == "OK"
            servers.send_until_blocked(writer, waiter, "BLPOP", "q", "0")
            assert writer.call("RPUSH", "q", "in 0") == 1
            assert servers.nothing_received(waiter)
            assert writer.call("SELECT", "2") == "OK"
            assert writer.call("RPUSH", "q", "in 2") == 1
            assert waiter.read() == [b"q", b"in 2"]
            assert writer.call("SELECT", "0") == "OK"
            assert writer.call("LRANGE", "q", "0", "-1") == [b"in 0"]


def test_client_list_and_monitor_show_the_database(sluiced):
    with sluiced.client() as c, sluiced.client() as monitor:
        assert c.call("SELECT", "6") == "OK"
        assert " db=6 " in c.call("CLIENT", "INFO").decode()
        assert monitor.call("MONITOR") == "OK"
        c.call("SET", "k", "v")
        line = monitor.read()
        assert " [6 127.0.0.1:" in line and line.endswith('"SET" "k" "v"'), line
        assert c.call("RESET") == "RESET"
        assert " db=0 " in c.call("CLIENT", "INFO").decode()


def test_swapdb(diff):
    diff.run([
        ("SET", "k", "zero"), ("HSET", "h", "f", "0"), ("SELECT", "1"), ("SET", "k", "one"),
        ("RPUSH", "only-in-1", "x"), ("SWAPDB", "0", "1"), ("GET", "k"), ("HGETALL", "h"),
        ("LRANGE", "only-in-1", "0", "-1"), ("SELECT", "0"), ("GET", "k"), ("DBSIZE",),
        ("LRANGE", "only-in-1", "0", "-1"), ("SWAPDB", "0", "0"), ("GET", "k"),
        ("SWAPDB", "0", "9"), ("DBSIZE",), ("SELECT", "9"), ("GET", "k"),
        ("SWAPDB", "0", "16"), ("SWAPDB", "-1", "0"), ("SWAPDB", "x", "0"), ("SWAPDB", "0", "y"),
        ("SWAPDB", "x", "y"), ("SWAPDB", "0", "99999999999"), ("SWAPDB", "0"),
        ("MULTI",), ("SWAPDB", "9", "3"), ("GET", "k"), ("EXEC",), ("GET", "k"),
        ("EVAL", "return redis.call('SWAPDB', 3, 9)", "0"), ("GET", "k"),
    ])
    diff.assert_same()


def test_swapdb_breaks_watches_of_keys_in_either_database(pair):
    a, b = pair
    # Watched in 1, present in 2 only (then in 1 only, then in neither): aborted, aborted, not.
    for setup in ([("SELECT", "2"), ("SET", "w", "v")], [("SELECT", "1"), ("SET", "w", "v")],
                  [("SELECT", "1")]):
        b.run([("FLUSHALL",)] + setup)
        a.run([("SELECT", "1"), ("WATCH", "w")])
        b.run([("SWAPDB", "1", "2")])
        a.run([("MULTI",), ("PING",), ("EXEC",)])
    a.assert_same()
    b.assert_same()


def test_swapdb_serves_clients_blocked_in_either_database(emptied_servers):
    for server in emptied_servers:
        with servers.RespClient(server.port) as waiter, \
                servers.RespClient(server.port) as writer:
            assert writer.call("SELECT", "4") == "OK"
            assert writer.call("RPUSH", "q", "from 4") == 1
            servers.send_until_blocked(writer, waiter, "BLPOP", "q", "0")
            assert writer.call("SWAPDB", "0", "4") == "OK"
            assert waiter.read() == [b"q", b"from 4"]


def test_command_info_as_redis(diff):
    assert_command_info_as_redis(diff, ["move", "select", "copy", "swapdb", "flushdb", "flushall"])


# --- sluiced alone ----------------------------------------------------------------------------

def test_databases_survive_a_restart_and_a_kill(sluiced_factory):
    sluiced = sluiced_factory()
    with sluiced.client() as c:
        for db in ("0", "3", "15"):
            assert c.call("SELECT", db) == "OK"
            assert c.call("SET", "k", f"in {db}") == "OK"
            assert c.call("HSET", "h", "db", db) == 1
        # Two swaps that cancel out, and one that does not: 3 and 7 trade (7 was empty).
        assert c.call("SWAPDB", "0", "15") == "OK"
        assert c.call("SWAPDB", "15", "0") == "OK"
        assert c.call("SWAPDB", "3", "7") == "OK"
        assert c.call("SWAPDB", "7", "3") == "OK"
    sluiced.kill()  # SIGKILL: acknowledged writes are in the WAL
    sluiced.start()
    with sluiced.client() as c:
        for db in ("0", "3", "15"):
            assert c.call("SELECT", db) == "OK"
            assert c.call("GET", "k") == f"in {db}".encode()
            assert c.call("HGET", "h", "db") == db.encode()
        assert c.call("SELECT", "1") == "OK"
        assert c.call("DBSIZE") == 0


def test_the_databases_directive(sluiced_factory, tmp_path):
    sluiced = sluiced_factory(databases="4")
    with sluiced.client() as c:
        assert c.call("CONFIG", "GET", "databases") == [b"databases", b"4"]
        assert c.call("SELECT", "3") == "OK"
        assert c.call("SET", "k", "v") == "OK"
        assert c.call("SELECT", "4") == servers.Error("ERR DB index is out of range")
        assert c.call("MOVE", "k", "4") == servers.Error("ERR DB index is out of range")
        assert c.call("CONFIG", "SET", "databases", "8").startswith("ERR")
    sluiced.stop("shutdown")
    # Fewer databases than the data holds: sluiced refuses to start, and says why.
    with pytest.raises(RuntimeError) as refused:
        sluiced_factory(data_dir=sluiced.data_dir, databases="2")
    assert "database 3" in str(refused.value)


def test_expiry_in_every_database(debug_sluiced):
    with debug_sluiced.client() as c:
        clock = Clock(c)
        for db in ("0", "1", "9"):
            assert c.call("SELECT", db) == "OK"
            assert c.call("SET", "gone", "v", "PX", "100") == "OK"
            assert c.call("SET", "kept", "v") == "OK"
        clock.advance(200)
        # The active cycle removes them without a read: DBSIZE counts what is stored.
        servers.wait_for(lambda: int(servers.info_fields(c, "stats")["expired_keys"]) == 3,
                         "the active cycle to expire a key in each database")
        for db in ("0", "1", "9"):
            assert c.call("SELECT", db) == "OK"
            assert c.call("DBSIZE") == 1


def test_limiters_are_per_database(debug_sluiced):
    with debug_sluiced.client() as c:
        Clock(c)
        first = c.call("RL.FIXEDWINDOW", "api", "1", "60000")
        assert c.call("RL.FIXEDWINDOW", "api", "1", "60000")[0] == 0  # refused: the limit is 1
        assert c.call("SELECT", "1") == "OK"
        assert c.call("RL.FIXEDWINDOW", "api", "1", "60000") == first  # a limiter of its own


def _shut_down_while_busy(sluiced, script):
    """Runs `script` (which never ends) until it is busy, then SHUTDOWN NOSAVE from another
    client; returns once sluiced has exited (0)."""
    runner = servers.RespClient(sluiced.port)
    other = servers.RespClient(sluiced.port)
    runner.send(servers.encode("EVAL", script, "0"))

    def busy():
        reply = other.call("PING")
        return isinstance(reply, servers.Error) and reply.startswith("BUSY")

    servers.wait_for(busy, "the script to be busy", timeout=20.0)
    other.send(servers.encode("SHUTDOWN", "NOSAVE"))
    with pytest.raises(servers.ConnectionClosed):
        other.read()
    assert sluiced.wait() == 0, sluiced.stderr()
    runner.close()
    other.close()


def test_a_busy_scripts_swapdb_does_not_persist_after_shutdown_nosave(sluiced_factory):
    """SWAPDB is a write like the others (contract section 7): a script's SWAPDB reaches the
    log with the script's batch, so SHUTDOWN NOSAVE while the script is busy leaves the
    databases as they were, as it leaves the script's other writes."""
    sluiced = sluiced_factory(lua_time_limit=100)
    with sluiced.client() as c:
        assert c.call("SET", "k", "in 0") == "OK"
        assert c.call("SELECT", "1") == "OK"
        assert c.call("SET", "k", "in 1") == "OK"
    _shut_down_while_busy(sluiced, "redis.call('swapdb', 0, 1) redis.call('set', 'w', '1') "
                                   "while true do end")
    sluiced.start()
    with sluiced.client() as c:
        assert c.call("GET", "w") is None
        assert c.call("GET", "k") == b"in 0"
        assert c.call("SELECT", "1") == "OK"
        assert c.call("GET", "k") == b"in 1"


@pytest.mark.parametrize("flush", ["flushdb", "flushall"])
def test_a_busy_scripts_flush_does_not_persist_after_shutdown_nosave(sluiced_factory, flush):
    """As the SWAPDB test above, for FLUSHDB and FLUSHALL: the flush is staged with the
    script's other writes, so none of them persists after SHUTDOWN NOSAVE (contract section
    7), while the script itself reads the databases as flushed."""
    sluiced = sluiced_factory(lua_time_limit=100)
    with sluiced.client() as c:
        assert c.call("SET", "k", "in 0") == "OK"
        assert c.call("HSET", "h", "f", "v") == 1
        assert c.call("SELECT", "1") == "OK"
        assert c.call("SET", "k", "in 1") == "OK"
    _shut_down_while_busy(sluiced, f"redis.call('{flush}') "
                                   "if redis.call('exists', 'k', 'h') ~= 0 then return end "
                                   "redis.call('set', 'w', '1') while true do end")
    sluiced.start()
    with sluiced.client() as c:
        assert c.call("GET", "w") is None
        assert c.call("GET", "k") == b"in 0"
        assert c.call("HGETALL", "h") == [b"f", b"v"]
        assert c.call("SELECT", "1") == "OK"
        assert c.call("GET", "k") == b"in 1"
