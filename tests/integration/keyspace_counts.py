"""INFO's keyspace_hits and keyspace_misses, and how a sequence of commands moves them: the
differential keyspace tests compare that movement between sluiced and redis-server."""

from servers import RespClient


def keyspace_counters(c):
    info = c.call("INFO", "stats").decode()
    return {k: int(v) for k, v in (line.split(":") for line in info.splitlines()
                                  if line.startswith("keyspace_"))}


def counters_added_by(port, setup, case):
    """What running `case` after `setup` adds to each keyspace counter that moved."""
    with RespClient(port) as c:
        for cmd in setup:
            c.call_raw(*cmd)
        before = keyspace_counters(c)
        for cmd in case:
            c.call_raw(*cmd)
        after = keyspace_counters(c)
    return {k: after[k] - before[k] for k in after if after[k] != before[k]}


def case_ids(cases):
    """pytest ids for a list of command sequences: their words."""
    return [" ".join(" ".join(cmd) for cmd in case) for case in cases]


def assert_counters_move_as_redis(servers_pair, setup, case):
    """`case` after `setup` moves the keyspace counters of sluiced as those of redis-server
    (`servers_pair`: the emptied_servers fixture)."""
    redis_server, sluiced = servers_pair
    assert counters_added_by(sluiced.port, setup, case) == \
        counters_added_by(redis_server.port, setup, case)
