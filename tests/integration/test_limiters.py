"""The native limiter commands through the real daemon (contract section 4): RL.FIXEDWINDOW,
RL.SLIDINGLOG, RL.SLIDINGWINDOW, RL.TOKENBUCKET, RL.LEAKYBUCKET, RL.GCRA, CL.THROTTLE and
RL.SMOOTH.

Every table is a sequence of (time, options, expected reply) rows on the test clock (DEBUG CLOCK
FREEZE / ADVANCE), checking all five fields and, after every row, that the key's PTTL equals
reset_after_ms. The expected values are worked out by hand from each algorithm's formula (the
header comments of algorithms/*.h), from redis-cell's own tables (CL.THROTTLE) and from Guava's
RateLimiterTest (RL.SMOOTH). Nothing sleeps: time moves only when a test moves it.
"""

import pytest

from frozen_clock import T0, Clock

import servers

OVERFLOW = "ERR limiter arithmetic would overflow (arguments or clock out of range)"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
SYNTAX = "ERR syntax error"


@pytest.fixture
def server(shared_debug_sluiced):
    """One sluiced for the module (conftest: shared_debug_sluiced), emptied before each test."""
    return shared_debug_sluiced


def check_pttl(c, key, reply, where=""):
    """A limiter key lives exactly as long as reset_after_ms says; reset 0 means no key (or,
    at the very millisecond it expires, a key with PTTL 0, as Redis keeps a key at its
    expiry time)."""
    reset = reply[4]
    pttl = c.call("PTTL", key)
    if reset > 0:
        assert pttl == reset, f"{where}: PTTL {pttl} but reset_after_ms {reset}"
    else:
        assert pttl in (-2, 0), f"{where}: PTTL {pttl} with reset_after_ms 0"


def run_table(c, clock, key, command, rows, pttl=True):
    """rows: (t_ms, extra arguments, expected 5 fields). `command` is the command and its
    positional parameters without the key."""
    for i, (t, extra, expected) in enumerate(rows):
        clock.at(t)
        args = (command[0], key, *command[1:], *extra)
        got = c.call(*args)
        where = f"row {i} at t={t}: {' '.join(map(str, args))}"
        assert got == expected, f"{where}: got {got}, expected {expected}"
        if pttl:
            check_pttl(c, key, got, where)


# ---- one table per algorithm ---------------------------------------------------------------

# RL.FIXEDWINDOW key 3 1000: the window starts with the first counted request.
FIXEDWINDOW_ROWS = [
    (0, (), [1, 3, 2, -1, 1000]),
    (0, ("COST", 2), [1, 3, 0, -1, 1000]),
    (0, (), [0, 3, 0, 1000, 1000]),               # full: retry when the window ends
    (400, (), [0, 3, 0, 600, 600]),
    (400, ("COST", 0), [1, 3, 0, -1, 600]),       # a peek is "allowed" and counts nothing
    (999, (), [0, 3, 0, 1, 1]),
    (1000, (), [1, 3, 2, -1, 1000]),              # a new window starts at 1000
    (1000, ("COST", 4), [0, 3, 2, -1, 1000]),     # above the limit: never (retry -1)
    (1500, ("COST", 2), [1, 3, 0, -1, 500]),
    (1999, ("COST", 1), [0, 3, 0, 1, 1]),
    (2000, ("COST", 0), [1, 3, 3, -1, 0]),        # the window is over: fresh
    (2700, ("COST", 3), [1, 3, 0, -1, 1000]),     # ... and the next starts at 2700, not 3000
    (3699, (), [0, 3, 0, 1, 1]),
]

# RL.SLIDINGLOG key 3 1000: exact; a grant leaves the window (now - 1000, now] 1000 ms later.
SLIDINGLOG_ROWS = [
    (0, (), [1, 3, 2, -1, 1000]),
    (100, (), [1, 3, 1, -1, 1000]),
    (200, (), [1, 3, 0, -1, 1000]),
    (300, (), [0, 3, 0, 700, 900]),               # the grant at 0 leaves at 1000
    (300, ("COST", 2), [0, 3, 0, 800, 900]),      # two must leave: the one at 100 at 1100
    (300, ("COST", 4), [0, 3, 0, -1, 900]),
    (999, (), [0, 3, 0, 1, 201]),
    (1000, (), [1, 3, 0, -1, 1000]),              # 0 is out of (0, 1000]
    (1100, (), [1, 3, 0, -1, 1000]),
    (1150, ("COST", 0), [1, 3, 0, -1, 950]),
    (1200, (), [1, 3, 0, -1, 1000]),
    (1700, ("COST", 0), [1, 3, 0, -1, 500]),
    (2050, ("COST", 0), [1, 3, 1, -1, 150]),      # 1000 is out of (1050, 2050]
    (2200, ("COST", 0), [1, 3, 3, -1, 0]),
]

# RL.SLIDINGWINDOW key 10 1000: windows [k*1000, (k+1)*1000) since the epoch (T0 is aligned).
# estimate = prev x (1000 - elapsed) / 1000 + curr.
SLIDINGWINDOW_ROWS = [
    (0, ("COST", 5), [1, 10, 5, -1, 2000]),       # fresh at the end of the next window
    (500, ("COST", 5), [1, 10, 0, -1, 1500]),
    # next window: prev 10, so 1 more fits once 10 x (1000 - e) + 1000 <= 10000, e >= 100
    (500, (), [0, 10, 0, 600, 1500]),
    (1099, (), [0, 10, 0, 1, 901]),
    (1100, (), [1, 10, 0, -1, 1900]),
    (1500, ("COST", 0), [1, 10, 4, -1, 1500]),    # 10 x 0.5 + 1 = 6 used
    (1500, ("COST", 11), [0, 10, 4, -1, 1500]),
    (2500, ("COST", 0), [1, 10, 9, -1, 500]),     # prev 1 x 0.5 = 0.5 used: 9 remain (floor)
    (3000, ("COST", 0), [1, 10, 10, -1, 0]),
]

# RL.TOKENBUCKET key 10 5 1000: full at first; a token every 200 ms.
TOKENBUCKET_ROWS = [
    (0, (), [1, 10, 9, -1, 200]),
    (0, ("COST", 9), [1, 10, 0, -1, 2000]),
    (0, (), [0, 10, 0, 200, 2000]),
    (100, (), [0, 10, 0, 100, 1900]),             # half a token back: the other half in 100
    (200, (), [1, 10, 0, -1, 2000]),
    (1200, ("COST", 3), [1, 10, 2, -1, 1600]),    # 5 back, 3 taken
    (1200, ("COST", 11), [0, 10, 2, -1, 1600]),   # more than the bucket holds: never
    (1200, ("COST", 5), [0, 10, 2, 600, 1600]),
    (1300, ("COST", 0), [1, 10, 2, -1, 1500]),    # 2.5 tokens: remaining rounds down
    (2800, ("COST", 0), [1, 10, 10, -1, 0]),      # full again
]

# RL.LEAKYBUCKET key 10 5 1000: the same machine seen as water in a funnel (leaks 1 per 200 ms).
LEAKYBUCKET_ROWS = TOKENBUCKET_ROWS

# RL.GCRA key 4 1 1000 (limit 5, one every 1000 ms): redis-cell's own `it_rate_limits` table
# (redis-cell-impl/src/lib.rs), in milliseconds.
GCRA_ROWS = [
    (0, ("COST", 6), [0, 5, 5, -1, 0]),           # never more than the limit
    (0, (), [1, 5, 4, -1, 1000]),
    (0, (), [1, 5, 3, -1, 2000]),
    (0, (), [1, 5, 2, -1, 3000]),
    (0, (), [1, 5, 1, -1, 4000]),
    (0, (), [1, 5, 0, -1, 5000]),
    (0, (), [0, 5, 0, 1000, 5000]),
    (3000, (), [1, 5, 2, -1, 3000]),
    (3100, (), [1, 5, 1, -1, 3900]),
    (4000, (), [1, 5, 1, -1, 4000]),
    (8000, (), [1, 5, 4, -1, 1000]),
    (9500, (), [1, 5, 4, -1, 1000]),
    (9500, ("COST", 0), [1, 5, 4, -1, 1000]),     # a peek
    (9500, ("COST", 2), [1, 5, 2, -1, 3000]),
    (9500, ("COST", 5), [0, 5, 2, 3000, 3000]),
]

TABLES = {
    "fixedwindow": (("RL.FIXEDWINDOW", 3, 1000), FIXEDWINDOW_ROWS),
    "slidinglog": (("RL.SLIDINGLOG", 3, 1000), SLIDINGLOG_ROWS),
    "slidingwindow": (("RL.SLIDINGWINDOW", 10, 1000), SLIDINGWINDOW_ROWS),
    "tokenbucket": (("RL.TOKENBUCKET", 10, 5, 1000), TOKENBUCKET_ROWS),
    "leakybucket": (("RL.LEAKYBUCKET", 10, 5, 1000), LEAKYBUCKET_ROWS),
    "gcra": (("RL.GCRA", 4, 1, 1000), GCRA_ROWS),
}


@pytest.mark.parametrize("name", list(TABLES))
def test_limiter_table(c, clock, name):
    command, rows = TABLES[name]
    run_table(c, clock, "k", command, rows)


def test_leaky_bucket_funnel_example(c, clock):
    """Capacity 15 leaking 30 per 60 s: 15 at once, then one every 2 s."""
    cmd = ("RL.LEAKYBUCKET", "funnel", 15, 30, 60000)
    for i in range(15):
        got = c.call(*cmd)
        assert got == [1, 15, 14 - i, -1, 2000 * (i + 1)], f"request {i}"
    assert c.call(*cmd) == [0, 15, 0, 2000, 30000]
    for n in range(1, 6):
        clock.at(2000 * n - 1)
        assert c.call(*cmd) == [0, 15, 0, 1, 28001], f"just before slot {n}"
        clock.at(2000 * n)
        assert c.call(*cmd) == [1, 15, 0, -1, 30000], f"slot {n}"
        assert c.call(*cmd) == [0, 15, 0, 2000, 30000], f"after slot {n}"
        assert c.call("PTTL", "funnel") == 30000
    clock.at(10000 + 30000)
    assert c.call(*cmd, "COST", 0) == [1, 15, 15, -1, 0]
    clock.advance(1)
    assert c.call("EXISTS", "funnel") == 0


# ---- CL.THROTTLE: redis-cell's vectors -------------------------------------------------------


def test_cl_throttle_readme_example(c, clock):
    # README.md: "CL.THROTTLE user123 15 30 60" -> 0, 16, 15, -1, 2
    assert c.call("CL.THROTTLE", "user123", 15, 30, 60) == [0, 16, 15, -1, 2]
    assert c.call("CL.THROTTLE", "user123", 15, 30, 60, 1) == [0, 16, 14, -1, 4]
    assert c.call("TYPE", "user123") == "limiter"


def test_cl_throttle_e2e_example(c, clock):
    # tests/e2e.rs: max_burst 0, 1 token per 2 s.
    cmd = ("CL.THROTTLE", "user123", 0, 1, 2, 1)
    assert c.call(*cmd) == [0, 1, 0, -1, 2]
    assert c.call(*cmd) == [1, 1, 0, 2, 2]
    clock.advance(2000)
    assert c.call(*cmd) == [0, 1, 0, -1, 2]


# redis-cell-impl/src/lib.rs `it_rate_limits` (max_burst 4, 1 per second) through CL.THROTTLE:
# durations in whole seconds, plus one when the sub-second part holds at least 1 ms.
CL_THROTTLE_ROWS = [
    (0, 6, [1, 5, 5, -1, 0]),
    (0, 1, [0, 5, 4, -1, 1]),
    (0, 1, [0, 5, 3, -1, 2]),
    (0, 1, [0, 5, 2, -1, 3]),
    (0, 1, [0, 5, 1, -1, 4]),
    (0, 1, [0, 5, 0, -1, 5]),
    (0, 1, [1, 5, 0, 1, 5]),
    (3000, 1, [0, 5, 2, -1, 3]),
    (3100, 1, [0, 5, 1, -1, 4]),     # 3.9 s -> 4
    (4000, 1, [0, 5, 1, -1, 4]),
    (8000, 1, [0, 5, 4, -1, 1]),
    (9500, 1, [0, 5, 4, -1, 1]),
    (9500, 0, [0, 5, 4, -1, 1]),
    (9500, 2, [0, 5, 2, -1, 3]),
    (9500, 5, [1, 5, 2, 3, 3]),
]


def test_cl_throttle_redis_cell_table(c, clock):
    for i, (t, quantity, expected) in enumerate(CL_THROTTLE_ROWS):
        clock.at(t)
        got = c.call("CL.THROTTLE", "foo", 4, 1, 1, quantity)
        assert got == expected, f"case {i} at t={t} quantity {quantity}"


def test_cl_throttle_sub_second_rounding(c, clock):
    # 10 per second, burst 0: T = 100 ms; redis-cell rounds any duration of 1 ms or more
    # below a second up to 1 s.
    assert c.call("CL.THROTTLE", "r", 0, 10, 1) == [0, 1, 0, -1, 1]
    assert c.call("CL.THROTTLE", "r", 0, 10, 1) == [1, 1, 0, 1, 1]
    clock.advance(99)
    assert c.call("CL.THROTTLE", "r", 0, 10, 1) == [1, 1, 0, 1, 1]   # 1 ms left: still 1 s
    clock.advance(1)
    assert c.call("CL.THROTTLE", "r", 0, 10, 1) == [0, 1, 0, -1, 1]


def test_cl_throttle_and_rl_gcra_share_state(c, clock):
    assert c.call("CL.THROTTLE", "g", 4, 1, 1) == [0, 5, 4, -1, 1]
    assert c.call("RL.GCRA", "g", 4, 1, 1000) == [1, 5, 3, -1, 2000]
    assert c.call("CL.THROTTLE", "g", 4, 1, 1, 3) == [0, 5, 0, -1, 5]
    assert c.call("RL.GCRA", "g", 4, 1, 1000) == [0, 5, 0, 1000, 5000]
    assert c.call("CL.THROTTLE", "g", 4, 1, 1) == [1, 5, 0, 1, 5]
    assert c.call("PTTL", "g") == 5000
    assert c.call("RL.TOKENBUCKET", "g", 5, 1, 1000) == WRONGTYPE


def test_cl_throttle_resp3_is_an_array(c, clock):
    assert c.call("HELLO", "3")[0] == (b"server", b"redis")
    assert (c.call_raw("CL.THROTTLE", "user123", 15, 30, 60)
            == b"*5\r\n:0\r\n:16\r\n:15\r\n:-1\r\n:2\r\n")


@pytest.mark.parametrize("args, error", [
    (("x", 1, 1), "ERR Couldn't parse as integer: x"),
    ((1, "1.5", 1), "ERR Couldn't parse as integer: 1.5"),
    ((1, 0, 1), "ERR Zero rates are not supported"),
    ((1, 1, 0), "ERR Zero rates are not supported"),
    ((-1, 1, 1), "ERR max_burst must be a non-negative integer"),
    ((1, 1, 1, -1), "ERR quantity must be a non-negative integer"),
    ((1, 1), "ERR wrong number of arguments for 'cl.throttle' command"),
    ((1, 1, 1, 1, 1), "ERR wrong number of arguments for 'cl.throttle' command"),
])
def test_cl_throttle_errors(c, clock, args, error):
    assert c.call("CL.THROTTLE", "e", *args) == error
    assert c.call("EXISTS", "e") == 0


def test_cl_throttle_parses_numbers_as_redis_cell(c, clock):
    # redis-cell parses with Rust's i64::from_str: a leading '+' and leading zeros are fine.
    assert c.call("CL.THROTTLE", "p", "+1", "01", "001") == [0, 2, 1, -1, 1]


# ---- RL.SMOOTH: Guava's RateLimiterTest, replayed ---------------------------------------------


def acquire_and_sleep(c, clock, key, *args):
    """Guava's acquire() with a FakeStopwatch: returns the wait (ms) and lets it pass."""
    wait = c.call("RL.SMOOTH", key, *args)
    assert isinstance(wait, int) and wait >= 0, f"RL.SMOOTH {key} {args} -> {wait!r}"
    clock.advance(wait)
    return wait


def test_smooth_simple_weights(c, clock):
    """testSimpleWeights: create(1.0); acquire 1, 1, 2, 4, 8, 1 -> R0, R1, R1, R2, R4, R8.
    Guava's SmoothBursty starts empty; a fresh sluice key starts full, so MAXBURST 0 (nothing
    ever stored) replays Guava's empty start exactly."""
    waits = [acquire_and_sleep(c, clock, "w", 1, "MAXBURST", 0, "COST", n)
             for n in (1, 1, 2, 4, 8, 1)]
    assert waits == [0, 1000, 1000, 2000, 4000, 8000]


def test_smooth_fresh_key_starts_full(c, clock):
    """testSimple (5 per second): Guava, starting empty, says R0.00 R0.20 R0.20; a fresh sluice
    key holds one second of permits (5), so the first 5 go at once and then 200 ms each."""
    assert [c.call("RL.SMOOTH", "s", 5) for _ in range(5)] == [0] * 5
    assert c.call("RL.SMOOTH", "s", 5) == 0      # the free request: the next caller pays
    assert c.call("RL.SMOOTH", "s", 5) == 200
    assert c.call("RL.SMOOTH", "s", 5) == 400


def test_smooth_one_second_burst(c, clock):
    """testOneSecondBurst: after a rest, acquire 1, 1, 3, 1 go at once, the next waits 0.2 s."""
    clock.advance(2000)
    assert [c.call("RL.SMOOTH", "b", 5, "COST", n) for n in (1, 1, 3, 1)] == [0, 0, 0, 0]
    assert c.call("RL.SMOOTH", "b", 5) == 200


def test_smooth_next_caller_pays(c, clock):
    """1 permit per second: a large request is granted at once and the next caller pays."""
    assert c.call("RL.SMOOTH", "n", 1, "COST", 3) == 0       # 1 stored + 2 borrowed
    assert c.call("RL.SMOOTH", "n", 1, "COST", 10) == 2000   # pays the 2 borrowed
    assert c.call("RL.SMOOTH", "n", 1) == 12000              # pays the 10
    clock.advance(13000)
    assert c.call("RL.SMOOTH", "n", 1, "COST", 10) == 0      # free again: at once...
    assert c.call("RL.SMOOTH", "n", 1) == 10000              # ... and the next one pays


def test_smooth_try_acquire_with_timeout(c, clock):
    """testTryAcquire_noWaitAllowed and _someWaitAllowed (5 per second, Guava's empty start
    replayed with MAXBURST 0): TIMEOUT counts only when the limiter is next free."""
    key = ("RL.SMOOTH", "t", 5, "MAXBURST", 0)
    assert c.call(*key, "TIMEOUT", 0) == 0
    assert c.call(*key, "TIMEOUT", 0) is None
    assert c.call(*key, "TIMEOUT", 0) is None
    clock.advance(100)
    assert c.call(*key, "TIMEOUT", 0) is None

    # Guava's tryAcquire sleeps the wait it grants: so does the client here.
    key = ("u", 5, "MAXBURST", 0)
    assert acquire_and_sleep(c, clock, *key, "TIMEOUT", 0) == 0
    assert acquire_and_sleep(c, clock, *key, "TIMEOUT", 200) == 200
    assert c.call("RL.SMOOTH", *key, "TIMEOUT", 100) is None     # nothing reserved
    clock.advance(100)
    assert acquire_and_sleep(c, clock, *key, "TIMEOUT", 100) == 100
    # Only when the limiter is next free counts, not the request's size.
    assert acquire_and_sleep(c, clock, *key, "COST", 50, "TIMEOUT", 200) == 200
    assert c.call("RL.SMOOTH", *key, "TIMEOUT", 9999) is None
    assert c.call("RL.SMOOTH", *key, "TIMEOUT", 10000) == 10000


def test_smooth_warmup_ramp(c, clock):
    """testWarmUp: create(2.0, 4000 ms, 3.0): cold, the interval ramps from 3 x 0.5 s down to
    0.5 s; 4 s of rest make it cold again, 2 s do not."""
    key = ("w", 2, "WARMUP", 4000)
    ramp = [0, 1375, 1125, 875, 625, 500, 500, 500]
    assert [acquire_and_sleep(c, clock, *key) for _ in range(8)] == ramp
    clock.advance(500)   # repay the last acquire
    clock.advance(4000)  # cold again
    assert [acquire_and_sleep(c, clock, *key) for _ in range(8)] == ramp
    clock.advance(500)
    clock.advance(2000)  # not cold: it would take another 2 s
    assert [acquire_and_sleep(c, clock, *key) for _ in range(8)] == [0] + [500] * 7


def test_smooth_warmup_cold_factor(c, clock):
    """testWarmUpWithColdFactor: create(5.0, 4000 ms, 10.0) -> R0.00 R1.75 R1.26 R0.76 R0.30
    R0.20 R0.20 R0.20 (Guava prints two decimals; sluice replies whole ms, rounded up)."""
    guava = [0.00, 1.75, 1.26, 0.76, 0.30, 0.20, 0.20, 0.20]
    waits = [acquire_and_sleep(c, clock, "cf", 5, "WARMUP", 4000, "COLDFACTOR", 10)
             for _ in range(8)]
    for i, (w, g) in enumerate(zip(waits, guava)):
        assert abs(w / 1000 - g) <= 0.006, f"acquire {i}: {w} ms, Guava {g} s ({waits})"
    assert waits[5:] == [200, 200, 200]


def test_smooth_key_expires_when_rested(c, clock):
    assert c.call("RL.SMOOTH", "r", 10) == 0
    assert c.call("TYPE", "r") == "limiter"
    pttl = c.call("PTTL", "r")
    assert 0 < pttl <= 100      # one permit back at 10 per second
    clock.advance(pttl + 1)
    assert c.call("EXISTS", "r") == 0


def test_smooth_cost_zero_peeks(c, clock):
    assert c.call("RL.SMOOTH", "z", 1, "COST", 0) == 0
    assert c.call("EXISTS", "z") == 0
    assert c.call("RL.SMOOTH", "z", 1, "COST", 5) == 0
    assert c.call("RL.SMOOTH", "z", 1, "COST", 0) == 4000
    assert c.call("RL.SMOOTH", "z", 1, "COST", 0) == 4000   # reserves nothing


def test_smooth_reply_bytes(c, clock):
    assert c.call_raw("RL.SMOOTH", "b", 1) == b":0\r\n"     # the stored permit
    assert c.call_raw("RL.SMOOTH", "b", 1) == b":0\r\n"     # free now; the next one pays
    assert c.call_raw("RL.SMOOTH", "b", 1, "TIMEOUT", 10) == b"$-1\r\n"
    assert c.call_raw("RL.SMOOTH", "b", 1) == b":1000\r\n"
    c.call("HELLO", "3")
    assert c.call_raw("RL.SMOOTH", "b", 1, "TIMEOUT", 10) == b"_\r\n"
    assert c.call_raw("RL.SMOOTH", "b", 1, "COST", 0) == b":2000\r\n"


@pytest.mark.parametrize("args, error", [
    ((0,), "ERR permits_per_second must be a positive number"),
    (("x",), "ERR permits_per_second must be a positive number"),
    (("inf",), "ERR permits_per_second must be a positive number"),
    (("nan",), "ERR permits_per_second must be a positive number"),
    ((1, "MAXBURST", -1), "ERR maxburst must be a non-negative number"),
    ((1, "WARMUP", 0), "ERR warmup must be a positive integer"),
    ((1, "WARMUP", 10, "COLDFACTOR", "0.5"), "ERR coldfactor must be a number >= 1"),
    ((1, "COLDFACTOR", 2), SYNTAX),                     # COLDFACTOR only after WARMUP
    ((1, "BLOCK", 1), SYNTAX),                          # RL.SMOOTH has TIMEOUT instead
    ((1, "COST", -1), "ERR cost must be a non-negative integer"),
    ((1, "TIMEOUT", -1), "ERR timeout must be a non-negative integer"),
    ((1, "FOO"), SYNTAX),
    ((), "ERR wrong number of arguments for 'rl.smooth' command"),
    ((1, "COST", "9223372036854775807"), OVERFLOW),
])
def test_smooth_errors(c, clock, args, error):
    assert c.call("RL.SMOOTH", "e", *args) == error
    assert c.call("EXISTS", "e") == 0


# ---- what every RL.* command shares -----------------------------------------------------------

# (command, params, limit): a fresh key's peek is [1, limit, limit, -1, 0].
COMMANDS = [
    ("RL.FIXEDWINDOW", (5, 1000), 5),
    ("RL.SLIDINGLOG", (5, 1000), 5),
    ("RL.SLIDINGWINDOW", (5, 1000), 5),
    ("RL.TOKENBUCKET", (5, 1, 1000), 5),
    ("RL.LEAKYBUCKET", (5, 1, 1000), 5),
    ("RL.GCRA", (4, 1, 1000), 5),
]
COMMAND_IDS = [cmd for cmd, _, _ in COMMANDS]


@pytest.mark.parametrize("cmd, params, limit", COMMANDS, ids=COMMAND_IDS)
def test_cost_zero_peeks_without_creating_the_key(c, clock, cmd, params, limit):
    assert c.call(cmd, "k", *params, "COST", 0) == [1, limit, limit, -1, 0]
    assert c.call("EXISTS", "k") == 0
    assert c.call(cmd, "k", *params, "COST", 2) == [1, limit, limit - 2, -1,
                                                   c.call("PTTL", "k")]
    before = c.call("PTTL", "k")
    assert c.call(cmd, "k", *params, "COST", 0) == [1, limit, limit - 2, -1, before]
    assert c.call(cmd, "k", *params, "COST", 0) == [1, limit, limit - 2, -1, before]


@pytest.mark.parametrize("cmd, params, limit", COMMANDS, ids=COMMAND_IDS)
def test_cost_above_the_limit_is_refused_for_ever(c, clock, cmd, params, limit):
    assert c.call(cmd, "k", *params, "COST", limit + 1) == [0, limit, limit, -1, 0]
    assert c.call("EXISTS", "k") == 0
    assert c.call(cmd, "k", *params, "COST", limit) == [1, limit, 0, -1, c.call("PTTL", "k")]
    pttl = c.call("PTTL", "k")
    assert c.call(cmd, "k", *params, "COST", limit + 1) == [0, limit, 0, -1, pttl]


@pytest.mark.parametrize("cmd, before, cost, after, expected", [
    ("RL.FIXEDWINDOW", (10, 1000), 7, (5, 1000), [1, 5, 0, -1, 1000]),
    ("RL.SLIDINGLOG", (10, 1000), 7, (5, 1000), [1, 5, 0, -1, 1000]),
    ("RL.SLIDINGWINDOW", (10, 1000), 7, (5, 1000), [1, 5, 0, -1, 2000]),
    ("RL.GCRA", (9, 1, 1000), 10, (0, 1, 1000), [1, 1, 0, -1, 10000]),
    ("RL.TOKENBUCKET", (10, 1, 1000), 10, (5, 1, 1000), [1, 5, 0, -1, 5000]),
    ("RL.LEAKYBUCKET", (10, 1, 1000), 10, (5, 1, 1000), [1, 5, 0, -1, 5000]),
], ids=["fixedwindow", "slidinglog", "slidingwindow", "gcra", "tokenbucket", "leakybucket"])
def test_cost_zero_peek_is_allowed_over_a_lowered_limit(c, clock, cmd, before, cost, after,
                                                        expected):
    """The limit comes with every call; after a call with a lower limit than what is already
    counted, a COST 0 peek still "reports allowed=1" (contract section 4) with 0 remaining."""
    assert c.call(cmd, "k", *before, "COST", cost)[0] == 1
    assert c.call(cmd, "k", *after, "COST", 0) == expected
    refused = c.call(cmd, "k", *after)
    assert refused[:3] == [0, expected[1], 0] and refused[3] > 0, refused


def test_cl_throttle_quantity_zero_and_above_the_limit(c, clock):
    assert c.call("CL.THROTTLE", "k", 4, 1, 1, 0) == [0, 5, 5, -1, 0]
    assert c.call("CL.THROTTLE", "k", 4, 1, 1, 6) == [1, 5, 5, -1, 0]
    assert c.call("EXISTS", "k") == 0


@pytest.mark.parametrize("cmd, params, limit", COMMANDS, ids=COMMAND_IDS)
def test_resp3_replies_a_map(c, clock, cmd, params, limit):
    c.call("HELLO", "3")
    got = c.call(cmd, "k", *params)
    assert isinstance(got, servers.Map)
    assert [name for name, _ in got] == [b"allowed", b"limit", b"remaining", b"retry_after_ms",
                                         b"reset_after_ms"]
    fields = got.as_dict()
    assert (fields[b"allowed"], fields[b"limit"], fields[b"remaining"],
            fields[b"retry_after_ms"]) == (1, limit, limit - 1, -1)
    assert fields[b"reset_after_ms"] == c.call("PTTL", "k")


def test_exact_reply_bytes(c, clock):
    assert (c.call_raw("RL.TOKENBUCKET", "b", 10, 5, 1000)
            == b"*5\r\n:1\r\n:10\r\n:9\r\n:-1\r\n:200\r\n")
    c.call("HELLO", "3")
    assert (c.call_raw("RL.TOKENBUCKET", "b", 10, 5, 1000)
            == b"%5\r\n$7\r\nallowed\r\n:1\r\n$5\r\nlimit\r\n:10\r\n$9\r\nremaining\r\n:8\r\n"
               b"$14\r\nretry_after_ms\r\n:-1\r\n$14\r\nreset_after_ms\r\n:400\r\n")


# ---- bad arguments: exact texts, nothing changes ----------------------------------------------

BAD_ARGUMENTS = [
    ("RL.FIXEDWINDOW", (0, 1000), "ERR limit must be a positive integer"),
    ("RL.FIXEDWINDOW", ("x", 1000), "ERR limit must be a positive integer"),
    ("RL.FIXEDWINDOW", ("+1", 1000), "ERR limit must be a positive integer"),
    ("RL.FIXEDWINDOW", ("01", 1000), "ERR limit must be a positive integer"),
    ("RL.FIXEDWINDOW", (1, 0), "ERR window_ms must be a positive integer"),
    ("RL.FIXEDWINDOW", (1, "1.5"), "ERR window_ms must be a positive integer"),
    ("RL.FIXEDWINDOW", (1, "9223372036854775808"), "ERR window_ms must be a positive integer"),
    ("RL.SLIDINGLOG", (-1, 1000), "ERR limit must be a positive integer"),
    ("RL.SLIDINGLOG", (1, -5), "ERR window_ms must be a positive integer"),
    ("RL.SLIDINGLOG", (1_000_001, 1000), "ERR limit must be at most 1000000"),
    ("RL.SLIDINGWINDOW", (0, 1000), "ERR limit must be a positive integer"),
    ("RL.SLIDINGWINDOW", (10, ""), "ERR window_ms must be a positive integer"),
    ("RL.TOKENBUCKET", (0, 5, 1000), "ERR capacity must be a positive integer"),
    ("RL.TOKENBUCKET", (10, 0, 1000), "ERR tokens must be a positive integer"),
    ("RL.TOKENBUCKET", (10, 5, 0), "ERR period_ms must be a positive integer"),
    ("RL.LEAKYBUCKET", (0, 5, 1000), "ERR capacity must be a positive integer"),
    ("RL.LEAKYBUCKET", (10, -5, 1000), "ERR leaks must be a positive integer"),
    ("RL.LEAKYBUCKET", (10, 5, "x"), "ERR period_ms must be a positive integer"),
    ("RL.GCRA", (-1, 1, 1000), "ERR max_burst must be a non-negative integer"),
    ("RL.GCRA", (0, 0, 1000), "ERR count must be a positive integer"),
    ("RL.GCRA", (0, 1, 0), "ERR period_ms must be a positive integer"),
    ("RL.GCRA", (0, 2_000_000, 1),
     "ERR count is too large for period_ms (emission interval under 1 ns)"),
    # options
    ("RL.TOKENBUCKET", (10, 5, 1000, "COST", -1), "ERR cost must be a non-negative integer"),
    ("RL.TOKENBUCKET", (10, 5, 1000, "COST", "x"), "ERR cost must be a non-negative integer"),
    ("RL.TOKENBUCKET", (10, 5, 1000, "BLOCK", -1), "ERR block must be a non-negative integer"),
    ("RL.TOKENBUCKET", (10, 5, 1000, "COST"), SYNTAX),
    ("RL.TOKENBUCKET", (10, 5, 1000, "COST", 1, "COST", 1), SYNTAX),
    ("RL.TOKENBUCKET", (10, 5, 1000, "BLOCK", 1, "BLOCK", 1), SYNTAX),
    ("RL.TOKENBUCKET", (10, 5, 1000, "FOO", 1), SYNTAX),
    ("RL.TOKENBUCKET", (10, 5, 1000, "TIMEOUT", 1), SYNTAX),
    ("RL.GCRA", (1, 1, 1000, 1), SYNTAX),
    # a bad positional argument is reported before a bad option
    ("RL.TOKENBUCKET", (0, 5, 1000, "FOO"), "ERR capacity must be a positive integer"),
    # arity
    ("RL.FIXEDWINDOW", (1,), "ERR wrong number of arguments for 'rl.fixedwindow' command"),
    ("RL.SLIDINGLOG", (1,), "ERR wrong number of arguments for 'rl.slidinglog' command"),
    ("RL.SLIDINGWINDOW", (), "ERR wrong number of arguments for 'rl.slidingwindow' command"),
    ("RL.TOKENBUCKET", (10, 5), "ERR wrong number of arguments for 'rl.tokenbucket' command"),
    ("RL.LEAKYBUCKET", (10, 5), "ERR wrong number of arguments for 'rl.leakybucket' command"),
    ("RL.GCRA", (1, 1), "ERR wrong number of arguments for 'rl.gcra' command"),
]


@pytest.mark.parametrize("cmd, args, error", BAD_ARGUMENTS)
def test_bad_arguments_change_nothing(c, clock, cmd, args, error):
    # On a fresh key: no key appears.
    assert c.call(cmd, "fresh", *args) == error
    assert c.call("EXISTS", "fresh") == 0
    # On a key with state: the state and its TTL stay as they are.
    assert c.call("RL.TOKENBUCKET", "tb", 10, 5, 1000, "COST", 3) == [1, 10, 7, -1, 600]
    assert c.call(cmd, "tb", *args) == error
    assert c.call("PTTL", "tb") == 600
    assert c.call("RL.TOKENBUCKET", "tb", 10, 5, 1000, "COST", 0) == [1, 10, 7, -1, 600]


# ---- overflow: errors, never wrapped values ---------------------------------------------------

MAX = "9223372036854775807"

OVERFLOWS = [
    ("RL.FIXEDWINDOW", (1, MAX)),
    ("RL.FIXEDWINDOW", (1, "9223372036854776")),        # window_ms x 1000 passes 2^63
    ("RL.FIXEDWINDOW", (1, "9223372036854775")),        # now + window passes 2^63
    ("RL.SLIDINGLOG", (1, MAX)),
    ("RL.SLIDINGLOG", (1_000_000, MAX)),
    ("RL.SLIDINGWINDOW", (1, MAX)),
    ("RL.TOKENBUCKET", (MAX, 1, 1000)),
    ("RL.TOKENBUCKET", (MAX, MAX, 1)),
    ("RL.LEAKYBUCKET", (10, 1, MAX)),
    ("RL.GCRA", (MAX, 1, 1000)),
    ("RL.GCRA", (0, 1, MAX)),
    ("RL.GCRA", (5, 1, 1000, "COST", MAX)),             # cost x interval
    ("CL.THROTTLE", (5, 1, 1, MAX)),
    ("CL.THROTTLE", (0, 1, MAX)),
    ("CL.THROTTLE", (MAX, 1, 1)),
    ("RL.SMOOTH", ("1e-300",)),
    ("RL.SMOOTH", (1, "WARMUP", MAX)),
]


@pytest.mark.parametrize("cmd, args", OVERFLOWS)
def test_overflow_is_an_error(c, clock, cmd, args):
    assert c.call(cmd, "o", *args) == OVERFLOW
    assert c.call("EXISTS", "o") == 0


def test_huge_values_that_fit_are_exact(c, clock):
    assert c.call("RL.FIXEDWINDOW", "a", MAX, 1000) == [1, int(MAX), int(MAX) - 1, -1, 1000]
    assert c.call("RL.TOKENBUCKET", "b", 1, 1, 1000, "COST", MAX) == [0, 1, 1, -1, 0]
    assert c.call("RL.SLIDINGLOG", "c", 1_000_000, 1000) == [1, 1_000_000, 999_999, -1, 1000]
    assert c.call("RL.FIXEDWINDOW", "d", 1, "9223372036854") == [1, 1, 0, -1, 9223372036854]
    assert c.call("PTTL", "d") == 9223372036854



def _log_100_expired_and_30_kept(c, clock, call):
    """`call()` 100 times at 0..99 ms and 30 times at 5000..5029 ms, then moves to 10,500 ms:
    in a 10 s window the first 100 entries have left it."""
    for t in list(range(100)) + list(range(5000, 5030)):
        clock.at(t)
        assert call()[0] == 1
    clock.at(10_500)


@pytest.mark.parametrize("refuse", [
    ["RL.SLIDINGLOG", "k", 1000, 10_000, "COST", 971],     # the window cannot take 971 more
    ["RL.SLIDINGLOG", "k", 1000, 10_000, "COST", 1001],    # nor ever 1001
    ["RL.TAKE", "k", "log", "cap"],                        # the log would, "cap" refuses
])
def test_refusals_store_the_sliding_log_without_the_entries_that_left(c, clock, refuse):
    """A refusal counts nothing, yet one that read many entries which left the window stores
    the log without them: otherwise every refusal read them again, until a grant (300 to 620 us
    a call at 100,000 entries). The replies do not change."""
    assert c.call("RL.POLICY", "SET", "log", "SLIDINGLOG", 1000, 10_000) == "OK"
    assert c.call("RL.POLICY", "SET", "cap", "FIXEDWINDOW", 130, 86_400_000) == "OK"
    grant = refuse[:2] + (refuse[2:4] if refuse[0] == "RL.SLIDINGLOG" else refuse[2:])
    _log_100_expired_and_30_kept(c, clock, lambda: c.call(*grant))
    dumped = c.call("DUMP", "k")
    reply = c.call(*refuse)
    assert reply[0] == 0
    pruned = c.call("DUMP", "k")
    assert len(pruned) < len(dumped) - 100, "the 100 expired entries are still stored"
    assert c.call(*refuse) == reply
    assert c.call("DUMP", "k") == pruned, "nothing more to prune"
    # The same log as before, less what no longer counts: restored, it answers alike.
    assert c.call("RESTORE", "old", 0, dumped) == "OK"
    assert c.call("RESTORE", "new", 0, pruned) == "OK"
    for key in ("old", "new"):
        peek = (["RL.TAKE", key, "log"] if refuse[0] == "RL.TAKE"
                else ["RL.SLIDINGLOG", key, 1000, 10_000])
        assert c.call(*peek, "COST", 0)[:3] == [1, 1000, 970]


# ---- WRONGTYPE both ways ----------------------------------------------------------------------

# One command per kind of limiter state (RL.GCRA and CL.THROTTLE are one kind).
STATE_MAKERS = {
    "fixedwindow": ("RL.FIXEDWINDOW", 5, 1000),
    "slidinglog": ("RL.SLIDINGLOG", 5, 1000),
    "slidingwindow": ("RL.SLIDINGWINDOW", 5, 1000),
    "tokenbucket": ("RL.TOKENBUCKET", 5, 1, 1000),
    "leakybucket": ("RL.LEAKYBUCKET", 5, 1, 1000),
    "gcra": ("RL.GCRA", 4, 1, 1000),
    "throttle": ("CL.THROTTLE", 4, 1, 1),
    "smooth": ("RL.SMOOTH", 1),
    "policy": ("RL.TAKE", "pol"),
}
KIND = {"throttle": "gcra"}


def kind(name):
    return KIND.get(name, name)


def test_wrongtype_across_algorithms(c, clock):
    assert c.call("RL.POLICY", "SET", "pol", "TOKENBUCKET", 5, 1, 1000) == "OK"
    for holder, make in STATE_MAKERS.items():
        key = f"held-by-{holder}"
        first = c.call(make[0], key, *make[1:])
        assert not isinstance(first, servers.Error), f"{make}: {first}"
        assert c.call("TYPE", key) == "limiter"
        pttl = c.call("PTTL", key)
        for caller, cmd in STATE_MAKERS.items():
            got = c.call(cmd[0], key, *cmd[1:])
            if kind(caller) == kind(holder):
                assert not isinstance(got, servers.Error), f"{cmd} on {key}: {got}"
            else:
                assert got == WRONGTYPE, f"{cmd[0]} on a key held by {holder}: {got}"
        assert c.call("TYPE", key) == "limiter"
        assert c.call("PTTL", key) >= pttl  # only the calls of its own kind counted


def test_wrongtype_between_strings_and_limiters(c, clock):
    assert c.call("SET", "s", "v") == "OK"
    assert c.call("RL.POLICY", "SET", "pol", "TOKENBUCKET", 5, 1, 1000) == "OK"
    for cmd in STATE_MAKERS.values():
        assert c.call(cmd[0], "s", *cmd[1:]) == WRONGTYPE, cmd
    assert c.call("RL.STATUS", "s", "pol") == WRONGTYPE
    assert c.call("RL.RESET", "s") == WRONGTYPE
    assert c.call("GET", "s") == b"v"

    assert c.call("RL.TOKENBUCKET", "l", 5, 1, 1000) == [1, 5, 4, -1, 1000]
    for cmd in (("GET", "l"), ("INCR", "l"), ("INCRBY", "l", 2), ("INCRBYFLOAT", "l", "1.5"),
                ("APPEND", "l", "x"), ("STRLEN", "l"), ("GETSET", "l", "x"), ("GETDEL", "l"),
                ("DECR", "l")):
        assert c.call(*cmd) == WRONGTYPE, cmd
    assert c.call("MGET", "l", "s") == [None, b"v"]  # as Redis: nil for another type
    assert c.call("RL.TOKENBUCKET", "l", 5, 1, 1000, "COST", 0) == [1, 5, 4, -1, 1000]
    # SET replaces a key of any type, as in Redis.
    assert c.call("SET", "l", "now a string") == "OK"
    assert c.call("TYPE", "l") == "string"
    assert c.call("RL.TOKENBUCKET", "l", 5, 1, 1000) == WRONGTYPE


# ---- the key: TYPE, PTTL, expiry, SCAN, EXISTS, DEL -------------------------------------------


@pytest.mark.parametrize("name", list(STATE_MAKERS))
def test_key_vanishes_when_fresh_again(c, clock, name):
    assert c.call("RL.POLICY", "SET", "pol", "TOKENBUCKET", 5, 1, 1000) == "OK"
    cmd = STATE_MAKERS[name]
    c.call(cmd[0], "v", *cmd[1:])
    assert c.call("TYPE", "v") == "limiter"
    pttl = c.call("PTTL", "v")
    assert pttl > 0
    clock.advance(pttl)       # the very ms it expires: Redis still has the key (PTTL 0) ...
    assert c.call("PTTL", "v") in (0, -2)
    clock.advance(1)          # ... and then it is gone
    assert c.call("EXISTS", "v") == 0
    assert c.call("TYPE", "v") == "none"
    assert c.call("DBSIZE") == 0
    assert c.call("DEBUG", "COMPACT") == "OK"
    assert c.call("DEBUG", "RAWKEYS") == 0


def test_key_expiry_tracks_the_state(c, clock):
    """A refused request leaves the TTL as it is; an allowed one moves it."""
    assert c.call("RL.GCRA", "g", 1, 1, 1000) == [1, 2, 1, -1, 1000]
    assert c.call("PEXPIRETIME", "g") == T0 + 1000
    assert c.call("RL.GCRA", "g", 1, 1, 1000) == [1, 2, 0, -1, 2000]
    assert c.call("PEXPIRETIME", "g") == T0 + 2000
    assert c.call("RL.GCRA", "g", 1, 1, 1000) == [0, 2, 0, 1000, 2000]
    assert c.call("PEXPIRETIME", "g") == T0 + 2000
    clock.advance(500)
    assert c.call("TTL", "g") == 2
    assert c.call("PTTL", "g") == 1500


@pytest.mark.parametrize("cmd,first,longer,refused_then,refused_later", [
    # A window of 1 s, then of 10 s: the counted request keeps the key for the whole 10 s.
    (["RL.FIXEDWINDOW", "k", 1], [1000], [10000], [0, 1, 0, 10000, 10000],
     [0, 1, 0, 5000, 5000]),
    # 4 of 4 tokens taken at one a second, then one per 10 s: 40 s until full.
    (["RL.TOKENBUCKET", "k", 4, 1], [1000, "COST", 4], [10000], [0, 4, 0, 10000, 40000],
     [0, 4, 0, 5000, 35000]),
    (["RL.SLIDINGLOG", "k", 1], [1000], [10000], [0, 1, 0, 10000, 10000],
     [0, 1, 0, 5000, 5000]),
])
def test_a_refused_call_with_a_longer_window_keeps_the_key(c, clock, cmd, first, longer,
                                                           refused_then, refused_later):
    """A refusal counts nothing, but the key must not vanish before the state is fresh under
    the parameters of the call: otherwise it would be reset at the first call's expiry."""
    assert c.call(*cmd, *first)[0] == 1
    assert c.call(*cmd, *longer) == refused_then
    assert c.call("PTTL", "k") == refused_then[4]
    clock.at(5000)   # past the first call's expiry
    assert c.call(*cmd, *longer) == refused_later
    assert c.call("PTTL", "k") == refused_later[4]


def _freeze_between_milliseconds(c):
    """Freezes the test clock at a time with a sub-millisecond remainder (TIME's µs)."""
    for _ in range(100):
        assert c.call("DEBUG", "CLOCK", "FREEZE") == "OK"
        if int(c.call("TIME")[1]) % 1000 != 0:
            return
        assert c.call("DEBUG", "CLOCK", "RESUME") == "OK"
    raise AssertionError("the clock stayed on whole milliseconds")


@pytest.mark.parametrize("make,peek", [
    (["RL.FIXEDWINDOW", "k", 1, 1], ["RL.FIXEDWINDOW", "k", 1, 1, "COST", 0]),
    (["RL.TOKENBUCKET", "k", 1, 1, 1], ["RL.TOKENBUCKET", "k", 1, 1, 1, "COST", 5]),
    (["RL.SLIDINGLOG", "k", 1, 1], ["RL.SLIDINGLOG", "k", 1, 1, "COST", 0]),
    (["CL.THROTTLE", "k", 0, 1, 1], ["CL.THROTTLE", "k", 0, 1, 1, 0]),
])
def test_peeks_in_a_keys_last_millisecond_let_it_expire(debug_sluiced, make, peek):
    """A peek or a refusal on a state already fresh writes nothing: the key expires when its
    state is fresh (it was rewritten a millisecond later at each call, and never expired),
    and a WATCH on it holds."""
    with debug_sluiced.client() as c:
        _freeze_between_milliseconds(c)
        c.call(*make)
        assert c.call("DEBUG", "CLOCK", "ADVANCE", c.call("PTTL", "k")) == "OK"
        for _ in range(3):  # in the key's last millisecond, then after it
            c.call("WATCH", "k")
            c.call(*peek)
            c.call("MULTI")
            assert c.call("EXEC") == [], "the peek rewrote the key"
            assert c.call("DEBUG", "CLOCK", "ADVANCE", 1) == "OK"
            assert c.call("EXISTS", "k") == 0


def test_scan_exists_del(c, clock):
    assert c.call("RL.POLICY", "SET", "pol", "TOKENBUCKET", 5, 1, 1000) == "OK"
    names = []
    for name, cmd in STATE_MAKERS.items():
        c.call(cmd[0], name, *cmd[1:])
        names.append(name)
    assert c.call("SET", "plain", "v") == "OK"
    assert c.call("DBSIZE") == len(names) + 1
    assert c.call("EXISTS", *names, "plain", "missing") == len(names) + 1

    cursor, seen = b"0", []
    while True:
        cursor, batch = c.call("SCAN", cursor, "COUNT", 3)
        seen += batch
        if cursor == b"0":
            break
    assert sorted(seen) == sorted(n.encode() for n in names + ["plain"])
    cursor, limiters = c.call("SCAN", 0, "TYPE", "limiter", "COUNT", 1000)
    assert cursor == b"0" and sorted(limiters) == sorted(n.encode() for n in names)
    assert sorted(c.call("KEYS", "*l*")) == sorted(
        n.encode() for n in names + ["plain"] if "l" in n)

    # DEL resets: the next request sees a fresh key.
    assert c.call("RL.TOKENBUCKET", "tokenbucket", 5, 1, 1000, "COST", 4) == [1, 5, 0, -1, 5000]
    assert c.call("DEL", "tokenbucket", "gcra") == 2
    assert c.call("RL.TOKENBUCKET", "tokenbucket", 5, 1, 1000) == [1, 5, 4, -1, 1000]
    assert c.call("RL.GCRA", "gcra", 4, 1, 1000) == [1, 5, 4, -1, 1000]
    assert c.call("UNLINK", "fixedwindow") == 1
    assert c.call("EXISTS", "fixedwindow") == 0


# ---- durability -------------------------------------------------------------------------------

PEEKS = [
    ("RL.FIXEDWINDOW", "d-fw", (5, 10000)),
    ("RL.SLIDINGLOG", "d-sl", (5, 10000)),
    ("RL.SLIDINGWINDOW", "d-sw", (5, 10000)),
    ("RL.TOKENBUCKET", "d-tb", (5, 1, 10000)),
    ("RL.LEAKYBUCKET", "d-lb", (5, 1, 10000)),
    ("RL.GCRA", "d-gc", (4, 1, 10000)),
]


@pytest.mark.parametrize("stop", ["shutdown", "kill-9"])
def test_state_survives_restart(sluiced_factory, stop):
    server = sluiced_factory(enable_debug_command="yes", appendfsync="always")
    with server.client() as c:
        clock = Clock(c)
        for cmd, key, params in PEEKS:
            assert c.call(cmd, key, *params, "COST", 3)[0] == 1
        clock.advance(1000)
        for cmd, key, params in PEEKS:
            assert c.call(cmd, key, *params, "COST", 1)[0] == 1
        assert c.call("RL.SMOOTH", "d-sm", 1, "COST", 5) == 0
        assert c.call("CL.THROTTLE", "d-cl", 4, 1, 10, 2)[0] == 0
        before = {key: (c.call(cmd, key, *params, "COST", 0), c.call("PEXPIRETIME", key))
                  for cmd, key, params in PEEKS}
        smooth_before = c.call("RL.SMOOTH", "d-sm", 1, "COST", 0)
        throttle_before = c.call("CL.THROTTLE", "d-cl", 4, 1, 10, 0)
        assert smooth_before == 4000
    server.stop(stop)
    server.start()
    with server.client() as c:
        Clock(c, T0 + 1000)
        for cmd, key, params in PEEKS:
            after = (c.call(cmd, key, *params, "COST", 0), c.call("PEXPIRETIME", key))
            assert after == before[key], f"{cmd} {key} after {stop}"
            assert c.call("TYPE", key) == "limiter"
        assert c.call("RL.SMOOTH", "d-sm", 1, "COST", 0) == smooth_before
        assert c.call("CL.THROTTLE", "d-cl", 4, 1, 10, 0) == throttle_before
        # and the state goes on from there
        assert c.call("RL.FIXEDWINDOW", "d-fw", 5, 10000, "COST", 2) == [0, 5, 1, 9000, 9000]
        assert c.call("RL.FIXEDWINDOW", "d-fw", 5, 10000, "COST", 1) == [1, 5, 0, -1, 9000]
