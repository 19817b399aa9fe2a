"""Helpers for the integration tests: start/stop real servers, a raw RESP client, redis-cli.

Every server gets a free port and its own directory; nothing here sleeps to let time pass
(the only waiting is polling for a process to come up or go away, with a bound).
"""

import os
import select
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

START_TIMEOUT_S = 30.0  # sanitizer builds start slowly on loaded CI machines
STOP_TIMEOUT_S = 30.0
POLL_S = 0.02
IO_TIMEOUT_S = 30.0


def sluiced_path():
    path = os.environ.get("SLUICED")
    if not path:
        raise RuntimeError("SLUICED is not set: point it at the sluiced binary "
                           "(CTest does; by hand: SLUICED=build/sluiced python3 -m pytest ...)")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"SLUICED={path} is not an executable file")
    return path


_SANITIZED = {}


def sluiced_is_sanitized():
    """Whether sluiced is built with AddressSanitizer (CI's first pass): it runs several times
    slower, so tests that only need volume to make their point use less of it there."""
    path = sluiced_path()
    if path not in _SANITIZED:
        with open(path, "rb") as f:
            _SANITIZED[path] = b"__asan_init" in f.read()
    return _SANITIZED[path]


def redis_server_path():
    return shutil.which("redis-server")


def redis_cli_path():
    return shutil.which("redis-cli")


def free_port():
    """A TCP port that was free a moment ago (bind to port 0, read it back, release it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# RESP encoding and a raw client that keeps the exact reply bytes.


def _to_bytes(arg):
    return arg if isinstance(arg, bytes) else str(arg).encode()


def encode(*args):
    """One command as a RESP multibulk."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        b = _to_bytes(a)
        out.append(b"$%d\r\n%s\r\n" % (len(b), b))
    return b"".join(out)


class Error(str):
    """An error reply; the str is the text without the leading '-'."""

    def __repr__(self):
        return f"Error({str.__repr__(self)})"


class Status(str):
    """A simple-string reply (+OK)."""

    def __repr__(self):
        return f"Status({str.__repr__(self)})"


class Map(list):
    """A RESP3 map: a list of (key, value) pairs, in the server's order."""

    def as_dict(self):
        return {k: v for k, v in self}


class Set(list):
    """A RESP3 set."""


class Push(list):
    """A RESP3 push."""


class Double(float):
    pass


class Big(int):
    pass


class Verbatim(bytes):
    pass


class ConnectionClosed(Exception):
    pass


class RespClient:
    """A blocking client over one socket that returns decoded replies and their exact bytes."""

    def __init__(self, port, host="127.0.0.1", timeout=IO_TIMEOUT_S):
        self.port = port
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()  # grows in place: a long reply is not copied at every read
        self.pos = 0

    # -- low level ----------------------------------------------------------------------------
    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        try:
            chunk = self.sock.recv(1 << 16)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise ConnectionClosed(f"connection closed by server (port {self.port})")
        self.buf += chunk

    def _line(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 2
                return line
            self._fill()

    def _exact(self, n):
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        data = bytes(self.buf[self.pos:self.pos + n])
        if self.buf[self.pos + n:self.pos + n + 2] != b"\r\n":
            raise AssertionError("bulk string not terminated by CRLF")
        self.pos += n + 2
        return data

    def _value(self):
        line = self._line()
        t, rest = line[:1], line[1:]
        if t == b"+":
            return Status(rest.decode())
        if t == b"-":
            return Error(rest.decode())
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self._value() for _ in range(n)]
        if t == b"_":
            return None
        if t == b",":
            return Double(float(rest))
        if t == b"#":
            return rest == b"t"
        if t == b"(":
            return Big(int(rest))
        if t == b"!":
            return Error(self._exact(int(rest)).decode())
        if t == b"=":
            return Verbatim(self._exact(int(rest)))
        if t == b"%":
            return Map([(self._value(), self._value()) for _ in range(int(rest))])
        if t == b"~":
            return Set([self._value() for _ in range(int(rest))])
        if t == b">":
            return Push([self._value() for _ in range(int(rest))])
        if t == b"|":  # attribute: read and drop it, then the real reply follows
            for _ in range(int(rest)):
                self._value()
                self._value()
            return self._value()
        raise AssertionError(f"unexpected RESP type byte in line {line!r}")

    def read_reply_raw(self):
        """(decoded value, exact bytes) of the next reply."""
        if self.pos > (1 << 20):  # drop what earlier replies consumed
            del self.buf[:self.pos]
            self.pos = 0
        start = self.pos
        value = self._value()
        return value, bytes(self.buf[start:self.pos])

    def read(self):
        return self.read_reply_raw()[0]

    def read_raw(self):
        return self.read_reply_raw()[1]

    # -- commands -----------------------------------------------------------------------------
    def call(self, *args):
        self.send(encode(*args))
        return self.read()

    def call_raw(self, *args):
        self.send(encode(*args))
        return self.read_raw()

    def read_until_closed(self, timeout=10.0):
        """Every byte the server sends until it closes the connection; fails if it does not
        close within `timeout` seconds of the last byte."""
        data = bytes(self.buf[self.pos:])
        self.pos = len(self.buf)
        self.sock.settimeout(timeout)
        try:
            while True:
                try:
                    chunk = self.sock.recv(1 << 16)
                except ConnectionResetError:
                    break
                except socket.timeout:
                    raise AssertionError(f"connection still open after {timeout} s; "
                                         f"received so far: {data[:500]!r}") from None
                if not chunk:
                    break
                data += chunk
        finally:
            self.sock.settimeout(IO_TIMEOUT_S)
        return data

    def is_closed(self, timeout=5.0):
        """True if the server closes the connection within `timeout` (no data may arrive)."""
        self.sock.settimeout(timeout)
        try:
            chunk = self.sock.recv(1)
        except socket.timeout:
            return False
        except ConnectionResetError:
            return True
        finally:
            self.sock.settimeout(IO_TIMEOUT_S)
        if chunk:
            raise AssertionError(f"expected the connection to close, got data {chunk!r}")
        return True


# ---------------------------------------------------------------------------------------------
# Waiting for what a server does by itself, and reading INFO.


def wait_for(predicate, what, timeout=10.0, between_looks=None):
    """Poll (bounded) for something the server does by itself; not a way to let time pass.
    `between_looks`, if given, runs after each look that found `predicate` false: e.g. it moves
    the server's frozen clock, on which what the test waits for is due."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout} s waiting for {what}"
        if between_looks is not None:
            between_looks()
        time.sleep(POLL_S)


def recv_exactly(sock, n):
    """The next `n` bytes on a raw socket; fails if the server closes it first."""
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(min(1 << 20, n - len(data)))
        assert chunk, f"closed by the server after {len(data)} of {n} bytes"
        data += chunk
    return bytes(data)


def nothing_received(client, grace=0.05):
    """True if no reply has arrived on `client` (the server already did what it was going to do
    before the command that checks this returned; `grace` only covers the socket)."""
    if len(client.buf) > client.pos:
        return False
    readable, _, _ = select.select([client.sock], [], [], grace)
    return not readable


def info_fields(client, *section):
    """INFO [section] as {field: value} (strings)."""
    text = client.call("INFO", *section)
    assert isinstance(text, bytes), text
    return dict(line.split(":", 1) for line in text.decode().split("\r\n")
                if line and not line.startswith("#") and ":" in line)


def blocked_clients(client):
    return int(info_fields(client, "clients")["blocked_clients"])


def send_until_blocked(observer, client, *cmd):
    """Send a blocking command on `client` without reading; return once `observer` (another
    connection to the same server) counts one more blocked client."""
    before = blocked_clients(observer)
    client.send(encode(*cmd))
    wait_for(lambda: blocked_clients(observer) == before + 1, f"{cmd} to block")


# ---------------------------------------------------------------------------------------------
# Processes.


def _tail(path, n=40):
    try:
        lines = Path(path).read_text(errors="replace").splitlines()
    except OSError:
        return "(no output)"
    return "\n".join(lines[-n:]) or "(empty)"


def _ping_once(port):
    """True if something on `port` answers a PING with a complete reply line."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            data = b""
            while not data.endswith(b"\r\n"):
                chunk = s.recv(256)
                if not chunk:
                    return False
                data += chunk
            # +PONG, or -NOAUTH when a password is set: either way the server is serving.
            return data[:1] in (b"+", b"-")
    except OSError:
        return False


def _answering_pid(port):
    """The process_id that INFO reports on `port`; None when it does not say (NOAUTH, gone)."""
    try:
        with RespClient(port) as c:
            reply = c.call("INFO", "server")
    except (OSError, ConnectionClosed):
        return None
    if isinstance(reply, Error):
        return None
    for line in bytes(reply).decode(errors="replace").splitlines():
        if line.startswith("process_id:"):
            return int(line.split(":", 1)[1])
    return None


def _listening_pid(port):
    """The pid holding the listening TCP socket on `port` (from /proc); None if none is found.
    For a server that answers NOAUTH, whose INFO does not say who it is."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    return int(proc.name)
        except OSError:
            continue
    return None


def _descends_from(pid, ancestor):
    """True if `pid` is `ancestor` or one of its descendants (a server run under strace)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state: ppid
    return False


class ServerProcess:
    """A server process on a port, with its output in files under its own directory."""

    kind = "server"

    def __init__(self, port, workdir):
        self.port = port
        self.workdir = Path(workdir)
        self.proc = None
        self.stderr_path = None
        self.stdout_path = None
        self.returncode = None
        self.expected_dead = False
        self._starts = 0
        self.preexec_fn = None  # run in the child before exec (e.g. resource.setrlimit)
        self.extra_env = {}  # added to this process's environment for the child

    def _command(self):
        raise NotImplementedError

    def _spawn(self):
        self._starts += 1
        self.stdout_path = self.workdir / f"{self.kind}.{self._starts}.stdout"
        self.stderr_path = self.workdir / f"{self.kind}.{self._starts}.stderr"
        with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(self._command(), stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=err, cwd=self.workdir,
                                         preexec_fn=self.preexec_fn,
                                         env={**os.environ, **self.extra_env})
        self.returncode = None
        self.expected_dead = False

    def start(self):
        """Start and wait for PING. Another test may take the port between free_port() and the
        server's bind: then retry on a new port."""
        for attempt in range(3):
            try:
                return self._start_once()
            except RuntimeError as e:
                if attempt == 2 or "in use" not in str(e).lower():
                    raise
                self.port = free_port()
        return self

    def _start_once(self):
        self._spawn()
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            rc = self.proc.poll()
            if rc is not None:
                self.returncode = rc
                raise RuntimeError(f"{self.kind} exited with code {rc} during start-up "
                                   f"(port {self.port}); stderr:\n{self.stderr()}")
            if _ping_once(self.port):
                # Another test's server may have bound the port first (ours then exits): a
                # client of this one would talk to that one.
                pid = _answering_pid(self.port) or _listening_pid(self.port)
                if pid is not None and not _descends_from(pid, self.proc.pid):
                    self.kill()
                    raise RuntimeError(f"port {self.port} is in use by another server "
                                       f"(pid {pid})")
                return self
            time.sleep(POLL_S)
        self.kill()
        raise RuntimeError(f"{self.kind} did not answer PING on port {self.port} within "
                           f"{START_TIMEOUT_S} s; stderr:\n{self.stderr()}")

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stderr(self):
        return _tail(self.stderr_path) if self.stderr_path else "(not started)"

    def wait(self, timeout=STOP_TIMEOUT_S):
        """Wait (bounded) for the process to exit; returns its code, None if it is still up."""
        try:
            self.returncode = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        return self.returncode

    def terminate(self, sig=signal.SIGTERM, timeout=STOP_TIMEOUT_S):
        """Send `sig`, wait for the exit (bounded), SIGKILL after that; returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            if self.wait(timeout) is None:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"{self.kind} did not exit within {timeout} s of signal "
                                     f"{sig!r}; killed it. stderr:\n{self.stderr()}")
        self.returncode = self.proc.returncode
        return self.returncode

    def kill(self):
        """kill -9; returns once the process is gone."""
        self.expected_dead = True
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None:
            self.returncode = self.proc.returncode

    def shutdown(self, password=None, timeout=STOP_TIMEOUT_S):
        """Send SHUTDOWN, expect the connection to close, wait for the exit; returns the code."""
        with RespClient(self.port) as c:
            if password is not None:
                assert c.call("AUTH", password) == "OK"
            c.send(encode("SHUTDOWN"))
            try:
                reply = c.read()
                raise AssertionError(f"SHUTDOWN answered {reply!r} instead of closing")
            except ConnectionClosed:
                pass
        code = self.wait(timeout)
        if code is None:
            self.kill()
            raise AssertionError(f"{self.kind} did not exit within {timeout} s of SHUTDOWN")
        return code

    def client(self):
        return RespClient(self.port)

    def cleanup(self):
        """Stop whatever is still running; never raises."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout=STOP_TIMEOUT_S)
            except (subprocess.TimeoutExpired, OSError):
                self.proc.kill()
                self.proc.wait()
            self.returncode = self.proc.returncode


class Sluiced(ServerProcess):
    """The real sluiced on a free port with its own data directory."""

    kind = "sluiced"

    def __init__(self, workdir, port=None, data_dir=None, config_file=None, env=None,
                 **directives):
        workdir = Path(workdir)
        super().__init__(port or free_port(), workdir)
        self.extra_env = dict(env or {})
        self.data_dir = Path(data_dir) if data_dir else workdir / "data"
        self.config_file = config_file
        self.directives = dict(directives)

    def _command(self):
        cmd = [sluiced_path()]
        if self.config_file:
            cmd.append(str(self.config_file))
        cmd += ["--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.data_dir)]
        for name, value in self.directives.items():
            cmd += [f"--{name.replace('_', '-')}", str(value)]
        return cmd

    def stop(self, how):
        """"shutdown" (SHUTDOWN, exit 0 expected) or "kill-9"."""
        if how == "shutdown":
            assert self.shutdown() == 0, f"sluiced exited non-zero; stderr:\n{self.stderr()}"
        else:
            assert how == "kill-9", how
            self.kill()

    def restart(self, **changes):
        """Stop cleanly (SIGTERM, exit 0 expected) if running, then start on the same dir."""
        if self.alive():
            code = self.terminate()
            assert code == 0, f"sluiced exited {code} on SIGTERM; stderr:\n{self.stderr()}"
        self.directives.update(changes)
        return self.start()


class RedisServer(ServerProcess):
    """A real redis-server (no persistence) for differential tests."""

    kind = "redis"

    def __init__(self, workdir, *extra):
        workdir = Path(workdir)
        super().__init__(free_port(), workdir)
        self.extra = list(extra)

    def _command(self):
        return [redis_server_path(), "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", str(self.workdir), *self.extra]


def run_sluiced_expect_exit(args, cwd, timeout=STOP_TIMEOUT_S):
    """Run sluiced with `args` expecting it to exit by itself; returns CompletedProcess."""
    try:
        return subprocess.run([sluiced_path(), *map(str, args)], cwd=cwd,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"sluiced {args} kept running for {timeout} s instead of exiting"
                             ) from e


def redis_cli(port, *args, resp3=False, input=None, extra=(), timeout=60, check=True):
    """Run redis-cli against 127.0.0.1:port; returns CompletedProcess (text mode)."""
    cmd = [redis_cli_path(), "-h", "127.0.0.1", "-p", str(port)]
    if resp3:
        cmd.append("-3")
    cmd += list(extra)
    cmd += [str(a) for a in args]
    stdin = subprocess.DEVNULL if input is None else None
    proc = subprocess.run(cmd, input=input, stdin=stdin, capture_output=True, text=True,
                          timeout=timeout)
    if check:
        assert proc.returncode == 0, f"{cmd} exited {proc.returncode}: {proc.stderr}"
    return proc
