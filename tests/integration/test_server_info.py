"""Connection and server commands: INFO, CLIENT, SELECT, PING/ECHO, QUIT, TIME, RESET,
COMMAND, CONFIG, DBSIZE/FLUSH*, maxclients and timeout."""

import re
import time

import pytest

import servers


@pytest.fixture
def sluiced(shared_sluiced):
    """One sluiced for the module (conftest: shared_sluiced), emptied before each test."""
    return shared_sluiced


def _info(client, *section):
    text = client.call("INFO", *section)
    assert isinstance(text, bytes), text
    return text.decode()


def _fields(info_text):
    return dict(line.split(":", 1) for line in info_text.split("\r\n")
                if line and not line.startswith("#") and ":" in line)


def test_info_sections(sluiced):
    with sluiced.client() as c:
        assert c.call("SET", "a", "1") == "OK"
        assert c.call("SET", "b", "2", "EX", "100") == "OK"
        text = _info(c)
        headers = re.findall(r"^# (\w+)\r$", text, re.M)
        for section in ("Server", "Clients", "Memory", "Persistence", "Stats", "Keyspace"):
            assert section in headers, f"INFO lacks '# {section}': {headers}"
        fields = _fields(text)
        assert fields["redis_version"] == "7.0.0"
        assert re.fullmatch(r"\d+\.\d+\.\d+", fields["sluice_version"]), fields["sluice_version"]
        assert fields["loading"] == "0"
        assert int(fields["tcp_port"]) == sluiced.port
        assert int(fields["connected_clients"]) >= 1
        assert re.match(r"keys=2,expires=1(,|$)", fields["db0"]), fields["db0"]
        assert all(line == "" or line.startswith("#") or ":" in line
                   for line in text.split("\r\n")), text


def test_info_one_section(sluiced):
    with sluiced.client() as c:
        text = _info(c, "server")
        assert re.findall(r"^# (\w+)\r$", text, re.M) == ["Server"]
        assert "redis_version:7.0.0\r\n" in text
        persistence = _info(c, "persistence")
        assert re.findall(r"^# (\w+)\r$", persistence, re.M) == ["Persistence"]
        assert "loading:0\r\n" in persistence
        assert _info(c, "keyspace").strip() == "# Keyspace"  # empty database: header only


def test_info_keyspace_estimates_a_large_key_space(sluiced_factory):
    """Counting every key would hold the loop for seconds at millions of keys, and INFO's
    default sections (which ioredis sends at every connect) include the key space: past
    10,000 keys INFO gives estimates, says so, and DBSIZE still counts exactly."""
    sluiced = sluiced_factory()  # a server of its own: the engine's estimates reflect its past
    with sluiced.client() as c:
        n = 12000
        c.send(b"".join(servers.encode("SET", f"k:{i}", "v", *(("EX", "1000") if i % 2 else ()))
                        for i in range(n)))
        assert all(c.read() == "OK" for _ in range(n))
        fields = _fields(_info(c, "keyspace"))
        assert fields["keyspace_estimated"] == "1"
        counts = dict(item.split("=") for item in fields["db0"].split(","))
        assert abs(int(counts["keys"]) - n) <= n * 0.1, counts
        assert abs(int(counts["expires"]) - n / 2) <= n / 2 * 0.25, counts
        assert 900_000 < int(counts["avg_ttl"]) <= 1_000_000, counts  # from the sample
        assert c.call("DBSIZE") == n
        assert c.call("FLUSHALL") == "OK"
        assert c.call("MSET", "a", "1", "b", "2") == "OK"
        fields = _fields(_info(c, "keyspace"))
        assert fields["db0"] == "keys=2,expires=0,avg_ttl=0" and "keyspace_estimated" not in fields


def test_keyspace_avg_ttl_is_the_mean_remaining_ttl(debug_sluiced):
    """avg_ttl (ms): the mean time to live of the keys with an expiry, as Redis's estimates it;
    exact here (a small key space is counted)."""
    with debug_sluiced.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE", 4_102_444_800_000) == "OK"
        assert c.call("SET", "a", "v", "EX", 100) == "OK"
        assert c.call("SET", "b", "v", "PX", 300_000) == "OK"
        assert c.call("SET", "c", "v") == "OK"
        assert _fields(_info(c, "keyspace"))["db0"] == "keys=3,expires=2,avg_ttl=200000"
        assert c.call("DEBUG", "CLOCK", "ADVANCE", 1000) == "OK"
        assert _fields(_info(c, "keyspace"))["db0"] == "keys=3,expires=2,avg_ttl=199000"


def test_client_id_setname_getname(sluiced_factory):
    sluiced = sluiced_factory()  # a server of its own: it kills a client by id
    with sluiced.client() as a, sluiced.client() as b:
        id_a, id_b = a.call("CLIENT", "ID"), b.call("CLIENT", "ID")
        assert isinstance(id_a, int) and isinstance(id_b, int) and id_a != id_b
        assert a.call("CLIENT", "ID") == id_a
        assert a.call_raw("CLIENT", "GETNAME") == b"$-1\r\n"
        assert a.call("CLIENT", "SETNAME", "worker-1") == "OK"
        assert a.call("CLIENT", "GETNAME") == b"worker-1"
        assert b.call_raw("CLIENT", "GETNAME") == b"$-1\r\n"
        assert a.call_raw("CLIENT", "SETNAME", "a b") == (
            b"-ERR Client names cannot contain spaces, newlines or special characters.\r\n")
        assert a.call("CLIENT", "GETNAME") == b"worker-1"
        listing = b.call("CLIENT", "LIST").decode()
        line = next(ln for ln in listing.splitlines() if f"id={id_a} " in ln)
        assert " name=worker-1 " in f" {line} "
        assert f"id={id_b} " in b.call("CLIENT", "INFO").decode()
        assert a.call("CLIENT", "SETNAME", "") == "OK"
        assert a.call_raw("CLIENT", "GETNAME") == b"$-1\r\n"
        assert b.call("CLIENT", "KILL", "ID", str(id_a)) == 1
        assert a.is_closed()
        assert b.call("CLIENT", "KILL", "ID", str(id_a)) == 0


def test_client_errors_same_as_redis(sluiced, redis_server):
    cmds = [("CLIENT",), ("CLIENT", "NOSUCH"), ("CLIENT", "SETNAME"),
            ("CLIENT", "SETNAME", "a\nb"), ("CLIENT", "GETNAME", "x"), ("CLIENT", "ID", "x"),
            ("SELECT",), ("SELECT", "x"), ("SELECT", "0"), ("ECHO",), ("ECHO", "a", "b"),
            ("PING", "a", "b"), ("TIME", "x"), ("DBSIZE", "x"), ("QUIT", "x")]
    with redis_server.client() as r, sluiced.client() as s:
        for cmd in cmds:
            assert s.call_raw(*cmd) == r.call_raw(*cmd), cmd


def test_select_with_one_database(sluiced_factory, redis_factory):
    sluiced = sluiced_factory(databases="1")
    redis = redis_factory("--databases", "1")
    with sluiced.client() as s, redis.client() as r:
        assert s.call_raw("SELECT", "0") == b"+OK\r\n"
        for index in ("1", "15", "-1"):
            assert s.call_raw("SELECT", index) == r.call_raw("SELECT", index) == \
                b"-ERR DB index is out of range\r\n"
        assert s.call("SET", "k", "v") == "OK"
        assert s.call("GET", "k") == b"v"


def test_ping_echo(sluiced):
    with sluiced.client() as c:
        assert c.call_raw("PING") == b"+PONG\r\n"
        assert c.call_raw("PING", "hello") == b"$5\r\nhello\r\n"
        assert c.call_raw("ECHO", "a\r\nb") == b"$4\r\na\r\nb\r\n"
        assert c.call_raw("ECHO", "") == b"$0\r\n\r\n"
        assert c.call("HELLO", "3").as_dict()[b"proto"] == 3
        assert c.call_raw("PING") == b"+PONG\r\n"
        assert c.call_raw("ECHO", "x") == b"$1\r\nx\r\n"


def test_quit(sluiced):
    with sluiced.client() as c:
        c.send(servers.encode("QUIT") + servers.encode("SET", "after-quit", "1"))
        assert c.read_until_closed() == b"+OK\r\n"
    with sluiced.client() as c:
        assert c.call("EXISTS", "after-quit") == 0


def test_time(sluiced):
    with sluiced.client() as c:
        reply = c.call("TIME")
        assert isinstance(reply, list) and len(reply) == 2
        seconds, micros = int(reply[0]), int(reply[1])
        assert reply[0] == str(seconds).encode() and reply[1] == str(micros).encode()
        assert 0 <= micros < 1_000_000
        assert abs(seconds - time.time()) < 60  # the real clock: nothing is frozen here


def test_reset(sluiced):
    with sluiced.client() as c:
        assert c.call("CLIENT", "SETNAME", "temp") == "OK"
        assert c.call("HELLO", "3").as_dict()[b"proto"] == 3
        assert c.call_raw("RESET") == b"+RESET\r\n"
        assert c.call_raw("CLIENT", "GETNAME") == b"$-1\r\n"  # back to RESP2, no name
        assert c.call_raw("GET", "missing") == b"$-1\r\n"


def test_dbsize_flushdb_flushall(sluiced):
    with sluiced.client() as c:
        assert c.call("DBSIZE") == 0
        assert c.call("MSET", "a", "1", "b", "2", "c", "3") == "OK"
        assert c.call("DBSIZE") == 3
        assert c.call("FLUSHDB") == "OK"
        assert c.call("DBSIZE") == 0
        assert c.call("SET", "d", "4") == "OK"
        assert c.call("FLUSHALL") == "OK"
        assert c.call("DBSIZE") == 0
        assert c.call("GET", "d") is None


def test_role_same_as_redis(sluiced, redis_server):
    """ROLE: a master without replicas, byte for byte (clients' health checks ask it)."""
    cmds = [("ROLE",), ("role",), ("ROLE", "x")]
    with redis_server.client() as r, sluiced.client() as s:
        for cmd in cmds:
            assert s.call_raw(*cmd) == r.call_raw(*cmd), cmd


def test_command_metadata_same_as_redis(sluiced, redis_server):
    """COMMAND INFO's name, arity, first/last key and step, which cluster clients use."""
    names = ["get", "set", "mset", "mget", "del", "incr", "expire", "ttl", "keys", "ping",
             "rename", "exists"]
    with redis_server.client() as r, sluiced.client() as s:
        count = s.call("COMMAND", "COUNT")
        assert isinstance(count, int) and count >= len(names)
        r_info, s_info = r.call("COMMAND", "INFO", *names), s.call("COMMAND", "INFO", *names)
        assert len(s_info) == len(names)
        for name, rc, sc in zip(names, r_info, s_info):
            assert sc is not None, f"COMMAND INFO {name} is nil"
            assert (sc[0], sc[1], sc[3], sc[4], sc[5]) == (rc[0], rc[1], rc[3], rc[4], rc[5]), \
                name
        assert s.call("COMMAND", "INFO", "nosuchcommand") == [None]
        listed = s.call("COMMAND", "LIST")
        assert set(n.encode() for n in names) <= set(listed)


def test_command_info_lists_subcommands_as_redis(sluiced, redis_server):
    """A container's COMMAND INFO entry lists its subcommands ("config|get", arity), as Redis
    7's does: every one sluice has carries Redis's arity, and an ordinary command has none."""
    with redis_server.client() as r, sluiced.client() as s:
        for container in ("config", "client", "script", "command"):
            [ours], [theirs] = s.call("COMMAND", "INFO", container), r.call("COMMAND", "INFO",
                                                                            container)
            our_subs = {e[0].decode(): e[1] for e in ours[9]}
            their_subs = {e[0].decode(): e[1] for e in theirs[9]}
            assert our_subs, container
            assert all(name.startswith(container + "|") for name in our_subs), our_subs
            shared = set(our_subs) & set(their_subs)
            assert len(shared) >= 3, (container, our_subs)
            assert {n: our_subs[n] for n in shared} == {n: their_subs[n] for n in shared}
            for entry in ours[9]:
                assert entry[3:6] == [0, 0, 0] and entry[8] == [] and entry[9] == [], entry
        [policy] = s.call("COMMAND", "INFO", "rl.policy")
        assert sorted(e[0].decode() for e in policy[9]) == [
            "rl.policy|del", "rl.policy|get", "rl.policy|help", "rl.policy|list",
            "rl.policy|set"]
        [get] = s.call("COMMAND", "INFO", "get")
        assert get[9] == []
        # A subcommand by its full name, and the same names under COMMAND LIST's pattern.
        for name in ("config|get", "CONFIG|SET", "client|list"):
            [ours], [theirs] = s.call("COMMAND", "INFO", name), r.call("COMMAND", "INFO", name)
            assert (ours[0], ours[1]) == (theirs[0], theirs[1]), name
        assert s.call("COMMAND", "INFO", "config|nosuch", "nosuch|get") == [None, None]
        assert r.call("COMMAND", "INFO", "config|nosuch", "nosuch|get") == [None, None]
        pattern = ("COMMAND", "LIST", "FILTERBY", "PATTERN", "config*")
        assert sorted(s.call(*pattern)) == sorted(r.call(*pattern))
        # COMMAND (no argument) carries them too.
        everything = {e[0].decode(): e for e in s.call("COMMAND")}
        assert everything["config"][9] == s.call("COMMAND", "INFO", "config")[0][9]


def test_config_get_set(sluiced_factory):
    server = sluiced_factory(maxclients=50, timeout=0)
    with server.client() as c:
        assert c.call("CONFIG", "GET", "maxclients") == [b"maxclients", b"50"]
        assert c.call("CONFIG", "GET", "port") == [b"port", str(server.port).encode()]
        assert c.call("CONFIG", "SET", "timeout", "300") == "OK"
        assert c.call("CONFIG", "GET", "timeout") == [b"timeout", b"300"]
        assert c.call("CONFIG", "GET", "nosuchdirective") == []


def _connect_past_lingering_probe(server, deadline_s=30.0):
    """A connection that got a seat. The start-up probe's connection may not be reaped yet when
    the first clients connect; this polls (bounded) for its seat to come free."""
    deadline = time.monotonic() + deadline_s
    while True:
        c = server.client()
        c.send(servers.encode("PING"))
        try:
            value = c.read()
        except servers.ConnectionClosed:
            value = None
        if value == "PONG":
            return c
        c.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"no seat for a second client: {value!r}")
        time.sleep(servers.POLL_S)


def test_config_set_splits_several_words_on_each_space_as_redis(sluiced_factory, redis_factory):
    """CONFIG SET splits a several-word value on each space, as Redis's sdssplitlen: two spaces
    in a row make an empty word, refused; soft_seconds is read with strtoll (a sign taken)."""
    steps = [
        ("latency-tracking-info-percentiles", "50  99"),
        ("latency-tracking-info-percentiles", " 50 99"),
        ("latency-tracking-info-percentiles", ""),
        ("latency-tracking-info-percentiles", "50 99.9"),
        ("client-output-buffer-limit", "normal 1mb 1mb 1  pubsub 1mb 1mb 1"),
        ("client-output-buffer-limit", "normal 1mb 1mb  1"),
        ("client-output-buffer-limit", "normal 1mb 1mb +1"),
        ("client-output-buffer-limit", "normal 2mb 2mb x"),
        ("client-output-buffer-limit", "normal 2mb 2mb 99999999999999999999"),
        ("client-output-buffer-limit", ""),
    ]
    seen = {}
    for name, server in (("sluice", sluiced_factory()), ("redis", redis_factory())):
        with server.client() as c:
            seen[name] = [c.call_raw("CONFIG", "SET", *step) for step in steps]
            seen[name] += [c.call_raw("CONFIG", "GET", "latency-tracking-info-percentiles"),
                           c.call_raw("CONFIG", "GET", "client-output-buffer-limit")]
    assert seen["sluice"] == seen["redis"]
    assert seen["sluice"][0].startswith(b"-ERR") and seen["sluice"][6] == b"+OK\r\n"


def test_config_set_of_a_redis_parameter_to_sluices_one_value(sluiced_factory, redis_server):
    """maxmemory, maxmemory-policy, appendonly and save have one value in sluice: CONFIG SET
    takes that one, as Redis does (it answered "can't set immutable config" to it), and
    refuses another with the reason."""
    sluiced = sluiced_factory()  # a server of its own: CONFIG SET
    same = [("maxmemory-policy", "noeviction"), ("maxmemory", "0"), ("appendonly", "yes"),
            ("save", "")]
    with sluiced.client() as s, redis_server.client() as r:
        r.call("CONFIG", "SET", "appendonly", "yes")
        for name, value in same:
            assert s.call_raw("CONFIG", "SET", name, value) == b"+OK\r\n", name
            assert r.call_raw("CONFIG", "SET", name, value) == b"+OK\r\n", name
            assert s.call("CONFIG", "GET", name) == r.call("CONFIG", "GET", name), name
        refused = s.call_raw("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
        assert refused == (b"-ERR CONFIG SET failed (possibly related to argument "
                           b"'maxmemory-policy') - sluice evicts nothing: its only policy is "
                           b"noeviction\r\n")
        assert s.call("CONFIG", "GET", "maxmemory-policy") == [b"maxmemory-policy", b"noeviction"]
        # Redis refuses SIGTERM while it writes its first AOF ("Writing initial AOF, can't
        # exit"), and the fixture would wait 30 s before killing it.
        def first_aof_written():
            info = r.call("INFO", "persistence")
            return b"aof_rewrite_in_progress:0" in info and b"aof_rewrite_scheduled:0" in info
        servers.wait_for(first_aof_written, "Redis's first AOF")


def test_config_get_dir_is_absolute_as_redis(sluiced_factory):
    """A relative `dir` is shown absolute, as Redis shows its working directory: a tool that
    reads it finds the data without knowing where sluiced was started."""
    server = sluiced_factory(data_dir="relative/data/")
    with server.client() as c:
        assert c.call("CONFIG", "GET", "dir") == [b"dir",
                                                  str(server.workdir / "relative" / "data").encode()]


def test_maxclients(sluiced_factory):
    server = sluiced_factory(maxclients=2)
    first = _connect_past_lingering_probe(server)
    second = _connect_past_lingering_probe(server)
    try:
        with server.client() as third:
            assert third.read_until_closed() == b"-ERR max number of clients reached\r\n"
        assert first.call("PING") == "PONG"
        assert second.call("PING") == "PONG"
    finally:
        second.close()
    # The freed seat can be taken again (its close is noticed asynchronously: poll).
    _connect_past_lingering_probe(server).close()
    first.close()


def test_timeout_closes_idle_clients(sluiced_factory):
    """timeout 1: an idle connection is closed. A real idle wait is the behaviour under test,
    bounded (a bound on failure only, wide for a loaded machine): the close must come within
    30 s."""
    server = sluiced_factory(timeout=1)
    with server.client() as idle:
        assert idle.call("PING") == "PONG"
        assert idle.is_closed(timeout=30.0), "idle client still connected after 30 s"
    with server.client() as c:  # the server itself carries on
        assert c.call("PING") == "PONG"


def _normalize_hello(value):
    """A HELLO reply with the fields that name the server (server, version, id) blanked."""
    if isinstance(value, servers.Map):
        pairs = list(value)
    elif isinstance(value, list):
        pairs = list(zip(value[0::2], value[1::2]))
    else:
        return value
    blanked = [(k, None if k in (b"server", b"version", b"id") else v) for k, v in pairs]
    return (type(value).__name__, blanked)


def test_hello_same_as_redis(sluiced, redis_server):
    """HELLO's fields, types and errors as Redis 7.0 (the server name, version and client id
    are the server's own)."""
    cmds = [("HELLO",), ("HELLO", "2"), ("HELLO", "3", "SETNAME", "a b"), ("HELLO", "3", "FOO"),
            ("HELLO", "3", "AUTH", "default"), ("HELLO", "3", "SETNAME"), ("HELLO", "1"),
            ("HELLO", "-1"), ("HELLO", "abc"), ("HELLO", "4"), ("CLIENT", "GETNAME"),
            ("HELLO", "3", "AUTH", "default", "x", "SETNAME", "nm"), ("CLIENT", "GETNAME"),
            ("HELLO",), ("GET", "missing"), ("HELLO", "2"), ("GET", "missing")]
    with redis_server.client() as r, sluiced.client() as s:
        for cmd in cmds:
            r_value, s_value = r.call(*cmd), s.call(*cmd)
            assert _normalize_hello(s_value) == _normalize_hello(r_value), \
                f"{cmd}: redis {r_value!r}, sluiced {s_value!r}"
            assert type(s_value) is type(r_value), cmd
