"""Named policies through the real daemon (contract section 5): RL.POLICY SET/GET/DEL/LIST,
RL.TAKE (all or nothing, the most restrictive policy's reply, BLOCK), RL.STATUS, RL.RESET,
live policy changes for every algorithm, durability, config-file policies and INFO limiters.

Times are explicit (DEBUG CLOCK FREEZE / ADVANCE); the expected replies are worked out from the
algorithms' formulas (algorithms/*.h) and the rescaling rules of section 5.
"""

import select
import time

import pytest

from frozen_clock import T0, Clock

import servers

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


@pytest.fixture
def server(shared_debug_sluiced):
    """One sluiced for the module (conftest: shared_debug_sluiced), emptied before each test."""
    return shared_debug_sluiced


def policy_set(c, name, *definition):
    assert c.call("RL.POLICY", "SET", name, *definition) == "OK"


def policy_get(c, name):
    """RL.POLICY GET as a dict (RESP2: a flat array of name/value pairs)."""
    reply = c.call("RL.POLICY", "GET", name)
    if reply is None:
        return None
    assert isinstance(reply, list) and len(reply) == 14, reply
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def info_limiters(c):
    fields = {}
    for line in c.call("INFO", "limiters").decode().splitlines():
        if ":" in line and not line.startswith("#"):
            name, value = line.split(":", 1)
            fields[name] = value
    return fields


def test_info_limiters_has_one_line_per_policy_whatever_its_name(c, clock):
    """Names such as api:read are natural for limits: as Redis's INFO (getSafeInfoString),
    ':' and line breaks in a name become '_', so every policy keeps one parseable line."""
    for name in ("api", "api:read", "x\r\nused_memory"):
        policy_set(c, name, "TOKENBUCKET", 10, 10, 1000)
    assert c.call("RL.TAKE", "k", "api:read") == [1, 10, 9, -1, 100]
    lines = [line for line in c.call("INFO", "limiters").decode().split("\r\n")
             if line.startswith("policy_")]
    assert sorted(lines) == [
        "policy_api:allowed=0,refused=0,blocked=0,timed_out=0",
        "policy_api_read:allowed=1,refused=0,blocked=0,timed_out=0",
        "policy_x__used_memory:allowed=0,refused=0,blocked=0,timed_out=0"]


# ---- RL.POLICY --------------------------------------------------------------------------------


def test_policy_set_get_del_list(c, clock):
    assert c.call("RL.POLICY", "LIST") == []
    assert c.call("RL.POLICY", "GET", "api") is None
    policy_set(c, "api", "TOKENBUCKET", 100, 10, 1000)
    policy_set(c, "daily", "fixedwindow", 1000, 86400000)   # the algorithm name in any case
    policy_set(c, "burst", "GCRA", 0, 1, 1000)
    assert sorted(c.call("RL.POLICY", "LIST")) == [b"api", b"burst", b"daily"]
    assert c.call("RL.POLICY", "GET", "api") == [
        b"name", b"api", b"algorithm", b"TOKENBUCKET", b"args", [b"100", b"10", b"1000"],
        b"allowed", 0, b"refused", 0, b"blocked", 0, b"timed_out", 0]
    assert policy_get(c, "daily")["algorithm"] == b"FIXEDWINDOW"
    # RESP3: a map.
    c.call("HELLO", "3")
    reply = c.call("RL.POLICY", "GET", "burst")
    assert isinstance(reply, servers.Map)
    assert reply.as_dict()[b"args"] == [b"0", b"1", b"1000"]
    c.call("HELLO", "2")
    # Replacing keeps the name (and the counters); DEL forgets.
    policy_set(c, "api", "TOKENBUCKET", 200, 20, 1000)
    assert policy_get(c, "api")["args"] == [b"200", b"20", b"1000"]
    assert c.call("RL.POLICY", "DEL", "api") == 1
    assert c.call("RL.POLICY", "DEL", "api") == 0
    assert c.call("RL.POLICY", "GET", "api") is None
    assert sorted(c.call("RL.POLICY", "LIST")) == [b"burst", b"daily"]
    assert c.call("RL.TAKE", "u", "api") == "ERR unknown policy 'api'"


BAD_DEFINITIONS = [
    (("SMOOTH", 10), "ERR unknown algorithm 'SMOOTH': use FIXEDWINDOW, SLIDINGLOG, "
                     "SLIDINGWINDOW, TOKENBUCKET, LEAKYBUCKET or GCRA"),
    (("BUCKET", 10, 1, 1000), "ERR unknown algorithm 'BUCKET': use FIXEDWINDOW, SLIDINGLOG, "
                              "SLIDINGWINDOW, TOKENBUCKET, LEAKYBUCKET or GCRA"),
    (("TOKENBUCKET", 10, 1), "ERR wrong number of arguments for algorithm TOKENBUCKET"),
    (("FIXEDWINDOW", 10, 1000, 5), "ERR wrong number of arguments for algorithm FIXEDWINDOW"),
    (("TOKENBUCKET", 0, 1, 1000), "ERR capacity must be a positive integer"),
    (("TOKENBUCKET", 10, "x", 1000), "ERR tokens must be a positive integer"),
    (("LEAKYBUCKET", 10, 1, -1), "ERR period_ms must be a positive integer"),
    (("FIXEDWINDOW", "1.5", 1000), "ERR limit must be a positive integer"),
    (("SLIDINGWINDOW", 10, 0), "ERR window_ms must be a positive integer"),
    (("SLIDINGLOG", 1_000_001, 1000), "ERR limit must be at most 1000000"),
    (("GCRA", -1, 1, 1000), "ERR max_burst must be a non-negative integer"),
    (("TOKENBUCKET", "9223372036854775807", 1, 1000),
     "ERR limiter arithmetic would overflow (arguments or clock out of range)"),
    (("TOKENBUCKET", 10, 1, 1000, "COST", 1), "ERR wrong number of arguments for algorithm "
                                              "TOKENBUCKET"),
]


@pytest.mark.parametrize("definition, error", BAD_DEFINITIONS)
def test_bad_definition_is_refused_and_nothing_stored(c, clock, definition, error):
    assert c.call("RL.POLICY", "SET", "p", *definition) == error
    assert c.call("RL.POLICY", "GET", "p") is None
    assert c.call("RL.POLICY", "LIST") == []
    # A bad redefinition leaves the old definition in place.
    policy_set(c, "p", "TOKENBUCKET", 5, 1, 1000)
    assert c.call("RL.POLICY", "SET", "p", *definition) == error
    assert policy_get(c, "p")["args"] == [b"5", b"1", b"1000"]


@pytest.mark.parametrize("cmd, error", [
    (("RL.POLICY", "SET", "COST", "TOKENBUCKET", 1, 1, 1),
     "ERR policy name must not be COST or BLOCK"),
    (("RL.POLICY", "SET", "block", "TOKENBUCKET", 1, 1, 1),
     "ERR policy name must not be COST or BLOCK"),
    (("RL.POLICY", "SET", "p"), "ERR wrong number of arguments for 'rl.policy|set' command"),
    (("RL.POLICY", "GET"), "ERR wrong number of arguments for 'rl.policy|get' command"),
    (("RL.POLICY", "DEL", "a", "b"), "ERR wrong number of arguments for 'rl.policy|del' command"),
    (("RL.POLICY", "LIST", "x"), "ERR wrong number of arguments for 'rl.policy|list' command"),
    (("RL.POLICY",), "ERR wrong number of arguments for 'rl.policy' command"),
    (("RL.TAKE", "u"), "ERR wrong number of arguments for 'rl.take' command"),
    (("RL.TAKE", "u", "COST", 1), "ERR syntax error"),
    (("RL.TAKE", "u", "x"), "ERR unknown policy 'x'"),
    (("RL.STATUS", "u", "x"), "ERR unknown policy 'x'"),
    (("RL.STATUS", "u"), "ERR wrong number of arguments for 'rl.status' command"),
    (("RL.RESET",), "ERR wrong number of arguments for 'rl.reset' command"),
])
def test_policy_command_errors(c, clock, cmd, error):
    assert c.call(*cmd) == error
    assert c.call("DBSIZE") == 0


def test_at_most_10000_policies(c, clock):
    batch = b"".join(servers.encode("RL.POLICY", "SET", f"p{i}", "TOKENBUCKET", 1, 1, 1000)
                     for i in range(10000))
    c.send(batch)
    for i in range(10000):
        assert c.read() == "OK", f"policy {i}"
    assert c.call("RL.POLICY", "SET", "one-too-many", "TOKENBUCKET", 1, 1, 1000) == \
        "ERR too many policies (at most 10000)"
    policy_set(c, "p9999", "TOKENBUCKET", 2, 1, 1000)   # redefining one is still fine
    assert c.call("RL.POLICY", "DEL", "p0") == 1
    policy_set(c, "one-more", "TOKENBUCKET", 1, 1, 1000)
    assert len(c.call("RL.POLICY", "LIST")) == 10000


def test_a_key_keeps_no_state_of_deleted_policies(c, clock):
    """Policies made and deleted by name (per tenant, per plan) against one key: each write of
    the key drops the states of policies deleted since. Before, every one stayed until it
    expired, the key grew with each (and each call with it), and past 10,000 of them the key
    was refused as corrupt until its window ended."""
    cycles = 10050
    batch = b"".join(servers.encode("RL.POLICY", "SET", f"t{i}", "FIXEDWINDOW", 10, 3600000) +
                     servers.encode("RL.TAKE", "shared", f"t{i}") +
                     servers.encode("RL.POLICY", "DEL", f"t{i}") for i in range(cycles))
    c.send(batch)
    for i in range(cycles):
        assert c.read() == "OK", f"cycle {i}"
        assert c.read()[0] == 1, f"cycle {i}"
        assert c.read() == 1, f"cycle {i}"
    policy_set(c, "fresh", "TOKENBUCKET", 10, 1, 1000)
    assert c.call("RL.TAKE", "shared", "fresh")[:3] == [1, 10, 9]
    # Only this last write's policy, and none deleted before it, is left for RL.RESET.
    assert c.call("RL.RESET", "shared") == 1


# ---- RL.TAKE / RL.STATUS ----------------------------------------------------------------------


def test_take_is_all_or_nothing(c, clock):
    policy_set(c, "p1", "TOKENBUCKET", 10, 1, 1000)
    policy_set(c, "p2", "FIXEDWINDOW", 2, 1000)
    # allowed: the least remaining (p2's); reset_after is the key's (the longest state)
    assert c.call("RL.TAKE", "u", "p1", "p2") == [1, 2, 1, -1, 1000]
    assert c.call("RL.TAKE", "u", "p1", "p2") == [1, 2, 0, -1, 2000]
    # p2 refuses: nothing is taken from p1 either
    assert c.call("RL.TAKE", "u", "p1", "p2") == [0, 2, 0, 1000, 2000]
    assert c.call("PTTL", "u") == 2000
    assert c.call("RL.STATUS", "u", "p1") == [1, 10, 8, -1, 2000]
    assert c.call("RL.TAKE", "u", "p1", "p2", "COST", 3) == [0, 2, 0, -1, 2000]
    assert c.call("RL.STATUS", "u", "p1") == [1, 10, 8, -1, 2000]
    # p1 alone still has tokens
    assert c.call("RL.TAKE", "u", "p1") == [1, 10, 7, -1, 3000]
    assert c.call("TYPE", "u") == "limiter"


def test_take_three_policies_second_refuses(c, clock):
    policy_set(c, "a", "SLIDINGLOG", 5, 1000)
    policy_set(c, "b", "GCRA", 0, 1, 5000)          # one per 5 s
    policy_set(c, "c", "TOKENBUCKET", 10, 10, 1000)
    assert c.call("RL.TAKE", "u", "a", "b", "c") == [1, 1, 0, -1, 5000]
    before = [c.call("RL.STATUS", "u", p) for p in ("a", "b", "c")]
    assert before == [[1, 5, 4, -1, 5000], [1, 1, 0, -1, 5000], [1, 10, 9, -1, 5000]]
    clock.at(100)
    assert c.call("RL.TAKE", "u", "a", "b", "c") == [0, 1, 0, 4900, 4900]
    assert [c.call("RL.STATUS", "u", p) for p in ("a", "b", "c")] == [
        [1, 5, 4, -1, 4900], [1, 1, 0, -1, 4900], [1, 10, 10, -1, 4900]]
    # the refusal with the largest retry_after wins; "never" (COST above a limit) is largest
    policy_set(c, "d", "FIXEDWINDOW", 2, 10000)
    assert c.call("RL.TAKE", "u", "d", "d") == [1, 2, 1, -1, 10000]   # listed twice, once taken
    assert c.call("RL.TAKE", "u", "d") == [1, 2, 0, -1, 10000]
    assert c.call("RL.TAKE", "u", "b", "d") == [0, 2, 0, 10000, 10000]
    assert c.call("RL.TAKE", "u", "d", "b") == [0, 2, 0, 10000, 10000]
    assert c.call("RL.TAKE", "u", "d", "c", "COST", 11) == [0, 2, 0, -1, 10000]  # first "never"


def test_status_counts_nothing(c, clock):
    policy_set(c, "p", "FIXEDWINDOW", 3, 1000)
    assert c.call("RL.STATUS", "u", "p") == [1, 3, 3, -1, 0]
    assert c.call("EXISTS", "u") == 0
    assert c.call("RL.TAKE", "u", "p", "COST", 0) == [1, 3, 3, -1, 0]
    assert c.call("EXISTS", "u") == 0
    assert c.call("RL.TAKE", "u", "p", "COST", 2) == [1, 3, 1, -1, 1000]
    for _ in range(3):
        assert c.call("RL.STATUS", "u", "p") == [1, 3, 1, -1, 1000]
    stats = policy_get(c, "p")
    assert (stats["allowed"], stats["refused"]) == (2, 0)  # COST 0 takes count as allowed


def test_take_resp3_map(c, clock):
    policy_set(c, "p", "TOKENBUCKET", 10, 5, 1000)
    c.call("HELLO", "3")
    reply = c.call("RL.TAKE", "u", "p")
    assert isinstance(reply, servers.Map)
    assert reply.as_dict() == {b"allowed": 1, b"limit": 10, b"remaining": 9,
                               b"retry_after_ms": -1, b"reset_after_ms": 200}


def test_unknown_policy_counts_nothing(c, clock):
    policy_set(c, "p", "FIXEDWINDOW", 3, 1000)
    assert c.call("RL.TAKE", "u", "p", "nope") == "ERR unknown policy 'nope'"
    assert c.call("EXISTS", "u") == 0
    assert c.call("RL.TAKE", "u", "p", "COST", "x") == "ERR cost must be a non-negative integer"
    assert c.call("EXISTS", "u") == 0


def test_take_with_block_on_several_policies(c, clock, server):
    policy_set(c, "sec", "TOKENBUCKET", 1, 1, 1000)
    policy_set(c, "win", "FIXEDWINDOW", 1, 3000)
    assert c.call("RL.TAKE", "u", "sec", "win") == [1, 1, 0, -1, 3000]
    # refused by both: the reply is the largest retry_after (win's 3000)
    assert c.call("RL.TAKE", "u", "sec", "win", "BLOCK", 2999) == [0, 1, 0, 3000, 3000]
    with server.client() as w:
        w.send(servers.encode("RL.TAKE", "u", "sec", "win", "BLOCK", 0))
        deadline = time.monotonic() + 10
        while info_limiters(c)["limiter_waiting"] != "1":
            assert time.monotonic() < deadline, "the RL.TAKE was not parked"
            time.sleep(0.01)
        clock.at(1000)   # sec would allow now, win not yet: still waiting
        assert info_limiters(c)["limiter_waiting"] == "1"
        assert not select.select([w.sock], [], [], 0.05)[0]
        clock.at(3000)
        assert w.read() == [1, 1, 0, -1, 3000]
    assert c.call("RL.STATUS", "u", "sec") == [1, 1, 0, -1, 3000]
    stats = policy_get(c, "win")
    assert (stats["allowed"], stats["refused"], stats["blocked"], stats["timed_out"]) == \
        (2, 1, 1, 0)


# ---- live policy changes ----------------------------------------------------------------------


def take(c, *args):
    return c.call("RL.TAKE", "u", "p", *args)


def status(c):
    return c.call("RL.STATUS", "u", "p")


def test_change_tokenbucket_keeps_the_consumed_share(c, clock):
    policy_set(c, "p", "TOKENBUCKET", 10, 10, 1000)
    assert take(c, "COST", 5) == [1, 10, 5, -1, 500]
    policy_set(c, "p", "TOKENBUCKET", 20, 20, 1000)         # half used -> 10 of 20 used
    assert status(c) == [1, 20, 10, -1, 500]
    assert take(c, "COST", 10) == [1, 20, 0, -1, 1000]
    assert take(c) == [0, 20, 0, 50, 1000]                  # the new rate: one per 50 ms
    policy_set(c, "p", "TOKENBUCKET", 4, 4, 1000)           # all used -> 4 of 4 used
    assert status(c) == [1, 4, 0, -1, 1000]
    assert take(c) == [0, 4, 0, 250, 1000]
    clock.at(1000)
    assert take(c, "COST", 4) == [1, 4, 0, -1, 1000]        # the new capacity
    assert take(c, "COST", 5) == [0, 4, 0, -1, 1000]


def test_reset_after_follows_the_definition_in_force(c, clock):
    """A faster refill makes the state fresh sooner than the expiry stored under the old
    definition: reset_after says so (0 once fresh), also beside another policy's refusal."""
    policy_set(c, "p", "TOKENBUCKET", 10, 1, 1000)
    policy_set(c, "q", "FIXEDWINDOW", 1, 60000)
    assert take(c, "COST", 5) == [1, 10, 5, -1, 5000]
    policy_set(c, "p", "TOKENBUCKET", 10, 10, 1000)         # 5 of 10 used, back in 500 ms
    assert status(c) == [1, 10, 5, -1, 500]
    clock.at(500)
    assert status(c) == [1, 10, 10, -1, 0]
    assert c.call("RL.TAKE", "u", "p", "q") == [1, 1, 0, -1, 60000]
    # q refuses; p would allow but counts nothing: the key is fresh when q's window ends.
    assert c.call("RL.TAKE", "u", "p", "q") == [0, 1, 0, 60000, 60000]
    policy_set(c, "r", "FIXEDWINDOW", 1, 100)
    assert c.call("RL.TAKE", "v", "p", "COST", 8) == [1, 10, 2, -1, 800]
    assert c.call("RL.TAKE", "v", "r") == [1, 1, 0, -1, 800]
    # r refuses; p, which would allow, is fresh only in 800 ms as it stands.
    assert c.call("RL.TAKE", "v", "p", "r") == [0, 1, 0, 100, 800]


def test_change_leakybucket_keeps_the_consumed_share(c, clock):
    policy_set(c, "p", "LEAKYBUCKET", 10, 10, 1000)
    assert take(c, "COST", 5) == [1, 10, 5, -1, 500]
    policy_set(c, "p", "LEAKYBUCKET", 4, 4, 1000)           # half full -> 2 of 4
    assert status(c) == [1, 4, 2, -1, 500]
    assert take(c, "COST", 2) == [1, 4, 0, -1, 1000]
    assert take(c) == [0, 4, 0, 250, 1000]


def test_change_gcra_keeps_the_consumed_share(c, clock):
    policy_set(c, "p", "GCRA", 4, 1, 1000)                  # limit 5
    assert take(c, "COST", 2) == [1, 5, 3, -1, 2000]
    policy_set(c, "p", "GCRA", 9, 1, 1000)                  # 2 of 5 used -> 4 of 10
    assert status(c) == [1, 10, 6, -1, 4000]
    assert take(c, "COST", 6) == [1, 10, 0, -1, 10000]
    assert take(c) == [0, 10, 0, 1000, 10000]


def test_change_fixedwindow_keeps_the_count(c, clock):
    policy_set(c, "p", "FIXEDWINDOW", 10, 1000)
    assert take(c, "COST", 7) == [1, 10, 3, -1, 1000]
    policy_set(c, "p", "FIXEDWINDOW", 5, 1000)              # 7 counted, limit now 5
    over_limit_peek = status(c)                             # checked last
    assert take(c) == [0, 5, 0, 1000, 1000]
    clock.at(1000)
    assert take(c, "COST", 5) == [1, 5, 0, -1, 1000]
    policy_set(c, "p", "FIXEDWINDOW", 8, 1000)              # 5 counted, limit now 8
    assert status(c) == [1, 8, 3, -1, 1000]
    policy_set(c, "p", "FIXEDWINDOW", 8, 500)               # the window keeps its start
    # The window now ends at 1500. Until the next write the key keeps the old expiry (2000),
    # and a peek may report either (a stale state is dropped as fresh when read after 1500).
    peek = status(c)
    assert peek[:4] == [1, 8, 3, -1] and peek[4] in (500, 1000), peek
    assert take(c, "COST", 3) == [1, 8, 0, -1, 500]
    assert take(c) == [0, 8, 0, 500, 500]
    # RL.STATUS is "like COST 0", which "reports allowed=1" (section 4), also over a limit
    # lowered below what is already counted.
    assert over_limit_peek == [1, 5, 0, -1, 1000]


def test_change_slidinglog_keeps_the_log(c, clock):
    policy_set(c, "p", "SLIDINGLOG", 10, 1000)
    assert take(c, "COST", 3) == [1, 10, 7, -1, 1000]
    clock.at(500)
    assert take(c, "COST", 3) == [1, 10, 4, -1, 1000]
    policy_set(c, "p", "SLIDINGLOG", 4, 1000)               # 6 logged, limit now 4
    over_limit_peek = status(c)                             # checked last
    clock.at(600)
    assert take(c) == [0, 4, 0, 400, 900]                   # the 3 at 0 leave at 1000
    clock.at(1000)
    assert take(c) == [1, 4, 0, -1, 1000]
    assert take(c) == [0, 4, 0, 500, 1000]                  # the 3 at 500 leave at 1500
    # RL.STATUS is "like COST 0", which "reports allowed=1" (section 4), also over a limit
    # lowered below what is already counted.
    assert over_limit_peek == [1, 4, 0, -1, 1000]


def test_change_slidingwindow_keeps_the_counts(c, clock):
    policy_set(c, "p", "SLIDINGWINDOW", 10, 1000)
    assert take(c, "COST", 8) == [1, 10, 2, -1, 2000]
    policy_set(c, "p", "SLIDINGWINDOW", 4, 1000)            # 8 counted, limit now 4
    over_limit_peek = status(c)                             # checked last
    # next window: 8 x (1000 - e) / 1000 + 1 <= 4 from e = 625
    assert take(c) == [0, 4, 0, 1625, 2000]
    clock.at(1500)
    assert take(c) == [0, 4, 0, 125, 500]
    clock.at(1625)
    assert take(c) == [1, 4, 0, -1, 1375]
    # RL.STATUS is "like COST 0", which "reports allowed=1" (section 4), also over a limit
    # lowered below what is already counted.
    assert over_limit_peek == [1, 4, 0, -1, 2000]


def test_change_of_algorithm_does_not_break_the_key(c, clock):
    policy_set(c, "p", "TOKENBUCKET", 10, 1, 1000)
    assert take(c, "COST", 10)[0] == 1
    policy_set(c, "p", "FIXEDWINDOW", 3, 1000)
    reply = take(c)
    assert reply[:2] == [1, 3] and reply[3] == -1, reply
    assert c.call("TYPE", "u") == "limiter"


def test_a_settled_change_holds_no_expired_key_whatever_the_cron_did(c, clock):
    """A policy changed twice, then again after the first change settled: the key whose state
    expired meanwhile stays expired. Before, the hold began at the first change until the cron
    forgot it, so the same commands in one pipeline (before the cron's turn) kept the expired
    key visible (DBSIZE 1, PTTL 0), and with a pause between them did not."""
    commands = [
        ("RL.POLICY", "SET", "pb", "FIXEDWINDOW", 10, 5000),
        ("RL.POLICY", "SET", "pb", "FIXEDWINDOW", 3, 5000),
        ("RL.TAKE", "k", "pb"),
        ("DEBUG", "CLOCK", "ADVANCE", 5500),
        ("RL.POLICY", "SET", "pb", "SLIDINGWINDOW", 8, 3000),
        ("DBSIZE",), ("PTTL", "k"),
    ]
    c.send(b"".join(servers.encode(*command) for command in commands))
    replies = [c.read() for _ in commands]
    assert replies[2][0] == 1, replies
    assert replies[5:] == [0, -2], replies


# ---- RL.RESET ---------------------------------------------------------------------------------


def test_reset(c, clock):
    policy_set(c, "a", "FIXEDWINDOW", 2, 1000)
    policy_set(c, "b", "TOKENBUCKET", 2, 1, 5000)
    assert c.call("RL.TAKE", "u", "a", "b", "COST", 2) == [1, 2, 0, -1, 10000]
    assert c.call("RL.RESET", "u", "a") == 1
    assert c.call("RL.STATUS", "u", "a") == [1, 2, 2, -1, 10000]
    assert c.call("RL.STATUS", "u", "b") == [1, 2, 0, -1, 10000]
    assert c.call("RL.RESET", "u", "a") == 0
    assert c.call("RL.RESET", "u", "nope") == 0
    assert c.call("RL.RESET", "u") == 1              # what was left: b
    assert c.call("EXISTS", "u") == 0
    assert c.call("RL.RESET", "u") == 0
    # a plain RL.* key: only a reset of everything removes it
    assert c.call("RL.GCRA", "g", 0, 1, 1000)[0] == 1
    assert c.call("RL.RESET", "g", "a") == 0
    assert c.call("RL.RESET", "g") == 1
    assert c.call("EXISTS", "g") == 0
    assert c.call("SET", "s", "v") == "OK"
    assert c.call("RL.RESET", "s") == WRONGTYPE


def test_reset_lets_block_waiters_through(c, clock, server):
    policy_set(c, "p", "FIXEDWINDOW", 1, 60000)
    assert take(c) == [1, 1, 0, -1, 60000]
    with server.client() as w:
        w.send(servers.encode("RL.TAKE", "u", "p", "BLOCK", 0))
        deadline = time.monotonic() + 10
        while info_limiters(c)["limiter_waiting"] != "1":
            assert time.monotonic() < deadline, "the RL.TAKE was not parked"
            time.sleep(0.01)
        assert c.call("RL.RESET", "u") == 1
        assert w.read() == [1, 1, 0, -1, 60000]


# ---- counters -------------------------------------------------------------------------------


def test_info_limiters_per_policy_lines(c, clock):
    policy_set(c, "a", "FIXEDWINDOW", 1, 1000)
    policy_set(c, "b", "TOKENBUCKET", 5, 1, 1000)
    assert c.call("RL.TAKE", "u", "a", "b")[0] == 1
    assert c.call("RL.TAKE", "u", "a", "b")[0] == 0
    assert c.call("RL.TAKE", "u", "b")[0] == 1
    assert c.call("RL.TOKENBUCKET", "plain", 1, 1, 1000)[0] == 1
    info = info_limiters(c)
    assert info["policies"] == "2"
    assert info["policy_a"] == "allowed=1,refused=1,blocked=0,timed_out=0"
    assert info["policy_b"] == "allowed=2,refused=1,blocked=0,timed_out=0"
    assert (info["limiter_allowed"], info["limiter_refused"]) == ("3", "1")
    assert c.call("RL.POLICY", "DEL", "a") == 1
    info = info_limiters(c)
    assert "policy_a" not in info and info["policies"] == "1"


def test_config_resetstat_zeroes_the_decision_counters(c, clock):
    # As Redis's stats: the totals and every policy's counters start over; the policies and
    # the limiters' states stay.
    policy_set(c, "a", "FIXEDWINDOW", 1, 1000)
    assert [c.call("RL.TAKE", "u", "a")[0] for _ in range(2)] == [1, 0]
    assert c.call("CONFIG", "RESETSTAT") == "OK"
    info = info_limiters(c)
    assert (info["limiter_allowed"], info["limiter_refused"]) == ("0", "0")
    assert info["policy_a"] == "allowed=0,refused=0,blocked=0,timed_out=0"
    stats = policy_get(c, "a")
    assert (stats["allowed"], stats["refused"], stats["blocked"], stats["timed_out"]) == \
        (0, 0, 0, 0)
    assert c.call("RL.TAKE", "u", "a")[0] == 0  # still refused: the window was kept
    assert info_limiters(c)["policy_a"] == "allowed=0,refused=1,blocked=0,timed_out=0"


# ---- durability and configuration -------------------------------------------------------------


def test_change_is_carried_over_at_the_moment_it_was_made(c, clock):
    policy_set(c, "p", "TOKENBUCKET", 10, 1, 1000)          # one token a second
    assert take(c, "COST", 10) == [1, 10, 0, -1, 10000]
    clock.at(5000)                                          # five are back
    policy_set(c, "p", "TOKENBUCKET", 10, 1, 10000)         # from now one per 10 s
    clock.at(15000)
    # 5 missing at the change, 1 refilled since: the old rate did not go on until this call.
    assert status(c) == [1, 10, 6, -1, 40000]
    assert take(c, "COST", 7) == [0, 10, 6, 10000, 40000]


def test_lengthened_policy_keeps_the_key_until_its_change_settles(c, clock):
    policy_set(c, "p", "TOKENBUCKET", 4, 1, 1000)
    assert take(c, "COST", 4) == [1, 4, 0, -1, 4000]        # the key was to expire at 4 s
    policy_set(c, "p", "TOKENBUCKET", 4, 1, 10000)          # now 40 s until full
    clock.at(3000)
    assert take(c, "COST", 3) == [0, 4, 0, 27000, 37000]    # 0.3 of a token back
    clock.at(5000)
    assert c.call("EXISTS", "u") == 1, "the old expiry must not reset the key"
    assert c.call("DBSIZE") == 1
    assert status(c) == [1, 4, 0, -1, 35000]
    assert c.call("DEBUG", "COMPACT") == "OK"               # nor the compaction filter
    assert c.call("DEBUG", "RAWKEYS") == 1
    assert status(c) == [1, 4, 0, -1, 35000]
    clock.at(40001)   # every state is fresh: the change settles and the key expires
    servers.wait_for(lambda: c.call("EXISTS", "u") == 0, "the key to expire after settling")
    assert status(c) == [1, 4, 4, -1, 0]


def test_only_keys_of_the_changed_policy_are_held_while_it_settles(debug_sluiced):
    """A pending change holds only keys with a state of the changed policy: keys of other
    policies, direct limiter keys and plain keys expire on time (reads, DBSIZE, the active
    cycle, compaction), also after a restart while the change is still pending."""
    server = debug_sluiced  # a server of its own: it restarts it
    with server.client() as c:
        _changed_policy_holds_only_its_keys(server, c, Clock(c))


def _changed_policy_holds_only_its_keys(server, c, clock):
    policy_set(c, "p", "TOKENBUCKET", 4, 1, 1000)
    policy_set(c, "q", "FIXEDWINDOW", 5, 2000)
    assert take(c, "COST", 4) == [1, 4, 0, -1, 4000]
    assert c.call("RL.TAKE", "uq", "q") == [1, 5, 4, -1, 2000]
    assert c.call("RL.FIXEDWINDOW", "direct", 10, 2000) == [1, 10, 9, -1, 2000]
    assert c.call("SET", "plain", "v", "PX", 2000) == "OK"
    policy_set(c, "p", "TOKENBUCKET", 4, 1, 10000)          # settles 40 s from now
    clock.at(5000)
    # DBSIZE and the compaction filter first: a read deletes what it finds expired. (The
    # active cycle may take "direct" first too; the storage unit tests cover each path alone.)
    assert c.call("DBSIZE") == 1, "only the key with a state of p is held"
    assert c.call("DEBUG", "COMPACT") == "OK"
    assert c.call("DEBUG", "RAWKEYS") == 1
    assert c.call("EXISTS", "u", "uq", "direct", "plain") == 1
    assert c.call("RL.FIXEDWINDOW", "again", 10, 2000) == [1, 10, 9, -1, 2000]
    server.stop("kill-9")
    server.start()
    with server.client() as c2:
        Clock(c2, T0 + 7001)
        assert c2.call("EXISTS", "u", "again") == 1, "after a restart too: only p's key"
        assert status(c2) == [1, 4, 0, -1, 32999]


def test_block_waiters_follow_a_change_and_a_deletion(c, clock, server):
    policy_set(c, "p", "FIXEDWINDOW", 1, 10000)
    assert take(c) == [1, 1, 0, -1, 10000]

    def park(w):
        w.send(servers.encode("RL.TAKE", "u", "p", "BLOCK", 0))
        servers.wait_for(lambda: info_limiters(c)["limiter_waiting"] == "1", "the waiter")

    with server.client() as w:
        park(w)
        policy_set(c, "p", "FIXEDWINDOW", 2, 10000)          # room for one more now
        assert w.read() == [1, 2, 0, -1, 10000]
    with server.client() as w:
        park(w)
        assert c.call("RL.POLICY", "DEL", "p") == 1
        assert w.read() == "ERR unknown policy 'p'"
    assert info_limiters(c)["limiter_waiting"] == "0"


@pytest.mark.parametrize("stop", ["shutdown", "kill-9"])
def test_a_change_survives_restart_with_its_moment(sluiced_factory, stop):
    server = sluiced_factory(enable_debug_command="yes", appendfsync="always")
    with server.client() as c:
        clock = Clock(c)
        policy_set(c, "p", "TOKENBUCKET", 10, 1, 1000)
        assert take(c, "COST", 10) == [1, 10, 0, -1, 10000]
        clock.at(5000)
        policy_set(c, "p", "TOKENBUCKET", 10, 1, 10000)
    server.stop(stop)
    server.start()
    with server.client() as c:
        Clock(c, T0 + 15000)   # past the key's old expiry (10 s), ten seconds after the change
        assert status(c) == [1, 10, 6, -1, 40000]


@pytest.mark.parametrize("stop", ["shutdown", "kill-9"])
def test_policies_and_their_states_survive_restart(sluiced_factory, stop):
    server = sluiced_factory(enable_debug_command="yes", appendfsync="always")
    with server.client() as c:
        Clock(c)
        policy_set(c, "a", "TOKENBUCKET", 10, 1, 1000)
        policy_set(c, "b", "SLIDINGLOG", 3, 60000)
        policy_set(c, "gone", "GCRA", 1, 1, 1000)
        assert c.call("RL.POLICY", "DEL", "gone") == 1
        assert c.call("RL.TAKE", "u", "a", "b", "COST", 2) == [1, 3, 1, -1, 60000]
    server.stop(stop)
    server.start()
    with server.client() as c:
        Clock(c)
        assert sorted(c.call("RL.POLICY", "LIST")) == [b"a", b"b"]
        assert policy_get(c, "a")["args"] == [b"10", b"1", b"1000"]
        assert policy_get(c, "b")["algorithm"] == b"SLIDINGLOG"
        assert c.call("RL.STATUS", "u", "a") == [1, 10, 8, -1, 60000]
        assert c.call("RL.TAKE", "u", "a", "b", "COST", 2) == [0, 3, 1, 60000, 60000]
        assert c.call("RL.TAKE", "u", "a", "b") == [1, 3, 0, -1, 60000]


def test_policy_from_the_command_line(sluiced_factory):
    server = sluiced_factory(enable_debug_command="yes", policy="cli TOKENBUCKET 10 1 1000")
    with server.client() as c:
        Clock(c)
        assert c.call("RL.POLICY", "LIST") == [b"cli"]
        assert policy_get(c, "cli")["args"] == [b"10", b"1", b"1000"]
        assert c.call("RL.TAKE", "u", "cli") == [1, 10, 9, -1, 1000]


def test_policies_from_a_config_file_win_over_stored_ones(sluiced_factory, tmp_path):
    config = tmp_path / "sluice.conf"
    config.write_text("# policies\n"
                      "policy api TOKENBUCKET 100 10 1000\n"
                      "policy daily FIXEDWINDOW 1000 86400000\n")
    server = sluiced_factory(config_file=config, enable_debug_command="yes")
    with server.client() as c:
        Clock(c)
        assert sorted(c.call("RL.POLICY", "LIST")) == [b"api", b"daily"]
        policy_set(c, "api", "TOKENBUCKET", 5, 1, 1000)     # changed at run time...
        policy_set(c, "own", "GCRA", 0, 1, 1000)            # ... and one of its own
        assert c.call("RL.TAKE", "u", "api") == [1, 5, 4, -1, 1000]
    server.restart()
    with server.client() as c:
        Clock(c)
        # the config file wins at start; the stored policy without a config line stays
        assert sorted(c.call("RL.POLICY", "LIST")) == [b"api", b"daily", b"own"]
        assert policy_get(c, "api")["args"] == [b"100", b"10", b"1000"]
        # the key's state is carried over to the config's definition (1 of 5 -> 20 of 100)
        assert c.call("RL.STATUS", "u", "api") == [1, 100, 80, -1, 2000]


@pytest.mark.parametrize("line, message", [
    ("policy p SMOOTH 10", "unknown algorithm"),
    ("policy p TOKENBUCKET 0 1 1000", "capacity must be a positive integer"),
    ("policy p TOKENBUCKET 10 1", "wrong number of arguments"),
    ("policy p", "policy"),
    ("policy cost TOKENBUCKET 10 10 1000", "policy name must not be COST or BLOCK"),
    ("policy BLOCK GCRA 0 1 1000", "policy name must not be COST or BLOCK"),
])
def test_bad_policy_in_config_file_exits_1(tmp_path, line, message):
    config = tmp_path / "bad.conf"
    config.write_text(line + "\n")
    port = servers.free_port()
    result = servers.run_sluiced_expect_exit(
        [config, "--port", port, "--bind", "127.0.0.1", "--dir", tmp_path / "data"], tmp_path)
    assert result.returncode == 1, result
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
