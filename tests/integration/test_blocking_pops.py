"""Blocking pops: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP, and LMPOP/ZMPOP.

Where Redis 7.0 has the behaviour, the same commands go to redis-server and sluiced and the reply
bytes are compared (RESP2 and RESP3): immediate answers, errors, MULTI/EXEC and scripts, and
what a blocked client gets when another one pushes. Those servers run on the real clock: the
null replies of short timeouts (10 ms) are compared as they come. Deadlines and their
interplay with the test clock are sluice's own (DEBUG CLOCK moves them; Redis's timeouts are
wall-clock): those tests freeze sluiced's clock and move it by hand, never sleeping.

Several connections are involved and a server reads them in whatever order their bytes arrive,
so a test that blocks a client waits (polling INFO, bounded) until the server counts it
blocked before another client pushes.
"""

import socket

import pytest

import servers
from differential import Differ


class Pair:
    """Connections to redis-server and sluiced side by side: `d[i]` is a Differ (one connection
    to each). block() sends a command on one without reading; answer() reads what came."""

    def __init__(self, redis_port, sluiced_port, protocol, n):
        self.d = [Differ(redis_port, sluiced_port, protocol=protocol) for _ in range(n)]
        self.protocol = protocol
        self.mismatches = []

    def close(self):
        for d in self.d:
            d.close()

    def blocked(self):
        probe = self.d[-1]
        return servers.blocked_clients(probe.redis), servers.blocked_clients(probe.sluice)

    def block(self, i, *cmd):
        """Send cmd on connection i; wait until both servers count one more blocked client."""
        before = self.blocked()
        self.d[i].redis.send(servers.encode(*cmd))
        self.d[i].sluice.send(servers.encode(*cmd))
        want = (before[0] + 1, before[1] + 1)
        servers.wait_for(lambda: self.blocked() == want, f"{cmd} to block on both servers")

    def answer(self, i):
        """Read the next reply on connection i from both servers and compare the bytes."""
        rv, rraw = self.d[i].redis.read_reply_raw()
        _, sraw = self.d[i].sluice.read_reply_raw()
        if rraw != sraw:
            self.mismatches.append((i, rraw, sraw))
        return rv

    def waiting(self, i):
        return all(servers.nothing_received(conn) for conn in (self.d[i].redis, self.d[i].sluice))

    def assert_same(self):
        for d in self.d:
            d.assert_same()
        assert not self.mismatches, self.mismatches


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def trio(request, emptied_servers):
    redis_server, sluiced = emptied_servers
    p = Pair(redis_server.port, sluiced.port, request.param, 4)
    yield p
    p.close()


# ---- Immediate answers, errors, transactions and scripts (one connection) ------------------


def test_blocking_pops_answer_at_once_when_a_key_holds_data(diff):
    diff.run([
        ("RPUSH", "l1", "a", "b", "c"), ("RPUSH", "l2", "x", "y"),
        ("BLPOP", "nokey", "l1", "l2", "0"), ("BRPOP", "nokey", "l2", "l1", "0"),
        ("BLPOP", "l2", "1"), ("EXISTS", "l2"), ("BRPOP", "l1", "0.5"),
        ("BLMOVE", "l1", "d", "LEFT", "RIGHT", "0"), ("BRPOPLPUSH", "d", "d2", "0"),
        ("BLMOVE", "d2", "d2", "right", "left", "0"), ("LRANGE", "d2", "0", "-1"),
        ("RPUSH", "m", "1", "2", "3", "4"), ("LMPOP", "2", "nokey", "m", "RIGHT", "COUNT", "3"),
        ("LMPOP", "1", "m", "left", "count", "9"), ("LMPOP", "1", "m", "left"),
        ("RPUSH", "m", "1", "2"), ("BLMPOP", "0", "2", "m", "nokey", "LEFT"),
        ("BLMPOP", "0", "1", "m", "RIGHT", "COUNT", "5"), ("EXISTS", "m"),
        ("ZADD", "z", "1", "a", "2", "b", "3", "c", "4.5", "d"),
        ("BZPOPMIN", "nokey", "z", "0"), ("BZPOPMAX", "z", "0"),
        ("ZADD", "z2", "-1", "m"), ("BZPOPMIN", "z2", "z", "0"), ("EXISTS", "z2"),
        ("ZMPOP", "2", "nokey", "z", "MAX"), ("ZADD", "z", "1", "a", "2", "b", "3", "c"),
        ("ZMPOP", "1", "z", "min", "COUNT", "2"), ("BZMPOP", "0", "1", "z", "MAX", "COUNT", "10"),
        ("ZMPOP", "1", "z", "MIN"), ("LMPOP", "2", "nokey", "z", "LEFT"),
        ("ZADD", "z", "1", "a"), ("BZMPOP", "0", "1", "z", "MIN"), ("EXISTS", "z"),
    ])
    diff.assert_same()


def test_errors_as_redis(diff):
    cmds = [("SET", "s", "v"), ("RPUSH", "l", "a"), ("ZADD", "z", "1", "m")]
    for timeout in ["abc", "-1", "-0.002", "-0.5", "nan", "inf", "-inf", "1e30", "1e400", " 1",
                    "", "1 ", "9223372036854775.808", "9223372036854776", "0x"]:
        cmds += [("BLPOP", "l", timeout), ("BZPOPMIN", "nokey", timeout),
                 ("BLMOVE", "l", "d", "LEFT", "LEFT", timeout), ("BRPOPLPUSH", "l", "d", timeout),
                 ("BLMPOP", timeout, "1", "l", "LEFT"), ("BZMPOP", timeout, "1", "z", "MIN")]
    cmds += [
        # WRONGTYPE: a key of another type before one with data; after it, never looked at.
        ("BLPOP", "s", "l", "0"), ("BLPOP", "z", "0"), ("BZPOPMAX", "l", "z", "0"),
        ("BRPOP", "nokey", "s", "0"), ("RPUSH", "l", "b"), ("BLPOP", "l", "s", "0"),
        ("BLMOVE", "s", "d", "LEFT", "LEFT", "0"), ("BLMOVE", "l", "s", "LEFT", "LEFT", "0"),
        ("LRANGE", "l", "0", "-1"), ("BRPOPLPUSH", "l", "z", "0"), ("LMPOP", "2", "s", "l", "LEFT"),
        ("ZMPOP", "1", "s", "MIN"), ("BZMPOP", "0", "2", "l", "z", "MAX"),
        ("LMPOP", "1", "z", "left"),
        # numkeys, the end, COUNT
        ("LMPOP", "0", "l", "LEFT"), ("LMPOP", "-1", "l", "LEFT"), ("LMPOP", "abc", "l", "LEFT"),
        ("LMPOP", "2", "l", "LEFT"), ("LMPOP", "3", "l", "LEFT"),
        ("LMPOP", "9223372036854775807", "l", "LEFT"), ("LMPOP", "9223372036854775808", "l", "x"),
        ("LMPOP", "1", "l", "MIDDLE"), ("LMPOP", "1", "l", "LEFT", "COUNT"),
        ("LMPOP", "1", "l", "LEFT", "COUNT", "0"), ("LMPOP", "1", "l", "LEFT", "COUNT", "-1"),
        ("LMPOP", "1", "l", "LEFT", "COUNT", "x"),
        ("LMPOP", "1", "l", "LEFT", "COUNT", "1", "COUNT", "2"),
        ("LMPOP", "1", "l", "LEFT", "FOO"), ("LMPOP", "1", "l", "LEFT", "COUNT", "1", "x"),
        ("ZMPOP", "0", "z", "MIN"), ("ZMPOP", "1", "z", "LEFT"), ("ZMPOP", "2", "z", "MIN"),
        ("ZMPOP", "1", "z", "MIN", "COUNT", "0"), ("ZMPOP", "1", "z", "MAX", "COUNT", "1", "COUNT"),
        # BLMPOP/BZMPOP read the timeout after the rest; BLMOVE its ends before the timeout.
        ("BLMPOP", "abc", "1", "l", "MIDDLE"), ("BLMPOP", "-1", "1", "l", "LEFT", "COUNT", "0"),
        ("BLMPOP", "0.1", "0", "l", "LEFT"), ("BZMPOP", "abc", "1", "z", "LEFT"),
        ("BZMPOP", "x", "1", "z", "MIN", "COUNT", "0"), ("BZMPOP", "0", "0", "z", "MIN"),
        ("BLMOVE", "l", "d", "UP", "LEFT", "x"), ("BLMOVE", "l", "d", "LEFT", "DOWN", "x"),
        # arity
        ("BLPOP", "l"), ("BRPOP",), ("BLMOVE", "l", "d", "LEFT", "LEFT"),
        ("BRPOPLPUSH", "l", "d"), ("BLMPOP", "0", "1", "l"), ("LMPOP", "1", "l"), ("ZMPOP", "1"),
        ("BZMPOP", "0", "1", "z"), ("BZPOPMIN", "z"), ("BZPOPMAX",),
    ]
    diff.run(cmds)
    diff.assert_same()


def test_short_timeouts_answer_null_as_redis(diff):
    """Nothing to pop and a 10 ms (or sub-ms: rounded up to 1 ms) timeout: both servers answer
    their null once it passes, on the real clock."""
    diff.run([
        ("BLPOP", "e1", "e2", "0.01"), ("BRPOP", "e1", "0.0001"),
        ("BLMOVE", "e1", "d", "LEFT", "RIGHT", "0.01"), ("BRPOPLPUSH", "e1", "d", "0.01"),
        ("BLMPOP", "0.01", "2", "e1", "e2", "LEFT", "COUNT", "2"), ("BZPOPMIN", "e1", "0.01"),
        ("BZPOPMAX", "e1", "e2", "1e-9"), ("BZMPOP", "0.01", "1", "e1", "MAX"),
        ("EXISTS", "d"), ("CLIENT", "UNBLOCK", "123456"),
    ])
    diff.assert_same()


def test_multi_exec_never_blocks(diff):
    diff.run([
        ("MULTI",), ("BLPOP", "e", "0"), ("BRPOP", "e", "1"),
        ("BLMOVE", "e", "d", "LEFT", "LEFT", "0"),
        ("BRPOPLPUSH", "e", "d", "0"), ("BLMPOP", "0", "1", "e", "LEFT"), ("BZPOPMIN", "e", "0"),
        ("BZPOPMAX", "e", "0"), ("BZMPOP", "0", "2", "e", "f", "MIN", "COUNT", "3"),
        ("RPUSH", "e", "x", "y"), ("BLPOP", "e", "0"), ("BLMOVE", "e", "d", "LEFT", "LEFT", "0"),
        ("BLPOP", "e", "0"), ("ZADD", "z", "1", "a"), ("BZMPOP", "0", "1", "z", "MAX"),
        ("EXEC",),
        ("MULTI",), ("BLPOP", "e", "abc"), ("EXEC",),
        ("LRANGE", "d", "0", "-1"), ("PING",),
    ])
    diff.assert_same()


def test_scripts_never_block(diff):
    script_blpop = "return redis.call('blpop', KEYS[1], 0)"
    script_mpop = "return redis.call('blmpop', 0, 1, KEYS[1], 'left')"
    script_zmpop = "return redis.call('bzmpop', 0, 1, KEYS[1], 'min', 'count', 2)"
    script_lmpop = "return redis.call('lmpop', 1, KEYS[1], 'right')"
    diff.run([
        # As Redis 7.0: BLPOP and the other keyed forms are noscript; the numkeys forms run and
        # answer nil (a Lua false) when there is nothing.
        ("EVAL", script_blpop, "1", "e"),
        ("EVAL", "return redis.pcall('brpoplpush', 'e', 'd', 0)", "0"),
        ("EVAL", "return redis.pcall('bzpopmin', 'e', 0)", "0"),
        ("EVAL", script_mpop, "1", "e"), ("EVAL", script_zmpop, "1", "e"),
        ("EVAL", script_lmpop, "1", "e"),
        ("RPUSH", "e", "a", "b"), ("EVAL", script_mpop, "1", "e"), ("EVAL", script_lmpop, "1", "e"),
        ("ZADD", "z", "1", "a", "2", "b", "3", "c"), ("EVAL", script_zmpop, "1", "z"),
        ("EXISTS", "e"), ("ZCARD", "z"),
    ])
    diff.assert_same()


def test_command_info_as_redis(sluiced, redis_server):
    names = ["blpop", "brpop", "blmove", "brpoplpush", "blmpop", "lmpop", "bzpopmin",
             "bzpopmax", "bzmpop", "zmpop"]
    with redis_server.client() as r, sluiced.client() as s:
        theirs = r.call("COMMAND", "INFO", *names)
        ours = s.call("COMMAND", "INFO", *names)
        for name, rc, sc in zip(names, theirs, ours):
            # name, arity, flags (sluice has no denyoom), first key, last key, step
            assert (sc[0], sc[1], sc[3], sc[4], sc[5]) == (rc[0], rc[1], rc[3], rc[4], rc[5]), name
            assert set(sc[2]) == set(rc[2]) - {"denyoom"}, name
        for cmd in [("lmpop", "2", "a", "b", "LEFT"), ("blmpop", "0", "1", "a", "RIGHT"),
                    ("bzmpop", "1", "2", "a", "b", "MIN"),
                    ("blmove", "a", "b", "LEFT", "LEFT", "0"),
                    ("blpop", "a", "b", "0")]:
            assert s.call("COMMAND", "GETKEYS", *cmd) == r.call("COMMAND", "GETKEYS", *cmd), cmd


# ---- A blocked client, and another that pushes (compared with Redis) -------------------------


def test_push_serves_a_blocked_client(trio):
    a, b = 0, 1
    cases = [
        (("BLPOP", "k1", "k2", "0"), ("RPUSH", "k2", "x", "y")),
        (("BRPOP", "k7", "k1", "0"), ("LPUSH", "k1", "p", "q")),
        (("BLMPOP", "0", "2", "k3", "k4", "RIGHT", "COUNT", "2"), ("RPUSH", "k4", "1", "2", "3")),
        (("BZPOPMIN", "z1", "z2", "0"), ("ZADD", "z2", "2", "b", "1", "a")),
        (("BZPOPMAX", "z3", "0"), ("ZADD", "z3", "2", "b", "1", "a")),
        (("BZMPOP", "0", "1", "z4", "MAX", "COUNT", "5"), ("ZADD", "z4", "2", "b", "1", "a")),
        (("BLMOVE", "s", "d", "RIGHT", "LEFT", "0"), ("RPUSH", "s", "v1", "v2")),
        (("BRPOPLPUSH", "s2", "d", "0"), ("RPUSH", "s2", "w")),
        # A list arriving by LMOVE and by RENAME.
        (("BLPOP", "k5", "0"), ("LMOVE", "k1", "k5", "LEFT", "LEFT")),
        (("BLPOP", "k6", "0"), ("RENAME", "k2", "k6")),
    ]
    for block, push in cases:
        trio.block(a, *block)
        assert trio.waiting(a)
        trio.d[b].check(*push)
        trio.answer(a)
    trio.d[b].run([("LRANGE", "k1", "0", "-1"), ("LRANGE", "k4", "0", "-1"),
                   ("ZRANGE", "z2", "0", "-1"), ("EXISTS", "z4", "s", "k5", "k6"),
                   ("LRANGE", "d", "0", "-1"), ("LRANGE", "s", "0", "-1")])
    trio.assert_same()


def test_three_waiters_are_served_in_the_order_they_blocked(trio):
    # -0.001 s and -0.0001 s round up to 0 ms in Redis 7.0.15: no timeout, not an error.
    for i, timeout in enumerate(["0", "-0.001", "-0.0001"]):
        trio.block(i, "BLPOP", "q", timeout)
    trio.d[3].check("RPUSH", "q", "1", "2")
    trio.answer(0)
    trio.answer(1)
    assert trio.waiting(2)
    trio.d[3].check("EXISTS", "q")  # the push was popped entirely: the key is gone
    trio.d[3].check("RPUSH", "q", "3", "4")
    trio.answer(2)
    trio.d[3].check("LRANGE", "q", "0", "-1")
    trio.assert_same()


def test_transaction_and_script_pushes_serve_after_they_end(trio):
    a, b = 0, 1
    # Served from the key pushed first in the transaction, not the first named.
    trio.block(a, "BLPOP", "t1", "t2", "0")
    trio.d[b].run([("MULTI",), ("RPUSH", "t2", "x"), ("RPUSH", "t1", "y"), ("LLEN", "t2"),
                   ("EXEC",)])
    trio.answer(a)
    # Pushed and popped again inside one transaction: the waiter waits on.
    trio.block(a, "BLPOP", "t3", "0")
    trio.d[b].run([("MULTI",), ("RPUSH", "t3", "1"), ("LPOP", "t3"), ("EXEC",)])
    assert trio.waiting(a)
    trio.d[b].check("RPUSH", "t3", "2")
    trio.answer(a)
    # A script's push: the script sees its own element, the waiter gets it after.
    trio.block(a, "BRPOP", "t4", "0")
    trio.d[b].check("EVAL", "redis.call('rpush', KEYS[1], 'e'); return redis.call('llen', KEYS[1])",
                    "1", "t4")
    trio.answer(a)
    trio.d[b].check("EXISTS", "t1", "t2", "t3", "t4")
    trio.assert_same()


def test_blmove_chain_and_wrong_types(trio):
    a, b, c = 0, 1, 2
    # BLMOVE c1 -> c2 (a), BLPOP c2 (b): one push to c1 reaches b through a.
    trio.block(a, "BLMOVE", "c1", "c2", "LEFT", "RIGHT", "0")
    trio.block(b, "BLPOP", "c2", "0")
    trio.d[c].check("RPUSH", "c1", "v")
    trio.answer(a)
    trio.answer(b)
    trio.d[c].check("EXISTS", "c1", "c2")
    # The destination holds a string when the element arrives: WRONGTYPE, the element stays.
    trio.d[c].check("SET", "str", "x")
    trio.block(a, "BRPOPLPUSH", "c3", "str", "0")
    trio.d[c].check("RPUSH", "c3", "e")
    trio.answer(a)
    trio.d[c].check("LRANGE", "c3", "0", "-1")
    # A BZPOPMIN client on a key that becomes a list waits on; it is served by the sorted set
    # that comes after.
    trio.block(a, "BZPOPMIN", "w", "0")
    trio.d[c].check("RPUSH", "w", "1")
    assert trio.waiting(a)
    trio.d[c].check("SET", "w", "string now")
    assert trio.waiting(a)
    trio.d[c].check("DEL", "w")
    trio.d[c].check("ZADD", "w", "5", "m")
    trio.answer(a)
    trio.assert_same()


def test_a_served_blmove_breaks_the_watch_of_its_destination(trio):
    a, b, c = 0, 1, 2
    trio.d[a].check("WATCH", "dst")
    trio.block(b, "BLMOVE", "src", "dst", "LEFT", "LEFT", "0")
    trio.d[c].check("RPUSH", "src", "x")
    trio.answer(b)
    trio.d[a].run([("MULTI",), ("LLEN", "dst"), ("EXEC",)])  # aborted: a null array
    trio.assert_same()


def test_pipelined_commands_wait_behind_a_blocked_one(trio):
    a, b = 0, 1
    before = trio.blocked()
    for conn in (trio.d[a].redis, trio.d[a].sluice):
        conn.send(servers.encode("BLPOP", "p", "0") + servers.encode("PING") +
                  servers.encode("LLEN", "p"))
    servers.wait_for(lambda: trio.blocked() == (before[0] + 1, before[1] + 1), "BLPOP to block")
    assert trio.waiting(a)  # not even PING's reply
    trio.d[b].check("RPUSH", "p", "1", "2")
    trio.answer(a)
    trio.answer(a)
    trio.answer(a)
    trio.assert_same()


def test_a_blocked_client_gets_its_pushes_while_it_waits(trio):
    """Messages and invalidations for a client waiting in a blocking pop are sent at once, as
    Redis writes them, not held until the pop answers (held, a busy channel would pile them up
    to the output limit and close the client)."""
    if trio.protocol == 2:
        pytest.skip("a RESP2 client cannot pop once it subscribes")
    a, b = 0, 1
    trio.d[a].run([("SUBSCRIBE", "news"), ("CLIENT", "TRACKING", "on", "BCAST")])
    trio.block(a, "BLPOP", "q", "0")
    for step in [("PUBLISH", "news", "first"), ("SET", "seen", "1"),
                 ("PUBLISH", "news", "x" * 100_000)]:
        trio.d[b].check(*step)
        trio.answer(a)  # the message or the invalidation, before any pop
    assert trio.waiting(a)
    trio.d[b].check("RPUSH", "q", "v")
    trio.answer(a)  # the pop
    trio.answer(a)  # the invalidation of q
    trio.d[a].check("PING")
    trio.assert_same()


def test_a_served_pop_is_not_the_waiters_own_write_to_noloop_tracking(trio):
    """The push that readies a key is what modifies it, for tracking: a NOLOOP client served a
    pop still gets the key's invalidation, as Redis 7.0 signals the key once, for the push."""
    if trio.protocol == 2:
        pytest.skip("invalidations reach a RESP2 client only through a redirect")
    a, b = 0, 1
    trio.d[a].check("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP")
    trio.block(a, "BLPOP", "q", "0")
    trio.d[b].check("RPUSH", "q", "v", "w")
    trio.answer(a)  # the pop
    trio.answer(a)  # the invalidation of q, for the push
    trio.block(a, "BLMOVE", "q2", "dst", "LEFT", "LEFT", "0")
    trio.d[b].check("RPUSH", "q2", "v")
    trio.answer(a)  # the move
    trio.answer(a)  # q2, for the push (dst was the waiter's own write)
    trio.d[a].check("PING")
    trio.assert_same()


def test_client_reply_skip_before_a_blocking_pop_drops_its_answer(trio):
    """CLIENT REPLY SKIP covers the next command's reply even when it comes later, as a served
    pop's: Redis resets a client's reply flags once its command is done."""
    a, b = 0, 1
    for conn in (trio.d[a].redis, trio.d[a].sluice):
        conn.send(servers.encode("CLIENT", "REPLY", "SKIP"))
    trio.block(a, "BLPOP", "q", "0")
    trio.d[b].check("RPUSH", "q", "v", "w")
    servers.wait_for(lambda: trio.blocked() == (0, 0), "the pop to be served")
    trio.d[a].check("PING")  # the pop's reply was dropped: PONG comes first
    trio.d[b].check("LRANGE", "q", "0", "-1")
    trio.assert_same()


def test_client_unblock(trio):
    a, b = 0, 1
    ids = (trio.d[a].redis.call("CLIENT", "ID"), trio.d[a].sluice.call("CLIENT", "ID"))

    def unblock(*reason):
        replies = [conn.call_raw("CLIENT", "UNBLOCK", i, *reason)
                   for conn, i in zip((trio.d[b].redis, trio.d[b].sluice), ids)]
        assert replies[0] == replies[1] == b":1\r\n", replies

    trio.block(a, "BLPOP", "u", "0")
    unblock()
    trio.answer(a)
    trio.block(a, "BLMOVE", "u", "d", "LEFT", "LEFT", "0")
    unblock("TIMEOUT")
    trio.answer(a)
    trio.block(a, "BZMPOP", "0", "1", "u", "MIN")
    unblock("error")
    trio.answer(a)
    for conn, i in zip((trio.d[b].redis, trio.d[b].sluice), ids):
        assert conn.call_raw("CLIENT", "UNBLOCK", i) == b":0\r\n"  # not blocked any more
    trio.d[b].run([("CLIENT", "UNBLOCK", "x"), ("CLIENT", "UNBLOCK", "1", "maybe"),
                   ("CLIENT", "UNBLOCK", "x", "maybe"), ("CLIENT", "UNBLOCK", "1", "ERROR", "x"),
                   ("CLIENT", "UNBLOCK"), ("CLIENT", "UNBLOCK", "0")])
    trio.d[b].check("RPUSH", "u", "still")  # nobody waits: the element stays
    trio.d[b].check("LLEN", "u")
    trio.assert_same()


# ---- sluice alone: the test clock, disconnects, introspection, durability --------------------


def test_timeouts_follow_the_test_clock(c, clock, clients):
    a, b, z = clients(3)
    assert z.call("HELLO", "3")
    servers.send_until_blocked(c, a, "BLPOP", "k", "1")
    servers.send_until_blocked(c, b, "BLMOVE", "k", "d", "LEFT", "LEFT", "0.1")
    servers.send_until_blocked(c, z, "BZMPOP", "2.5", "1", "k", "MIN")
    clock.advance(99)
    assert all(servers.nothing_received(x) for x in (a, b, z))
    clock.advance(1)
    assert b.read_raw() == b"*-1\r\n"  # Redis 7.0 times BLMOVE out with a null array too
    assert servers.nothing_received(a)
    clock.advance(899)
    assert servers.nothing_received(a)
    clock.advance(1)
    assert a.read_raw() == b"*-1\r\n"
    clock.advance(1499)
    assert servers.nothing_received(z)
    clock.advance(1)
    assert z.read_raw() == b"_\r\n"
    assert servers.blocked_clients(c) == 0
    # Timeout 0 waits however far the clock goes; -0.0001 s rounds to 0 ms, which is 0 too.
    servers.send_until_blocked(c, a, "BRPOP", "k", "0")
    servers.send_until_blocked(c, b, "BLPOP", "k", "-0.0001")
    clock.advance(10 ** 12)
    assert servers.nothing_received(a) and servers.nothing_received(b)
    assert c.call("RPUSH", "k", "x", "y") == 2
    assert a.read() == [b"k", b"y"]
    assert b.read() == [b"k", b"x"]
    assert c.call("EXISTS", "k") == 0


def test_a_timeout_far_past_the_clock_waits(c, clock, clients):
    [a] = clients(1)
    servers.send_until_blocked(c, a, "BLPOP", "k", "9223372036854775")  # a deadline past 2^63 ms: never
    clock.advance(10 ** 15)
    assert servers.nothing_received(a)
    assert c.call("LPUSH", "k", "v") == 1
    assert a.read() == [b"k", b"v"]


def test_disconnected_waiter_is_forgotten(c, clock, clients):
    gone, a = clients(2)
    servers.send_until_blocked(c, gone, "BLPOP", "k", "0")
    servers.send_until_blocked(c, a, "BLPOP", "k", "0")
    gone.close()
    servers.wait_for(lambda: servers.blocked_clients(c) == 1, "the closed client to leave")
    assert c.call("RPUSH", "k", "1", "2") == 2
    assert a.read() == [b"k", b"1"]
    assert c.call("LRANGE", "k", "0", "-1") == [b"2"]  # nobody popped for the closed client


def test_client_list_and_info_show_blocked_clients(c, clock, clients):
    [a] = clients(1)
    a_id = a.call("CLIENT", "ID")
    servers.send_until_blocked(c, a, "BZPOPMAX", "z", "0")
    line = c.call("CLIENT", "LIST", "ID", a_id).decode()
    assert " flags=b " in line and " cmd=bzpopmax " in line, line
    assert servers.info_fields(c, "clients")["blocked_clients"] == "1"
    assert c.call("ZADD", "z", "1", "m") == 1
    assert a.read() == [b"z", b"m", b"1"]
    line = c.call("CLIENT", "LIST", "ID", a_id).decode()
    assert " flags=N " in line, line
    assert servers.blocked_clients(c) == 0


def test_a_client_whose_replies_are_off_still_pops(c, clock, clients):
    [a] = clients(1)
    a.send(servers.encode("CLIENT", "REPLY", "OFF"))
    servers.send_until_blocked(c, a, "BLPOP", "k", "0")
    assert c.call("RPUSH", "k", "x", "y") == 2
    servers.wait_for(lambda: servers.blocked_clients(c) == 0, "the blocked client to be served")
    assert c.call("LRANGE", "k", "0", "-1") == [b"y"]  # the pop happened; its reply was dropped
    assert a.call("CLIENT", "REPLY", "ON") == "OK"


def test_a_pop_served_while_earlier_replies_are_being_written_follows_them(c, clock, clients):
    """A client that reads slowly may have a long reply still being written when its pop is
    served: the pop's reply comes after it, whole and once. (Whether the write is still under
    way at that moment depends on the kernel's socket buffers: the test makes it likely.)"""
    [a] = clients(1)
    a.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)  # no autotuning: it fills
    big = b"v" * 900_000  # under the 1 MB after which a session stops to write before going on
    assert c.call("SET", "big", big) == "OK"
    # An odd number, so the last GET and the BLPOP run together (a session writes after two
    # such replies).
    gets = 11
    a.send(servers.encode("GET", "big") * gets + servers.encode("BLPOP", "q", "0"))
    while servers.blocked_clients(c) == 0:  # read a little at a time until the BLPOP ran
        a.buf += a.sock.recv(1 << 16)
    assert c.call("RPUSH", "q", "x") == 1
    servers.wait_for(lambda: servers.blocked_clients(c) == 0, "the blocked client to be served")
    for _ in range(gets):
        assert a.read() == big
    assert a.read() == [b"q", b"x"]
    assert a.call("PING") == "PONG"


def test_a_blocked_client_that_left_during_a_long_write_is_never_served(c, clock, clients):
    """A blocked RESP3 subscriber that shuts its side while a long message is being written to
    it is closed then, as Redis frees a client at EOF: no element is popped for it."""
    [a] = clients(1)
    a.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    a.call("HELLO", "3")
    a.call("SUBSCRIBE", "ch")
    a_id = a.call("CLIENT", "ID")
    servers.send_until_blocked(c, a, "BLPOP", "q", "0")
    assert c.call("PUBLISH", "ch", "m" * 7_000_000) == 1
    a.sock.shutdown(socket.SHUT_WR)
    servers.wait_for(lambda: c.call("CLIENT", "LIST", "ID", a_id) == b"", "the client to be gone")
    assert c.call("RPUSH", "q", "x") == 1
    assert c.call("LLEN", "q") == 1


def test_client_unblock_answers_limiter_waiters(c, clock, clients):
    a, b = clients(2)
    a_id, b_id = a.call("CLIENT", "ID"), b.call("CLIENT", "ID")
    tb = ("RL.TOKENBUCKET", "lim", 1, 1, 1000)
    assert c.call(*tb) == [1, 1, 0, -1, 1000]
    servers.send_until_blocked(c, a, *tb, "BLOCK", 0)
    servers.send_until_blocked(c, b, *tb, "BLOCK", 0)
    assert c.call("CLIENT", "UNBLOCK", a_id) == 1
    assert a.read() == [0, 1, 0, 1000, 1000]  # its refused reply as it stands
    assert c.call("CLIENT", "UNBLOCK", b_id, "ERROR") == 1
    assert a.call("PING") == "PONG"
    reply = b.read()
    assert isinstance(reply, servers.Error) and reply == \
        "UNBLOCKED client unblocked via CLIENT UNBLOCK", reply
    assert c.call("CLIENT", "UNBLOCK", b_id) == 0
    assert servers.blocked_clients(c) == 0


def test_served_pops_are_durable(sluiced_factory):
    server = sluiced_factory(enable_debug_command="yes")
    c = server.client()
    a, b = server.client(), server.client()
    try:
        servers.send_until_blocked(c, a, "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
        servers.send_until_blocked(c, b, "BLPOP", "q", "0")
        assert c.call("RPUSH", "src", "moved", "kept") == 2
        assert c.call("RPUSH", "q", "popped") == 1
        assert a.read() == b"moved"
        assert b.read() == [b"q", b"popped"]
    finally:
        for client in (a, b, c):
            client.close()
    server.kill()  # kill -9: only what is in the WAL survives
    server.restart()
    with server.client() as c:
        assert c.call("LRANGE", "src", "0", "-1") == [b"kept"]
        assert c.call("LRANGE", "dst", "0", "-1") == [b"moved"]
        assert c.call("EXISTS", "q") == 0
