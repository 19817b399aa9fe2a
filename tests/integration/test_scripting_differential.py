"""EVAL and friends: the same scripts with the same arguments sent to redis-server 7.0 and
sluiced, every reply compared to the byte, in RESP2 and after HELLO 3. Covers Redis's
documented Lua <-> RESP conversions, its error texts, the sandbox, the Lua libraries and the
SCRIPT subcommands.

Left out on purpose: what Redis itself gets wrong (error({}) crashes 7.0.15), and what differs
by design (redis.REDIS_VERSION, addresses in tostring(table)).
"""

import servers
from differential import Differ


def ev(body, *keys_then_args, numkeys=None):
    """EVAL body numkeys args...; numkeys defaults to 0 (every further value is an ARGV)."""
    n = 0 if numkeys is None else numkeys
    return ("EVAL", body, str(n), *keys_then_args)


def test_lua_to_reply_conversion(diff):
    diff.run([
        ev("return 42"), ev("return 3.99"), ev("return -3.99"), ev("return 1e300"),
        ev("return 0/0"), ev("return 'ciao'"), ev("return ''"), ev("return true"),
        ev("return false"), ev("return nil"), ev("return"), ev("return function() end"),
        ev("return {1, 2, 3, 'ciao', {1, 2}}"), ev("return {1, 2, nil, 4}"), ev("return {a = 1}"),
        ev("return {1, false, 3}"), ev("return {1, function() end, 3}"),
        ev("return {ok = 'fine'}"), ev("return {err = 'ERR x'}"), ev("return {err = 'MY x y'}"),
        ev("return {err = ''}"), ev("return {err = 'x\\r\\ny'}"), ev("return {ok = 'a\\r\\nb'}"),
        ev("return {ok = 1}"), ev("return {err = 1}"), ev("return {err = 'e', ok = 'o'}"),
        ev("return {double = 1.5}"), ev("return {double = 0.1}"), ev("return {double = 1/0}"),
        ev("return {map = {a = 1}}"), ev("return {set = {a = true}}"),
        ev("return {verbatim_string = {format = 'txt', string = 'hi'}}"),
        ev("return {{ok = 'nested'}, {err = 'ERR nested'}}"),
        ev("redis.setresp(3) return true"), ev("redis.setresp(3) return false"),
        ev("redis.setresp(3) return {true, false}"), ev("redis.setresp(2) return {true, false}"),
    ])
    diff.assert_same()


def test_big_number_in_resp2(redis_server, sluiced):
    """A big number is a bulk string in RESP2, its CR and LF turned into spaces as Redis turns
    them (RESP3 sends it as a bulk string too: docs/notes.md)."""
    d = Differ(redis_server.port, sluiced.port)
    d.run([ev("return {big_number = '123'}"), ev("return {big_number = '12\\r\\n3'}")])
    d.assert_same()
    d.close()


def test_reply_to_lua_conversion(diff):
    diff.run([
        ("DEL", "s", "n", "h", "z", "l"), ("SET", "s", "v"), ("SET", "n", "10"),
        ("HSET", "h", "a", "1", "b", "2"), ("ZADD", "z", "1.5", "m"), ("RPUSH", "l", "x", "y"),
        ev("local r = redis.call('get', 's') return {type(r), r}"),
        ev("local r = redis.call('incr', 'n') return {type(r), r}"),
        ev("return tostring(redis.call('get', 'missing'))"),
        ev("return redis.call('get', 'missing')"),
        ev("local r = redis.call('set', 's', 'w') return {type(r), r.ok}"),
        ev("return redis.call('set', 's', 'w')"),
        ev("return redis.call('ping')"),
        ev("return redis.call('lrange', 'l', 0, -1)"),
        ev("return #redis.call('hgetall', 'h')"),
        ev("return redis.call('zscore', 'z', 'm')"),
        ev("return type(redis.call('zscore', 'z', 'm'))"),
        ev("return redis.call('exists', 's', 'missing', 'n')"),
        ev("local r = redis.pcall('incr', 's') return {type(r), r.err}"),
        ev("return redis.pcall('incr', 's')"),
        ev("return redis.pcall('hget', 's', 'x')"),
        # RESP3 inside the script: maps, doubles, nulls and booleans keep their types.
        ev("redis.setresp(3) local r = redis.call('hgetall', 'h') return {r.map.a, r.map.b}"),
        ev("redis.setresp(3) return redis.call('hgetall', 'h')"),
        ev("redis.setresp(3) local r = redis.call('zscore', 'z', 'm') "
           "return {type(r), r.double * 2}"),
        ev("redis.setresp(3) return redis.call('zscore', 'z', 'm')"),
        ev("redis.setresp(3) return tostring(redis.call('get', 'missing'))"),
        ev("redis.setresp(3) return redis.call('get', 'missing')"),
        ev("redis.setresp(3) return redis.call('zscore', 'z', 'nobody')"),
    ])
    diff.assert_same()


def test_numbers_passed_to_commands(diff):
    diff.run([
        ev("redis.call('set', 'k', 3) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', 0.1) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', 1e20) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', -17.25) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', 2^53) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', 1/0) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', -0.0) return redis.call('get', 'k')"),
        ev("redis.call('set', 'k', 1/3) return redis.call('get', 'k')"),
        ev("return redis.call('incrbyfloat', 'f', 1.5)"),
        ev("return redis.call('incrby', 'i', 2.0)"),
        ev("return redis.pcall('incrby', 'i', 2.5)"),
        ev("return redis.call('expire', 'k', 100)"), ("TTL", "k"),
    ])
    diff.assert_same()


def test_keys_argv_and_numkeys(diff):
    diff.run([
        ev("return KEYS", "a", "b", "c", numkeys=2), ev("return ARGV", "a", "b", "c", numkeys=2),
        ev("return {#KEYS, #ARGV}", "a", "b", numkeys=0),
        ev("KEYS[1] = 'x' return KEYS", "a", numkeys=1), ev("return #KEYS"),
        ev("return 1", "a", numkeys=5), ev("return 1", numkeys=-1), ("EVAL", "return 1", "x"),
        ("EVAL", "return 1", "1.5"), ("EVAL", "return 1", " 1"), ("EVAL", "return 1"),
        ("EVAL",), ("EVAL", "return KEYS[1]", "1", b"bin\x00ary"),
    ])
    diff.assert_same()


def test_error_texts(diff):
    diff.run([
        ev("return redis.call('nosuch')"), ev("return redis.call('get')"),
        ev("return redis.call('get', 'a', 'b')"), ev("return redis.call('client', 'list')"),
        ev("return redis.call('eval', 'return 1', 0)"), ev("return redis.call('multi')"),
        ev("return redis.call('watch', 'x')"), ev("return redis.call('script', 'flush')"),
        ev("return redis.pcall('nosuch')"), ev("return redis.call()"),
        ev("return redis.call({})"), ev("return redis.call('set', 'a', {})"),
        ev("return redis.call('set', 'a', nil)"), ev("return redis.pcall('set', 'a', true)"),
        ev("redis.call('set', 's', 'x') return redis.call('incr', 's')"),
        ev("error('boom')"), ev("error('boom', 0)"), ev("error({err = 'MY boom'})"),
        ev("error({err = 5})"), ev("error()"), ev("error(true)"), ev("error(123)"),
        ev("error('a\\r\\nb')"), ev("\n\nerror('line 3')"), ev("local a = 1\nreturn a.b.c"),
        ev("local function f() redis.call('nosuch') end\nlocal x = 1\nf()"),
        ev("return 1 +"), ev("return 'unfinished"), ev("return redis.error_reply('x')"),
        ev("return redis.error_reply('MY x')"), ev("return redis.error_reply('-x')"),
        ev("return redis.error_reply('--x')"), ev("return redis.error_reply('x\\r\\ny')"),
        ev("return redis.error_reply('')"), ev("return redis.error_reply(1)"),
        ev("return redis.error_reply()"), ev("return redis.status_reply('FINE')"),
        ev("return redis.status_reply('x\\r\\ny')"), ev("return redis.status_reply()"),
        ev("return {err = 'x\\n'}"), ev("return {err = 'x\\r\\n'}"), ev("return {err = '\\nx'}"),
        ev("return {err = 'ERR a\\nb\\n'}"), ev("return {err = '\\n'}"),
        ev("return {1, {err = 'in\\r\\n'}}"), ev("return {ok = 'a\\nb\\n'}"),
        ev("error(redis.error_reply('MY x'))"),
        ev("local t = redis.error_reply('MY x') return {t.err, type(t)}"),
        ev("local t = redis.status_reply('MY x') return {t.ok, type(t)}"),
        ev("return pcall(function() error('x') end)"),
        ev("local ok, e = pcall(function() error('x') end) return e"),
        ev("local ok, e = pcall(function() error({a = 1}) end) return type(e)"),
        ev("local ok, e = pcall(function() redis.call('nosuch') end) "
           "return type(e) .. tostring(e)"),
        ev("local ok, e = pcall(redis.call, 'nosuch') return {type(e), tostring(ok)}"),
        ev("local a, b = xpcall(function() error('x') end, "
           "function(e) return 'h:' .. e end) return b"),
        ev("return pcall()"), ev("return select('#', pcall(error))"),
        # A container's subcommand is looked up with the command: unknown or of the wrong
        # arity, it fails before the command's no-script flag is looked at.
        ev("return redis.pcall('client', 'foo')"), ev("return redis.pcall('client', 'id', 'x')"),
        ev("return redis.pcall('config', 'nosuch')"), ev("return redis.pcall('command', 'x')"),
        ev("return redis.pcall('script', 'exists')"),
    ])
    diff.assert_same()


def test_redis_api(diff):
    diff.run([
        ev("return redis.sha1hex('')"), ev("return redis.sha1hex('abc')"),
        ev("return redis.sha1hex()"),
        ev("return redis.sha1hex(1)"), ev("return redis.setresp(4)"), ev("return redis.setresp()"),
        ev("return redis.breakpoint()"), ev("return redis.debug('x')"),
        ev("return redis.replicate_commands()"), ev("return redis.set_repl(redis.REPL_ALL)"),
        ev("return redis.set_repl(99)"), ev("return redis.set_repl()"),
        ev("return redis.log(redis.LOG_WARNING, 'from a test', 1)"),
        ev("return redis.log(99, 'x')"),
        ev("return redis.log('a', 'x')"), ev("return redis.log(1)"),
        ev("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, "
           "redis.REPL_ALL, redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, "
           "redis.LOG_WARNING}"),
        ev("return redis.acl_check_cmd('get', 'k')"), ev("return redis.acl_check_cmd('nosuch')"),
        ev("return redis.acl_check_cmd()"),
        ev("return {math.random(1000000), math.random(1000000), math.random(5, 10)}"),
        ev("math.randomseed(7) return {math.random(1000000), tostring(math.random()), "
           "math.random(5, 10)}"),
        ev("return math.random(0)"), ev("return math.random(3, 1)"),
        ev("return type(redis.call('time')[1])"),
    ])
    diff.assert_same()


def test_sandbox(diff):
    forbidden = ["os", "io", "loadfile", "dofile", "require", "debug", "print", "module",
                 "package", "getfenv", "setfenv", "newproxy", "__redis__compare_helper"]
    diff.run([ev(f"return {name}") for name in forbidden])
    diff.run([
        ev("x = 1"), ev("_G.x = 1"), ev("KEYS = 1"), ev("redis = nil"), ev("string.rep = nil"),
        ev("redis.call = nil"), ev("cjson.encode = nil"), ev("math.random = nil"),
        ev("getmetatable('').__index = {}"), ev("getmetatable('').__index.upper = nil"),
        ev("local t = getmetatable(_G) t.__index = nil"), ev("rawset(_G, 'x', 1)"),
        ev("setmetatable(_G, nil)"), ev("setmetatable(string, {})"), ev("table.insert(string, 1)"),
        ev("rawset(string, 'rep', 1)"), ev("return rawget(string, 'rep') ~= nil"),
        ev("return #string"), ev("local n = 0 for k, v in pairs(string) do n = n + 1 end return n"),
        ev("local n = 0 for k, v in pairs(math) do n = n + 1 end return n"),
        ev("return getmetatable('').__index == string"), ev("return _G == _G._G"),
        ev("return type(getmetatable(_G).__index)"), ev("return tostring(getmetatable(string))"),
        ev("local t = {} for k in pairs(_G) do t[#t + 1] = k end table.sort(t) return t"),
        ev("return loadstring(string.dump(function() return 1 end))"),
        ev("local f, e = loadstring(string.dump(function() return 1 end)) return e"),
        ev("local f, e = loadstring(string.dump(function() return 1 end), 'named') return e"),
        ev("local s = string.dump(function() return 1 end) local done = false "
           "local f, e = load(function() if done then return nil end done = true return s end) "
           "return {tostring(f), e}"),
        ev("return load('return 1')"), ev("return loadstring('return 5')()"),
        ev("return loadstring('x = 1')()"), ev("return loadstring('return os')()"),
        ("EVAL", b"\x1bLuaQ\x00\x01\x04\x08", "0"),
        ev("local co = coroutine.create(function() error('in co') end) "
           "return {coroutine.resume(co)}"),
        ev("return coroutine.running()"), ev("return _VERSION"),
        ev("return string.rep('x', -1)"), ev("return string.rep()"),
        ev("return string.format('%d', 3.7)"), ev("return tonumber('0x10')"),
        ev("return collectgarbage('count') > 0"), ev("return collectgarbage()"),
        ev("return type(collectgarbage('step'))"), ev("return collectgarbage('bogus')"),
        ev("return collectgarbage({})"), ev("return collectgarbage('setpause', 'x')"),
        ev("return {collectgarbage('setpause', 150), collectgarbage('setpause', 200)}"),
        ev("return {collectgarbage('stop'), collectgarbage('restart')}"),
        ("PING",),
    ])
    diff.assert_same()


def test_struct(diff):
    diff.run([
        ev("return struct.pack('>iI2b', -5, 65535, -1)"),
        ev("return {struct.unpack('>iI2b', struct.pack('>iI2b', -5, 65535, -1))}"),
        ev("return struct.pack('<I2 >I2', 258, 258)"), ev("return struct.pack('!4 b i', 1, 2)"),
        ev("return {struct.unpack('bc0', struct.pack('bc0', 3, 'abc'))}"),
        ev("return struct.pack('Bc0I', 4, 'abcd', 77)"),
        ev("return {struct.unpack('Bc0I', struct.pack('Bc0I', 4, 'abcd', 77))}"),
        ev("return {struct.unpack('s', struct.pack('s', 'hi'))}"),
        ev("return struct.pack('>d', 1.5)"), ev("return struct.pack('<f', 0.5)"),
        ev("return {struct.unpack('>d', struct.pack('>d', -2.25))}"),
        ev("return struct.size('!4 b i')"), ev("return struct.size('>i8 I3 c10')"),
        ev("return struct.size('s')"), ev("return struct.size('c0')"),
        ev("return struct.pack('i99999999999', 1)"), ev("return struct.pack('i33', 1)"),
        ev("return struct.pack('!3 i', 1)"), ev("return struct.pack('q', 1)"),
        ev("return struct.unpack('i', 'ab')"), ev("return struct.unpack('c2147483647', 'ab')"),
        ev("return struct.unpack('i', 'abcd', 0)"), ev("return struct.unpack('c0', 'abcd')"),
        ev("return struct.unpack('BB', 'ab', -1)"), ev("return struct.unpack('B', 'ab', -5)"),
        ev("return {struct.unpack('', 'ab', -3)}"),
        ev("return struct.unpack('bc0', struct.pack('b', 100))"),
        ev("return struct.unpack('s', 'abc')"), ev("return struct.pack('c10', 'abc')"),
        ev("return struct.pack('i', 'x')"), ev("return struct.pack()"),
        ev("return {struct.unpack('>i', struct.pack('>i', 7) .. 'xx', 1)}"),
        ev("return #struct.pack('i32', -1)"),
    ])
    diff.assert_same()


def test_cmsgpack(diff):
    diff.run([
        ev("return cmsgpack.pack({1, 'two', {a = 3}, true, 1.5})"),
        ev("return cmsgpack.pack(1, 'a', false, nil)"),
        ev("return cmsgpack.pack(0, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296)"),
        ev("return cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648, "
           "-2147483649)"),
        ev("return cmsgpack.pack(1.5, 0.1, 2^63, -2^63, 1e300, 1/0, -1/0)"),
        ev("return cmsgpack.pack(string.rep('x', 31), string.rep('y', 32), string.rep('z', 300))"),
        ev("return #cmsgpack.pack(string.rep('x', 70000))"),
        ev("local t = {} t[1] = t return cmsgpack.pack(t)"),
        ev("return cmsgpack.pack({[1] = 'a', [3] = 'c'})"),
        ev("local t = cmsgpack.unpack(cmsgpack.pack({1, 'two', {a = 3}, true, 1.5})) "
           "return {t[1], t[2], t[3].a, tostring(t[4]), t[5] * 2}"),
        ev("return {cmsgpack.unpack(cmsgpack.pack(1, 2, 3))}"),
        ev("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}"),
        ev("return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 1)}"),
        ev("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}"),
        ev("return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2, 1)}"),
        ev("return cmsgpack.unpack('\\217\\3abc')"), ev("return cmsgpack.unpack('\\196\\3abc')"),
        ev("return cmsgpack.unpack('\\146\\1')"),
        ev("return cmsgpack.unpack('\\221\\255\\255\\255\\255')"),
        ev("return cmsgpack.unpack('\\193')"), ev("return cmsgpack.unpack_one('\\1', 5)"),
        ev("return cmsgpack.pack()"), ev("return cmsgpack.unpack('')"),
        ev("return {cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255')}"),
        ev("return cmsgpack.unpack(cmsgpack.pack({a = {b = {c = 'deep'}}})).a.b.c"),
    ])
    diff.assert_same()


def test_cjson_and_bit(diff):
    diff.run([
        ev("return cjson.encode({1, 2, 'x'})"), ev("return cjson.encode({a = {b = true}})"),
        ev("return cjson.encode({1.5, 0.1, 1e20, -3})"), ev("return cjson.encode('a\"b\\\\c\\n')"),
        ev("local t = cjson.decode('{\"a\":[1,2,{\"b\":null}]}') "
           "return {t.a[1], t.a[2], tostring(t.a[3].b == cjson.null)}"),
        ev("return cjson.decode('[1, 2.5, \"x\", true]')[2] * 2"),
        ev("return cjson.decode('{')"),
        ev("return cjson.decode(string.rep('[', 1001) .. string.rep(']', 1001))"),
        ev("return type(cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000)))"),
        ev("local t = {} t[1] = t return cjson.encode(t)"),
        ev("return cjson.encode(function() end)"),
        ev("return {bit.tobit(0xffffffff), bit.tobit(2^32 + 1), bit.bnot(0), "
           "bit.band(0xff, 0x0f, 0x3), bit.bor(1, 2, 4), bit.bxor(3, 1), bit.lshift(1, 33), "
           "bit.rshift(-1, 28), "
           "bit.arshift(-16, 2), bit.rol(0x80000000, 1), bit.ror(1, 1), bit.bswap(0x01020304)}"),
        ev("return {bit.tohex(255), bit.tohex(255, 2), bit.tohex(255, -4), bit.tohex(-1, 100)}"),
        ev("return bit.band('x')"), ev("return bit.tobit(1.5)"), ev("return bit.tobit(2.5)"),
    ])
    diff.assert_same()


def test_script_commands(diff):
    body = "return 'cached'"
    diff.run([
        ("SCRIPT", "FLUSH"), ("SCRIPT", "LOAD", body), ("SCRIPT", "LOAD", body),
        ("SCRIPT", "EXISTS", "ad43de5f7e8dc4d8a2a5e7cdfa2a5ee53d3c4b5a", "x"),
        ("EVALSHA", "4f8a8a3b9c5b1a0c6e2b4d7a1e0f3c2b5a6d7e8f", "0"),
        ("SCRIPT", "LOAD", "return 1 +"), ("SCRIPT", "LOAD"), ("SCRIPT", "EXISTS"),
        ("SCRIPT", "FLUSH", "foo"), ("SCRIPT", "FLUSH", "ASYNC", "x"), ("SCRIPT", "KILL"),
        ("SCRIPT", "foo"), ("SCRIPT", "HELP"), ("SCRIPT",),
        ("EVALSHA", "abc", "0"), ("EVALSHA", "abc", "x"),
        ("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "x"),
        ("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
        ("EVAL", body, "0"), ("SCRIPT", "EXISTS", "0e1e5b2ec49e20c9ea5a4e3bcc3b8b3b0e1b1c1d"),
        ("SCRIPT", "FLUSH", "SYNC"), ("SCRIPT", "FLUSH", "async"),
    ])
    # The SHA of the body, in both letter cases, after EVAL cached it.
    sha = diff.check("SCRIPT", "LOAD", body)
    diff.run([
        ("SCRIPT", "EXISTS", sha, sha.upper(), "nosuch"), ("EVALSHA", sha, "0"),
        ("EVALSHA", sha.upper(), "0"), ("EVALSHA_RO", sha, "0"), ("SCRIPT", "FLUSH"),
        ("EVALSHA", sha, "0"), ("SCRIPT", "EXISTS", sha),
    ])
    diff.assert_same()


def test_read_only_scripts_and_shebang(diff):
    diff.run([
        ("EVAL_RO", "return redis.call('set', 'a', 1)", "0"),
        ("EVAL_RO", "return redis.call('get', 'a')", "0"),
        ("EVAL_RO", "return redis.pcall('incr', 'a')", "0"),
        ("EVAL_RO", "#!lua\nreturn redis.call('get', 'a')", "0"),
        ("EVAL_RO", "#!lua flags=no-writes\nreturn redis.call('get', 'a')", "0"),
        ev("#!lua flags=no-writes\nreturn redis.call('set', 'a', 1)"),
        ev("#!lua\nreturn redis.call('set', 'a', 1)"), ev("#!lua\nreturn 1"), ev("#!lua"),
        ev("#!luax\nreturn 1"), ev("#!lua flags=bogus\nreturn 1"), ev("#!lua name=x\nreturn 1"),
        ev("#!lua flags=no-writes,\nreturn 1"), ev("#!lua flags=\nreturn 1"),
        ev("#!lua   flags=no-writes,allow-oom  \nreturn 1"), ev("#! lua\nreturn 1"),
        ev("#!lua flags=allow-cross-slot-keys,no-cluster,allow-stale\nreturn 1"),
        ev("#!lua flags=no-writes\nerror('line two')"),
        ("EVALSHA_RO", "ffffffffffffffffffffffffffffffffffffffff", "0"),
    ])
    diff.assert_same()


def test_scripts_in_transactions(diff):
    diff.run([
        ("DEL", "c"), ("MULTI",), ev("return redis.call('incr', 'c')"),
        ev("return redis.call('incr', 'c')"), ("EXEC",),
        ("MULTI",), ev("return redis.call('nosuch')"), ("EVAL", "return 1", "x"), ("EXEC",),
        ("MULTI",), ("EVAL",), ("EXEC",), ("GET", "c"),
    ])
    diff.assert_same()


def test_script_debug_refused_in_a_pipeline_as_redis(diff):
    """SCRIPT DEBUG refuses to run while replies wait to be sent (behind a pipelined command, or
    inside EXEC), before it reads its mode, as Redis 7.0; alone, NO is accepted."""
    cases = [
        [("PING",), ("SCRIPT", "DEBUG", "NO"), ("SCRIPT", "DEBUG", "foo")],
        [("MULTI",), ("SCRIPT", "DEBUG", "NO"), ("EXEC",)],
        [("SCRIPT", "DEBUG", "NO")],
        [("SCRIPT", "DEBUG", "foo")],
    ]
    seen = []
    for pipeline in cases:
        raw = {}
        for name, conn in (("redis", diff.redis), ("sluice", diff.sluice)):
            conn.send(b"".join(servers.encode(*cmd) for cmd in pipeline))
            raw[name] = [conn.read_raw() for _ in pipeline]
        assert raw["sluice"] == raw["redis"], pipeline
        seen.append(raw["sluice"])
    assert seen[0][1] == b"-ERR SCRIPT DEBUG must be called outside a pipeline\r\n"


def test_eval_meant_for_a_refused_debugger_is_not_run(sluiced):
    """sluice has no debugger: SCRIPT DEBUG YES|SYNC is refused, and so is the EVAL it was meant
    for (Redis would debug that one). EVALSHA gets Redis's refusal and leaves the request
    standing; the EVAL after the refused one runs, and SCRIPT DEBUG NO or RESET drop it."""
    conn = servers.RespClient(sluiced.port)
    incr = ("EVAL", "return redis.call('incr', KEYS[1])", "1", "ctr")
    not_run = b"-ERR sluice has no Lua debugger (SCRIPT DEBUG): the script was not run\r\n"
    for mode in ("YES", "sync"):
        conn.send(servers.encode("SCRIPT", "DEBUG", mode))
        assert conn.read_raw() == b"-ERR SCRIPT DEBUG is not supported by sluice\r\n"
        conn.send(servers.encode("EVALSHA", "a" * 40, "0"))
        assert conn.read_raw() == b"-ERR Please use EVAL instead of EVALSHA for debugging\r\n"
        conn.send(servers.encode(*incr))
        assert conn.read_raw() == not_run
    conn.send(servers.encode(*incr))
    assert conn.read_raw() == b":1\r\n"  # the two refused ones never ran
    for undo in (("SCRIPT", "DEBUG", "NO"), ("RESET",)):
        for cmd in (("SCRIPT", "DEBUG", "YES"), undo):  # one by one: not behind a reply
            conn.send(servers.encode(*cmd))
            conn.read_raw()
        conn.send(servers.encode(*incr))
        assert conn.read_raw() == b":%d\r\n" % (2 if undo[0] == "SCRIPT" else 3)
    conn.close()
