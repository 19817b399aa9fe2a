"""Malformed requests: Redis's exact `-ERR Protocol error: ...` reply, the connection closed,
every other client unaffected. Each case is also sent to redis-server and the bytes compared.
The cases that change no configuration share one pair of servers (conftest's emptied_servers),
which so also shows that each error leaves the server fit for the next case."""

import pytest

import servers

# (name, bytes sent, what Redis 7.0 answers before closing)
MALFORMED = [
    # Redis tests/unit/protocol.tcl names in comments, to read the two side by side.
    # "Non-number multibulk payload length"
    ("bulk_length_not_a_number", b"*1\r\n$abc\r\n",
     b"-ERR Protocol error: invalid bulk length\r\n"),
    # "Negative multibulk payload length"
    ("negative_bulk_length", b"*1\r\n$-5\r\n", b"-ERR Protocol error: invalid bulk length\r\n"),
    # "Out of range multibulk payload length"
    ("bulk_length_over_proto_max_bulk_len", b"*1\r\n$600000000\r\n",
     b"-ERR Protocol error: invalid bulk length\r\n"),
    # Lengths the parser's fast path leaves to its general one.
    ("bulk_length_with_leading_zero", b"*1\r\n$01\r\n",
     b"-ERR Protocol error: invalid bulk length\r\n"),
    ("bulk_length_of_19_digits", b"*1\r\n$1234567890123456789\r\n",
     b"-ERR Protocol error: invalid bulk length\r\n"),
    ("multibulk_length_with_leading_zero", b"*01\r\n",
     b"-ERR Protocol error: invalid multibulk length\r\n"),
    # "Wrong multibulk payload header"
    ("expected_dollar", b"*2\r\n+x\r\n", b"-ERR Protocol error: expected '$', got '+'\r\n"),
    ("expected_dollar_got_colon", b"*1\r\n:1\r\n",
     b"-ERR Protocol error: expected '$', got ':'\r\n"),
    ("multibulk_length_not_a_number", b"*abc\r\n",
     b"-ERR Protocol error: invalid multibulk length\r\n"),
    # "Out of range multibulk length"
    ("multibulk_length_too_big", b"*3000000000\r\n",
     b"-ERR Protocol error: invalid multibulk length\r\n"),
    # "Unbalanced number of quotes in inline protocol"
    ("unbalanced_double_quotes", b'SET "a b\r\n',
     b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    ("unbalanced_single_quotes", b"SET 'a\r\n",
     b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    ("single_quotes_backslash_before_closing_quote", b"ECHO 'a\\nb\\\\'\r\n",
     b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    ("closing_quote_not_followed_by_space", b'SET "a"b\r\n',
     b"-ERR Protocol error: unbalanced quotes in request\r\n"),
    ("commands_before_the_error_are_answered", b"PING\r\n*1\r\n$4\r\nPING\r\n*2\r\n+x\r\n",
     b"+PONG\r\n+PONG\r\n-ERR Protocol error: expected '$', got '+'\r\n"),
    ("commands_after_the_error_are_not_run", b"*1\r\n$x\r\nSET after 1\r\n",
     b"-ERR Protocol error: invalid bulk length\r\n"),
    ("multibulk_header_over_64k", b"*" + b"1" * 70000,
     b"-ERR Protocol error: too big mbulk count string\r\n"),
    ("bulk_header_over_64k", b"*1\r\n$" + b"1" * 70000,
     b"-ERR Protocol error: too big bulk count string\r\n"),
    ("inline_over_64k", b"PING" + b" " * 70000,
     b"-ERR Protocol error: too big inline request\r\n"),
]


def _send_and_read_until_closed(port, data):
    with servers.RespClient(port) as c:
        c.send(data)
        return c.read_until_closed()


@pytest.mark.parametrize("data,expected", [m[1:] for m in MALFORMED],
                         ids=[m[0] for m in MALFORMED])
def test_malformed_request_closes_only_that_connection(emptied_servers, data, expected):
    _, sluiced = emptied_servers
    with sluiced.client() as bystander:
        assert bystander.call("SET", "before", "1") == "OK"
        got = _send_and_read_until_closed(sluiced.port, data)
        assert got == expected
        # The other client, connected before, keeps working; nothing after the error ran.
        assert bystander.call("GET", "before") == b"1"
        assert bystander.call("EXISTS", "after") == 0
        assert bystander.call("PING") == "PONG"
    # And the server still accepts new clients.
    with sluiced.client() as c:
        assert c.call("PING") == "PONG"


@pytest.mark.parametrize("data", [m[1] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_request_same_bytes_as_redis(emptied_servers, data):
    redis_server, sluiced = emptied_servers
    assert _send_and_read_until_closed(sluiced.port, data) == \
        _send_and_read_until_closed(redis_server.port, data)


# Valid but unusual framing: replies must match Redis's and the connection stays open.
ODD_BUT_VALID = [
    ("empty_inline_lines_are_ignored", b"\r\n\r\nPING\r\n"),  # "Handle an empty query"
    ("inline_with_bare_lf", b"PING\nECHO hi\n"),
    ("null_multibulk_is_ignored", b"*-1\r\nPING\r\n"),  # "Negative multibulk length"
    ("empty_multibulk_is_ignored", b"*0\r\nPING\r\n"),
    ("inline_quotes_and_escapes", b'ECHO "a\\x41\\n\\"b" \'c d\'\r\nECHO "x y"\r\n'),
    ("inline_single_quote_escape", b"ECHO 'a\\'b'\r\n"),
    ("inline_escapes_in_double_quotes", b'ECHO "\\t\\r\\b\\a\\xZZ\\x4a"\r\n'),
    ("empty_command_name", b"*1\r\n$0\r\n\r\n"),
    ("inline_and_multibulk_mixed", b"SET a 1\r\n*2\r\n$4\r\nINCR\r\n$1\r\na\r\nGET a\r\n"),
    ("inline_extra_spaces", b"   SET    sp    v   \r\nGET sp\r\n"),
    # The dispatcher remembers the last name it looked up: cases and near misses in a row.
    ("command_names_in_any_case", b"".join(servers.encode(*args) for args in [
        ("SET", "a", "1"), ("set", "a", "2"), ("SeT", "a", "3"), ("SETT", "a", "4"), ("SET", "a"),
        ("GET", "a"), ("get", "a"), ("gett", "a"), ("GET", "a", "b"), ("gEt", "a"), ("GET", "a")])),
]


@pytest.mark.parametrize("data", [m[1] for m in ODD_BUT_VALID], ids=[m[0] for m in ODD_BUT_VALID])
def test_unusual_framing_same_as_redis(emptied_servers, data):
    redis_server, sluiced = emptied_servers
    replies = []
    for server in (redis_server, sluiced):
        with server.client() as c:
            c.send(data + b"*2\r\n$4\r\nECHO\r\n$3\r\nend\r\n")
            got = []
            while True:
                value, raw = c.read_reply_raw()
                got.append(raw)
                if value == b"end":
                    break
            replies.append(got)
    assert replies[1] == replies[0]


def test_protocol_error_with_many_clients_connected(emptied_servers):
    """Twenty clients mid-pipeline; one sends garbage; the others' replies are untouched."""
    _, sluiced = emptied_servers
    clients = [sluiced.client() for _ in range(20)]
    try:
        for i, c in enumerate(clients):
            c.send(servers.encode("SET", f"k{i}", i) + servers.encode("INCR", f"k{i}"))
        assert _send_and_read_until_closed(sluiced.port, b"*2\r\n$3\r\nGET\r\n:1\r\n") == \
            b"-ERR Protocol error: expected '$', got ':'\r\n"
        for i, c in enumerate(clients):
            assert c.read() == "OK"
            assert c.read() == i + 1
            assert c.call("GET", f"k{i}") == str(i + 1).encode()
    finally:
        for c in clients:
            c.close()


def test_bulk_length_over_configured_limit(sluiced_factory, redis_factory):
    """proto-max-bulk-len 1mb (Redis's minimum): a longer bulk is refused from its header."""
    redis = redis_factory("--proto-max-bulk-len", "1mb")
    sluice = sluiced_factory(proto_max_bulk_len="1mb")
    header_ok = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n"
    header_too_big = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n"
    for server in (redis, sluice):
        with server.client() as c:
            c.send(header_ok + b"v" * 1048576 + b"\r\n")
            assert c.read() == "OK", server.kind
            assert c.call("STRLEN", "k") == 1048576, server.kind
        assert _send_and_read_until_closed(server.port, header_too_big) == \
            b"-ERR Protocol error: invalid bulk length\r\n", server.kind


def _pipeline(*requests):
    return b"".join(servers.encode(*r) for r in requests)


BIG = b"v" * (1536 * 1024)  # 1.5 MB: over proto-max-bulk-len 1mb, under 2mb


@pytest.mark.parametrize("case", ["auth_then_many_arguments", "limit_raised_then_big_bulk",
                                  "inline_limit_raised_then_big_bulk",
                                  "limit_lowered_then_big_bulk"])
def test_pipelined_request_parses_under_what_the_ones_before_it_changed(
        case, sluiced_factory, redis_factory):
    """Requests sent in one write are parsed under the state that the requests before them
    left: after AUTH a request may have more than 10 arguments, and a CONFIG SET of
    proto-max-bulk-len applies to the very next bulk, as in Redis, which parses a request only
    when its turn comes. (sluiced parses a pipelined batch ahead of running it.)"""
    members = [f"m{i}" for i in range(11)]
    if case == "auth_then_many_arguments":
        redis = redis_factory("--requirepass", "pw")
        sluice = sluiced_factory(requirepass="pw")
        data = _pipeline(("AUTH", "pw"), ("RPUSH", "l", *members), ("LLEN", "l"))
        expected = ["OK", 11, 11]
    elif case == "limit_raised_then_big_bulk":
        redis = redis_factory("--proto-max-bulk-len", "1mb")
        sluice = sluiced_factory(proto_max_bulk_len="1mb")
        data = _pipeline(("CONFIG", "SET", "proto-max-bulk-len", "2mb"), ("SET", "k", BIG),
                         ("STRLEN", "k"))
        expected = ["OK", "OK", len(BIG)]
    elif case == "inline_limit_raised_then_big_bulk":
        redis = redis_factory("--proto-max-bulk-len", "1mb")
        sluice = sluiced_factory(proto_max_bulk_len="1mb")
        data = b"CONFIG SET proto-max-bulk-len 2mb\r\n" + _pipeline(("SET", "k", BIG),
                                                                    ("STRLEN", "k"))
        expected = ["OK", "OK", len(BIG)]
    else:
        redis = redis_factory()
        sluice = sluiced_factory()
        # The big bulk's header is enough to refuse it (sending its body too would race the
        # close, which then resets the connection).
        data = _pipeline(("CONFIG", "SET", "proto-max-bulk-len", "1mb")) + \
            b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n" % len(BIG)
        expected = None  # OK, then the protocol error and the connection closed
    for server in (redis, sluice):
        with servers.RespClient(server.port) as c:
            c.send(data)
            if expected is None:
                assert c.read() == "OK", server.kind
                assert c.read_until_closed() == \
                    b"-ERR Protocol error: invalid bulk length\r\n", server.kind
            else:
                assert [c.read() for _ in expected] == expected, server.kind
        if expected is None:
            with server.client() as c:
                assert c.call("EXISTS", "k") == 0, server.kind
