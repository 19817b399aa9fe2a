"""Pub/sub against Redis 7.0, byte for byte in RESP2 and RESP3: (P)SUBSCRIBE and
(P)UNSUBSCRIBE replies, messages and pattern messages reaching idle subscribers, a script's
PUBLISH, RESP2's subscribed mode (only pub/sub commands, PING as a push), PUBSUB's answers,
RESET and a closed connection leaving their channels. Then what a Redis client library does
with it (python3-redis's PubSub), and a subscriber that never reads: closed at the
client-output-buffer-limit, without harming the publisher."""

import socket
import threading
import time

import pytest
import redis

import servers

SUBSCRIBER_SESSION = [
    # (connection, command): "sub" subscribes, "pub" publishes; every reply and message
    # (pushes included) that "sub" then has is compared.
    ("sub", ("UNSUBSCRIBE",)),
    ("sub", ("PUNSUBSCRIBE",)),
    ("sub", ("SUBSCRIBE", "ch1", "ch2", "ch1")),
    ("sub", ("GET", "x")),
    ("sub", ("PING",)),
    ("sub", ("PING", "hi")),
    ("sub", ("PSUBSCRIBE", "c*", "n?ws")),
    ("pub", ("PUBLISH", "ch1", "hello")),
    ("pub", ("PUBLISH", "news", "")),
    ("pub", ("EVAL", "return redis.call('publish', KEYS[1], ARGV[1])", "1", "ch2", "scripted")),
    ("pub", ("PUBLISH", "nobody", "x")),
    ("pub", ("PUBSUB", "CHANNELS", "ch1*")),
    ("pub", ("PUBSUB", "NUMSUB", "ch1", "ch2", "nope")),
    ("pub", ("PUBSUB", "NUMSUB")),
    ("pub", ("PUBSUB", "NUMPAT")),
    ("pub", ("PUBSUB", "SHARDCHANNELS")),
    ("pub", ("PUBSUB", "SHARDNUMSUB", "ch1")),
    ("pub", ("PUBSUB", "CHANNELS", "a", "b")),
    ("pub", ("PUBSUB", "FOO")),
    ("pub", ("PUBSUB", "HELP")),
    ("pub", ("SUBSCRIBE",)),
    ("pub", ("PUBLISH", "x")),
    ("pub", ("EVAL", "return redis.call('subscribe', 'x')", "0")),
    ("sub", ("UNSUBSCRIBE", "ch1", "never")),
    ("pub", ("PUBLISH", "ch1", "gone")),
    ("sub", ("PUNSUBSCRIBE", "n?ws")),
    # One name left of each kind: without names, Redis leaves them in its dict's order.
    ("sub", ("UNSUBSCRIBE",)),
    ("sub", ("PUNSUBSCRIBE",)),
    ("sub", ("GET", "x")),
]


def _session(port, protocol):
    """What the "sub" connection receives, reply by reply, and the "pub" connection's replies."""
    with servers.RespClient(port) as sub, servers.RespClient(port) as pub:
        if protocol == 3:
            sub.call("HELLO", "3")
        seen = []
        for who, cmd in SUBSCRIBER_SESSION:
            conn = sub if who == "sub" else pub
            conn.send(servers.encode(*cmd))
            replies = 1
            if cmd[0] in ("SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE") and \
                    who == "sub":
                replies = max(1, len(cmd) - 1)
            seen.extend((who, " ".join(cmd), conn.read_raw()) for _ in range(replies))
            if cmd[0] in ("PUBLISH", "EVAL") and who == "pub":
                delivered = seen[-1][2]
                count = int(delivered[1:-2]) if delivered.startswith(b":") else 0
                seen.extend(("sub", "message", sub.read_raw()) for _ in range(count))
        return seen


@pytest.mark.parametrize("protocol", [2, 3], ids=["resp2", "resp3"])
def test_pubsub_as_redis(sluiced, redis_server, protocol):
    ours = _session(sluiced.port, protocol)
    theirs = _session(redis_server.port, protocol)
    differing = [(o, t) for o, t in zip(ours, theirs) if o != t]
    assert len(ours) == len(theirs) and not differing, differing
    received = [raw for who, _, raw in ours if who == "sub"]
    push = b">" if protocol == 3 else b"*"
    assert push + b"3\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$5\r\nhello\r\n" in received
    assert push + b"4\r\n$8\r\npmessage\r\n$4\r\nn?ws\r\n$4\r\nnews\r\n$0\r\n\r\n" in received
    assert push + b"3\r\n$7\r\nmessage\r\n$3\r\nch2\r\n$8\r\nscripted\r\n" in received


def _raw_replies(port, steps):
    """Each step is (connection name, command, replies to read): the raw bytes read, in order.
    The "r3" connection speaks RESP3. A step without a command only reads what has arrived;
    PUBSUB SHARDCHANNELS (a dict's order) is read sorted."""
    with servers.RespClient(port) as c2, servers.RespClient(port) as r3, \
            servers.RespClient(port) as other:
        r3.call("HELLO", "3")
        conns = {"c2": c2, "r3": r3, "other": other}
        seen = []
        for name, cmd, replies in steps:
            if cmd == ("PUBSUB", "SHARDCHANNELS"):
                seen.append((name, cmd, sorted(conns[name].call(*cmd))))
                continue
            if cmd is not None:
                conns[name].send(servers.encode(*cmd))
            seen.extend((name, cmd, conns[name].read_raw()) for _ in range(replies))
        return seen


def test_order_transactions_and_resp3_replies_as_redis(sluiced, redis_server):
    steps = [
        # A RESP3 subscriber publishing to itself: the message comes before PUBLISH's reply.
        ("r3", ("SUBSCRIBE", "me"), 1),
        ("r3", ("PUBLISH", "me", "hi"), 2),
        ("r3", ("EVAL", "return redis.call('publish', 'me', 'lua')", "0"), 2),
        # PUBLISH may replicate: refused in read-only scripts, nothing published.
        ("r3", ("EVAL_RO", "return redis.call('publish', 'me', 'ro')", "0"), 1),
        ("r3", ("EVAL", "#!lua flags=no-writes\nreturn redis.call('publish', 'me', 'nw')", "0"),
         1),
        ("r3", ("PUBSUB", "NUMSUB", "me", "none"), 1),  # a flat array in RESP3 too
        ("r3", ("PUBSUB", "CHANNELS", ""), 1),  # an empty pattern matches no name
        # Subscribed mode is checked as commands are queued, not when EXEC runs them.
        ("c2", ("MULTI",), 1),
        ("c2", ("SUBSCRIBE", "a"), 1),
        ("c2", ("GET", "x"), 1),
        ("c2", ("PING",), 1),
        ("c2", ("EXEC",), 1),
        ("c2", ("GET", "x"), 1),
        # CLIENT KILL of the subscribers: a PUBLISH right after it reaches nobody.
        ("other", ("CLIENT", "KILL", "TYPE", "pubsub"), 1),
        ("other", ("PUBLISH", "me", "gone"), 1),
        ("other", ("PUBSUB", "NUMSUB", "me", "a"), 1),
    ]
    ours, theirs = _raw_replies(sluiced.port, steps), _raw_replies(redis_server.port, steps)
    assert ours == theirs
    assert ours[1][2] == b">3\r\n$7\r\nmessage\r\n$2\r\nme\r\n$2\r\nhi\r\n"
    assert ours[2][2] == b":1\r\n"


def test_shard_channels_as_redis(sluiced, redis_server):
    """SSUBSCRIBE, SUNSUBSCRIBE and SPUBLISH: a namespace of their own (PUBLISH and patterns
    never reach a shard channel), their own count in the replies, RESP2's subscribed mode,
    PUBSUB SHARDCHANNELS/SHARDNUMSUB, COMMAND INFO's not_key spec, refusals."""
    steps = [
        ("c2", ("SUNSUBSCRIBE",), 1),  # nothing to leave: a null name, count 0
        ("c2", ("SSUBSCRIBE", "orders", "audit", "orders"), 3),
        ("c2", ("GET", "x"), 1),  # subscribed mode, by shard channels alone
        ("c2", ("PING",), 1),
        ("c2", ("SUBSCRIBE", "orders"), 1),  # counts channels and patterns only
        ("c2", ("PSUBSCRIBE", "*"), 1),
        ("other", ("SPUBLISH", "orders", "s1"), 1),
        ("c2", None, 1),  # the smessage, not the pmessage: patterns never see shard channels
        ("other", ("PUBLISH", "orders", "p1"), 1),
        ("c2", None, 2),  # the message and the pmessage, no smessage
        ("other", ("SPUBLISH", "nobody", "x"), 1),
        ("other", ("EVAL", "return redis.call('spublish', 'audit', 'lua')", "0"), 1),
        ("c2", None, 1),
        ("other", ("EVAL_RO", "return redis.call('spublish', 'audit', 'ro')", "0"), 1),
        ("other", ("PUBSUB", "SHARDCHANNELS"), 1),
        ("other", ("PUBSUB", "SHARDCHANNELS", "ord*"), 1),
        ("other", ("PUBSUB", "SHARDNUMSUB", "orders", "audit", "none"), 1),
        ("other", ("PUBSUB", "NUMSUB", "orders", "audit"), 1),
        ("other", ("PUBSUB", "CHANNELS"), 1),
        ("other", ("SPUBLISH", "a"), 1),
        ("other", ("SSUBSCRIBE",), 1),
        ("other", ("COMMAND", "INFO", "SPUBLISH", "SSUBSCRIBE", "SUNSUBSCRIBE"), 1),
        ("other", ("COMMAND", "GETKEYS", "SPUBLISH", "a", "b"), 1),
        ("other", ("MULTI",), 1),
        ("other", ("SSUBSCRIBE", "in-exec"), 1),
        ("other", ("EXEC",), 1),
        ("other", ("PUBSUB", "SHARDNUMSUB", "in-exec"), 1),
        ("c2", ("SUNSUBSCRIBE", "audit", "never"), 2),
        ("c2", ("UNSUBSCRIBE",), 1),
        ("c2", ("PUNSUBSCRIBE",), 1),
        ("c2", ("GET", "x"), 1),  # still subscribed: one shard channel left
        ("c2", ("SUNSUBSCRIBE",), 1),
        ("c2", ("GET", "x"), 1),  # out of subscribed mode
        # RESP3: a client publishing to its own shard channel gets the smessage first.
        ("r3", ("SSUBSCRIBE", "me"), 1),
        ("r3", ("SPUBLISH", "me", "hi"), 2),
        ("r3", ("GET", "x"), 1),
        ("r3", ("SUNSUBSCRIBE", "me"), 1),
        ("other", ("SSUBSCRIBE", "kept"), 1),
        ("other", ("RESET",), 1),
        ("r3", ("PUBSUB", "SHARDNUMSUB", "kept", "me"), 1),
    ]
    ours = _raw_replies(sluiced.port, steps)
    theirs = _raw_replies(redis_server.port, steps)
    assert ours == theirs
    received = [raw for _, _, raw in ours]
    assert b"*3\r\n$8\r\nsmessage\r\n$6\r\norders\r\n$2\r\ns1\r\n" in received
    assert b">3\r\n$8\r\nsmessage\r\n$2\r\nme\r\n$2\r\nhi\r\n" in received
    assert [b"audit", b"orders"] in received


def test_client_list_type_pubsub(sluiced):
    with sluiced.client() as c, sluiced.client() as sub:
        sub_id = sub.call("CLIENT", "ID")
        sub.call("PSUBSCRIBE", "*")
        listed = c.call("CLIENT", "LIST", "TYPE", "pubsub").decode()
        assert [line.split()[0] for line in listed.splitlines()] == [f"id={sub_id}"]
        assert f"id={sub_id} " not in c.call("CLIENT", "LIST", "TYPE", "normal").decode()
    with sluiced.client() as c, sluiced.client() as sub:
        sub.call("HELLO", "3")  # RESP3 may run MULTI while subscribed: both letters show
        sub_id = sub.call("CLIENT", "ID")
        sub.call("SUBSCRIBE", "x")
        assert sub.call("MULTI") == "OK"
        assert " flags=Px " in c.call("CLIENT", "LIST", "ID", sub_id).decode()


def test_a_subscriber_under_a_steady_stream_still_gets_its_commands_run(sluiced):
    """Messages keep coming while the subscriber asks for something: its PING is answered
    while the stream goes on, not after it."""
    stop = threading.Event()

    def publish_until_stopped():
        with sluiced.client() as publisher:
            deadline = time.monotonic() + 30
            while not stop.is_set() and time.monotonic() < deadline:
                publisher.call("PUBLISH", "stream", "x" * 4096)

    with sluiced.client() as sub:
        sub.call("HELLO", "3")
        sub.call("SUBSCRIBE", "stream")
        publisher = threading.Thread(target=publish_until_stopped)
        publisher.start()
        try:
            assert sub.read()[0] == b"message"  # the stream has started
            sub.send(servers.encode("PING"))
            while (reply := sub.read()) != "PONG":
                assert isinstance(reply, servers.Push), reply
            assert publisher.is_alive(), "PING was answered only once the stream ended"
        finally:
            stop.set()
            publisher.join()


def test_leaving_connections_and_reset_unsubscribe(sluiced):
    with sluiced.client() as c, sluiced.client() as sub, sluiced.client() as other:
        assert sub.call("SUBSCRIBE", "a", "b")  # first reply; the second follows
        sub.read()
        other.call("PSUBSCRIBE", "a*")
        assert c.call("PUBSUB", "NUMSUB", "a", "b") == [b"a", 1, b"b", 1]
        assert c.call("PUBSUB", "NUMPAT") == 1
        info = servers.info_fields(c, "stats")
        assert (info["pubsub_channels"], info["pubsub_patterns"]) == ("2", "1")
        clients = c.call("CLIENT", "LIST").decode()
        assert " flags=P db=0 sub=2 psub=0 " in clients and " sub=0 psub=1 " in clients
        assert other.call("RESET") == "RESET"
        assert c.call("PUBSUB", "NUMPAT") == 0
        assert c.call("PUBLISH", "a", "m") == 1
        sub.close()
        servers.wait_for(lambda: c.call("PUBSUB", "NUMSUB", "a")[1] == 0,
                         "the closed subscriber to leave its channels")
        assert c.call("PUBLISH", "a", "m") == 0
        assert c.call("PUBSUB", "CHANNELS") == []


def test_python_redis_pubsub(sluiced):
    r = redis.Redis(port=sluiced.port, decode_responses=True)
    pubsub = r.pubsub()
    pubsub.subscribe("limits")
    pubsub.psubscribe("limits.*")
    for expected in ("subscribe", "psubscribe"):
        assert pubsub.get_message(timeout=10)["type"] == expected
    assert r.publish("limits", "reload") == 1
    assert r.publish("limits.api", "42") == 1
    first, second = pubsub.get_message(timeout=10), pubsub.get_message(timeout=10)
    assert (first["type"], first["channel"], first["data"]) == ("message", "limits", "reload")
    assert (second["type"], second["pattern"], second["channel"], second["data"]) == (
        "pmessage", "limits.*", "limits.api", "42")
    pubsub.close()


def test_a_subscriber_that_never_reads_is_closed_at_the_output_limit(sluiced_factory):
    server = sluiced_factory(client_output_buffer_limit="pubsub 1mb 0 0")
    with server.client() as c, server.client() as stalled:
        stalled.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.call("SUBSCRIBE", "firehose")
        payload = "x" * 65536
        delivered = [c.call("PUBLISH", "firehose", payload) for _ in range(200)]  # 13 MB
        # Closed once a megabyte waits for it: later messages reach nobody. (Reading what the
        # kernel still holds for it through a 4 KB window would take minutes; it is not read.)
        assert delivered[0] == 1 and delivered[-1] == 0, delivered
        assert c.call("PUBSUB", "NUMSUB", "firehose") == [b"firehose", 0]
        assert c.call("SET", "k", "still fine") == "OK"


@pytest.mark.parametrize("protocol", [2, 3], ids=["resp2", "resp3"])
def test_punsubscribe_without_names_leaves_in_subscription_order_as_redis(sluiced, redis_server,
                                                                          protocol):
    """Redis 7.0 keeps a client's patterns in a list: PUNSUBSCRIBE alone leaves them in the
    order they were subscribed (channels, in a dict, have no such order)."""
    patterns = ["p5", "a*", "z?", "p1", "m[ab]", "b*"]
    replies = {}
    for server in (sluiced, redis_server):
        with servers.RespClient(server.port) as c:
            if protocol == 3:
                c.call("HELLO", "3")
            c.send(servers.encode("PSUBSCRIBE", *patterns))
            for _ in patterns:
                c.read_raw()
            c.send(servers.encode("PUNSUBSCRIBE", "z?"))
            c.read_raw()
            c.send(servers.encode("PUNSUBSCRIBE"))
            replies[server] = [c.read_raw() for _ in range(len(patterns) - 1)]
    assert replies[sluiced] == replies[redis_server]


@pytest.mark.parametrize("protocol", [2, 3], ids=["resp2", "resp3"])
def test_subscription_confirmations_are_sent_while_replies_are_off_as_redis(sluiced, redis_server,
                                                                            protocol):
    """CLIENT REPLY OFF and SKIP drop replies, but Redis 7.0 still sends every (un)subscribe
    confirmation (as a push): a client that subscribed with replies off knows it did."""
    steps = [("CLIENT", "REPLY", "OFF"), ("SUBSCRIBE", "a", "b"), ("PSUBSCRIBE", "p*"),
             ("UNSUBSCRIBE", "a"), ("PUNSUBSCRIBE", "p*"), ("CLIENT", "REPLY", "ON"),
             ("CLIENT", "REPLY", "SKIP"), ("SUBSCRIBE", "c"), ("UNSUBSCRIBE", "b"), ("PING",)]
    received = {}
    for server in (sluiced, redis_server):
        with servers.RespClient(server.port) as c:
            if protocol == 3:
                c.call("HELLO", "3")
            c.send(b"".join(servers.encode(*step) for step in steps))
            # RESP2's subscribed mode refused CLIENT REPLY ON (the error dropped, replies stayed
            # off): leaving the last channel ends that mode, then a PING tells where it all ends.
            c.send(servers.encode("UNSUBSCRIBE") + servers.encode("CLIENT", "REPLY", "ON") +
                   servers.encode("PING", "end"))
            seen = []
            while not seen or b"end" not in seen[-1]:
                seen.append(c.read_raw())
            received[server] = seen
    assert received[sluiced] == received[redis_server]
    assert len(received[sluiced]) >= 6


def test_a_slow_subscriber_gets_the_whole_burst_without_asking(sluiced):
    """Messages published while a subscriber's earlier ones were still being written go out
    after them on their own: the tail of a burst never waits for the subscriber's next command
    or the next message (28 of 70 arrived, the rest only after a PING)."""
    with sluiced.client() as publisher, sluiced.client() as slow:
        slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
        slow.call("SUBSCRIBE", "burst")
        payloads = [b"%03d" % i + b"x" * 100_000 for i in range(70)]
        publisher.send(b"".join(servers.encode("PUBLISH", "burst", p) for p in payloads))
        assert [publisher.read() for _ in payloads] == [1] * len(payloads)
        assert [slow.read()[2] for _ in payloads] == payloads  # no command sent meanwhile


def test_a_subscriber_that_stops_sending_during_a_burst_gets_everything(sluiced):
    """A subscriber that does not read during a burst of messages, sends PINGs and then closes
    its sending side: it still gets every message, then its PINGs' replies, then EOF (Redis
    drops them all at the EOF; sluice sends what it owes). A first version of session 48's
    reading during writes broke this (38 messages, no PING reply): a regression test."""
    sub = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sub.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    sub.settimeout(servers.IO_TIMEOUT_S)
    sub.connect(("127.0.0.1", sluiced.port))
    try:
        sub.sendall(servers.encode("SUBSCRIBE", "ch"))
        confirmation = b"*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
        got = b""
        while len(got) < len(confirmation):
            got += sub.recv(100)
        assert got == confirmation
        with sluiced.client() as publisher:
            for _ in range(100):
                assert publisher.call("PUBLISH", "ch", b"m" * 100_000) == 1
        sub.sendall(servers.encode("PING") * 10)
        sub.shutdown(socket.SHUT_WR)
        received = bytearray()
        while True:
            data = sub.recv(1 << 20)
            if not data:
                break
            received.extend(data)
        assert received.count(b"$7\r\nmessage\r\n") == 100
        assert received.endswith(b"*2\r\n$4\r\npong\r\n$0\r\n\r\n" * 10)
    finally:
        sub.close()
