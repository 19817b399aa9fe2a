"""A clean shutdown leaves nothing behind: sluiced (built with ASan, leak detection on) is
exercised across its features, with clients still connected, pipelining, blocked in BLOCK or
inside MULTI, and a BGSAVE running; then SIGTERM, SIGINT or SHUTDOWN must exit 0 with no
sanitizer report (a leak makes LeakSanitizer change the exit code and print a report)."""

import os
import signal

import pytest

import servers

SANITIZER_MARKERS = ("LeakSanitizer", "ERROR: AddressSanitizer", "runtime error:")


def exercise(server):
    """Touches every family of commands and leaves work in flight. Returns open clients."""
    with server.client() as c:
        assert c.call("SET", "s", "v", "EX", "100") == "OK"
        assert c.call("INCRBYFLOAT", "f", "1.5") == b"1.5"
        assert c.call("HSET", "h", "a", "1", "b", "2") == 2
        assert c.call("ZADD", "z", "1", "m", "2", "n") == 2
        assert c.call("RPUSH", "l", "x", "y", "z") == 3
        assert c.call("RL.POLICY", "SET", "api", "TOKENBUCKET", 10, 1, 1000) == "OK"
        assert c.call("RL.TAKE", "u", "api")[0] == 1
        assert c.call("RL.SLIDINGLOG", "log", 100, 60000)[0] == 1
        assert c.call("CL.THROTTLE", "t", 5, 10, 60)[0] == 0
        assert c.call("RL.SMOOTH", "sm", 10) == 0
        assert c.call("EVAL", "return redis.call('INCR', KEYS[1])", "1", "e") == 1
        assert c.call("EVAL", "return cjson.encode(cmsgpack.unpack(cmsgpack.pack({1,2})))",
                      "0") == b"[1,2]"
        assert isinstance(c.call("SCAN", "0", "COUNT", "2"), list)
        assert c.call("KEYS", "*")
        assert c.call("BGSAVE") == "Background saving started"
        assert c.call("INFO").startswith(b"# Server")
    open_clients = []
    blocked = server.client()  # waits in BLOCK: gets its refused reply at shutdown
    assert blocked.call("RL.FIXEDWINDOW", "b", 1, 600000)[0] == 1
    blocked.send(servers.encode("RL.FIXEDWINDOW", "b", 1, 600000, "BLOCK", 0))
    open_clients.append(blocked)
    in_multi = server.client()
    assert in_multi.call("WATCH", "s") == "OK"
    assert in_multi.call("MULTI") == "OK"
    assert in_multi.call("SET", "s", "w") == "QUEUED"
    open_clients.append(in_multi)
    resp3 = server.client()
    assert isinstance(resp3.call("HELLO", "3"), servers.Map)
    assert resp3.call("CLIENT", "SETNAME", "resp3") == "OK"
    open_clients.append(resp3)
    piper = server.client()  # a pipeline still being answered when the signal comes
    piper.send(b"".join(servers.encode("INCR", "p") for _ in range(20000)))
    open_clients.append(piper)
    half = server.client()  # half a request in its buffer
    half.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc")
    open_clients.append(half)
    return open_clients


def check_clean(server, code):
    log = server.stderr()
    assert code == 0, f"exit code {code}; stderr:\n{log}"
    for marker in SANITIZER_MARKERS:
        assert marker not in log, f"{marker} in stderr:\n{log}"


@pytest.mark.parametrize("how", ["sigterm", "sigint", "shutdown"])
def test_clean_exit_without_leaks(sluiced_factory, how):
    if "detect_leaks=0" in os.environ.get("ASAN_OPTIONS", ""):
        pytest.skip("ASAN_OPTIONS turns leak detection off")
    server = sluiced_factory(enable_debug_command="yes")
    clients = exercise(server)
    try:
        if how == "shutdown":
            code = server.shutdown()
        else:
            code = server.terminate(signal.SIGTERM if how == "sigterm" else signal.SIGINT)
    finally:
        for c in clients:
            c.close()
    check_clean(server, code)
    # And it starts again on the same dir with everything acknowledged.
    server.start()
    with server.client() as c:
        assert c.call("HGET", "h", "b") == b"2"
        assert c.call("LRANGE", "l", "0", "-1") == [b"x", b"y", b"z"]
        assert c.call("GET", "e") == b"1"
    check_clean(server, server.terminate())
