"""What clients probe: COMMAND (COUNT, LIST, INFO, DOCS, GETKEYS) with key positions that match
Redis's for every command both servers have, CLIENT subcommands and their errors, INFO's
sections and the fields monitoring reads. Compared with a real redis-server where Redis has the
same thing.
"""

import re

import servers


def _info_rows(client):
    """COMMAND's rows by name: (arity, first, last, step, acl categories)."""
    rows = {}
    for row in client.call("COMMAND"):
        name = row[0].decode()
        rows[name] = (row[1], row[3], row[4], row[5], sorted(map(str, row[6])))
    return rows


def test_command_key_positions_match_redis(sluiced, redis_server):
    with redis_server.client() as r, sluiced.client() as s:
        ours = _info_rows(s)
        theirs = _info_rows(r)
        assert s.call("COMMAND", "COUNT") == len(ours)
        shared = sorted(set(ours) & set(theirs))
        assert len(shared) > 90, shared
        wrong = {name: (ours[name][:4], theirs[name][:4]) for name in shared
                 if ours[name][:4] != theirs[name][:4]}
        assert not wrong, f"arity/first/last/step differ (sluice, redis): {wrong}"
        # The data commands carry Redis's ACL categories.
        for name in ["get", "set", "hset", "hgetall", "zadd", "zrangebyscore", "lpush",
                     "lrange", "del", "expire"]:
            assert ours[name][4] == theirs[name][4], (name, ours[name][4], theirs[name][4])


def _categories_with_subcommands(client):
    """Each command's and subcommand's ("config|get") ACL categories, as COMMAND shows them."""
    out = {}
    for row in client.call("COMMAND"):
        out[row[0].decode()] = sorted(map(str, row[6]))
        for sub in row[9] if len(row) > 9 else []:
            out[sub[0].decode()] = sorted(map(str, sub[6]))
    return out


def test_every_command_and_subcommand_has_redis_categories(sluiced, redis_server):
    """Containers are @slow alone and each subcommand has its own categories (MEMORY STATS is
    not @read, PUBSUB NUMSUB is @pubsub, ACL SETUSER is @admin @dangerous), as Redis 7.0."""
    with redis_server.client() as r, sluiced.client() as s:
        ours = _categories_with_subcommands(s)
        theirs = _categories_with_subcommands(r)
    shared = sorted(set(ours) & set(theirs))
    assert len(shared) > 300, len(shared)
    wrong = {name: (ours[name], theirs[name]) for name in shared if ours[name] != theirs[name]}
    assert not wrong, f"categories differ (sluice, redis): {wrong}"
    # COMMAND LIST FILTERBY ACLCAT selects by the same categories (sluice's limiter commands
    # aside).
    with redis_server.client() as r, sluiced.client() as s:
        for category in ("pubsub", "read", "write", "admin", "slow"):
            listed = lambda c: {n.decode() for n in c.call("COMMAND", "LIST", "FILTERBY",
                                                           "ACLCAT", category)}
            assert listed(s) & set(theirs) == listed(r) & set(ours), category


def test_command_getkeys_and_errors_match_redis(sluiced, redis_server):
    cmds = [
        ("COMMAND", "GETKEYS", "SET", "a", "b"), ("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2"),
        ("COMMAND", "GETKEYS", "MGET", "a", "b", "c"), ("COMMAND", "GETKEYS", "RENAME", "x", "y"),
        ("COMMAND", "GETKEYS", "ZADD", "z", "1", "m"), ("COMMAND", "GETKEYS", "HSET", "h", "f", "v"),
        ("COMMAND", "GETKEYS", "DEL", "a", "b"), ("COMMAND", "GETKEYS", "NOSUCH", "a"),
        ("COMMAND", "GETKEYS", "PING", "x"), ("COMMAND", "GETKEYS", "GET", "a", "b"),
        ("COMMAND", "GETKEYS", "GET"), ("COMMAND", "COUNT", "x"), ("COMMAND", "FOO"),
        ("COMMAND", "INFO", "nosuch"), ("COMMAND", "LIST", "x"),
        ("COMMAND", "LIST", "FILTERBY", "FOO", "x"), ("COMMAND", "LIST", "FILTERBY", "MODULE", "m"),
        ("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuch"), ("COMMAND", "DOCS", "nosuch"),
        ("CLIENT", "GETREDIR"), ("CLIENT", "NO-EVICT", "on"), ("CLIENT", "NO-EVICT", "maybe"),
        ("CLIENT", "LIST", "TYPE", "master"), ("CLIENT", "LIST", "TYPE", "pubsub"),
        ("CLIENT", "LIST", "TYPE", "bogus"), ("CLIENT", "KILL", "TYPE", "master"),
        ("CLIENT", "KILL", "TYPE", "bogus"), ("CLIENT", "TRACKING", "off"),
        ("CLIENT", "KILL", "1.2.3.4:5"), ("CLIENT", "KILL", "ID", "0"),
        ("CLIENT", "SETNAME", "has space"), ("CLIENT", "LIST", "ID", "abc"),
        ("CONFIG", "GET", "maxclients"), ("CONFIG", "GET", "nosuch"), ("CONFIG", "FOO"),
        ("CONFIG", "SET", "maxclients"), ("INFO", "nosuchsection"),
        ("CLIENT", "LIST", "ID"), ("CLIENT", "LIST", "TYPE"), ("CLIENT", "LIST", "ID", "0"),
        ("CLIENT", "LIST", "ID", "-1"), ("CLIENT", "LIST", "TYPE", "normal", "ID", "1"),
        ("CLIENT", "LIST", "ID", "1", "TYPE", "normal"), ("CLIENT", "LIST", "x"),
        ("CLIENT", "KILL", "USER", "nobody"), ("CLIENT", "KILL", "USER", "default"),
        ("SELECT", "4294967296"), ("SELECT", "-2147483649"), ("SELECT", "2147483647"),
        ("CONFIG", "SET", "dir", "/tmp"), ("CONFIG", "SET", "appendfsync", "bogus"),
        ("CONFIG", "SET", "loglevel", "loud"), ("CONFIG", "GET", "MaxClients"),
        ("CONFIG", "GET", "TIMEOUT", "timeout"), ("CONFIG", "HELP", "x"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b"),
        ("COMMAND", "GETKEYS", "EVALSHA", "abc", "1", "a", "extra"),
        ("COMMAND", "GETKEYS", "EVAL_RO", "return 1", "1", "k"),
        ("COMMAND", "GETKEYS", "EVALSHA_RO", "abc", "0"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "0"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "x"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "5", "a"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "-1"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1"),
        # A count that is not an integer: Redis's getkeys procs read it with atoi.
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "2abc", "a", "b"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", " 2", "a", "b"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "1.9", "a", "b"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "0x", "a"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "-0", "a"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "x1", "a"),
        ("COMMAND", "GETKEYS", "EVAL", "return 1", "4294967297", "a"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "2abc", "a", "b"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "x", "a", "b"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "3", "a", "b"),
        ("COMMAND", "GETKEYS", "ZUNIONSTORE", "d", "-1", "a", "b"),
        ("COMMAND", "GETKEYS", "ZUNION", "2x", "a", "b"),
        ("COMMAND", "GETKEYS", "LMPOP", "1x", "a", "LEFT"),
        ("COMMAND", "GETKEYS", "SINTERCARD", "2z", "a", "b"),
    ]
    with redis_server.client() as r, sluiced.client() as s:
        for cmd in cmds:
            assert s.call_raw(*cmd) == r.call_raw(*cmd), cmd


def test_command_list_and_docs(sluiced):
    with sluiced.client() as c:
        listed = [n.decode() for n in c.call("COMMAND", "LIST")]
        names = [n for n in listed if "|" not in n]
        assert len(names) == c.call("COMMAND", "COUNT")  # COUNT leaves subcommands out, as Redis
        assert {"config|get", "client|list", "rl.policy|set"} <= set(listed)
        assert listed.index("config|get") > listed.index("config")
        for name in ["hset", "zadd", "zrangebyscore", "lpop", "client", "command", "rl.gcra"]:
            assert name in names
        zs = {n.decode() for n in c.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "ZRANGE*")}
        assert zs == {"zrange", "zrangebyscore", "zrangebylex", "zrangestore"}
        hashes = {n.decode() for n in c.call("COMMAND", "LIST", "FILTERBY", "ACLCAT", "hash")}
        assert {"hset", "hget", "hgetall", "hincrbyfloat"} <= hashes
        assert not any(n.startswith("z") for n in hashes)
        docs = c.call("COMMAND", "DOCS", "zadd", "nosuch", "hget")
        assert [d for d in docs[0::2]] == [b"zadd", b"hget"]
        zadd = dict(zip(docs[1][0::2], docs[1][1::2]))
        assert zadd[b"group"] == b"sorted-set" and zadd[b"summary"]
        c.call("HELLO", "3")
        docs = c.call("COMMAND", "DOCS", "lrange")
        assert isinstance(docs, servers.Map)
        assert docs.as_dict()[b"lrange"].as_dict()[b"group"] == b"list"
        info = c.call("COMMAND", "INFO", "hgetall")[0]
        assert info[0] == b"hgetall" and info[1] == 2 and list(info[3:6]) == [1, 1, 1]
        assert isinstance(info[2], servers.Set) and "readonly" in info[2]
        # As Redis 7.0 sends them: key specs are a set, subcommands an array, or an empty set
        # when there are none.
        assert isinstance(info[8], servers.Set) and len(info[8]) == 1
        assert isinstance(info[9], servers.Set) and info[9] == []
        [config] = c.call("COMMAND", "INFO", "config")
        assert isinstance(config[8], servers.Set) and config[8] == []
        assert not isinstance(config[9], servers.Set) and len(config[9]) > 0
        assert all(isinstance(sub[8], servers.Set) and isinstance(sub[9], servers.Set)
                   for sub in config[9])
    # EVAL's keys follow a count: movablekeys and a keynum key spec, as Redis 7.
    with sluiced.client() as c:
        [evalsha] = c.call("COMMAND", "INFO", "evalsha")
        assert "movablekeys" in evalsha[2]
        [spec] = evalsha[8]
        spec = dict(zip(spec[0::2], spec[1::2]))
        assert spec[b"begin_search"] == [b"type", b"index", b"spec", [b"index", 2]]
        assert spec[b"find_keys"] == [b"type", b"keynum", b"spec",
                                      [b"keynumidx", 0, b"firstkey", 1, b"keystep", 1]]
        assert "no_mandatory_keys" in evalsha[2]
        # ZUNIONSTORE: its destination (a range), then the sources it reads after their count;
        # ZUNION: only the counted keys, the count in args[1]. As Redis 7.0's key specs.
        [store, union] = c.call("COMMAND", "INFO", "zunionstore", "zunion")
        assert "movablekeys" in store[2] and "write" in store[2] and list(store[3:6]) == [1, 1, 1]
        dest, sources = [dict(zip(s[0::2], s[1::2])) for s in store[8]]
        assert dest[b"begin_search"] == [b"type", b"index", b"spec", [b"index", 1]]
        assert dest[b"find_keys"] == [b"type", b"range", b"spec",
                                      [b"lastkey", 0, b"keystep", 1, b"limit", 0]]
        assert sources[b"flags"] == ["RO", "access"]
        assert sources[b"begin_search"] == [b"type", b"index", b"spec", [b"index", 2]]
        assert sources[b"find_keys"][1] == b"keynum"
        assert "movablekeys" in union[2] and list(union[3:6]) == [0, 0, 0]
        [spec] = union[8]
        spec = dict(zip(spec[0::2], spec[1::2]))
        assert spec[b"begin_search"] == [b"type", b"index", b"spec", [b"index", 1]]


def test_client_subcommands_for_libraries(sluiced):
    with sluiced.client() as c:
        assert c.call("CLIENT", "SETINFO", "LIB-NAME", "redis-py") == "OK"
        assert c.call("CLIENT", "SETINFO", "LIB-VER", "5.0.1") == "OK"
        assert c.call("CLIENT", "SETNAME", "worker") == "OK"
        line = c.call("CLIENT", "INFO").decode()
        assert " lib-name=redis-py " in line and " lib-ver=5.0.1" in line
        assert " name=worker " in line
        assert c.call_raw("CLIENT", "SETINFO", "LIB-NAME", "a b") == (
            b"-ERR lib-name cannot contain spaces, newlines or special characters.\r\n")
        assert c.call_raw("CLIENT", "SETINFO", "FOO", "x") == b"-ERR Unrecognized option 'FOO'\r\n"
        assert c.call("CLIENT", "NO-TOUCH", "on") == "OK"
        # RESP2 without REDIRECT: accepted, as Redis (test_client_tracking.py has the rest).
        assert c.call("CLIENT", "TRACKING", "on") == "OK"
        assert c.call("CLIENT", "TRACKING", "off") == "OK"
        my_id = c.call("CLIENT", "ID")
        assert f"id={my_id} " in c.call("CLIENT", "LIST", "TYPE", "normal").decode()
        assert c.call("CLIENT", "LIST", "TYPE", "replica") == b""


def test_client_list_by_id_and_cmd_match_redis(sluiced, redis_server):
    """CLIENT LIST ID lists in the order of the IDs asked for, once per mention; cmd= names a
    container's subcommand (client|info), as Redis 7.0."""
    for server in (sluiced, redis_server):
        with server.client() as a, server.client() as b:
            id_a, id_b = a.call("CLIENT", "ID"), b.call("CLIENT", "ID")
            listed = a.call("CLIENT", "LIST", "ID", id_b, id_a, id_b, 999_999).decode()
            ids = [int(re.search(r"^id=(\d+) ", line).group(1)) for line in listed.splitlines()]
            assert ids == [id_b, id_a, id_b], (server, listed)
            assert " cmd=client|list " in listed.splitlines()[1]  # a's own line, listing
            assert " cmd=client|id " in listed.splitlines()[0]
            assert " cmd=client|info " in a.call("CLIENT", "INFO").decode()
            a.call("CONFIG", "GET", "port")
            assert " cmd=config|get " in b.call("CLIENT", "LIST", "ID", id_a).decode()
            a.call("GET", "x")
            assert " cmd=get " in b.call("CLIENT", "LIST", "ID", id_a).decode()


def test_client_flags_dirty_watch_and_no_evict_as_redis(sluiced, redis_server):
    """CLIENT INFO's flags: d once a watched key changed (its EXEC will fail), e after CLIENT
    NO-EVICT ON, in Redis's order; RESET clears d only (as Redis 7.0.15)."""
    flags = {}
    for server in (sluiced, redis_server):
        with server.client() as a, server.client() as b:
            seen = []
            flag = lambda: re.search(r" flags=(\S+) ", a.call("CLIENT", "INFO").decode()).group(1)
            a.call("WATCH", "wk")
            seen.append(flag())
            b.call("SET", "wk", "1")
            seen.append(flag())
            a.call("CLIENT", "NO-EVICT", "on")
            seen.append(flag())
            a.call("CLIENT", "TRACKING", "on")
            seen.append(flag())
            a.call("RESET")
            seen.append(flag())
            flags[server] = seen
    assert flags[sluiced] == flags[redis_server] == ["N", "d", "de", "tde", "e"]


def test_client_info_inside_exec_shows_the_transaction_as_redis(sluiced, redis_server):
    """While EXEC runs its commands the client is still in its transaction for CLIENT INFO and
    CLIENT LIST: flag x and multi= the number of commands, as Redis 7.0."""
    fields = {}
    for server in (sluiced, redis_server):
        with server.client() as c:
            assert c.call("MULTI") == "OK"
            for cmd in [("CLIENT", "INFO"), ("SET", "k", "v"), ("CLIENT", "LIST", "TYPE", "normal")]:
                assert c.call(*cmd) == "QUEUED"
            replies = c.call("EXEC")
            fields[server] = [re.search(r" flags=\S+ .* multi=-?\d+", reply.decode()).group(0)
                              for reply in (replies[0], replies[2])]
    assert fields[sluiced] == fields[redis_server]
    assert fields[sluiced][0].startswith(" flags=x ") and fields[sluiced][0].endswith(" multi=3")


def _client_fields(admin, client_id):
    line = admin.call("CLIENT", "LIST", "ID", client_id).decode().strip()
    return dict(field.split("=", 1) for field in line.split(" "))


def test_client_list_buffer_fields_as_redis(sluiced, redis_server):
    """CLIENT LIST's buffer fields say what a client holds now, as Redis's: qbuf is the input
    not run yet (a request that ran counted as qbuf for good, until session 48), multi-mem
    grows with a MULTI's queue, a client that stops reading shows omem and events=rw, and
    tot-mem counts them all."""
    import socket
    import time
    for server in (sluiced, redis_server):
        with server.client() as admin, server.client() as a:
            a_id = a.call("CLIENT", "ID")
            assert a.call("SET", "big", "x" * 3000) == "OK"
            idle = _client_fields(admin, a_id)
            assert idle["qbuf"] == "0" and idle["multi-mem"] == "0", (server, idle)
            assert idle["events"] == "r" and int(idle["qbuf-free"]) > 0, (server, idle)
            assert a.call("MULTI") == "OK"
            for n in range(100):
                assert a.call("SET", f"k{n}", "v" * 20) == "QUEUED"
            queued = _client_fields(admin, a_id)
            assert int(queued["multi-mem"]) > 2000, (server, queued)
            assert int(queued["tot-mem"]) >= int(queued["multi-mem"]), (server, queued)
            a.call("DISCARD")
            assert _client_fields(admin, a_id)["multi-mem"] == "0"
            assert admin.call("SET", "mb", "y" * (1 << 20)) == "OK"
            with socket.create_connection(("127.0.0.1", server.port)) as reader:
                reader.sendall(b"CLIENT SETNAME stalled\r\n" + b"GET mb\r\n" * 20)
                deadline = time.monotonic() + 10
                held = 0
                # Until the server has run them and the socket is full: replies held in two
                # samples in a row. (Redis queues a turn's replies and writes them, or installs
                # its write handler, before its next turn: a first sample can fall between.)
                while held < 2:
                    line = [l for l in admin.call("CLIENT", "LIST").decode().splitlines()
                            if " name=stalled " in l]
                    fields = dict(f.split("=", 1) for f in line[0].split(" ")) if line else {}
                    held = held + 1 if fields and int(fields["omem"]) > 0 else 0
                    assert time.monotonic() < deadline, (server, fields)
                    if held < 2:
                        time.sleep(0.01)
                assert fields["events"] == "rw", (server, fields)
                assert int(fields["tot-mem"]) >= int(fields["omem"]), (server, fields)


def test_clients_in_timeout_table_counts_every_wait_with_a_timeout_as_redis(sluiced, redis_server):
    """INFO's clients_in_timeout_table counts the clients waiting with a deadline: a blocking pop
    or WAIT with a timeout, not one that waits for ever (it counted only BLOCK's waiters)."""
    counts = {}
    for server in (sluiced, redis_server):
        waiting = [server.client() for _ in range(3)]
        try:
            with server.client() as admin:
                for c, cmd in zip(waiting, [("BLPOP", "q", "100"), ("BLPOP", "q2", "0"),
                                            ("WAIT", "1", "100000")]):
                    c.send(servers.encode(*cmd))
                servers.wait_for(lambda: servers.blocked_clients(admin) == 3, "3 blocked")
                info = admin.call("INFO", "clients").decode()
                counts[server] = re.search(r"clients_in_timeout_table:(\d+)", info).group(1)
        finally:
            for c in waiting:
                c.close()
    assert counts[sluiced] == counts[redis_server] == "2"


def test_containers_show_no_flags_of_their_own_as_redis(sluiced, redis_server):
    """COMMAND INFO of a container that runs only through a subcommand (CONFIG, CLIENT...) has
    no flags, as Redis 7.0's; COMMAND, which also runs alone, has its own."""
    names = ["config", "client", "acl", "latency", "slowlog", "script", "function", "object",
             "memory", "command"]
    flags = {}
    for server in (sluiced, redis_server):
        with server.client() as c:
            flags[server] = [sorted(c.call("COMMAND", "INFO", name)[0][2]) for name in names]
    assert flags[sluiced] == flags[redis_server]
    assert flags[sluiced][0] == [] and flags[sluiced][-1] == ["loading", "stale"]


def _cmd_field(observer, client_id):
    line = observer.call("CLIENT", "LIST", "ID", client_id).decode()
    return re.search(r" cmd=(\S+) ", line).group(1)


def test_cmd_field_follows_redis_rules(sluiced, redis_server):
    """cmd= is set as Redis's processCommand sets it: before refusals and queueing ("NULL" for
    an unknown command or subcommand), "exec" for EXEC and what ran inside it, "eval" for a
    script's redis.call."""
    sequences = [
        [("EVAL", "return redis.call('get', 'x')", "0")], [("CONFIG", "FOO")],
        [("CONFIG", "GET")], [("FOO",)], [("GET",)], [("CLIENT", "NOSUCH")],
        [("MULTI",), ("SET", "k", "v")], [("EXEC",)],
        [("MULTI",), ("GET", "k"), ("CONFIG", "GET", "port"), ("EXEC",)],
        [("SCRIPT", "FLUSH")], [("MULTI",), ("CLIENT", "INFO"), ("EXEC",)], [("PING",)],
    ]
    seen = {}
    for server in (sluiced, redis_server):
        with server.client() as a, server.client() as b:
            id_a = a.call("CLIENT", "ID")
            seen[server] = []
            for sequence in sequences:
                replies = [a.call(*cmd) for cmd in sequence]
                seen[server].append(_cmd_field(b, id_a))
                if ("CLIENT", "INFO") in sequence:  # what CLIENT INFO said inside EXEC
                    seen[server].append(re.search(r" cmd=(\S+) ", replies[-1][0].decode())
                                        .group(1))
    assert seen[sluiced] == seen[redis_server]
    assert "NULL" in seen[sluiced] and "exec" in seen[sluiced]


def _help_lines(client, *container):
    return [line.decode() if isinstance(line, bytes) else line
            for line in client.call(*container, "HELP")]


def test_help_of_every_container(sluiced, redis_server):
    """Each container's HELP names its subcommands and ends as Redis's does; CONFIG HELP is
    Redis's text."""
    with sluiced.client() as c, redis_server.client() as r:
        for container in (("CONFIG",), ("CLIENT",), ("COMMAND",), ("SCRIPT",), ("RL.POLICY",),
                          ("OBJECT",), ("MEMORY",)):
            lines = _help_lines(c, *container)
            assert lines[0] == f"{container[0]} <subcommand> [<arg> [value] [opt] ...]. " \
                               "Subcommands are:", lines
            assert lines[-2:] == ["HELP", "    Prints this help."], (container, lines)
        assert _help_lines(c, "CONFIG") == _help_lines(r, "CONFIG")
        policy_help = "\n".join(_help_lines(c, "RL.POLICY"))
        for sub in ("SET <name>", "GET <name>", "DEL <name>", "LIST"):
            assert f"\n{sub}" in policy_help, policy_help
        for algorithm in ("FIXEDWINDOW", "SLIDINGLOG", "SLIDINGWINDOW", "TOKENBUCKET",
                          "LEAKYBUCKET", "GCRA"):
            assert algorithm in policy_help
        assert c.call_raw("RL.POLICY", "HELP", "x") == (
            b"-ERR wrong number of arguments for 'rl.policy|help' command\r\n")


def test_commandstats_name_subcommands_as_redis(sluiced, redis_server):
    """INFO commandstats counts a container's calls by subcommand (cmdstat_config|get), and
    COMMAND alone as cmdstat_command, as Redis 7.0 does."""
    calls = [("CONFIG", "GET", "port"), ("CONFIG", "GET", "timeout"), ("CLIENT", "ID"),
             ("COMMAND", "COUNT"), ("COMMAND", "INFO", "get"), ("GET", "x")]
    counted = {}
    for server in (sluiced, redis_server):
        with server.client() as c:
            c.call("CONFIG", "RESETSTAT")
            for cmd in calls:
                c.call(*cmd)
            stats = _fields(c.call("INFO", "commandstats").decode())
            counted[server] = {name: value.split(",")[0] for name, value in stats.items()
                               if name != "cmdstat_info"}
    assert counted[sluiced] == counted[redis_server]
    assert counted[sluiced]["cmdstat_config|get"] == "calls=2"
    # usec_per_call is usec / calls, to the cent, as Redis prints it.
    with sluiced.client() as c:
        for name, value in _fields(c.call("INFO", "commandstats").decode()).items():
            field = dict(pair.split("=") for pair in value.split(","))
            expected = int(field["usec"]) / int(field["calls"]) if int(field["calls"]) else 0
            assert field["usec_per_call"] == "%.2f" % expected, (name, value)


def test_scripts_and_exec_are_not_write_commands_in_command_info(sluiced, redis_server):
    """As Redis 7.0: EVAL, EVALSHA, FCALL and EXEC do not carry the write flag (what they
    write is decided by the commands they run); EVAL_RO is readonly."""
    names = ("eval", "evalsha", "fcall", "exec", "eval_ro", "evalsha_ro", "fcall_ro", "multi")
    flags = {}
    for server in (sluiced, redis_server):
        with server.client() as c:
            flags[server] = [sorted(map(str, row[2])) for row in c.call("COMMAND", "INFO", *names)]
    assert flags[sluiced] == flags[redis_server]


def _fields(text):
    return dict(line.split(":", 1) for line in text.split("\r\n")
                if line and not line.startswith("#"))


def test_info_memory_counts_what_is_allocated(sluiced):
    """used_memory comes from the allocator sluiced runs on (jemalloc by default, as Redis;
    AddressSanitizer's in the sanitizer builds) and follows what is held: a 16 MiB value read
    into the record cache shows."""
    with sluiced.client() as c:
        before = _fields(c.call("INFO", "memory").decode())
        assert before["mem_allocator"] in ("libc", "asan") or re.fullmatch(
            r"jemalloc-\d+\.\d+\.\d+", before["mem_allocator"]), before["mem_allocator"]
        assert int(before["used_memory"]) > 0
        big = b"x" * (16 << 20)
        assert c.call("SET", "big", big) == "OK"
        assert c.call("GET", "big") == big
        after = _fields(c.call("INFO", "memory").decode())
        assert int(after["used_memory"]) >= int(before["used_memory"]) + (16 << 20), (before, after)


def test_info_sections_and_monitoring_fields(sluiced, redis_server):
    with sluiced.client() as c, redis_server.client() as r:
        assert c.call("HSET", "h", "f", "v") == 1
        assert c.call("HGET", "h", "f") == b"v"
        default = c.call("INFO").decode()
        headers = re.findall(r"^# (\w+)\r$", default, re.M)
        redis_headers = re.findall(r"^# (\w+)\r$", r.call("INFO").decode(), re.M)
        assert set(redis_headers) <= set(headers), (redis_headers, headers)
        assert "Commandstats" not in headers
        fields = _fields(default)
        for name in ["redis_version", "redis_mode", "tcp_port", "uptime_in_seconds", "loading",
                     "connected_clients", "blocked_clients", "used_memory", "used_memory_rss",
                     "mem_fragmentation_ratio", "total_system_memory", "maxmemory",
                     "total_connections_received", "total_commands_processed",
                     "instantaneous_ops_per_sec", "keyspace_hits", "keyspace_misses",
                     "expired_keys", "evicted_keys", "rejected_connections", "role",
                     "connected_slaves", "master_repl_offset", "used_cpu_sys", "used_cpu_user",
                     "cluster_enabled", "aof_enabled", "rdb_last_save_time",
                     "rdb_changes_since_last_save"]:
            assert name in fields, f"INFO lacks {name}"
        assert fields["loading"] == "0"
        assert fields["cluster_enabled"] == "0"
        everything = _fields(c.call("INFO", "everything").decode())
        assert everything["cmdstat_hset"].startswith("calls=1,")
        assert everything["cmdstat_hget"].startswith("calls=1,")
        stats = c.call("INFO", "commandstats").decode()
        assert re.findall(r"^# (\w+)\r$", stats, re.M) == ["Commandstats"]
        assert c.call("INFO", "cluster").decode() == "# Cluster\r\ncluster_enabled:0\r\n"
