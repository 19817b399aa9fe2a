"""requirepass, AUTH and HELLO ... AUTH: Redis 7.0's replies to the byte."""

import pytest

import servers

PW = "s3cret"

NOAUTH = b"-NOAUTH Authentication required.\r\n"
WRONGPASS = b"-WRONGPASS invalid username-password pair or user is disabled.\r\n"
NO_PASSWORD_SET = (b"-ERR AUTH <password> called without any password configured for the "
                   b"default user. Are you sure your configuration is correct?\r\n")


@pytest.fixture
def protected(sluiced_factory):
    return sluiced_factory(requirepass=PW)


def test_noauth_before_auth(protected):
    with protected.client() as c:
        assert c.call_raw("GET", "x") == NOAUTH
        assert c.call_raw("SET", "x", "1") == NOAUTH
        assert c.call_raw("PING") == NOAUTH
        # As Redis: lookup and arity come before the authentication check.
        assert c.call_raw("NOSUCH") == (b"-ERR unknown command 'NOSUCH', with args beginning "
                                        b"with: \r\n")
        assert c.call_raw("GET") == b"-ERR wrong number of arguments for 'get' command\r\n"
        assert c.call_raw("QUIT") == b"+OK\r\n"
        assert c.is_closed()


def test_wrong_password(protected):
    with protected.client() as c:
        assert c.call_raw("AUTH", "wrong") == WRONGPASS
        assert c.call_raw("AUTH", "default", "wrong") == WRONGPASS
        assert c.call_raw("AUTH", "someuser", PW) == WRONGPASS
        assert c.call_raw("GET", "x") == NOAUTH


def test_auth_ok(protected):
    with protected.client() as c:
        assert c.call_raw("AUTH", PW) == b"+OK\r\n"
        assert c.call("SET", "x", "1") == "OK"
        assert c.call("GET", "x") == b"1"
        assert c.call("PING") == "PONG"
    with protected.client() as c:  # authentication is per connection
        assert c.call_raw("GET", "x") == NOAUTH
        assert c.call_raw("AUTH", "default", PW) == b"+OK\r\n"
        assert c.call("GET", "x") == b"1"


def test_wrong_auth_after_success_keeps_the_session(protected):
    """Redis: a failed AUTH on an authenticated connection does not log it out."""
    with protected.client() as c:
        assert c.call("AUTH", PW) == "OK"
        assert c.call_raw("AUTH", "wrong") == WRONGPASS
        assert c.call("PING") == "PONG"


def test_hello_3_auth(protected):
    with protected.client() as c:
        reply = c.call("HELLO", "3", "AUTH", "default", PW)
        assert isinstance(reply, servers.Map), reply
        fields = reply.as_dict()
        assert fields[b"proto"] == 3
        assert b"server" in fields and b"version" in fields
        assert c.call_raw("GET", "nope") == b"_\r\n"  # RESP3 null
    with protected.client() as c:
        assert c.call_raw("HELLO", "3", "AUTH", "default", "wrong") == WRONGPASS
        assert c.call_raw("GET", "x") == NOAUTH
        reply = c.call("HELLO", "2", "AUTH", "default", PW)
        assert isinstance(reply, list) and not isinstance(reply, servers.Map)
        assert reply[reply.index(b"proto") + 1] == 2


def test_hello_without_auth_when_password_set(protected):
    with protected.client() as c:
        assert c.call_raw("HELLO", "3") == (
            b"-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
            b"HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
            b"the RESP protocol version at the same time\r\n")


def test_auth_without_password_configured(sluiced):
    with sluiced.client() as c:
        assert c.call_raw("AUTH", "anything") == NO_PASSWORD_SET
        assert c.call("PING") == "PONG"


def test_auth_errors_same_as_redis(sluiced_factory, redis_factory):
    """The same AUTH/HELLO sequences against redis-server with the same requirepass."""
    redis = redis_factory("--requirepass", PW)
    sluice = sluiced_factory(requirepass=PW)
    sequences = [
        [("GET", "x"), ("AUTH",), ("AUTH", "a", "b", "c"), ("AUTH", "wrong"),
         ("AUTH", "default", "wrong"), ("HELLO", "3"), ("HELLO", "3", "AUTH", "default"),
         ("HELLO", "3", "AUTH", "default", "wrong"), ("HELLO", "4", "AUTH", "default", PW),
         ("AUTH", PW), ("SET", "x", "1"), ("GET", "x"), ("AUTH", "wrong"), ("GET", "x")],
        [("HELLO", "3", "AUTH", "default", PW, "SETNAME", "me"), ("CLIENT", "GETNAME"),
         ("GET", "missing"), ("AUTH", "default", PW)],
        # HELLO's options take effect in order: an error after AUTH leaves the client
        # authenticated (still RESP2), one before it does not; a SETNAME before an error or
        # before the NOAUTH check stays done.
        [("HELLO", "3", "AUTH", "default", PW, "SETNAME", "a b"), ("GET", "missing")],
        [("HELLO", "3", "AUTH", "default", "wrong", "SETNAME", "a b"), ("GET", "missing")],
        [("HELLO", "3", "SETNAME", "a b", "AUTH", "default", PW), ("GET", "missing")],
        [("HELLO", "3", "SETNAME", "early"), ("AUTH", PW), ("CLIENT", "GETNAME")],
        [("AUTH", PW), ("HELLO", "3", "SETNAME", "ok", "FOO"), ("CLIENT", "GETNAME"),
         ("GET", "missing")],
    ]
    for sequence in sequences:
        with redis.client() as rc, sluice.client() as sc:
            for cmd in sequence:
                r_value, s_value = rc.call(*cmd), sc.call(*cmd)
                if cmd[0] == "HELLO" and isinstance(r_value, servers.Map):
                    assert isinstance(s_value, servers.Map), (cmd, s_value)
                    continue
                assert s_value == r_value and type(s_value) is type(r_value), \
                    f"{cmd}: redis {r_value!r}, sluiced {s_value!r}"


def test_auth_no_password_same_as_redis(sluiced, redis_server):
    for cmd in [("AUTH", "x"), ("AUTH", "default", "x"), ("AUTH", "other", "x"), ("AUTH",),
                ("HELLO", "3", "AUTH", "default", "x")]:
        with redis_server.client() as rc, sluiced.client() as sc:
            r_value, s_value = rc.call(*cmd), sc.call(*cmd)
            if isinstance(r_value, servers.Map):
                assert isinstance(s_value, servers.Map), (cmd, s_value)
            else:
                assert s_value == r_value and type(s_value) is type(r_value), \
                    f"{cmd}: redis {r_value!r}, sluiced {s_value!r}"


def test_a_client_waiting_for_auth_goes_on_once_none_is_needed(sluiced, redis_server):
    """As Redis's authRequired, asked at every command: a client that connected while the
    default user needed a password, and never gave it, is let through once it needs none."""
    for server in (redis_server, sluiced):
        with server.client() as admin, server.client() as other:
            assert admin.call("CONFIG", "SET", "requirepass", "secret") == "OK"
            with server.client() as late:
                assert late.call_raw("PING") == b"-NOAUTH Authentication required.\r\n"
                assert admin.call("AUTH", "secret") == "OK"
                assert admin.call("CONFIG", "SET", "requirepass", "") == "OK"
                assert late.call_raw("PING") == b"+PONG\r\n", server
                assert late.call("ACL", "WHOAMI") == b"default"
                # No pre-authentication limits either (more than 10 arguments).
                assert late.call("DEL", *[f"k{i}" for i in range(12)]) == 0
            assert other.call("PING") == "PONG"


@pytest.mark.parametrize("data,expected", [
    (b"*11\r\n", b"-ERR Protocol error: unauthenticated multibulk length\r\n"),
    (b"*2\r\n$3\r\nGET\r\n$20000\r\n", b"-ERR Protocol error: unauthenticated bulk length\r\n"),
], ids=["more_than_10_arguments", "argument_over_16k"])
def test_unauthenticated_input_limits(protected, redis_factory, data, expected):
    redis = redis_factory("--requirepass", PW)
    for server in (redis, protected):
        with server.client() as c:
            c.send(data)
            assert c.read_until_closed() == expected, f"{server.kind}"
    with protected.client() as c:  # after AUTH the same sizes are fine
        assert c.call("AUTH", PW) == "OK"
        assert c.call("MSET", *[f"k{i}" for i in range(10)]) == "OK"
        assert c.call("SET", "big", "x" * 20000) == "OK"
        assert c.call("STRLEN", "big") == 20000


def test_redis_cli_with_password(protected, require_redis_cli):
    out = servers.redis_cli(protected.port, "PING", extra=["-a", PW, "--no-auth-warning"])
    assert out.stdout.strip() == "PONG"
    out = servers.redis_cli(protected.port, "PING", check=False)
    assert "NOAUTH" in out.stdout + out.stderr


def test_shutdown_requires_auth(protected):
    with protected.client() as c:
        assert c.call_raw("SHUTDOWN") == NOAUTH
    assert protected.alive()
    assert protected.shutdown(password=PW) == 0
