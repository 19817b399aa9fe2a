"""Redis 7.0 Functions: FUNCTION LOAD / LIST / DELETE / FLUSH / STATS / DUMP / RESTORE / KILL,
FCALL and FCALL_RO. The differential tests send the same commands to redis-server 7.0 and
sluiced and compare the replies to the byte, in RESP2 and after HELLO 3 (a GCRA limiter written
as a function library among them). The sluice-only tests check what Redis keeps in its RDB and
sluice in RocksDB: libraries survive a restart and a kill -9, FLUSHALL keeps them.

Left out of the byte comparisons on purpose: the order of several libraries or functions in
FUNCTION LIST (Redis's is its hash tables' order, sluice's is by name; compared as sets), and
FUNCTION DUMP's bytes (Redis compresses the code, sluice does not; each restores the other's).
"""

import subprocess

import pytest

import servers
from servers import ConnectionClosed, Error, RespClient, encode
from test_disk_trouble import faulty_disk, frozen, wait_for_pong  # noqa: F401 (a fixture)
from test_monitor import END as MONITOR_END
from test_monitor import Monitor
from test_monitor import _masked as masked_monitor_line
from test_scripting_busy import wait_busy


def lib(name, body):
    return f"#!lua name={name}\n{body}"


def fn(name, code, flags=None):
    """A redis.register_function call in the table form."""
    extra = "" if flags is None else ", flags={" + ", ".join(f"'{f}'" for f in flags) + "}"
    return f"redis.register_function{{function_name='{name}', callback={code}{extra}}}\n"


# A GCRA limiter as a team would load it: the caller passes its clock (ms) so that the answers
# do not depend on when each server reads its own, and the state is one key with a TTL.
GCRA = lib("limiter", """
local function gcra(keys, args)
  local burst, rate, period, cost, now = tonumber(args[1]), tonumber(args[2]),
      tonumber(args[3]), tonumber(args[4]), tonumber(args[5])
  local interval = period / rate
  local limit = (burst + 1) * interval
  local tat = tonumber(redis.call('GET', keys[1])) or now
  if tat < now then tat = now end
  local new_tat = tat + cost * interval
  local allow_at = new_tat - limit
  if allow_at > now then
    return {0, math.floor((now - (tat - limit)) / interval), math.ceil(allow_at - now),
            math.ceil(tat - now)}
  end
  redis.call('SET', keys[1], new_tat, 'PX', math.ceil(new_tat - now))
  return {1, math.floor((now - allow_at) / interval), -1, math.ceil(new_tat - now)}
end
redis.register_function('gcra', gcra)
redis.register_function{function_name='gcra_peek', flags={'no-writes'},
  callback=function(keys, args) return redis.call('GET', keys[1]) or 'fresh' end}
""")


@pytest.fixture
def fdiff(diff):
    """`diff` with no library on either server."""
    diff.check("FUNCTION", "FLUSH")
    yield diff
    diff.check("FUNCTION", "FLUSH")


def test_function_load_errors(fdiff):
    fdiff.run([
        ("FUNCTION", "LOAD", "return 1"),
        ("FUNCTION", "LOAD", "#!lua name=x"),
        ("FUNCTION", "LOAD", "#!lua\nreturn 1"),
        ("FUNCTION", "LOAD", "#!lua name=x foo=bar\nreturn 1"),
        ("FUNCTION", "LOAD", "#!lua name=x name=y\nreturn 1"),
        ("FUNCTION", "LOAD", "#!perl name=x\nreturn 1"),
        ("FUNCTION", "LOAD", "#!lua name=x-y\nreturn 1"),
        ("FUNCTION", "LOAD", "#!lua name=\nreturn 1"),
        ("FUNCTION", "LOAD", lib("x", "return 1")),
        ("FUNCTION", "LOAD", lib("x", "return 1 +")),
        ("FUNCTION", "LOAD", lib("x", "redis.call('set', 'a', 1)")),
        ("FUNCTION", "LOAD", lib("x", "local a = string.len('x')")),
        ("FUNCTION", "LOAD", lib("x", "error('boom')")),
        ("FUNCTION", "LOAD", lib("x", "foo = 1")),
        ("FUNCTION", "LOAD", lib("x", "local t = nil\nt.x = 1")),
        ("FUNCTION", "LOAD", lib("x", "local g = _G")),
        ("FUNCTION", "LOAD", lib("x", "local f = function() end\n"
                                      "redis.register_function('f', f)\n"
                                      "redis.register_function('f', f)")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function('f-1', function() end)")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function({}, function() end)")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function('f', 1)")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function('f')")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function('f', function() end, 3)")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function()")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function(1)")),
        ("FUNCTION", "LOAD", lib("x", fn("f", "function() end", ["bad"]))),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function{function_name='f', "
                                      "callback=function() end, flags='no-writes'}")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function{function_name='f', "
                                      "callback=function() end, foo=1}")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function{callback=function() end}")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function{function_name='f'}")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function{function_name='f', callback=1}")),
        ("FUNCTION", "LOAD", lib("x", "redis.register_function{function_name='f', "
                                      "callback=function() end, description={}}")),
        ("FUNCTION", "LOAD", lib("x", "local v = redis.setresp")),
        ("FUNCTION", "LOAD", lib("x", "redis.log(redis.LOG_DEBUG, 'loading')\n"
                                      "local v = redis.REDIS_VERSION_NUM")),
        ("FUNCTION", "LOAD", "foo", "x"),
        ("FUNCTION", "LOAD", "replace"),
        ("FUNCTION", "LOAD"),
        ("FUNCTION", "LIST"),
    ])
    fdiff.assert_same()


def test_load_replace_delete_flush(fdiff):
    v1 = lib("mylib", "redis.register_function('f', function() return 1 end)")
    v2 = lib("mylib", "redis.register_function('f', function() return 2 end)")
    fdiff.run([
        ("FUNCTION", "LOAD", v1), ("FUNCTION", "LOAD", v2), ("FCALL", "f", "0"),
        ("FUNCTION", "LOAD", "REPLACE", v2), ("FCALL", "f", "0"),
        ("FUNCTION", "LOAD", "replace", lib("mylib", "return 1")), ("FCALL", "f", "0"),
        ("FUNCTION", "LOAD", lib("other", "redis.register_function('f', function() end)")),
        ("FUNCTION", "LIST"), ("FUNCTION", "LIST", "WITHCODE"),
        ("FUNCTION", "LIST", "LIBRARYNAME", "MY*"), ("FUNCTION", "LIST", "LIBRARYNAME", "z*"),
        ("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "mylib"),
        ("FUNCTION", "LIST", "LIBRARYNAME"), ("FUNCTION", "LIST", "foo"),
        ("FUNCTION", "LIST", "WITHCODE", "WITHCODE"),
        ("FUNCTION", "STATS"),
        ("FUNCTION", "DELETE", "nope"), ("FUNCTION", "DELETE", "mylib"), ("FCALL", "f", "0"),
        ("FUNCTION", "DELETE"), ("FUNCTION", "LOAD", v1),
        ("FUNCTION", "FLUSH", "foo"), ("FUNCTION", "FLUSH", "SYNC", "x"),
        ("FUNCTION", "FLUSH", "ASYNC"), ("FUNCTION", "LIST"), ("FUNCTION", "STATS"),
        ("FUNCTION", "LOAD", v1), ("FUNCTION", "FLUSH"), ("FUNCTION", "STATS"),
        ("FUNCTION", "KILL"), ("FUNCTION", "HELP"), ("FUNCTION", "NOPE"),
        ("FUNCTION", "RESTORE", "junk"), ("FUNCTION", "RESTORE", "junk", "BAD"),
        ("FUNCTION", "RESTORE", "junk", "FLUSH", "x"),
    ])
    fdiff.assert_same()


def test_function_names_whatever_their_case(fdiff):
    """As Redis 7.0: FCALL finds a function whatever the case of its name, and a function
    whose name differs from another library's only in case is a clash (libraries go by their
    exact names)."""
    fdiff.run([
        ("FUNCTION", "LOAD", lib("a", "redis.register_function('f', function() return 'lower' end)")),
        ("FCALL", "F", "0"), ("FCALL_RO", "F", "0"), ("FCALL", "f", "0"),
        ("FUNCTION", "LOAD", lib("b", "redis.register_function('F', function() return 'upper' end)")),
        ("FUNCTION", "LOAD", "REPLACE",
         lib("a", "redis.register_function('F', function() return 'again' end)")),
        ("FCALL", "f", "0"), ("FUNCTION", "LIST"), ("FUNCTION", "DELETE", "A"),
        ("FUNCTION", "DELETE", "a"), ("FCALL", "F", "0"),
    ])
    fdiff.assert_same()


def test_one_random_generator_for_scripts_and_functions(fdiff):
    """As Redis: EVAL and FCALL draw from one math.random generator, and a seed set by either
    is the other's too."""
    code = ("redis.register_function('r', function() return math.random(1000000) end)\n"
            "redis.register_function('s', function(keys, args) math.randomseed(tonumber(args[1])) "
            "return 1 end)")
    fdiff.run([
        ("FUNCTION", "LOAD", "REPLACE", lib("rnd", code)),
        ("EVAL", "math.randomseed(7) return math.random(1000000)", "0"),
        ("FCALL", "r", "0"), ("EVAL", "return math.random(1000000)", "0"),
        ("FCALL", "s", "0", "7"), ("EVAL", "return math.random(1000000)", "0"),
        ("FCALL", "r", "0"),
    ])
    fdiff.assert_same()


def test_fcall_and_errors(fdiff):
    code = lib("lib1",
               "redis.register_function('w', function(keys, args) "
               "return redis.call('set', keys[1], args[1]) end)\n"
               + fn("r", "function(keys, args) return redis.call('get', keys[1]) end",
                    ["no-writes"])
               + "redis.register_function('e', function(keys, args) local t = nil; "
               "return t.x end)\n"
               "redis.register_function('k', function(keys, args) return KEYS end)\n"
               "redis.register_function('err', function() return redis.error_reply('MY bad') "
               "end)\n"
               "redis.register_function('raise', function() error('boom') end)\n"
               "redis.register_function('echo', function(keys, args) return {keys, args} end)\n"
               "redis.register_function('pc', function() return redis.pcall('incr', 'w') end)\n"
               "redis.register_function('r3', function() redis.setresp(3) "
               "return {redis.call('hgetall', 'h'), redis.call('get', 'none')} end)\n"
               "redis.register_function('t', function() return {true, false, 1.5, {ok='st'}} "
               "end)\n"
               "redis.register_function('reg', function() redis.register_function('z', "
               "function() end) end)\n"
               + fn("rw", "function() return redis.call('set', 'a', 1) end", ["no-writes"])
               + fn("oom", "function() return 'ok' end", ["allow-oom", "allow-stale",
                                                          "no-cluster", "allow-cross-slot-keys"]))
    fdiff.run([
        ("FUNCTION", "LOAD", code), ("HSET", "h", "a", "1"),
        ("FCALL", "w", "1", "a", "5"), ("FCALL_RO", "r", "1", "a"), ("FCALL", "r", "1", "a"),
        ("FCALL_RO", "w", "1", "a", "5"), ("FCALL", "e", "0"), ("FCALL", "k", "0"),
        ("FCALL", "err", "0"), ("FCALL", "raise", "0"), ("FCALL", "echo", "2", "a", "b", "c"),
        ("FCALL", "echo", "0"), ("SET", "w", "x"), ("FCALL", "pc", "0"), ("FCALL", "r3", "0"),
        ("FCALL", "t", "0"), ("FCALL", "reg", "0"), ("FCALL", "rw", "0"), ("FCALL_RO", "rw", "0"),
        ("FCALL", "oom", "0"), ("FCALL_RO", "oom", "0"),
        ("FCALL", "nope", "0"), ("FCALL", "w", "-1"), ("FCALL", "w", "5", "a"),
        ("FCALL", "w", "x"), ("FCALL", "nope", "x"), ("FCALL",), ("FCALL", "w"),
        ("EVAL", "return redis.call('fcall', 'w', 0)", "0"),
        ("EVAL", "return redis.call('function', 'list')", "0"),
        ("MULTI",), ("FCALL", "w", "1", "m", "1"), ("FCALL_RO", "r", "1", "m"), ("EXEC",),
    ])
    fdiff.assert_same()


def test_functions_lack_evals_debugging_api_as_redis(fdiff):
    """redis.breakpoint, redis.debug, redis.replicate_commands and the __redis__err__handler
    global are EVAL's: a function sees none of them, as in Redis (until session 48 it saw all
    four, so a function written against sluice could fail on Redis)."""
    names = ["redis.breakpoint", "redis.debug", "redis.replicate_commands", "__redis__err__handler"]
    code = lib("evalapi", "".join(
        f"redis.register_function('f{i}', function() return type({name}) end)\n"
        for i, name in enumerate(names)))
    fdiff.run([("FUNCTION", "LOAD", code)] +
              [("FCALL", f"f{i}", "0") for i in range(len(names))] +
              [("EVAL", f"return type({name})", "0") for name in names])
    fdiff.assert_same()


def test_restore_of_a_7_0_rc_library_as_redis(fdiff):
    """A FUNCTION DUMP from Redis 7.0-rc1/rc2 (opcode 246: name, engine, a description flag,
    the code) restores as Redis 7.0.15 restores it, with a header made of its name and engine;
    sluice refused it ("Pre-GA function format not supported", a later Redis's text)."""
    payload = bytes.fromhex(
        "f6066f6c646c6962034c5541003c72656469732e72656769737465725f66756e6374696f6e28276f6c646"
        "6272c2066756e6374696f6e28292072657475726e20276f6c642720656e64290a00241b811679cae871")
    fdiff.run([("FUNCTION", "RESTORE", payload), ("FCALL", "oldf", "0"),
               ("FUNCTION", "LIST", "WITHCODE"), ("FUNCTION", "RESTORE", payload)])
    fdiff.assert_same()


def test_gcra_limiter_library(fdiff):
    fdiff.check("FUNCTION", "LOAD", GCRA)
    now = 1_700_000_000_000
    steps = [0, 0, 0, 0, 0, 10, 100, 100, 250, 1000, 1000, 1001, 5000]
    for i, dt in enumerate(steps):
        cost = "2" if i == 7 else "1"
        fdiff.check("FCALL", "gcra", "1", "user:1", "3", "10", "1000", cost, str(now + dt))
        fdiff.check("FCALL_RO", "gcra_peek", "1", "user:1")
    fdiff.check("FCALL", "gcra", "1", "user:2", "0", "1", "1000", "5", str(now))
    fdiff.check("FCALL_RO", "gcra", "1", "user:2", "0", "1", "1000", "1", str(now))
    fdiff.assert_same()


def _listing(client):
    """FUNCTION LIST WITHCODE as {library: (engine, code, {function: (description, flags)})}."""
    out = {}
    for entry in client.call("FUNCTION", "LIST", "WITHCODE"):
        entry = dict(zip(entry[0::2], entry[1::2]))
        functions = {}
        for f in entry[b"functions"]:
            f = dict(zip(f[0::2], f[1::2]))
            functions[f[b"name"]] = (f[b"description"], sorted(f[b"flags"]))
        out[entry[b"library_name"]] = (entry[b"engine"], entry[b"library_code"], functions)
    return out


def test_several_libraries_and_dump_restore_across_servers(emptied_servers):
    """FUNCTION LIST of several libraries as Redis's but for their order; a DUMP of either
    server restores on the other (and RESTORE's policies and errors are Redis's)."""
    redis_server, sluiced = emptied_servers
    libs = [GCRA,
            lib("second", fn("b_two", "function() return 2 end", ["no-writes", "allow-oom"])
                + "redis.register_function{function_name='a_one', description='the first', "
                "callback=function() return 1 end}")]
    with RespClient(redis_server.port) as r, RespClient(sluiced.port) as s:
        for c in (r, s):
            assert c.call("FUNCTION", "FLUSH") == "OK"
            for code in libs:
                assert not isinstance(c.call("FUNCTION", "LOAD", code), Error)
        assert _listing(s) == _listing(r)
        assert s.call("FUNCTION", "STATS") == r.call("FUNCTION", "STATS")
        expected = _listing(r)
        redis_dump, sluice_dump = r.call("FUNCTION", "DUMP"), s.call("FUNCTION", "DUMP")
        for c, dump in ((r, sluice_dump), (s, redis_dump)):
            # Which library is named first follows the dump's order (Redis's is hash order).
            assert c.call("FUNCTION", "RESTORE", dump) in (
                "ERR Library limiter already exists", "ERR Library second already exists")
            assert c.call("FUNCTION", "RESTORE", dump, "REPLACE") == "OK"
            assert c.call("FUNCTION", "FLUSH") == "OK"
            assert c.call("FUNCTION", "RESTORE", dump) == "OK"
            assert _listing(c) == expected
            assert c.call("FCALL", "a_one", "0") == 1
            assert c.call("FUNCTION", "RESTORE", dump[:-1] + b"x") == (
                "ERR DUMP payload version or checksum are wrong")
            assert c.call("FUNCTION", "RESTORE", dump, "FLUSH") == "OK"
            assert c.call("FUNCTION", "FLUSH") == "OK"


def _calls(client):
    """INFO commandstats as {command: calls}."""
    return {name: value.split(",")[0] for name, value in
            servers.info_fields(client, "commandstats").items()}


def test_commandstats_and_slowlog_as_for_eval(fdiff):
    """FCALL counts as itself and each command it runs as that command, in INFO commandstats
    and in SLOWLOG, as EVAL's do."""
    code = lib("stats", "redis.register_function('w', function(keys, args) "
                        "redis.call('set', keys[1], args[1]) return redis.call('get', keys[1]) "
                        "end)")
    fdiff.check("FUNCTION", "LOAD", code)
    fdiff.check("CONFIG", "SET", "slowlog-log-slower-than", "0")
    try:
        fdiff.check("SLOWLOG", "RESET")
        fdiff.check("FCALL", "w", "1", "k", "v")
        fdiff.check("FCALL_RO", "w", "1", "k", "v")
        fdiff.check("CONFIG", "SET", "slowlog-log-slower-than", "10000")
        theirs, ours = (c.call("SLOWLOG", "GET", "10") for c in (fdiff.redis, fdiff.sluice))
        assert [entry[3] for entry in ours] == [entry[3] for entry in theirs]
        assert _calls(fdiff.sluice) == _calls(fdiff.redis)
    finally:
        fdiff.check("CONFIG", "SET", "slowlog-log-slower-than", "10000")
    fdiff.assert_same()


def _monitored(port, commands):
    """What a MONITOR connection shows while another client sends `commands`."""
    monitor = Monitor(port)
    with RespClient(port) as client:
        for cmd in commands:
            client.call_raw(*cmd)
        client.call_raw("ECHO", MONITOR_END)
        lines = monitor.lines_until(MONITOR_END)
    monitor.close()
    return [masked_monitor_line(line) for line in lines]


def test_monitor_shows_fcall_as_redis(redis_server, sluiced):
    """FCALL before the commands its function runs ("[0 lua]"), as EVAL."""
    code = lib("mon", "redis.register_function('w', function(keys, args) "
                      "redis.call('set', keys[1], args[1]) return redis.call('get', keys[1]) "
                      "end)\n"
               + fn("r", "function(keys) return redis.pcall('get', keys[1]) end", ["no-writes"]))
    commands = [("FUNCTION", "LOAD", code), ("FCALL", "w", "1", "k", "v"),
                ("FCALL_RO", "r", "1", "k"), ("FCALL_RO", "w", "1", "k", "v"),
                ("FCALL", "nope", "0"), ("FUNCTION", "LIST"), ("FUNCTION", "DELETE", "mon")]
    assert _monitored(sluiced.port, commands) == _monitored(redis_server.port, commands)


def test_command_info_as_redis(fdiff):
    """COMMAND INFO of FCALL and FCALL_RO as Redis's but for the `write` flag, which sluice
    gives FCALL as it gives EVAL (a reply whose batch cannot be logged becomes -MISCONF)."""
    for name in ("fcall", "fcall_ro"):
        [theirs] = fdiff.redis.call("COMMAND", "INFO", name)
        [ours] = fdiff.sluice.call("COMMAND", "INFO", name)
        assert ours[:2] == theirs[:2]
        assert ours[3:7] == theirs[3:7]
        assert sorted(f for f in ours[2] if f != "write") == sorted(theirs[2])
        assert fdiff.sluice.call("COMMAND", "GETKEYS", name, "f", "2", "a", "b", "c") == (
            fdiff.redis.call("COMMAND", "GETKEYS", name, "f", "2", "a", "b", "c"))
    # FUNCTION's subcommands: Redis's ACL categories; `write` where Redis has it.
    for sub in ("load", "delete", "flush", "restore", "list", "stats", "kill", "dump"):
        [theirs] = fdiff.redis.call("COMMAND", "INFO", f"function|{sub}")
        [ours] = fdiff.sluice.call("COMMAND", "INFO", f"function|{sub}")
        assert ours[:2] == theirs[:2]
        assert ours[6] == theirs[6], sub
        assert ("write" in ours[2]) == ("write" in theirs[2]), sub


def test_libraries_survive_restart_kill9_and_flushall(sluiced_factory):
    server = sluiced_factory()
    with server.client() as c:
        assert c.call("FUNCTION", "LOAD", GCRA) == b"limiter"
        assert c.call("FUNCTION", "LOAD", lib("gone", "redis.register_function('g', "
                                                      "function() return 1 end)")) == b"gone"
        assert c.call("FUNCTION", "DELETE", "gone") == "OK"
        assert c.call("FLUSHALL") == "OK"
        assert c.call("FLUSHDB") == "OK"
        assert [e[1] for e in c.call("FUNCTION", "LIST")] == [b"limiter"]
    server.restart()
    with server.client() as c:
        assert [e[1] for e in c.call("FUNCTION", "LIST")] == [b"limiter"]
        assert c.call("FCALL", "gcra", "1", "k", "3", "10", "1000", "1", "1000")[0] == 1
        assert c.call("FUNCTION", "LOAD", "REPLACE", GCRA.replace("gcra_peek", "peek")) == (
            b"limiter")
    server.stop("kill-9")  # acknowledged, so logged: a kill -9 loses nothing
    server.start()
    with server.client() as c:
        assert c.call("FCALL_RO", "peek", "1", "nothing") == b"fresh"
        assert c.call("FCALL_RO", "gcra_peek", "1", "nothing") == "ERR Function not found"
        assert c.call("FUNCTION", "FLUSH") == "OK"
    server.stop("kill-9")
    server.start()
    with server.client() as c:
        assert c.call("FUNCTION", "LIST") == []


def test_function_writes_refused_while_the_disk_fails(sluiced_factory, faulty_disk):
    """While RocksDB cannot write, FUNCTION LOAD / DELETE / FLUSH get -MISCONF and change
    nothing; FUNCTION LIST, FUNCTION STATS and a no-writes function keep working; a function's
    writes are refused one by one. Once the disk is back, FUNCTION LOAD works and is durable."""
    data_dir, env, set_fault = faulty_disk
    server = sluiced_factory(data_dir=data_dir, env=env, enable_debug_command="yes")
    with server.client() as c:
        clock = frozen(c)  # wait_for_pong moves it to the cron's next resume attempt
        assert c.call("FUNCTION", "LOAD", GCRA) == b"limiter"
        set_fault("EIO")
        assert c.call("SET", "refused", "x").startswith("MISCONF")
        other = lib("other", "redis.register_function('o', function() return 1 end)")
        for command in (("FUNCTION", "LOAD", other), ("FUNCTION", "DELETE", "limiter"),
                        ("FUNCTION", "FLUSH"), ("FUNCTION", "RESTORE", "x")):
            reply = c.call(*command)
            assert isinstance(reply, Error) and reply.startswith("MISCONF"), (command, reply)
        assert [e[1] for e in c.call("FUNCTION", "LIST")] == [b"limiter"]
        assert c.call("FUNCTION", "STATS")[1] is None
        assert c.call("FCALL_RO", "gcra_peek", "1", "k") == b"fresh"
        reply = c.call("FCALL", "gcra", "1", "k", "3", "10", "1000", "1", "1000")
        assert isinstance(reply, Error) and "MISCONF" in reply, reply
        set_fault(None)
        wait_for_pong(c, clock, "the disk recovered")
        assert c.call("FUNCTION", "LOAD", other) == b"other"
    server.kill()
    server.start()
    with server.client() as c:
        assert sorted(e[1] for e in c.call("FUNCTION", "LIST")) == [b"limiter", b"other"]


def test_a_library_that_no_longer_loads_stops_the_start(sluiced_factory):
    """A stored library that fails to load at start (here: past a lower lua-memory-limit)
    stops the daemon with an error naming it, rather than leaving its callers with "Function
    not found"; with the limit back it starts, library and all."""
    server = sluiced_factory()
    big = lib("big", "local t = {}\nfor i = 1, 20000 do t[i] = i .. 'x' end\n"
                     "redis.register_function('n', function() return #t end)")
    with server.client() as c:
        assert c.call("FUNCTION", "LOAD", big) == b"big"
    assert server.terminate() == 0
    server.directives["lua_memory_limit"] = "256kb"
    proc = subprocess.run(server._command(), capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert "stored function library 'big' does not load" in proc.stdout + proc.stderr
    server.directives.pop("lua_memory_limit")
    server.start()
    with server.client() as c:
        assert c.call("FCALL", "n", "0") == 20000


LOOP = lib("busy", "redis.register_function('spin', function() local i = 0 "
                   "while true do i = i + 1 end end)\n"
                   "redis.register_function('wspin', function() redis.call('set', 'w', 1) "
                   "while true do end end)")


def busy_function_transcript(port):
    """Runs away in a function on one connection; records what another connection gets."""
    runner, other = RespClient(port), RespClient(port)
    assert other.call("FUNCTION", "LOAD", "REPLACE", LOOP) == b"busy"
    runner.send(encode("FCALL", "spin", "0", "x"))
    seen = {"ping": wait_busy(other)}
    stats = other.call("FUNCTION", "STATS")
    seen["stats_running"] = stats[1][:4]  # name and command; not the duration
    for name, command in [("script_kill", ("SCRIPT", "KILL")), ("get", ("GET", "k")),
                          ("list", ("FUNCTION", "LIST")), ("kill", ("FUNCTION", "KILL"))]:
        seen[name] = other.call(*command)
    seen["runner"] = runner.read()
    seen["after"] = other.call("PING")
    seen["kill_again"] = other.call("FUNCTION", "KILL")
    runner.send(encode("EVAL", "while true do end", "0"))  # a busy script is not a function
    wait_busy(other)
    for name, command in [("function_kill_eval", ("FUNCTION", "KILL")),
                          ("stats_eval", ("FUNCTION", "STATS")),
                          ("script_kill_eval", ("SCRIPT", "KILL"))]:
        seen[name] = other.call(*command)
    seen["eval_runner"] = runner.read()
    runner.send(encode("FCALL", "wspin", "0"))
    wait_busy(other)
    seen["unkillable"] = other.call("FUNCTION", "KILL")
    runner.close()
    other.close()
    return seen


def shutdown_nosave(server):
    """Stops a server left busy in a function that wrote (SHUTDOWN NOSAVE works while busy)."""
    with RespClient(server.port) as c:
        c.send(encode("SHUTDOWN", "NOSAVE"))
        with pytest.raises(ConnectionClosed):
            c.read()
    return server.wait()


def test_function_kill(sluiced_factory, redis_factory):
    """FUNCTION KILL as Redis's on a busy function, then -UNKILLABLE once it wrote (both
    servers are left busy and stopped with SHUTDOWN NOSAVE)."""
    redis = redis_factory("--lua-time-limit", "100")
    sluiced = sluiced_factory(lua_time_limit=100)
    expected = busy_function_transcript(redis.port)
    got = busy_function_transcript(sluiced.port)
    assert got == expected
    assert got["kill"] == "OK"
    assert got["unkillable"].startswith("UNKILLABLE")
    shutdown_nosave(redis)
    assert shutdown_nosave(sluiced) == 0, sluiced.stderr()


def test_redis_py_client(sluiced):
    redis = pytest.importorskip("redis")
    r = redis.Redis(host="127.0.0.1", port=sluiced.port, socket_timeout=30)
    assert r.function_load(GCRA) == b"limiter"
    assert r.function_load(GCRA, replace=True) == b"limiter"
    assert r.fcall("gcra", 1, "u", 1, 2, 1000, 1, 5000) == [1, 1, -1, 500]
    assert r.fcall_ro("gcra_peek", 1, "u") == b"5500"
    [entry] = r.function_list(library="lim*")
    assert entry[1] == b"limiter"
    payload = r.function_dump()
    assert r.function_flush() in (True, "OK", b"OK")
    assert r.function_restore(payload) in (True, "OK", b"OK")
    assert r.fcall_ro("gcra_peek", 1, "nobody") == b"fresh"
    r.close()
