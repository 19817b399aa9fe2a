"""WAIT numreplicas timeout: sluice has no replicas, so it answers as a Redis 7.0 master without
any does. Immediate answers, errors, MULTI/EXEC, scripts, a short timeout and CLIENT UNBLOCK
are compared with redis-server byte for byte (RESP2 and RESP3); the deadline on the test clock
is sluice's own (Redis's timeouts follow the wall clock), tested without sleeping.
"""

import servers


def test_answers_and_errors_as_redis(diff):
    diff.run([
        ("WAIT", "0", "0"), ("WAIT", "-1", "0"), ("WAIT", "0", "9223372036854775807"),
        ("WAIT", "abc", "0"), ("WAIT", "abc", "-1"), ("WAIT", "99999999999999999999", "0"),
        ("WAIT", "1", "abc"), ("WAIT", "1", "1.5"), ("WAIT", "1", "+5"), ("WAIT", "1", "-0"),
        ("WAIT", "1", " 5"), ("WAIT", "1", "-1"), ("WAIT", "0", "-1"),
        ("WAIT", "1"), ("WAIT", "1", "2", "3"),
        # A replica asked for and a short timeout: 0 once it has passed (real clock).
        ("WAIT", "1", "10"), ("WAIT", "5", "1"),
    ])
    diff.assert_same()


def test_multi_exec_and_scripts_never_wait(diff):
    diff.run([
        ("MULTI",), ("WAIT", "1", "0"), ("SET", "k", "v"), ("WAIT", "3", "100"), ("EXEC",),
        ("MULTI",), ("WAIT", "1", "x"), ("EXEC",),
        ("EVAL", "return redis.call('wait', 0, 0)", "0"),
        ("EVAL", "return redis.pcall('wait', 1, 0)", "0"),
        ("GET", "k"),
    ])
    diff.assert_same()


def test_client_unblock_answers_a_waiting_client_as_redis(pair):
    a, b = pair
    ids = (a.redis.call("CLIENT", "ID"), a.sluice.call("CLIENT", "ID"))
    for reason in [(), ("TIMEOUT",), ("ERROR",)]:
        before = (servers.blocked_clients(b.redis), servers.blocked_clients(b.sluice))
        a.redis.send(servers.encode("WAIT", "1", "0"))
        a.sluice.send(servers.encode("WAIT", "1", "0"))
        servers.wait_for(
            lambda: (servers.blocked_clients(b.redis), servers.blocked_clients(b.sluice))
            == (before[0] + 1, before[1] + 1),
            "WAIT to block on both servers")
        for conn, client_id in zip((b.redis, b.sluice), ids):
            assert conn.call_raw("CLIENT", "UNBLOCK", client_id, *reason) == b":1\r\n", reason
        redis_reply, sluice_reply = a.redis.read_raw(), a.sluice.read_raw()
        assert sluice_reply == redis_reply, (reason, redis_reply, sluice_reply)
    a.check("PING")
    a.assert_same()


def test_command_info_as_redis(sluiced, redis_server):
    with redis_server.client() as r, sluiced.client() as s:
        [theirs] = r.call("COMMAND", "INFO", "wait")
        [ours] = s.call("COMMAND", "INFO", "wait")
        # Name, arity, flags, key positions, ACL categories and tips (request_policy:all_shards,
        # response_policy:agg_min).
        assert list(ours[:8]) == list(theirs[:8]), (ours, theirs)


# ---- sluice alone: the deadline on the test clock ----------------------------------------------


def test_the_timeout_follows_the_test_clock(c, clock, clients):
    a, b, forever = clients(3)
    assert b.call("HELLO", "3")
    forever_id = forever.call("CLIENT", "ID")
    servers.send_until_blocked(c, a, "WAIT", "1", "5000")
    servers.send_until_blocked(c, b, "WAIT", "2", "100")
    servers.send_until_blocked(c, forever, "WAIT", "1", "0")
    clock.advance(99)
    assert all(servers.nothing_received(x) for x in (a, b, forever))
    clock.advance(1)
    assert b.read_raw() == b":0\r\n"
    clock.advance(4899)
    assert servers.nothing_received(a)
    clock.advance(1)
    assert a.read_raw() == b":0\r\n"
    clock.advance(10 ** 12)
    assert servers.nothing_received(forever)
    assert servers.blocked_clients(c) == 1
    # A write meanwhile serves nobody: WAIT waits on no key.
    assert c.call("SET", "k", "v") == "OK"
    assert servers.nothing_received(forever)
    assert c.call("CLIENT", "UNBLOCK", forever_id) == 1
    assert forever.read_raw() == b":0\r\n"
    assert servers.blocked_clients(c) == 0


def test_a_waiting_client_that_leaves_is_forgotten(c, clock, clients):
    gone, stays = clients(2)
    servers.send_until_blocked(c, gone, "WAIT", "1", "0")
    servers.send_until_blocked(c, stays, "WAIT", "1", "50")
    gone.close()
    servers.wait_for(lambda: servers.blocked_clients(c) == 1, "the closed client to leave")
    clock.advance(50)
    assert stays.read_raw() == b":0\r\n"
    assert servers.blocked_clients(c) == 0
