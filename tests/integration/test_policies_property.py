"""A seeded, bounded property test of RL.TAKE: random interleavings of takes on overlapping
policy sets, from several connections, on a few keys, with random clock advances. Afterwards,
from the recorded admissions alone, no policy may ever have admitted more on a key than its own
algorithm allows:

  FIXEDWINDOW    per window (starting at the first counted request), counted <= limit
  SLIDINGLOG     in every window (t - W, t] ending at an admission, counted <= limit
  SLIDINGWINDOW  at every admission, prev x (W - elapsed) + curr x W <= limit x W
  TOKENBUCKET    admissions in any [t1, t2] <= capacity + rate x (t2 - t1)
  LEAKYBUCKET    the same bound (the funnel leaks at that rate)
  GCRA           admissions in any [t1, t2] x T <= tau + (t2 - t1)   (T = emission interval)

An admission counts for every policy of its take (all or nothing), so a take that let one
policy pass while another refused would show up as an admission the refusing policy did not
allow. The run is deterministic for a seed: the commands go out one at a time.
"""

import random

import pytest

T0 = 4_102_444_800_000  # 2100-01-01, ms; a multiple of every window below

POLICIES = {
    "fw": ("FIXEDWINDOW", 5, 1000),
    "sl": ("SLIDINGLOG", 4, 700),
    "sw": ("SLIDINGWINDOW", 6, 1000),
    "tb": ("TOKENBUCKET", 3, 2, 1000),
    "lb": ("LEAKYBUCKET", 4, 3, 1000),
    "gc": ("GCRA", 2, 3, 1000),
}
POLICY_SETS = [
    ["fw"], ["fw", "tb"], ["sl", "tb"], ["sw", "gc", "lb"], ["gc"], ["lb", "fw"],
    ["fw", "sl", "sw", "tb", "lb", "gc"], ["tb", "sl"],
]
KEYS = ["u1", "u2"]
ADVANCES_MS = [0, 0, 0, 0, 1, 3, 17, 50, 120, 333, 334, 500, 999, 1000, 1500]
COSTS = [0, 1, 1, 1, 1, 2, 3]
STEPS = 600


def violations_fixed_window(events, limit, window):
    out, start, used = [], None, 0
    for t, cost in events:
        if start is None or t >= start + window:
            start, used = t, 0
        used += cost
        if used > limit:
            out.append(f"window from {start}: {used} > {limit} at {t}")
    return out


def violations_sliding_log(events, limit, window):
    out = []
    for t, _ in events:
        used = sum(c for s, c in events if t - window < s <= t)
        if used > limit:
            out.append(f"({t - window}, {t}]: {used} > {limit}")
    return out


def violations_sliding_window(events, limit, window):
    out = []
    for i, (t, _) in enumerate(events):
        start = t // window * window
        upto = events[:i + 1]
        curr = sum(c for s, c in upto if start <= s)
        prev = sum(c for s, c in upto if start - window <= s < start)
        elapsed = t - start
        if prev * (window - elapsed) + curr * window > limit * window:
            out.append(f"at {t}: prev {prev} x {window - elapsed} + curr {curr} x {window} > "
                       f"{limit} x {window}")
    return out


def violations_rate(events, burst_num, rate_num, unit):
    """sum(costs in [t_i, t_j]) x unit <= burst_num + rate_num x (t_j - t_i), exact ints."""
    out = []
    for i in range(len(events)):
        total = 0
        for j in range(i, len(events)):
            total += events[j][1]
            dt = events[j][0] - events[i][0]
            if total * unit > burst_num + rate_num * dt:
                out.append(f"[{events[i][0]}, {events[j][0]}]: {total} admitted")
    return out


def violations(policy, events):
    algorithm, *args = POLICIES[policy]
    if algorithm == "FIXEDWINDOW":
        return violations_fixed_window(events, *args)
    if algorithm == "SLIDINGLOG":
        return violations_sliding_log(events, *args)
    if algorithm == "SLIDINGWINDOW":
        return violations_sliding_window(events, *args)
    if algorithm in ("TOKENBUCKET", "LEAKYBUCKET"):
        capacity, amount, period = args
        # total <= capacity + amount x dt / period  <=>  total x period <= capacity x period + ...
        return violations_rate(events, capacity * period, amount, period)
    if algorithm == "GCRA":
        max_burst, count, period = args
        emission_ns = period * 1_000_000 // count
        tau_ns = emission_ns * (max_burst + 1)
        # total x T <= tau + dt (ns)
        return violations_rate(events, tau_ns, 1_000_000, emission_ns)
    raise AssertionError(algorithm)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_no_policy_admits_more_than_its_algorithm_allows(debug_sluiced, seed):
    rng = random.Random(seed)
    clients = [debug_sluiced.client() for _ in range(3)]
    try:
        control = clients[0]
        assert control.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"
        for name, definition in POLICIES.items():
            assert control.call("RL.POLICY", "SET", name, *definition) == "OK"
        now = 0
        admitted = {(k, p): [] for k in KEYS for p in POLICIES}
        refused = {(k, p): 0 for k in KEYS for p in POLICIES}
        for step in range(STEPS):
            delta = rng.choice(ADVANCES_MS)
            if delta:
                assert control.call("DEBUG", "CLOCK", "ADVANCE", delta) == "OK"
                now += delta
            client = rng.choice(clients)
            key = rng.choice(KEYS)
            policies = list(rng.choice(POLICY_SETS))
            rng.shuffle(policies)
            cost = rng.choice(COSTS)
            reply = client.call("RL.TAKE", key, *policies, "COST", cost)
            assert isinstance(reply, list) and len(reply) == 5, (step, reply)
            allowed, limit, remaining, retry, reset = reply
            assert allowed in (0, 1) and remaining >= 0 and reset >= 0, (step, reply)
            if allowed:
                assert retry == -1, (step, reply)
                if cost > 0:
                    for p in policies:
                        admitted[(key, p)].append((now, cost))
            else:
                assert cost > 0, f"step {step}: COST 0 refused: {reply}"
                assert retry == -1 or retry > 0, (step, reply)
                for p in policies:
                    refused[(key, p)] += 1
        problems = []
        for (key, policy), events in admitted.items():
            for v in violations(policy, events):
                problems.append(f"{key} {policy} {POLICIES[policy]}: {v}")
        assert not problems, f"seed {seed}: {len(problems)} violations:\n" + "\n".join(
            problems[:20])
        # Not vacuous: every policy let requests through and refused some.
        for key in KEYS:
            for policy in POLICIES:
                assert admitted[(key, policy)], f"seed {seed}: {key} {policy} admitted nothing"
        assert sum(refused.values()) > 0
    finally:
        for client in clients:
            client.close()
