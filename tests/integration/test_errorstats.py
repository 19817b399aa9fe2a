"""INFO errorstats, total_error_replies and commandstats' rejected_calls / failed_calls against
redis-server: each case runs on a fresh connection to both servers, and what it added to those
counters must be the same (refusals, failures, errors inside MULTI/EXEC, and a script's errors:
its own, the ones it re-raises or returns from redis.call / redis.pcall, nested ones).
"""

import re

import pytest

from servers import RespClient

CASES = [
    [("NOSUCH",)], [("GET",)], [("INCR", "s")], [("HSET", "s", "f", "v")], [("AUTH", "x")],
    [("CONFIG", "NOSUCH")], [("CLIENT", "NOSUCH")], [("CONFIG", "GET")],
    [("CONFIG", "SET", "maxclients", "x")], [("EVALSHA", "0" * 40, "0")],
    [("EVAL", "return redis.call('INCR','s')", "0")],
    [("EVAL", "return redis.pcall('INCR','s')", "0")],
    [("EVAL", "return redis.error_reply('MYERR custom')", "0")], [("EVAL", "error('boom')", "0")],
    [("EVAL", "return redis.error_reply('MY:ERR custom')", "0")],  # errorstat_MY_ERR
    [("EVAL", "return redis.error_reply('MY#ERR custom')", "0")],
    [("EVAL", "return redis.call('NOSUCH')", "0")], [("EVAL", "return redis.pcall('NOSUCH')", "0")],
    [("EVAL", "return {err='NOPREFIX'}", "0")], [("EVAL", "return redis.call('GET')", "0")],
    [("EVAL", "return 1", "x")], [("EVAL", "redis.call('SET','k','v')", "0")],
    [("EVAL", "return pcall(redis.call,'INCR','s')", "0")],
    [("EVAL", "return {redis.pcall('INCR','s')}", "0")],
    [("EVAL", "return {1, {err='X y'}}", "0")], [("EVAL", "redis.setresp(4)", "0")],
    [("EVAL", "return redis.call('EVAL','return 1','0')", "0")],
    [("EVAL", "return redis.pcall('HSET','s','f','v')", "0")],
    [("EVAL", "local ok = redis.pcall('INCR','s') return 5", "0")],
    [("EVAL", "redis.pcall('INCR','s') error('after')", "0")],
    [("MULTI",), ("EVAL", "return redis.call('INCR','s')", "0"), ("EXEC",)],
    [("MULTI",), ("INCR", "s"), ("GET", "s"), ("EXEC",)], [("MULTI",), ("GET",), ("EXEC",)],
    [("MULTI",), ("SET", "a", "b", "EX", "x"), ("INCR", "s"), ("EXEC",)],
    [("MULTI",), ("CONFIG", "GET"), ("EXEC",)], [("MULTI",), ("EXEC", "x"), ("DISCARD",)],
    [("EXEC",)], [("DISCARD",)], [("MULTI",), ("MULTI",), ("DISCARD",)], [("WATCH",)],
    [("WATCH", "s"), ("MULTI",), ("WATCH", "s"), ("DISCARD",)], [("UNWATCH", "x")],
    [("ZADD", "z", "x", "m")], [("SUBSCRIBE", "c"), ("GET", "s"), ("RESET",)],
    [("EXPIRE", "s", "x")], [("SET", "s", "v", "EX", "0")], [("SET", "s", "v", "XX", "NX")],
    [("GETEX", "s", "PX", "-1")], [("OBJECT", "NOSUCH")], [("OBJECT", "FREQ", "s")],
    [("PING", "a", "b")], [("HELLO", "4")], [("HELLO", "3", "AUTH", "a", "b")],
    [("CLIENT", "REPLY", "X")], [("CLIENT", "KILL", "1.2.3.4:5")], [("CLIENT", "SETNAME", "a b")],
    [("SCRIPT", "FLUSH", "x")], [("SCRIPT", "KILL")], [("DEBUG", "NOSUCH")],
]

FIELD = re.compile(r"^(errorstat_\w+):count=(\d+)|^(total_error_replies):(\d+)|"
                   r"^cmdstat_(\S+):.*rejected_calls=(\d+),failed_calls=(\d+)")


def _counters(port):
    with RespClient(port) as c:
        info = c.call("INFO", "all").decode()
    counters = {}
    for line in info.splitlines():
        m = FIELD.match(line)
        if not m:
            continue
        if m.group(1):
            counters[m.group(1)] = int(m.group(2))
        elif m.group(3):
            counters["total"] = int(m.group(4))
        else:
            counters["rejected " + m.group(5)] = int(m.group(6))
            counters["failed " + m.group(5)] = int(m.group(7))
    return counters


def _added_by(port, case):
    with RespClient(port) as c:
        c.call("SET", "s", "v")
    before = _counters(port)
    with RespClient(port) as c:
        for cmd in case:
            c.call_raw(*cmd)
    after = _counters(port)
    added = {k: after.get(k, 0) - before.get(k, 0) for k in set(before) | set(after)}
    return {k: v for k, v in added.items() if v}


@pytest.mark.parametrize("case", CASES, ids=[" ".join(c[0] for c in case) for case in CASES])
def test_error_counters_move_as_redis(emptied_servers, case):
    redis_server, sluiced = emptied_servers
    assert _added_by(sluiced.port, case) == _added_by(redis_server.port, case)


def test_resetstat_clears_them_and_fails_nothing(redis_server, sluiced):
    for port in (redis_server.port, sluiced.port):
        with RespClient(port) as c:
            c.call_raw("INCR", "nothing-here-is", "x")
            c.call_raw("HSET", "h")
            assert c.call("CONFIG", "RESETSTAT") == "OK"
            c.call("PING")
        counters = _counters(port)
        assert counters["total"] == 0
        assert not [k for k, v in counters.items() if v and k != "total"], counters
