"""LATENCY and latency tracking against Redis 7.0: the same replies and errors from LATENCY and
its directives where they do not depend on how long anything took; the per-command histograms
(LATENCY HISTOGRAM, INFO latencystats) checked for Redis's shape on both servers; then the
latency monitor catching a command that is really slow (DEBUG SLEEP), its samples stamped with
the test clock's second."""

import re

import pytest

from frozen_clock import Clock
import servers

# The points LATENCY HISTOGRAM may name, in microseconds: where the buckets of 1,024 ns, 2,048
# ns ... up to a second begin, each named by the largest value of its HDR bucket.
POINTS = [1, 2, 4, 8, 16, 33, 66, 132, 264, 528, 1056, 2113, 4227, 8454, 16908, 33816, 67633,
          135266, 270532, 541065, 1082130]


def test_latency_replies_and_errors_as_redis(diff):
    diff.check("CONFIG", "SET", "latency-monitor-threshold", "0")
    diff.check("LATENCY", "RESET")
    for cmd in [("LATENCY", "DOCTOR"), ("LATENCY", "LATEST"), ("LATENCY", "HISTORY", "command"),
                ("LATENCY", "GRAPH", "command"), ("LATENCY", "RESET", "command", "x"),
                ("LATENCY", "FOO"), ("LATENCY",), ("LATENCY", "LATEST", "x"),
                ("LATENCY", "HISTORY"), ("LATENCY", "GRAPH"), ("LATENCY", "DOCTOR", "x"),
                ("LATENCY", "HISTOGRAM", "nosuch", "config|nosuch"), ("LATENCY", "HELP"),
                ("CONFIG", "GET", "latency-monitor-threshold"),
                ("CONFIG", "GET", "latency-tracking"),
                ("CONFIG", "SET", "latency-monitor-threshold", "-1"),
                ("CONFIG", "SET", "latency-monitor-threshold", "x"),
                ("CONFIG", "SET", "latency-tracking", "maybe"),
                ("CONFIG", "SET", "latency-tracking-info-percentiles", "50 abc"),
                ("CONFIG", "SET", "latency-tracking-info-percentiles", "101"),
                ("CONFIG", "SET", "latency-tracking-info-percentiles", "99.99 0 50.5 100"),
                ("CONFIG", "GET", "latency-tracking-info-percentiles"),
                ("CONFIG", "SET", "latency-tracking-info-percentiles", ""),
                ("CONFIG", "GET", "latency-tracking-info-percentiles"),
                ("CONFIG", "SET", "latency-tracking-info-percentiles", "50 99 99.9"),
                # Monitoring on, nothing slow seen yet (the threshold is far above anything here).
                ("CONFIG", "SET", "latency-monitor-threshold", "10000"),
                ("LATENCY", "DOCTOR"), ("LATENCY", "LATEST"),
                ("CONFIG", "SET", "latency-monitor-threshold", "0")]:
        diff.check(*cmd)
    diff.assert_same()


@pytest.mark.parametrize("name", ["latency|doctor", "latency|graph", "latency|histogram",
                                  "latency|history", "latency|latest", "latency|reset"])
def test_command_info_as_redis(diff, name):
    """Arity, flags, key positions and ACL categories. (The container's own entry and its
    HELP's carry the container's flags in sluice, as every container's do; Redis gives them
    none of their own.)"""
    [theirs] = diff.redis.call("COMMAND", "INFO", name)
    [ours] = diff.sluice.call("COMMAND", "INFO", name)
    assert ours[0] == theirs[0] and ours[1] == theirs[1], (ours, theirs)
    assert sorted(ours[2]) == sorted(theirs[2]) and ours[3:7] == theirs[3:7], (ours, theirs)


def _histograms(client, *names):
    reply = client.call("LATENCY", "HISTOGRAM", *names)
    assert isinstance(reply, servers.Map), reply
    out = {}
    for name, entry in reply:
        entry = entry.as_dict()
        out[name.decode()] = (entry[b"calls"], [(us, n) for us, n in entry[b"histogram_usec"]])
    return out


@pytest.mark.parametrize("server_name", ["redis", "sluiced"])
def test_histograms_and_latencystats_have_redis_shape(emptied_servers, server_name):
    server = emptied_servers[0] if server_name == "redis" else emptied_servers[1]
    with server.client() as c:
        assert isinstance(c.call("HELLO", "3"), servers.Map)
        for i in range(20):
            assert c.call("SET", f"k{i}", "v") == "OK"
        c.call("CONFIG", "GET", "maxclients")
        histograms = _histograms(c, "set", "config", "get")  # GET: never called
        assert {"config|get", "set"} <= set(histograms) and "get" not in histograms, histograms
        assert all(name == "set" or name.startswith("config|") for name in histograms)
        calls, points = histograms["set"]
        assert calls == 20
        assert [us for us, _ in points] == sorted(us for us, _ in points)
        assert all(us in POINTS for us, _ in points), points
        counts = [n for _, n in points]
        assert counts == sorted(set(counts)) and counts[-1] == 20, points
        assert _histograms(c, "config|get")["config|get"][0] == 1
        stats = servers.info_fields(c, "latencystats")
        assert re.fullmatch(r"p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}",
                            stats["latency_percentiles_usec_set"]), stats
        p50, p99, p999 = (float(p.split("=")[1])
                          for p in stats["latency_percentiles_usec_set"].split(","))
        assert 0 < p50 <= p99 <= p999
        assert "latency_percentiles_usec_config|get" in stats
        assert "latency_percentiles_usec_config" not in stats
        # Tracking off: calls go uncounted; CONFIG RESETSTAT forgets the histograms.
        assert c.call("CONFIG", "SET", "latency-tracking", "no") == "OK"
        assert c.call("SET", "k", "v") == "OK"
        assert c.call("CONFIG", "SET", "latency-tracking", "yes") == "OK"
        assert _histograms(c, "set")["set"][0] == 20
        assert c.call("CONFIG", "RESETSTAT") == "OK"
        assert "set" not in _histograms(c, "set")
        assert "latency_percentiles_usec_set" not in servers.info_fields(c, "latencystats")


def _command_events(client):
    """LATENCY LATEST's entries for commands ("command", "fast-command"). The server's own
    events are left out: an expire cycle the machine preempts for 20 ms is a sample too."""
    return [entry for entry in client.call("LATENCY", "LATEST")
            if entry[0] in (b"command", b"fast-command")]


def test_the_monitor_catches_a_slow_command_at_the_test_clocks_second(debug_sluiced):
    with debug_sluiced.client() as c:
        clock = Clock(c)
        second = clock.t0 // 1000
        assert c.call("CONFIG", "SET", "latency-monitor-threshold", "20") == "OK"
        assert c.call("DEBUG", "SLEEP", "0.05") == "OK"
        assert c.call("DEBUG", "SLEEP", "0.03") == "OK"  # the same second: its largest stays
        [[event, at, latest, highest]] = _command_events(c)
        assert (event, at) == (b"command", second) and 50 <= latest == highest
        clock.advance(1000)
        assert c.call("DEBUG", "SLEEP", "0.03") == "OK"
        history = c.call("LATENCY", "HISTORY", "command")
        assert [t for t, _ in history] == [second, second + 1]
        assert history[0][1] >= 50 and history[1][1] >= 30
        millis = [ms for _, ms in history]
        graph = c.call("LATENCY", "GRAPH", "command").decode()
        assert graph.startswith(f"command - high {max(millis)} ms, low {min(millis)} ms")
        assert "1. command: 2 latency spikes" in c.call("LATENCY", "DOCTOR").decode()
        # Monitoring off first: a RESET or LATEST that itself took 20 ms on a busy machine
        # would otherwise be a new sample of the event just reset.
        assert c.call("CONFIG", "SET", "latency-monitor-threshold", "0") == "OK"
        assert c.call("LATENCY", "RESET", "command") == 1
        assert _command_events(c) == []
        # Threshold 0 is monitoring off: a command of 30 ms is not seen.
        assert c.call("DEBUG", "SLEEP", "0.03") == "OK"
        assert _command_events(c) == []
