"""redis-cli against sluiced: one-shot commands, piped interactive sessions, RESP3 (-3), mass
insertion (--pipe). Where the output does not name the server, it is compared with the same
redis-cli run against redis-server."""

import re

import pytest

import servers

pytestmark = pytest.mark.usefixtures("require_redis_cli")


@pytest.fixture
def sluiced(shared_sluiced):
    """One sluiced for the module (conftest: shared_sluiced), emptied before each test."""
    return shared_sluiced


def cli(server, *args, **kw):
    return servers.redis_cli(server.port, *args, **kw)


def test_one_shot_commands(sluiced):
    assert cli(sluiced, "PING").stdout == "PONG\n"
    assert cli(sluiced, "SET", "greeting", "hello world").stdout == "OK\n"
    assert cli(sluiced, "GET", "greeting").stdout == "hello world\n"
    assert cli(sluiced, "INCR", "n").stdout == "1\n"
    assert cli(sluiced, "INCRBY", "n", "41").stdout == "42\n"
    assert cli(sluiced, "EXISTS", "n", "greeting", "none").stdout == "2\n"
    assert cli(sluiced, "ECHO", "a b").stdout == "a b\n"
    assert cli(sluiced, "-n", "0", "GET", "n").stdout == "42\n"
    assert cli(sluiced, "--no-raw", "GET", "n").stdout == '"42"\n'
    assert cli(sluiced, "--no-raw", "GET", "missing").stdout == "(nil)\n"
    assert cli(sluiced, "--no-raw", "INCR", "n").stdout == "(integer) 43\n"
    # -n picks a database: its keys are its own.
    assert cli(sluiced, "-n", "5", "GET", "n").stdout == "\n"
    assert cli(sluiced, "-n", "5", "SET", "n", "five").stdout == "OK\n"
    assert cli(sluiced, "-n", "5", "GET", "n").stdout == "five\n"
    assert cli(sluiced, "GET", "n").stdout == "43\n"


def test_repeat_and_stdin_argument(sluiced):
    assert cli(sluiced, "-r", "5", "INCR", "counter").stdout == "1\n2\n3\n4\n5\n"
    assert cli(sluiced, "-x", "SET", "fromstdin", input="line1\nline2").stdout == "OK\n"
    assert cli(sluiced, "GET", "fromstdin").stdout == "line1\nline2\n"


ONE_SHOT = [
    ("PING",), ("SET", "a", "1"), ("GET", "a"), ("GET", "missing"), ("INCR", "a"),
    ("MGET", "a", "missing", "a"), ("DEL", "a", "missing"), ("EXISTS", "a"), ("TYPE", "a"),
    ("SET", "s", "x", "EX", "100"), ("TTL", "s"), ("SET", "f", "1.5"), ("INCRBYFLOAT", "f", "2"),
    ("KEYS", "f*"), ("FOO", "bar"), ("GET",), ("SET", "s", "v", "EX", "0"), ("DBSIZE",),
    ("INCR", "s"), ("MSET", "m1", "1", "m2", "2"), ("GETDEL", "m1"), ("STRLEN", "m2"),
]


@pytest.mark.parametrize("mode", [[], ["--no-raw"], ["-3"], ["-3", "--no-raw"]],
                         ids=["raw", "no_raw", "resp3_raw", "resp3_no_raw"])
def test_one_shot_output_same_as_redis(sluiced, redis_server, mode):
    for cmd in ONE_SHOT:
        r = cli(redis_server, *cmd, extra=mode, check=False)
        s = cli(sluiced, *cmd, extra=mode, check=False)
        assert (s.stdout, s.stderr, s.returncode) == (r.stdout, r.stderr, r.returncode), cmd


SESSION = """\
SET a 1
INCR a
GET a
GET nope
SET "key with spaces" "value with spaces"
GET "key with spaces"
MGET a nope "key with spaces"
APPEND a 00
STRLEN a
EXPIRE a 100
TTL a
PERSIST a
TTL a
NOSUCHCOMMAND x
GET
SET k v NX XX
INCR "key with spaces"
DEL a "key with spaces"
EXISTS a
ECHO 'single quoted'
"""


@pytest.mark.parametrize("mode", [[], ["--no-raw"], ["-3"], ["-3", "--no-raw"]],
                         ids=["raw", "no_raw", "resp3_raw", "resp3_no_raw"])
def test_interactive_session_same_as_redis(sluiced, redis_server, mode):
    r = cli(redis_server, extra=mode, input=SESSION, check=False)
    s = cli(sluiced, extra=mode, input=SESSION, check=False)
    assert s.returncode == r.returncode
    assert s.stderr == r.stderr
    assert s.stdout.splitlines() == r.stdout.splitlines()


def test_interactive_session(sluiced):
    out = cli(sluiced, input="SET a 1\nINCR a\nINCRBY a 10\nGET a\nGET nope\nDEL a\n")
    assert out.stdout.splitlines() == ["OK", "2", "12", "12", "", "1"]


def test_resp3_hello(sluiced):
    out = cli(sluiced, "HELLO", "3", resp3=True, extra=["--no-raw"]).stdout
    fields = dict(re.findall(r'^\d+# "([^"]+)" => (.*)$', out, re.M))
    assert fields.get("proto") == "(integer) 3", out
    assert re.fullmatch(r'"\d+\.\d+\.\d+"', fields.get("version", "")), out
    assert fields.get("server", "").strip('"'), out
    assert re.fullmatch(r"\(integer\) \d+", fields.get("id", "")), out
    raw = cli(sluiced, "HELLO", "3", resp3=True).stdout.splitlines()
    assert "proto 3" in raw, raw


def test_resp3_types_in_cli(sluiced):
    """redis-cli -3 --no-raw shows RESP3 types: a map for HELLO, (nil) for a missing key."""
    out = cli(sluiced, input="GET nope\nSET a 5\nINCR a\nHELLO 3\n", resp3=True,
              extra=["--no-raw"]).stdout
    lines = out.splitlines()
    assert lines[:3] == ["(nil)", "OK", "(integer) 6"], out
    assert any(re.match(r'^3# "proto" => \(integer\) 3$', line) for line in lines), out


def test_mass_insertion_pipe(sluiced):
    n = 2000
    payload = b"".join(servers.encode("SET", f"key:{i}", f"value:{i}") for i in range(n))
    payload += b"".join(servers.encode("INCR", "pipe:counter") for _ in range(n))
    proc = servers.subprocess.run(
        [servers.redis_cli_path(), "-h", "127.0.0.1", "-p", str(sluiced.port), "--pipe"],
        input=payload, capture_output=True, timeout=120)
    text = proc.stdout.decode()
    assert proc.returncode == 0, text + proc.stderr.decode()
    assert f"errors: 0, replies: {2 * n}" in text, text
    assert cli(sluiced, "GET", "key:1999").stdout == "value:1999\n"
    assert cli(sluiced, "GET", "pipe:counter").stdout == f"{n}\n"
    assert cli(sluiced, "DBSIZE").stdout == f"{n + 1}\n"


def test_scan_from_cli(sluiced):
    with sluiced.client() as c:
        assert c.call("MSET", *[x for i in range(300) for x in (f"user:{i}", i)],
                      "other", "1") == "OK"
    out = cli(sluiced, "--scan", "--pattern", "user:*").stdout.split()
    assert sorted(out) == sorted(f"user:{i}" for i in range(300))


def test_error_output(sluiced):
    assert cli(sluiced, "GET").stdout.strip() == \
        "ERR wrong number of arguments for 'get' command"
    assert cli(sluiced, "--no-raw", "GET").stdout == \
        "(error) ERR wrong number of arguments for 'get' command\n"



def test_unix_socket(sluiced_factory, tmp_path):
    """unixsocket/unixsocketperm: redis-cli -s reaches the same data; SHUTDOWN removes the file."""
    path = tmp_path / "sluiced.sock"
    server = sluiced_factory(unixsocket=str(path), unixsocketperm=700)
    assert path.stat().st_mode & 0o777 == 0o700
    assert servers.redis_cli(server.port, "SET", "k", "v", extra=["-s", str(path)]).stdout == "OK\n"
    assert cli(server, "GET", "k").stdout == "v\n"
    assert server.shutdown() == 0
    assert not path.exists()


def test_ldb_does_not_run_the_script(sluiced, tmp_path):
    """redis-cli --ldb ignores SCRIPT DEBUG's refusal and sends the EVAL: it must not run (Redis
    would debug it and roll its writes back; sluice has no debugger). Before session 48 the
    script ran, kept its writes, and ran again at each `restart`."""
    script = tmp_path / "incr.lua"
    script.write_text("return redis.call('incr', KEYS[1])\n")
    proc = cli(sluiced, "--ldb", "--eval", str(script), "ctr", input="restart\nrestart\n",
               check=False)
    assert "the script was not run" in proc.stdout + proc.stderr
    assert cli(sluiced, "EXISTS", "ctr").stdout == "0\n"
    assert cli(sluiced, "--eval", str(script), "ctr").stdout == "1\n"  # a plain run works
