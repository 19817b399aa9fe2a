"""Security: NOAUTH before authentication for every command but AUTH, HELLO, QUIT and RESET;
protected-mode as Redis (a client in a network namespace of the test's own gets Redis's exact
-DENIED text); rename-command as Redis; passwords and values never reach the logs."""

import os
import shutil
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

import servers

PW = "s3cr3t-" + uuid.uuid4().hex[:8]


# --- NOAUTH -----------------------------------------------------------------------------------


def _command_table(port, password=None):
    """[(name, arity)] of every command, from COMMAND INFO."""
    with servers.RespClient(port) as c:
        if password:
            assert c.call("AUTH", password) == "OK"
        return [(entry[0].decode(), entry[1]) for entry in c.call("COMMAND", "INFO",
                                                                  *_command_names(c))]


def _command_names(c):
    """The commands, without the containers' subcommands ("config|get") COMMAND LIST adds."""
    return [name.decode() for name in c.call("COMMAND", "LIST") if b"|" not in name]


CONTAINER_SUBCOMMANDS = {"client": "help", "config": "resetstat", "script": "help",
                         "rl.policy": "list", "object": "help", "memory": "help",
                         "slowlog": "len", "pubsub": "numpat", "acl": "whoami",
                         "latency": "latest", "function": "list", "cluster": "info",
                         "module": "list"}


def test_every_command_but_four_needs_auth(sluiced_factory):
    """With requirepass set, every command in the table, with a right number of arguments,
    answers -NOAUTH before AUTH; only AUTH, HELLO, QUIT and RESET are let through (as Redis)."""
    server = sluiced_factory(requirepass=PW)
    table = _command_table(server.port, PW)
    assert len(table) > 50
    let_through = set()
    for name, arity in table:
        argc = arity if arity > 0 else -arity
        args = [name] + ["x"] * (argc - 1)
        # A container needs a subcommand it has: an unknown one is an error before NOAUTH.
        if name in CONTAINER_SUBCOMMANDS:
            args = [name, CONTAINER_SUBCOMMANDS[name]]
        with server.client() as c:
            c.send(servers.encode(*args))
            try:
                reply = c.read()
            except servers.ConnectionClosed:
                reply = None
        # A refused EXEC says why after EXECABORT, as Redis's does; DEBUG, not enabled here,
        # is refused as such before authentication is asked for, as Redis 7.0 refuses it.
        refused = ("EXECABORT Transaction discarded because of: NOAUTH" if name == "exec"
                   else "ERR DEBUG command not allowed" if name == "debug" else "NOAUTH")
        if not (isinstance(reply, servers.Error) and reply.startswith(refused)):
            let_through.add(name)
    # HELLO is let through, and without AUTH in it answers its own NOAUTH (as Redis).
    assert let_through == {"auth", "quit", "reset"}, let_through
    with server.client() as c:
        assert c.call("HELLO").startswith("NOAUTH HELLO must be called with the client "
                                          "already authenticated")
        assert c.call("HELLO", "3", "AUTH", "default", PW)[0][0] == b"server"


def test_noauth_inside_multi_and_for_unknown_commands(sluiced_factory, redis_factory):
    redis = redis_factory("--requirepass", PW)
    sluice = sluiced_factory(requirepass=PW)
    cmds = [("MULTI",), ("NOSUCHCOMMAND", "a"), ("GET",), ("EVAL", "return 1", "0"),
            ("SCRIPT", "FLUSH"), ("CONFIG", "SET", "requirepass", ""),
            ("AUTH", "wrong"), ("PING",), ("AUTH", PW), ("PING",)]
    with redis.client() as r, sluice.client() as s:
        for cmd in cmds:
            assert s.call_raw(*cmd) == r.call_raw(*cmd), cmd


# --- protected-mode ---------------------------------------------------------------------------


class Netns:
    """Two network namespaces of the test's own joined by a veth pair: the server's (10.77.x.1,
    with its own loopback) and a client's (10.77.x.2). Nothing leaves them."""

    def __init__(self):
        tag = uuid.uuid4().hex[:6]
        self.server_ns = f"sluice-s-{tag}"
        self.client_ns = f"sluice-c-{tag}"
        self.octet = int(tag[:2], 16) % 250 + 1
        self.server_ip = f"10.77.{self.octet}.1"
        self.client_ip = f"10.77.{self.octet}.2"
        self.created = []

    def run(self, *cmd):
        proc = subprocess.run(list(cmd), capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.strip()}")

    def __enter__(self):
        veth_s, veth_c = f"vs{self.server_ns[-6:]}", f"vc{self.client_ns[-6:]}"
        for ns in (self.server_ns, self.client_ns):
            self.run("ip", "netns", "add", ns)
            self.created.append(ns)
            self.run("ip", "-n", ns, "link", "set", "lo", "up")
        self.run("ip", "link", "add", veth_s, "netns", self.server_ns, "type", "veth", "peer",
                 "name", veth_c, "netns", self.client_ns)
        self.run("ip", "-n", self.server_ns, "addr", "add", f"{self.server_ip}/24", "dev", veth_s)
        self.run("ip", "-n", self.client_ns, "addr", "add", f"{self.client_ip}/24", "dev", veth_c)
        self.run("ip", "-n", self.server_ns, "link", "set", veth_s, "up")
        self.run("ip", "-n", self.client_ns, "link", "set", veth_c, "up")
        return self

    def __exit__(self, *exc):
        for ns in self.created:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)

    def exchange(self, ns, host, port, payload, timeout=30.0):
        """Connects from namespace `ns` to host:port, sends `payload`, returns every byte
        received until the server closes or `timeout` s pass without data. (A payload that
        ends in QUIT is answered without waiting out the timeout, as is one the server closes
        on: the timeout only bounds a failure, and a short one, run out on a loaded machine,
        would return a partial reply.)"""
        script = textwrap.dedent(f"""
            import socket, sys
            s = socket.create_connection(({host!r}, {port}), timeout={timeout})
            s.sendall({payload!r})
            data = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except (socket.timeout, ConnectionResetError):
                pass
            sys.stdout.buffer.write(data)
        """)
        proc = subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", script],
                              capture_output=True, timeout=timeout + 30)
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.decode(errors="replace"))
        return proc.stdout


# QUIT after the request: the server closes once it has answered, so `exchange` returns then.
PING_QUIT = b"PING\r\nQUIT\r\n"


def _start_in_ns(ns, server):
    """Starts `server` (a ServerProcess) inside namespace `ns`, waiting for PING there."""
    command = server._command
    server._command = lambda: ["ip", "netns", "exec", ns.server_ns] + command()
    server._spawn()
    deadline = time.monotonic() + servers.START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"{server.kind} exited: {server.stderr()}")
        try:
            # Refused at once until it listens; once it does, the reply may be slow in coming.
            reply = ns.exchange(ns.server_ns, "127.0.0.1", server.port, PING_QUIT, timeout=10.0)
        except RuntimeError:
            reply = b""
        if reply[:1] in (b"+", b"-"):
            return server
        time.sleep(0.1)
    raise RuntimeError(f"{server.kind} did not start in {ns.server_ns}: {server.stderr()}")


@pytest.fixture
def namespaces():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("network namespaces need root and iproute2")
    ns = Netns()
    try:
        ns.__enter__()
    except RuntimeError as e:
        ns.__exit__()
        pytest.skip(f"cannot create network namespaces here: {e}")
    try:
        yield ns
    finally:
        ns.__exit__()


@pytest.mark.parametrize("requirepass", [None, PW], ids=["no_password", "password"])
def test_protected_mode_same_as_redis(tmp_path, namespaces, requirepass):
    """bind 0.0.0.0, protected-mode yes: with no password a client from another host (a
    namespace of ours) gets Redis's -DENIED text and is closed, byte for byte as Redis; loopback
    clients are served; with requirepass set every client is served."""
    if servers.redis_server_path() is None:
        pytest.skip("redis-server is not installed")
    extra = {"requirepass": requirepass} if requirepass else {}
    sluice = servers.Sluiced(tmp_path / "s", bind="0.0.0.0", protected_mode="yes", **extra)
    (tmp_path / "s").mkdir()
    (tmp_path / "r").mkdir()
    redis_args = ["--bind", "0.0.0.0", "--protected-mode", "yes"]
    if requirepass:
        redis_args += ["--requirepass", requirepass]
    redis = servers.RedisServer(tmp_path / "r", *redis_args)
    try:
        _start_in_ns(namespaces, sluice)
        _start_in_ns(namespaces, redis)
        ping = servers.encode("PING") + servers.encode("QUIT")
        replies = {}
        for server in (redis, sluice):
            # Every exchange here ends in QUIT or in the server's close (-DENIED).
            remote = namespaces.exchange(namespaces.client_ns, namespaces.server_ip,
                                         server.port, ping)
            local = namespaces.exchange(namespaces.server_ns, "127.0.0.1", server.port, ping)
            replies[server.kind] = (remote, local)
        assert replies["sluiced"] == replies["redis"], replies
        remote, local = replies["sluiced"]
        if requirepass:
            assert remote.startswith(b"-NOAUTH"), remote
            assert local.startswith(b"-NOAUTH"), local
            authed = namespaces.exchange(namespaces.client_ns, namespaces.server_ip,
                                         sluice.port,
                                         servers.encode("AUTH", requirepass) + ping)
            assert authed == b"+OK\r\n+PONG\r\n+OK\r\n", authed
        else:
            assert remote.startswith(b"-DENIED Redis is running in protected mode"), remote
            assert local == b"+PONG\r\n+OK\r\n", local
    finally:
        for server in (sluice, redis):
            if server.proc is not None:
                server.cleanup()


def test_protected_mode_off_serves_remote_clients(tmp_path, namespaces):
    sluice = servers.Sluiced(tmp_path, bind="0.0.0.0", protected_mode="no")
    try:
        _start_in_ns(namespaces, sluice)
        remote = namespaces.exchange(namespaces.client_ns, namespaces.server_ip, sluice.port,
                                     PING_QUIT)
        assert remote == b"+PONG\r\n+OK\r\n", remote
    finally:
        sluice.cleanup()
    assert sluice.returncode == 0, sluice.stderr()


# --- rename-command ---------------------------------------------------------------------------


def test_rename_command_same_as_redis(sluiced_factory, tmp_path):
    """rename-command GET FETCH and FLUSHALL "": the old names are unknown commands (also in
    MULTI and from scripts), the new name works, the disabled command is gone; the replies are
    Redis's byte for byte."""
    conf = tmp_path / "rename.conf"
    conf.write_text('rename-command GET FETCH\nrename-command FLUSHALL ""\n')
    redis_dir = tmp_path / "redis"
    redis_dir.mkdir()
    redis = servers.RedisServer(redis_dir)
    base = redis._command
    redis._command = lambda: [base()[0], str(conf)] + base()[1:]
    redis.start()
    sluice = sluiced_factory(config_file=conf)
    cmds = [("SET", "k", "v"), ("GET", "k"), ("FETCH", "k"), ("get", "k"), ("fetch", "k"),
            ("FLUSHALL",), ("FLUSHALL", "ASYNC"), ("DBSIZE",),
            ("EVAL", "return redis.call('GET', 'k')", "0"),
            ("EVAL", "return redis.call('FETCH', 'k')", "0"),
            ("EVAL", "return redis.pcall('FLUSHALL')", "0"),
            ("MULTI",), ("GET", "k"), ("FETCH", "k"), ("EXEC",),
            ("MULTI",), ("FETCH", "k"), ("EXEC",)]
    try:
        with redis.client() as r, sluice.client() as s:
            for cmd in cmds:
                assert s.call_raw(*cmd) == r.call_raw(*cmd), cmd
            assert s.call("FETCH", "k") == b"v"
            assert s.call("DBSIZE") == 1
    finally:
        redis.cleanup()


@pytest.mark.parametrize("lines, refusal", [
    ('rename-command FLUSHAL ""', "No such command in rename-command"),
    ("rename-command GET SET", "Target command name already exists"),
    ('rename-command FLUSHALL ""\nrename-command FLUSHALL gone', "No such command in rename-command"),
], ids=["unknown", "taken", "renamed twice"])
def test_a_bad_rename_command_refuses_to_start_as_redis(tmp_path, lines, refusal):
    """A rename-command Redis refuses at start (a typo would leave on a command meant to be
    off): sluiced exits 1 with Redis's reason."""
    if servers.redis_server_path() is None:
        pytest.skip("needs redis-server")
    outputs = []
    for name in ("redis", "sluiced"):
        (tmp_path / name).mkdir()
        conf = tmp_path / name / "rename.conf"
        conf.write_text(lines + "\n")
        if name == "redis":
            proc = subprocess.run([servers.redis_server_path(), str(conf), "--port",
                                   str(servers.free_port()), "--save", "", "--dir",
                                   str(tmp_path / name)], stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=30)
        else:
            proc = servers.run_sluiced_expect_exit(
                [conf, "--port", servers.free_port(), "--dir", tmp_path / name / "data"],
                cwd=tmp_path / name)
        outputs.append(proc.stdout.decode() + proc.stderr.decode())
        assert proc.returncode == 1, (name, outputs[-1])
        assert refusal in outputs[-1], (name, outputs[-1])


def test_bind_empty_without_a_unixsocket_refuses_to_start(tmp_path):
    """bind "" opens no TCP socket, as Redis: with no unixsocket there is nowhere to listen,
    and the reason says so (it blamed the port)."""
    proc = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "", "--dir", tmp_path / "data"], cwd=tmp_path)
    assert proc.returncode == 1
    assert b"configured to not listen anywhere" in proc.stderr, proc.stderr


# --- logs -------------------------------------------------------------------------------------


def test_logs_never_contain_passwords_or_values(sluiced_factory):
    """loglevel debug: after AUTH, HELLO AUTH, CONFIG SET requirepass, wrong passwords, SET and
    scripts with distinctive values, protocol errors carrying them, the daemon's log and
    RocksDB's LOG contain none of them."""
    start_pw = "startpw-" + uuid.uuid4().hex
    new_pw = "newpw-" + uuid.uuid4().hex
    wrong_pw = "wrongpw-" + uuid.uuid4().hex
    value = "value-" + uuid.uuid4().hex
    server = sluiced_factory(requirepass=start_pw, loglevel="debug")
    with server.client() as c:
        assert c.call("AUTH", wrong_pw).startswith("WRONGPASS")
        assert c.call("AUTH", start_pw) == "OK"
        assert isinstance(c.call("HELLO", "3", "AUTH", "default", start_pw), servers.Map)
        assert c.call("CONFIG", "SET", "requirepass", new_pw) == "OK"
        assert c.call("SET", "k", value) == "OK"
        assert c.call("SET", "k2", value, "BADOPTION").startswith("ERR")
        assert c.call("EVAL", f"return redis.call('SET', 'k3', '{value}')", "0") == "OK"
        assert c.call("EVAL", f"error('{value}')", "0").startswith("ERR")
        assert c.call("RL.POLICY", "SET", value, "FIXEDWINDOW", "x", "y").startswith("ERR")
    with server.client() as c:
        assert c.call("AUTH", new_pw) == "OK"
        assert c.call("GET", "k") == value.encode()
    with server.client() as c:  # a protocol error whose bytes carry the value
        c.send(b"*1\r\n$" + value.encode() + b"\r\n")
        c.read_until_closed()
    assert server.terminate() == 0
    logs = {"stderr": Path(server.stderr_path).read_text(errors="replace"),
            "stdout": Path(server.stdout_path).read_text(errors="replace")}
    for name in ("LOG", "LOG.old"):
        path = server.data_dir / name
        if path.exists():
            logs[name] = path.read_text(errors="replace")
    assert "CONFIG SET" in logs["stderr"] or "requirepass" in logs["stderr"] or \
        len(logs["stderr"]) > 0
    for secret in (start_pw, new_pw, wrong_pw, value):
        for name, text in logs.items():
            assert secret not in text, f"{secret!r} found in {name}"
