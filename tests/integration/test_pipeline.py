"""Pipelining: every reply correct and in order, whatever the depth and however the bytes are
split; inline and multibulk commands mixed in one send."""

import random
import threading

import redis

import servers


def test_redis_py_pipeline_10000_commands(sluiced):
    rng = random.Random(7)
    client = redis.Redis(host="127.0.0.1", port=sluiced.port, socket_timeout=60)
    model = {}
    expected = []
    pipe = client.pipeline(transaction=False)
    for i in range(10000):
        key = f"p{rng.randrange(50)}"
        op = rng.randrange(4)
        if op == 0:
            value = str(rng.randrange(-1000, 1000))
            pipe.set(key, value)
            model[key] = value
            expected.append(True)
        elif op == 1:
            pipe.incr(key)
            model[key] = str(int(model.get(key, "0")) + 1)
            expected.append(int(model[key]))
        elif op == 2:
            step = rng.randrange(-50, 50)
            pipe.incrby(key, step)
            model[key] = str(int(model.get(key, "0")) + step)
            expected.append(int(model[key]))
        else:
            pipe.get(key)
            expected.append(model[key].encode() if key in model else None)
    replies = pipe.execute()
    assert len(replies) == len(expected)
    for i, (got, want) in enumerate(zip(replies, expected)):
        assert got == want, f"reply {i}: got {got!r}, expected {want!r}"
    assert client.mget(sorted(model)) == [model[k].encode() for k in sorted(model)]
    client.close()


def test_raw_pipeline_inline_and_multibulk_in_one_send(sluiced):
    data = (b"PING\r\n"
            + servers.encode("SET", "a", "1")
            + b"INCR a\r\n"
            + servers.encode("GET", "a")
            + b'ECHO "hi there"\r\n'
            + servers.encode("INCRBY", "a", "40")
            + b"GET a\r\n"
            + servers.encode("DEL", "a")
            + b"EXISTS a\r\n")
    expected = (b"+PONG\r\n+OK\r\n:2\r\n$1\r\n2\r\n$8\r\nhi there\r\n:42\r\n$2\r\n42\r\n"
                b":1\r\n:0\r\n")
    with sluiced.client() as c:
        c.send(data)
        got = b"".join(c.read_raw() for _ in range(9))
        assert got == expected


def test_raw_pipeline_split_at_every_byte(sluiced):
    """The same pipeline sent one byte per send, then in random chunks."""
    commands = [servers.encode("SET", "s", "v" * 10), b"GET s\r\n",
                servers.encode("APPEND", "s", "w"), b"STRLEN s\r\n", servers.encode("INCR", "n")]
    data = b"".join(commands)
    with sluiced.client() as c:
        c.send(data)
        expected = [c.read_raw() for _ in commands]
        assert c.call("DEL", "s", "n") == 2
        for b in data:
            c.send(bytes([b]))
        assert [c.read_raw() for _ in commands] == expected
        rng = random.Random(3)
        for _ in range(50):
            assert c.call("DEL", "s", "n") == 2
            pos = 0
            while pos < len(data):
                step = rng.randrange(1, 12)
                c.send(data[pos:pos + step])
                pos += step
            assert [c.read_raw() for _ in commands] == expected


def test_deep_pipeline_with_large_replies(sluiced):
    """30,000 GETs of a 1 KB value (30 MB of replies) written before reading anything: the
    server must neither drop nor reorder replies (it may slow the writer down, section 7)."""
    value = b"x" * 1024
    n = 30000
    with sluiced.client() as c:
        assert c.call("SET", "big", value) == "OK"
        batch = b"".join(servers.encode("GET", "big") for _ in range(1000))
        errors = []

        def writer():
            try:
                for i in range(n // 1000):
                    c.send(batch)
                c.send(servers.encode("ECHO", "done"))
            except OSError as e:  # reported by the reader's assertion below
                errors.append(e)

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            for i in range(n):
                got = c.read()
                assert got == value, f"reply {i}: {got[:50]!r}"
            assert c.read() == b"done"
        finally:
            thread.join(timeout=120)
        assert not errors
        assert not thread.is_alive()


def test_a_client_that_sends_its_whole_pipeline_before_reading(sluiced):
    """redis-py writes a whole pipeline before it reads a reply. Past 1 MB of unsent replies the
    session runs nothing more until the client reads (section 7), but it still takes what the
    client sends, so the client can finish writing and then read. Until session 48 it stopped
    reading too: the client waited in its send and the server in its write, for good (a
    redis-py pipeline of a million SETs hung)."""
    value = b"v" * 100_000
    with sluiced.client() as c:
        assert c.call("SET", "big", value) == "OK"
        # 60 MB of replies first, then 64 MB of requests: either more than the sockets' buffers
        # hold (Linux grows them to tcp_rmem's and tcp_wmem's maximum, 6 and 4 MB by default).
        pipeline = [("GET", "big")] * 600 + [("SET", "k", b"x" * (1 << 20))] * 64
        c.sock.sendall(b"".join(servers.encode(*cmd) for cmd in pipeline))  # hung here
        replies = [c.read() for _ in pipeline]
        assert replies == [value] * 600 + ["OK"] * 64


def test_pipeline_same_bytes_as_redis(sluiced, redis_server):
    rng = random.Random(11)
    cmds = []
    for _ in range(2000):
        key = f"k{rng.randrange(5)}"
        cmds.append(rng.choice([
            ("SET", key, rng.randrange(100)), ("INCR", key), ("GET", key), ("DEL", key),
            ("APPEND", key, "x"), ("MGET", key, "k0"), ("EXISTS", key, "k1"), ("STRLEN", key),
            ("NOSUCH", key), ("GET",)]))
    data = b"".join(servers.encode(*c) for c in cmds)
    replies = []
    for server in (redis_server, sluiced):
        with server.client() as c:
            c.send(data)
            replies.append([c.read_raw() for _ in cmds])
    for cmd, r, s in zip(cmds, *replies):
        assert s == r, f"{cmd}: redis {r!r}, sluiced {s!r}"


def test_client_reply_off_and_skip_same_bytes_as_redis(sluiced, redis_server):
    """CLIENT REPLY OFF drops every reply (errors and QUEUED included) until ON, SKIP drops the
    next command's, RESET turns replies back on, as Redis does: one pipeline to each server,
    then an ECHO marks the end of what each sent."""
    cmds = [("CLIENT", "REPLY", "OFF"), ("SET", "a", "1"), ("GET", "a"), ("NOSUCH",),
            ("MULTI",), ("INCR", "a"), ("EXEC",), ("CLIENT", "REPLY", "SKIP"),
            ("CLIENT", "REPLY", "ON"), ("GET", "a"), ("CLIENT", "REPLY", "SKIP"), ("SET", "b", "2"),
            ("GET", "b"), ("CLIENT", "REPLY", "SKIP"), ("NOSUCH",), ("GET", "a"),
            ("CLIENT", "REPLY", "MAYBE"), ("CLIENT", "REPLY", "OFF"), ("GET", "b"), ("RESET",),
            ("GET", "b"), ("CLIENT", "REPLY", "SKIP"), ("CLIENT", "REPLY", "ON"),
            ("ECHO", "end")]
    data = b"".join(servers.encode(*c) for c in cmds)
    streams = []
    for server in (redis_server, sluiced):
        with server.client() as c:
            c.send(data)
            got = []
            while (reply := c.read_raw()) != b"$3\r\nend\r\n":
                got.append(reply)
            streams.append(got)
    assert streams[1] == streams[0]
    assert streams[0] == [b"+OK\r\n", b"$1\r\n2\r\n", b"$1\r\n2\r\n",
                          b"$1\r\n2\r\n", b"-ERR syntax error\r\n", b"+RESET\r\n",
                          b"$1\r\n2\r\n", b"+OK\r\n"]
