"""CLUSTER, READONLY, READWRITE and ASKING against a redis-server 7.0 without cluster support:
a client probing for cluster mode gets the same answers, byte for byte, arity and unknown
subcommand errors included, in RESP2 and RESP3."""

CLUSTER_REQUESTS = [
    ("CLUSTER", "INFO"), ("CLUSTER", "SLOTS"), ("CLUSTER", "SHARDS"), ("CLUSTER", "NODES"),
    ("CLUSTER", "MYID"), ("CLUSTER", "KEYSLOT", "user:1"), ("CLUSTER", "LINKS"),
    ("CLUSTER", "COUNTKEYSINSLOT", "1"), ("CLUSTER", "GETKEYSINSLOT", "1", "10"),
    ("CLUSTER", "HELP"), ("cluster", "info"), ("CLUSTER", "ADDSLOTS", "1", "2"),
    ("CLUSTER", "ADDSLOTSRANGE", "1", "2"), ("CLUSTER", "DELSLOTS", "1"),
    ("CLUSTER", "DELSLOTSRANGE", "1", "2"), ("CLUSTER", "FLUSHSLOTS"),
    ("CLUSTER", "FORGET", "id"), ("CLUSTER", "MEET", "127.0.0.1", "7000"),
    ("CLUSTER", "REPLICATE", "id"), ("CLUSTER", "REPLICAS", "id"), ("CLUSTER", "SLAVES", "id"),
    ("CLUSTER", "RESET"), ("CLUSTER", "RESET", "HARD"), ("CLUSTER", "SAVECONFIG"),
    ("CLUSTER", "SETSLOT", "1", "STABLE"), ("CLUSTER", "SET-CONFIG-EPOCH", "1"),
    ("CLUSTER", "BUMPEPOCH"), ("CLUSTER", "FAILOVER"), ("CLUSTER", "FAILOVER", "FORCE"),
    ("CLUSTER", "COUNT-FAILURE-REPORTS", "id"),
    # The argument counts and unknown subcommands are judged first.
    ("CLUSTER",), ("CLUSTER", "INFO", "x"), ("CLUSTER", "KEYSLOT"), ("CLUSTER", "SETSLOT", "1"),
    ("CLUSTER", "NOPE"), ("CLUSTER", "GETKEYSINSLOT", "1"),
    ("READONLY",), ("READWRITE",), ("ASKING",), ("READONLY", "x"), ("ASKING", "x"),
    ("COMMAND", "INFO", "READONLY", "READWRITE", "ASKING"),
    ("MULTI",), ("CLUSTER", "INFO"), ("READONLY",), ("EXEC",),
]


def test_cluster_commands_as_redis_without_cluster_support(diff):
    diff.run(CLUSTER_REQUESTS)
    diff.assert_same()


def test_acl_categories_of_the_cluster_commands(diff):
    for category in ("admin", "connection", "fast"):
        names = {name for name in diff.sluice.call("ACL", "CAT", category)
                 if name.startswith((b"cluster", b"read", b"asking"))}
        expected = {name for name in diff.redis.call("ACL", "CAT", category)
                    if name.startswith((b"cluster", b"read", b"asking"))}
        assert names == expected, category


def test_module_commands_as_redis_without_modules(diff):
    """MODULE as a Redis 7.0 with no module loaded and its default enable-module-command no: a
    client probing for a module (MODULE LIST) learns there is none; loading one is refused."""
    diff.run([
        ("MODULE", "LIST"), ("MODULE", "HELP"), ("module", "list"),
        ("MODULE", "LOAD", "/x.so"), ("MODULE", "LOAD", "/x.so", "a"),
        ("MODULE", "LOADEX", "/x.so", "CONFIG", "a", "b"), ("MODULE", "UNLOAD", "x"),
        ("MODULE",), ("MODULE", "LIST", "x"), ("MODULE", "UNLOAD"), ("MODULE", "NOPE"),
        ("MULTI",), ("MODULE", "LIST"), ("EXEC",),
    ])
    diff.assert_same()


def test_replicaof_no_one_as_a_redis_master(diff):
    """REPLICAOF / SLAVEOF NO ONE answers OK, as on a Redis master (failover scripts send it),
    and a bad port is Redis's error; following another server is refused, since sluice does not
    replicate (Redis would start to)."""
    diff.run([
        ("REPLICAOF", "NO", "ONE"), ("replicaof", "no", "one"), ("SLAVEOF", "NO", "ONE"),
        ("REPLICAOF", "127.0.0.1", "abc"), ("REPLICAOF", "127.0.0.1", "70000"),
        ("REPLICAOF", "127.0.0.1", "-1"), ("SLAVEOF", "no", "x"), ("REPLICAOF", "NO"),
        ("REPLICAOF", "NO", "ONE", "x"), ("ROLE",),
    ])
    diff.assert_same()
    assert diff.sluice.call("REPLICAOF", "127.0.0.1", "6399") == (
        "ERR sluice does not replicate: it is always a master (REPLICAOF NO ONE)")
