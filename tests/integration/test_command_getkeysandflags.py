"""COMMAND GETKEYSANDFLAGS (and GETKEYS) against Redis 7.0, byte for byte in RESP2 and RESP3:
keys and key-spec flags over about 150 commands and Redis's errors; COMMAND INFO's key specs
(one per role, with the same flags) and tips for every command both have; the limiter
commands' flags and tips as they are registered."""

import servers


def _pairs(reply):
    """A RESP3 map, or its RESP2 flat array, as a list of (name, value) in the server's order."""
    if isinstance(reply, servers.Map):
        return list(reply)
    return list(zip(reply[0::2], reply[1::2]))


# Commands whose keys and flags COMMAND GETKEYSANDFLAGS must give as Redis 7.0.15 does: the
# defaults a command's registration gives (RO access, RW update, the blocking pops' RW access
# delete, the list moves', the scripts') and the table of exceptions.
GETKEYS_CASES = [
    ("get", "k"), ("set", "k", "v"), ("set", "k", "v", "GET"), ("set", "k", "v", "NX", "get"),
    ("mset", "a", "1", "b", "2"), ("msetnx", "a", "1", "b", "2"), ("setnx", "k", "v"),
    ("setex", "k", "1", "v"), ("psetex", "k", "1", "v"), ("getset", "k", "v"), ("getdel", "k"),
    ("getex", "k"), ("append", "k", "v"), ("setrange", "k", "0", "v"), ("getrange", "k", "0", "1"),
    ("incr", "k"), ("incrby", "k", "1"), ("decr", "k"), ("decrby", "k", "1"),
    ("incrbyfloat", "k", "1"), ("strlen", "k"), ("mget", "a", "b"),
    ("del", "a", "b"), ("unlink", "a"), ("exists", "a", "b"), ("touch", "a"), ("type", "k"),
    ("expire", "k", "10"), ("pexpireat", "k", "1"), ("persist", "k"), ("ttl", "k"),
    ("pttl", "k"), ("expiretime", "k"), ("copy", "a", "b"), ("rename", "a", "b"),
    ("renamenx", "a", "b"), ("move", "k", "1"), ("dump", "k"), ("restore", "k", "0", "x"),
    ("watch", "a", "b"),
    ("lpush", "k", "v"), ("rpushx", "k", "v"), ("lpop", "k"), ("rpop", "k"), ("llen", "k"),
    ("linsert", "k", "before", "a", "b"), ("lrem", "k", "1", "a"), ("ltrim", "k", "0", "1"),
    ("lset", "k", "0", "v"), ("lpos", "k", "a"), ("lmove", "a", "b", "left", "right"),
    ("rpoplpush", "a", "b"), ("blpop", "a", "b", "0"), ("brpoplpush", "a", "b", "0"),
    ("blmove", "a", "b", "left", "right", "0"), ("lmpop", "2", "a", "b", "left"),
    ("blmpop", "0", "1", "a", "left"),
    ("hset", "k", "f", "v"), ("hmset", "k", "f", "v"), ("hsetnx", "k", "f", "v"),
    ("hget", "k", "f"), ("hdel", "k", "f"), ("hexists", "k", "f"), ("hlen", "k"),
    ("hincrby", "k", "f", "1"), ("hincrbyfloat", "k", "f", "1"), ("hgetall", "k"),
    ("hrandfield", "k"),
    ("sadd", "k", "m"), ("srem", "k", "m"), ("spop", "k"), ("scard", "k"),
    ("sismember", "k", "m"), ("smembers", "k"), ("smove", "a", "b", "m"), ("sunion", "a", "b"),
    ("sinterstore", "d", "a", "b"), ("sunionstore", "d", "a", "b"), ("sdiffstore", "d", "a", "b"),
    ("sintercard", "2", "a", "b"),
    ("zadd", "k", "1", "m"), ("zrem", "k", "m"), ("zincrby", "k", "1", "m"), ("zcard", "k"),
    ("zscore", "k", "m"), ("zrange", "k", "0", "1"), ("zremrangebyrank", "k", "0", "1"),
    ("zremrangebyscore", "k", "0", "1"), ("zpopmin", "k"), ("zpopmax", "k"),
    ("bzpopmin", "a", "0"), ("zmpop", "1", "a", "min"), ("bzmpop", "0", "1", "a", "min"),
    ("zunionstore", "d", "2", "a", "b"), ("zinterstore", "d", "2", "a", "b", "weights", "1", "2"),
    ("zdiffstore", "d", "1", "a"), ("zrangestore", "d", "s", "0", "1"), ("zunion", "2", "a", "b"),
    ("zintercard", "2", "a", "b"),
    # ZUNIONSTORE with a count Redis's key specs cannot read: its getkeys proc, no flags.
    ("zunionstore", "d", "2abc", "a", "b"),
    ("eval", "s", "2", "a", "b", "c"), ("eval_ro", "s", "1", "a"), ("evalsha", "s", "1", "a"),
    ("fcall", "f", "1", "a"), ("fcall_ro", "f", "1", "a"), ("eval", "s", "0"),
    ("sort", "k"), ("sort", "k", "store", "d"), ("sort", "k", "by", "x", "get", "y", "store", "d"),
    ("sort_ro", "k"),
    ("bitfield", "k", "get", "u8", "0"), ("bitfield", "k", "set", "u8", "0", "1"),
    ("bitop", "and", "d", "a", "b"), ("setbit", "k", "0", "1"), ("getbit", "k", "0"),
    ("pfadd", "k", "a"), ("pfcount", "a", "b"), ("pfmerge", "d", "a", "b"),
    ("geoadd", "k", "1", "1", "m"), ("georadius", "k", "1", "1", "1", "m", "store", "d"),
    ("georadius", "k", "1", "1", "1", "m", "storedist", "d"),
    ("georadiusbymember", "k", "m", "1", "m", "store", "d"),
    ("geosearchstore", "d", "s", "frommember", "m", "byradius", "1", "m"),
    ("lcs", "a", "b"),
    # A container's subcommand with a key, as Redis's lookupCommand finds it.
    ("object", "encoding", "k"), ("object", "freq", "k"), ("memory", "usage", "k"),
]

GETKEYS_ERRORS = [
    ("nosuch", "k"), ("publish", "c", "m"), ("keys", "*"), ("spublish", "c", "m"),
    ("get",), ("get", "a", "b"), ("memory", "usage"), ("object", "help"), ("object", "foo", "k"),
    ("eval", "s", "1"), ("zunionstore", "d", "0", "a"), ("object",), ("ping",),
]


def test_getkeysandflags_as_redis(diff):
    for cmd in GETKEYS_CASES + GETKEYS_ERRORS:
        diff.check("COMMAND", "GETKEYSANDFLAGS", *cmd)
        diff.check("COMMAND", "GETKEYS", *cmd)
    diff.assert_same()
    # (COMMAND HELP's other texts are sluice's own.)
    help_lines = diff.sluice.call("COMMAND", "HELP")
    for line in ("GETKEYSANDFLAGS <full-command>",
                 "    Return the keys and the access flags from a full command."):
        assert line in help_lines


# Commands whose keys play more than one role (a source and a destination), subcommands with a
# key and key specs with notes: each must be among those compared below.
PER_ROLE_COMMANDS = {
    "copy", "rename", "renamenx", "lmove", "rpoplpush", "blmove", "brpoplpush", "smove",
    "sinterstore", "sunionstore", "sdiffstore", "zrangestore", "geosearchstore", "bitop",
    "pfmerge", "object|encoding", "object|freq", "object|refcount", "memory|usage", "set",
    "getex", "bitfield", "pfcount", "eval", "eval_ro", "fcall", "fcall_ro"}


# Entries Redis 7.0.15 gives tips of each kind and order (SLOWLOG GET's request policy before
# nondeterministic_output, INFO's after), which must be among those compared below.
TIPPED_COMMANDS = {
    "object|encoding", "randomkey", "keys", "scan", "dbsize", "smembers", "ttl", "info", "mget",
    "msetnx", "ping", "wait", "command", "command|info", "config|set", "slowlog|get",
    "slowlog|len", "script|exists", "function|stats", "latency|doctor", "memory|purge",
    "client|list"}


def _typed(value):
    """A decoded reply with each aggregate's RESP type kept (a set is not an array), for ==."""
    if isinstance(value, list):
        return (type(value).__name__, [_typed(v) for v in value])
    if isinstance(value, tuple):
        return tuple(_typed(v) for v in value)
    return value


def _compared(entry):
    """What is compared of a COMMAND INFO entry: key positions, tips, key specs."""
    return _typed([entry[3], entry[4], entry[5], entry[7], entry[8]])


def _by_full_name(entries):
    """COMMAND's entries by name, each container's subcommands (its 10th field) included."""
    named = {}
    for entry in entries:
        named[entry[0].decode()] = entry
        named.update((sub[0].decode(), sub) for sub in entry[9])
    return named


def test_command_info_key_specs_and_tips_as_redis(diff):
    """COMMAND INFO's key specs (one per role: COPY's source RO access at 1, its destination
    OW update at 2; SINTERSTORE's destination, then its sources from 2 to the end), key
    positions and tips (OBJECT ENCODING's nondeterministic_output, DBSIZE's
    request_policy:all_shards and response_policy:agg_sum, in Redis's order, a set in RESP3),
    as Redis 7.0.15's for every command and subcommand both servers have; COMMAND's too."""
    ours_listed = {n.decode() for n in diff.sluice.call("COMMAND", "LIST")}
    theirs_listed = {n.decode() for n in diff.redis.call("COMMAND", "LIST")}
    names = sorted(ours_listed & theirs_listed)
    assert PER_ROLE_COMMANDS | TIPPED_COMMANDS <= set(names)
    ours = diff.sluice.call("COMMAND", "INFO", *names)
    theirs = diff.redis.call("COMMAND", "INFO", *names)
    assert sum(1 for their in theirs if their[7]) >= 75  # tips are compared, not only none
    differ = [(name, _compared(our), _compared(their))
              for name, our, their in zip(names, ours, theirs)
              if _compared(our) != _compared(their)]
    assert not differ, differ
    # COMMAND, which lists every entry and its subcommands, gives the same.
    our_list = _by_full_name(diff.sluice.call("COMMAND"))
    their_list = _by_full_name(diff.redis.call("COMMAND"))
    differ = [name for name in names
              if _compared(our_list[name]) != _compared(their_list[name])]
    assert not differ, differ


def _limiter_commands(client):
    names = [n.decode() for n in client.call("COMMAND", "LIST")]
    return sorted(n for n in names if n.startswith(("rl.", "cl.")))


def test_getkeysandflags_of_limiter_commands(sluiced):
    """Each limiter command with a key answers as it is registered and as the ACL treats it:
    RW access update (it reads its key's state and writes it back), RL.RESET RM delete (it only
    deletes), RL.STATUS RO access; COMMAND INFO's key spec says the same."""
    with sluiced.client() as c:
        names = _limiter_commands(c)
        assert {"rl.gcra", "cl.throttle", "rl.reset", "rl.status"} <= set(names)
        checked = 0
        for name in names:
            [info] = c.call("COMMAND", "INFO", name)
            if info[3] == 0:  # no key (RL.POLICY)
                continue
            arity = info[1]
            cmd = [name, "k"] + ["1"] * (abs(arity) - 2)
            [[key, flags]] = c.call("COMMAND", "GETKEYSANDFLAGS", *cmd)
            expected = {"rl.reset": ["RM", "delete"],
                        "rl.status": ["RO", "access"]}.get(name, ["RW", "access", "update"])
            assert (key, flags) == (b"k", expected), name
            [spec] = info[8]
            assert dict(_pairs(spec))[b"flags"] == expected, name
            checked += 1
        assert checked >= 8


# The limiter commands whose reply depends on when they are called (reset_after, retry_after,
# RL.SMOOTH's wait): nondeterministic_output, as Redis marks TTL, whose reply does too.
TIMED_LIMITER_COMMANDS = {
    "rl.fixedwindow", "rl.slidinglog", "rl.slidingwindow", "rl.tokenbucket", "rl.leakybucket",
    "rl.gcra", "cl.throttle", "rl.smooth", "rl.take", "rl.status"}


def test_tips_of_limiter_commands(sluiced):
    """The limiter commands' tips (docs/notes.md): nondeterministic_output for those whose
    reply depends on the time of the call; none for RL.RESET (a count, as DEL's) and RL.POLICY
    and its subcommands (LIST is sorted), nor any cluster policy (sluice is one node)."""
    with sluiced.client() as c:
        names = _limiter_commands(c)
        assert TIMED_LIMITER_COMMANDS | {"rl.reset", "rl.policy", "rl.policy|list"} <= set(names)
        for name, info in zip(names, c.call("COMMAND", "INFO", *names)):
            expected = [b"nondeterministic_output"] if name in TIMED_LIMITER_COMMANDS else []
            assert info[7] == expected, name
