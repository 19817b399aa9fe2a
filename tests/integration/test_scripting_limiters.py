"""Limiter scripts as libraries ship them (script_limiters.py), run on redis-server 7.0 and
sluiced with the same keys and arguments, every reply compared to the byte (RESP2 and RESP3),
by EVAL and by EVALSHA. The GCRA reads redis.call('TIME'), so it runs on sluiced's frozen
test clock and is checked against a model instead.
"""

import math

import pytest

import script_limiters as scripts
from servers import Error


def _load(diff, body):
    sha = diff.check("SCRIPT", "LOAD", body)
    assert isinstance(sha, bytes) and len(sha) == 40, sha
    return sha.decode()


def test_spring_style_token_bucket(diff):
    sha = _load(diff, scripts.TOKEN_BUCKET)
    keys = ("2", "tb:tokens", "tb:stamp")
    # rate 2.5/s, capacity 5; requests at explicit times (s), fractional refills included.
    plan = [(100, 1), (100, 2), (100, 2), (100, 1), (100.4, 1), (101, 3), (101.1, 1),
            (103, 5), (103, 1), (110, 6), (110, 5)]
    for i, (now, requested) in enumerate(plan):
        args = ("2.5", "5", repr(now), str(requested))
        if i % 2:
            diff.check("EVALSHA", sha, *keys, *args)
        else:
            diff.check("EVAL", scripts.TOKEN_BUCKET, *keys, *args)
        diff.check("GET", "tb:tokens")
        diff.check("TTL", "tb:stamp")
    diff.assert_same()


def test_go_zero_style_fixed_window(diff):
    sha = _load(diff, scripts.FIXED_WINDOW)
    for _ in range(5):
        diff.check("EVALSHA", sha, "1", "fw:key", "3", "100")
        diff.check("TTL", "fw:key", clock=True)
    diff.check("GET", "fw:key")
    diff.check("EVAL", scripts.FIXED_WINDOW, "1", "fw:other", "1", "100")
    diff.check("EVAL", scripts.FIXED_WINDOW, "1", "fw:other", "1", "100")
    diff.check("TYPE", "fw:key")
    diff.assert_same()


def test_redisson_style_limiter(diff):
    reason = scripts.composite_types_missing(diff.sluice)
    if reason:
        pytest.skip(reason)
    sha = _load(diff, scripts.REDISSON)
    keys = ("3", "rs:{a}", "rs:{a}:value", "rs:{a}:permits")
    diff.check("HSET", "rs:{a}", "type", "0")
    diff.check("PEXPIRE", "rs:{a}", "600000")
    # rate 5 permits per 1000 ms; grants at explicit times with distinct ids.
    plan = [(1000, 2), (1100, 2), (1200, 2), (1300, 1), (1999, 1), (2000, 1), (2150, 3),
            (2300, 4), (5000, 5), (5001, 1)]
    for i, (now, permits) in enumerate(plan):
        args = (str(permits), str(now), f"id-{i:04d}", "5", "1000")
        diff.check("EVALSHA", sha, *keys, *args)
        diff.check("GET", "rs:{a}:value")
        diff.check("ZCARD", "rs:{a}:permits")
    diff.check("ZRANGE", "rs:{a}:permits", "0", "-1", "WITHSCORES")
    diff.check("HGETALL", "rs:{a}", sort=True)  # field order is the hash type's business
    diff.check("EVALSHA", sha, *keys, "6", "6000", "id-x", "5", "1000")  # over the rate: assert
    diff.assert_same()


def _gcra_model(state, now, burst, count, period, cost):
    interval = period / count
    tat = max(state.get("tat", now), now)
    new_tat = tat + interval * cost
    allow_at = new_tat - interval * (burst + 1)
    if now < allow_at:
        return [0, math.ceil(allow_at - now)]
    state["tat"] = new_tat
    return [1, 0]


def test_gcra_on_the_frozen_server_clock(debug_sluiced):
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", "1700000000000") == "OK"
        sha = c.call("SCRIPT", "LOAD", scripts.GCRA).decode()
        state = {}
        now = 1700000000000
        steps = [0, 0, 0, 0, 0, 100, 0, 35, 65, 250, 0, 0, 0, 0, 1000]
        for advance in steps:
            if advance:
                assert c.call("DEBUG", "CLOCK", "ADVANCE", str(advance)) == "OK"
                now += advance
            got = c.call("EVALSHA", sha, "1", "gcra:k", "2", "10", "1000", "1")
            assert got == _gcra_model(state, now, 2, 10, 1000, 1), (now, got, state)
            pttl = c.call("PTTL", "gcra:k")
            assert pttl == math.ceil(state["tat"] - now), (now, pttl, state)
        # A request costing more than the burst can never pass.
        assert c.call("EVALSHA", sha, "1", "gcra:k", "2", "10", "1000", "4")[0] == 0
        assert isinstance(c.call("EVALSHA", sha, "1", "gcra:k", "x", "10", "1000", "1"), Error)
