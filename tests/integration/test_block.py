"""BLOCK (contract sections 4 and 7): a refused request, or one with waiters ahead of it, waits
in its key's first-come-first-served queue and is answered when its turn comes and it fits, or
with its refused reply when its time runs out. Waiting follows the server clock: these tests
move it with DEBUG CLOCK ADVANCE and never sleep to let time pass.

Several connections are involved, and the server reads them in whatever order their bytes
arrive; so a test that needs an order of arrival sends one request, waits (polling INFO, bounded)
until the server has parked it, and only then sends the next.
"""

import os

import pytest

import servers
from frozen_clock import T0

TB = ("RL.TOKENBUCKET", "k", 1, 1, 1000)  # one token, one back per second
ALLOWED = [1, 1, 0, -1, 1000]


def freeze(c):
    assert c.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"


def advance(c, ms):
    assert c.call("DEBUG", "CLOCK", "ADVANCE", ms) == "OK"


def info_limiters(c):
    text = c.call("INFO", "limiters").decode()
    fields = {}
    for line in text.splitlines():
        if ":" in line and not line.startswith("#"):
            name, value = line.split(":", 1)
            fields[name] = int(value) if value.lstrip("-").isdigit() else value
    return fields


def waiting(c):
    return info_limiters(c)["limiter_waiting"]


def park(c, client, *cmd, expect_waiting):
    """Send a BLOCK request on `client` and wait until the server has parked it."""
    client.send(servers.encode(*cmd))
    servers.wait_for(lambda: waiting(c) == expect_waiting,
                     f"{expect_waiting} waiting requests after {' '.join(map(str, cmd))}")


@pytest.fixture
def server(shared_debug_sluiced):
    """One sluiced for the module (conftest: shared_debug_sluiced), emptied before each test."""
    return shared_debug_sluiced


@pytest.fixture
def c(server):
    """A client of `server`, its clock frozen at T0, once no earlier test's waiter is left (a
    closed connection leaves its queue when the server notices, not at once)."""
    with server.client() as client:
        freeze(client)
        servers.wait_for(lambda: waiting(client) == 0, "an earlier test's waiters to leave")
        yield client


def test_waiters_are_served_in_arrival_order(c, clients):
    assert c.call(*TB) == ALLOWED
    a, b, w = clients(3)
    for n, client in enumerate((a, b, w), start=1):
        park(c, client, *TB, "BLOCK", 0, expect_waiting=n)
    stats = info_limiters(c)
    assert (stats["limiter_blocked"], stats["limiter_allowed"]) == (3, 1)

    advance(c, 999)
    assert waiting(c) == 3
    assert all(servers.nothing_received(x) for x in (a, b, w))
    advance(c, 1)
    assert a.read() == ALLOWED
    assert waiting(c) == 2 and servers.nothing_received(b) and servers.nothing_received(w)
    advance(c, 1000)
    assert b.read() == ALLOWED
    assert waiting(c) == 1 and servers.nothing_received(w)
    advance(c, 1000)
    assert w.read() == ALLOWED
    assert waiting(c) == 0
    stats = info_limiters(c)
    assert (stats["limiter_allowed"], stats["limiter_refused"], stats["limiter_blocked"],
            stats["limiter_timed_out"]) == (4, 0, 3, 0)
    # The queue is gone: the next request is decided on the key alone.
    assert c.call(*TB, "BLOCK", 999) == [0, 1, 0, 1000, 1000]


def test_disconnected_waiter_leaves_the_queue(c, clients):
    assert c.call(*TB) == ALLOWED
    a, gone, w = clients(3)
    for n, client in enumerate((a, gone, w), start=1):
        park(c, client, *TB, "BLOCK", 0, expect_waiting=n)
    gone.close()
    # The contract: "a client that disconnects leaves the queue".
    servers.wait_for(lambda: waiting(c) == 2, "the disconnected waiter to leave the queue "
                     f"(INFO limiters: {info_limiters(c)})", timeout=30.0)
    advance(c, 1000)
    assert a.read() == ALLOWED
    advance(c, 1000)
    assert w.read() == ALLOWED  # second in line now, served at 2000 (not 3000)
    assert waiting(c) == 0


def test_disconnected_waiter_is_not_served(c, clients):
    """The token a gone waiter would have taken stays for the next one in line."""
    assert c.call(*TB) == ALLOWED
    gone, w = clients(2)
    park(c, gone, *TB, "BLOCK", 0, expect_waiting=1)
    park(c, w, *TB, "BLOCK", 0, expect_waiting=2)
    gone.close()
    servers.wait_for(lambda: waiting(c) == 1, "the disconnected waiter to leave the queue",
                     timeout=30.0)
    advance(c, 1000)
    assert w.read() == ALLOWED
    assert info_limiters(c)["limiter_allowed"] == 2


def test_deadline_passes_refused_reply(c, clients):
    """A waiter whose BLOCK time runs out gets the refused reply as it stands then."""
    tb = ("RL.TOKENBUCKET", "k", 2, 1, 1000)
    assert c.call(*tb, "COST", 2) == [1, 2, 0, -1, 2000]
    (w,) = clients(1)
    park(c, w, *tb, "COST", 2, "BLOCK", 2500, expect_waiting=1)  # would fit at 2000
    advance(c, 1000)
    # A request without BLOCK is decided at once; it takes the token that came back.
    assert c.call(*tb, "COST", 1) == [1, 2, 0, -1, 2000]
    advance(c, 1000)
    assert servers.nothing_received(w) and waiting(c) == 1     # 1 token at 2000: not enough
    advance(c, 499)
    assert servers.nothing_received(w) and waiting(c) == 1
    advance(c, 1)                                        # 2500: its time is up
    assert w.read() == [0, 2, 1, 500, 500]
    stats = info_limiters(c)
    assert (stats["limiter_timed_out"], stats["limiter_waiting"]) == (1, 0)
    assert c.call("RL.TOKENBUCKET", "k", 2, 1, 1000, "COST", 0) == [1, 2, 1, -1, 500]


def test_request_that_cannot_be_served_in_time_is_refused_at_once(c, clients):
    assert c.call(*TB) == ALLOWED
    assert c.call(*TB, "BLOCK", 999) == [0, 1, 0, 1000, 1000]
    assert info_limiters(c)["limiter_blocked"] == 0
    (a,) = clients(1)
    park(c, a, *TB, "BLOCK", 0, expect_waiting=1)        # served at 1000
    # Behind it: served at 2000, so BLOCK 1999 is refused at once, retry_after counting the
    # waiter ahead.
    assert c.call(*TB, "BLOCK", 1999) == [0, 1, 0, 2000, 1000]
    assert waiting(c) == 1
    advance(c, 1000)
    assert a.read() == ALLOWED


def test_request_that_fits_waits_behind_waiters(c, clients):
    tb = ("RL.TOKENBUCKET", "k", 2, 1, 1000)
    assert c.call(*tb, "COST", 2) == [1, 2, 0, -1, 2000]
    big, small = clients(2)
    park(c, big, *tb, "COST", 2, "BLOCK", 0, expect_waiting=1)   # fits at 2000
    advance(c, 1000)
    # One token is back and `small` needs one, but `big` is first: small is served at 3000.
    park(c, small, *tb, "COST", 1, "BLOCK", 2000, expect_waiting=2)
    assert servers.nothing_received(small)
    advance(c, 1000)
    assert big.read() == [1, 2, 0, -1, 2000]
    assert servers.nothing_received(small)
    advance(c, 1000)
    assert small.read() == [1, 2, 0, -1, 2000]


def test_refusals_behind_waiters_tell_the_key_as_it_stands(c, clients):
    """A request that fits but is refused for the waiters ahead of it (its BLOCK too short,
    CLIENT UNBLOCK) replies the key as it stands, nothing counted, and its wait behind them; a
    COST 0 peek is answered at once, allowed."""
    tb = ("RL.TOKENBUCKET", "k", 5, 1, 1000)
    assert c.call(*tb, "COST", 3) == [1, 5, 2, -1, 3000]
    big, small = clients(2)
    big_id, small_id = big.call("CLIENT", "ID"), small.call("CLIENT", "ID")
    park(c, big, *tb, "COST", 5, "BLOCK", 0, expect_waiting=1)  # fits at 3000
    # One token would do now, but only after `big`: at 4000.
    assert c.call(*tb, "COST", 1, "BLOCK", 100) == [0, 5, 2, 4000, 3000]
    assert c.call(*tb, "COST", 0, "BLOCK", 100) == [1, 5, 2, -1, 3000]
    park(c, small, *tb, "COST", 1, "BLOCK", 0, expect_waiting=2)
    assert c.call("CLIENT", "UNBLOCK", small_id) == 1
    assert small.read() == [0, 5, 2, 4000, 3000]
    assert c.call("PTTL", "k") == 3000  # nothing was counted
    assert c.call("CLIENT", "UNBLOCK", big_id) == 1
    assert big.read() == [0, 5, 2, 3000, 3000]


def test_block_zero_with_cost_above_the_limit_is_refused_at_once(c):
    assert c.call(*TB, "COST", 2, "BLOCK", 0) == [0, 1, 1, -1, 0]
    assert c.call(*TB) == ALLOWED
    assert c.call(*TB, "COST", 2, "BLOCK", 0) == [0, 1, 0, -1, 1000]
    stats = info_limiters(c)
    assert (stats["limiter_blocked"], stats["limiter_waiting"], stats["limiter_refused"]) == \
        (0, 0, 2)


def test_block_inside_multi_decides_at_once(c):
    assert c.call(*TB) == ALLOWED
    assert c.call("MULTI") == "OK"
    assert c.call(*TB, "BLOCK", 0) == "QUEUED"
    assert c.call("RL.GCRA", "g", 0, 1, 1000, "BLOCK", 0) == "QUEUED"
    assert c.call("RL.GCRA", "g", 0, 1, 1000, "BLOCK", 0) == "QUEUED"
    assert c.call("EXEC") == [[0, 1, 0, 1000, 1000], [1, 1, 0, -1, 1000],
                              [0, 1, 0, 1000, 1000]]
    assert info_limiters(c)["limiter_blocked"] == 0


def test_block_inside_a_script_decides_at_once(c):
    script = "return redis.call('RL.TOKENBUCKET', KEYS[1], 1, 1, 1000, 'BLOCK', 0)"
    first = c.call("EVAL", script, 1, "k")
    if isinstance(first, servers.Error) and "unknown command" in first:
        pytest.skip("EVAL is not available in this build")
    assert first == ALLOWED
    assert c.call("EVAL", script, 1, "k") == [0, 1, 0, 1000, 1000]
    assert info_limiters(c)["limiter_blocked"] == 0


def test_blocked_client_processes_nothing_else_until_answered(c, clients):
    assert c.call(*TB) == ALLOWED
    (a,) = clients(1)
    a.send(servers.encode(*TB, "BLOCK", 0) + servers.encode("PING") + servers.encode("ECHO", "x"))
    servers.wait_for(lambda: waiting(c) == 1, "the request to be parked")
    assert servers.nothing_received(a)
    advance(c, 1000)
    assert a.read() == ALLOWED
    assert a.read() == "PONG"
    assert a.read() == b"x"


def test_del_lets_waiters_through(c, clients):
    assert c.call(*TB) == ALLOWED
    a, b = clients(2)
    park(c, a, *TB, "BLOCK", 0, expect_waiting=1)
    park(c, b, *TB, "BLOCK", 0, expect_waiting=2)
    assert c.call("DEL", "k") == 1           # a reset: the head fits at once
    assert a.read() == ALLOWED
    assert waiting(c) == 1 and servers.nothing_received(b)
    advance(c, 1000)
    assert b.read() == ALLOWED


INT64_MAX = 2**63 - 1


def test_block_past_the_end_of_the_clock_is_an_error(c, clients):
    """now + BLOCK beyond 64 bits is an error (contract section 7: arithmetic that would
    overflow), not a deadline wrapped into the past that refuses at once; nothing is counted,
    inside MULTI too. The longest BLOCK that fits waits."""
    assert c.call(*TB) == ALLOWED
    for block in (INT64_MAX, INT64_MAX - T0 + 1):
        reply = c.call(*TB, "BLOCK", block)
        assert isinstance(reply, servers.Error) and "overflow" in reply, reply
    assert c.call("MULTI") == "OK"
    assert c.call(*TB, "BLOCK", INT64_MAX) == "QUEUED"
    (reply,) = c.call("EXEC")
    assert isinstance(reply, servers.Error) and "overflow" in reply, reply
    assert c.call(*TB, "COST", 0) == [1, 1, 0, -1, 1000]   # still the first call's state
    stats = info_limiters(c)
    assert (stats["limiter_blocked"], stats["limiter_refused"]) == (0, 0)
    (a,) = clients(1)
    park(c, a, *TB, "BLOCK", INT64_MAX - T0, expect_waiting=1)
    advance(c, 1000)
    assert a.read() == ALLOWED


def test_wait_centuries_away_on_the_real_clock(c, clients):
    """A head whose next chance is further than the wake-up timer's 64-bit nanoseconds reach
    (1.5 * 10^13 ms, 475 years) waits without that conversion overflowing (UBSan aborts the
    sanitized build on it; the optimized one got a deadline in the past and woke over and
    over, a busy loop), and is served when its key is reset."""
    assert c.call("DEBUG", "CLOCK", "RESUME") == "OK"
    slow = ("RL.TOKENBUCKET", "slow", 1, 1, 15 * 10**12)
    assert c.call(*slow)[0] == 1
    (a,) = clients(1)
    park(c, a, *slow, "BLOCK", 0, expect_waiting=1)
    assert c.call("PING") == "PONG" and servers.nothing_received(a)
    assert c.call("DEL", "slow") == 1
    assert a.read()[0] == 1
    assert waiting(c) == 0


@pytest.mark.parametrize("flush", [("FLUSHALL",), ("FLUSHDB",), ("FLUSHALL", "SYNC"),
                                   ("EVAL", "return redis.call('FLUSHALL')", "0")])
def test_flush_lets_every_queue_through(c, clients, flush):
    other = ("RL.TOKENBUCKET", "other", 1, 1, 1000)
    assert c.call(*TB) == ALLOWED and c.call(*other) == ALLOWED
    a, b = clients(2)
    park(c, a, *TB, "BLOCK", 0, expect_waiting=1)
    park(c, b, *other, "BLOCK", 0, expect_waiting=2)
    assert c.call(*flush) == "OK"             # every key reset: both heads fit at once
    assert a.read() == ALLOWED and b.read() == ALLOWED
    assert waiting(c) == 0


def test_queues_are_per_key(c, clients):
    assert c.call(*TB) == ALLOWED
    (a,) = clients(1)
    park(c, a, *TB, "BLOCK", 0, expect_waiting=1)
    assert c.call("RL.TOKENBUCKET", "other", 1, 1, 1000, "BLOCK", 0) == ALLOWED
    assert waiting(c) == 1
    advance(c, 1000)
    assert a.read() == ALLOWED


def test_resp3_waiter_gets_a_map(c, clients):
    assert c.call(*TB) == ALLOWED
    (a,) = clients(1)
    a.call("HELLO", "3")
    park(c, a, *TB, "BLOCK", 0, expect_waiting=1)
    advance(c, 1000)
    reply = a.read()
    assert isinstance(reply, servers.Map)
    assert reply.as_dict() == {b"allowed": 1, b"limit": 1, b"remaining": 0,
                               b"retry_after_ms": -1, b"reset_after_ms": 1000}


def test_shutdown_answers_every_waiter_before_closing(debug_sluiced):
    server = debug_sluiced  # a server of its own: it shuts it down
    with server.client() as c, server.client() as a, server.client() as b:
        freeze(c)
        assert c.call(*TB) == ALLOWED
        park(c, a, *TB, "BLOCK", 0, expect_waiting=1)
        park(c, b, *TB, "BLOCK", 60000, expect_waiting=2)
        assert server.shutdown() == 0
        refused = [b"*5\r\n:0\r\n:1\r\n:0\r\n:%d\r\n:1000\r\n" % retry
                   for retry in (1000, 2000)]
        # Each waiter gets exactly its refused reply (retry_after as it stands: alone, or
        # counting the waiter ahead), then the connection closes.
        assert a.read_until_closed() == refused[0]
        assert b.read_until_closed() in refused


def test_blocked_client_is_not_closed_by_timeout(sluiced_factory):
    """`timeout` counts wall-clock idleness, so this test waits (bounded) for the server to
    close an idle client, then checks that the blocked one is still there. The timeout is 3 s
    rather than 1, and the blocked client connects just before it blocks, so that a loaded
    machine stalling this process between two commands does not close a client early."""
    server = sluiced_factory(enable_debug_command="yes", timeout=3)
    with server.client() as c, server.client() as idle:
        freeze(c)
        assert idle.call("PING") == "PONG"
        assert c.call(*TB) == ALLOWED
        blocked = server.client()
        blocked.send(servers.encode(*TB, "BLOCK", 0))
        servers.wait_for(lambda: waiting(c) == 1, "the request to be parked")
        assert idle.is_closed(timeout=15.0), "the idle client was not closed by `timeout`"
    # `c` has been idle too by now; the clock stays frozen for a new client.
    with server.client() as c:
        assert waiting(c) == 1
        lines = [line for line in c.call("CLIENT", "LIST").decode().splitlines()
                 if "cmd=rl.tokenbucket" in line]
        assert len(lines) == 1 and " flags=b " in f" {lines[0]} ", lines
        advance(c, 1000)
        assert blocked.read() == ALLOWED
        blocked.close()


@pytest.mark.skipif(not os.environ.get("SLUICE_SLOW_TESTS"),
                    reason="opens 10,001 connections and takes minutes (each BLOCK submission "
                           "simulates the waiters ahead of it); set SLUICE_SLOW_TESTS=1")
def test_at_most_10000_waiters_per_key(sluiced_factory):
    server = sluiced_factory(enable_debug_command="yes", maxclients=10100)
    waiters = []
    try:
        with server.client() as c:
            freeze(c)
            assert c.call(*TB) == ALLOWED
            for i in range(10000):
                client = server.client()
                waiters.append(client)
                client.send(servers.encode(*TB, "BLOCK", 0))
            servers.wait_for(lambda: waiting(c) == 10000, "10,000 waiters", timeout=1800)
            reply = c.call(*TB, "BLOCK", 0)       # the 10,001st: refused at once
            assert reply[:3] == [0, 1, 0], reply
            assert waiting(c) == 10000
            advance(c, 1000)
            assert waiters[0].read() == ALLOWED
            assert waiting(c) == 9999
    finally:
        for client in waiters:
            client.close()
