"""MONITOR against redis-server: the same commands sent to both servers by one client while
another monitors, and the monitor's lines compared once the timestamps and client addresses are
masked (what is shown, in which order, how arguments are quoted, what is redacted); then what a
monitoring client itself may do, and that RESET ends it.
"""

import re
import socket
import time

from servers import RespClient, encode

END = "end-of-sequence"

# Everything here runs as in Redis 7.0: shown after it ran (EXEC after the commands it ran,
# an aborted EXEC too), EVAL and its kin before their script's commands ("[0 lua]"), failing
# scripts included; never what was refused before running (unknown commands, wrong arity,
# queued commands), nor administrative commands (CONFIG, DEBUG, SLOWLOG, MONITOR).
SEQUENCE = [
    ("SET", "k", "v"), ("GET", "k"), ("NOSUCH", "a"), ("GET",), ("CONFIG", "GET", "maxclients"),
    ("SLOWLOG", "LEN"), ("AUTH", "nopass"), ("AUTH", "user", "pw"),
    ("HELLO", "2", "AUTH", "default", "pw", "SETNAME", "n"), ("HELLO", "2", "SETNAME", "n2"),
    ("EVAL", "redis.call('SET', 'x', '1') return redis.call('GET', 'x')", "0"),
    ("EVALSHA", "0" * 40, "0"), ("EVAL", "syntax error here", "0"),
    ("EVAL", "return redis.call('nosuch')", "0"), ("EVAL", "return redis.pcall('GET')", "0"),
    ("EVAL_RO", "return redis.call('GET', KEYS[1])", "1", "k"),
    ("SCRIPT", "LOAD", "return 1"), ("EVALSHA", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "0"),
    ("SET", "n", "x"), ("INCR", "n"), ("HSET", "h", "f", "v"), ("ZADD", "z", "1", "m"),
    ("MULTI",), ("SET", "a", "b c"), ("INCR", "a"), ("EXEC",),
    ("MULTI",), ("GET", "n"), ("NOSUCH",), ("EXEC",),
    ("MULTI",), ("MONITOR",), ("EXEC",),
    ("SET", "bin", b"a\x01\n\"\\\x00\xff\t\r\x07\x08 z"), ("ECHO", "caf\xc3\xa9".encode("latin1")),
    ("PING",), ("PING", "hi"), ("CLIENT", "SETNAME", "x"), ("CLIENT", "GETNAME"),
    ("CLIENT", "LIST", "ID", "999999"), ("CLIENT", "KILL", "ID", "999999"), ("CLIENT", "ID"),
    ("SUBSCRIBE", "ch"), ("PING",), ("UNSUBSCRIBE",), ("PUBLISH", "ch", "m"),
    ("INFO", "server"), ("DEL", "k", "nothing"), ("EXISTS", "k"), ("TYPE", "h"),
]

LINE = re.compile(rb"^\+(\d+)\.(\d{6}) \[0 ([^\]]+)\] (.*)$")


def _masked(line):
    m = LINE.match(line)
    assert m, line
    origin = b"lua" if m.group(3) == b"lua" else b"client"
    return b"[" + origin + b"] " + m.group(4)


class Monitor:
    """A raw connection in monitor mode; reads its lines up to a marker."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(10)
        self.buf = b""
        self.send("MONITOR")
        assert self.line() == b"+OK"

    def send(self, *args):
        self.sock.sendall(encode(*args))

    def line(self):
        while b"\r\n" not in self.buf:
            data = self.sock.recv(65536)
            assert data, "connection closed"
            self.buf += data
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def lines_until(self, marker):
        lines = []
        while True:
            line = self.line()
            lines.append(line)
            if marker.encode() in line:
                return lines

    def close(self):
        self.sock.close()


def _feed(port):
    monitor = Monitor(port)
    client = RespClient(port)
    for cmd in SEQUENCE:
        client.call_raw(*cmd)
    with RespClient(port) as leaving:
        leaving.call_raw("QUIT")
    client.call_raw("ECHO", END)
    lines = monitor.lines_until(END)
    client.close()
    monitor.close()
    return lines


def test_monitor_shows_what_redis_shows(redis_server, sluiced):
    before = time.time()
    redis_lines = [_masked(line) for line in _feed(redis_server.port)]
    sluice_raw = _feed(sluiced.port)
    assert [_masked(line) for line in sluice_raw] == redis_lines
    first = LINE.match(sluice_raw[0])
    assert abs(int(first.group(1)) - before) < 60  # the wall clock, in seconds.micros


def test_a_monitoring_client_may_not_touch_keys_and_reset_ends_it(redis_server, sluiced):
    for port in (redis_server.port, sluiced.port):
        monitor = Monitor(port)
        monitor.send("PING")
        assert monitor.line() == b"+PONG"
        assert _masked(monitor.line()) == b'[client] "PING"'  # its own command, after the reply
        for cmd in (("GET", "k"), ("SET", "k", "v"), ("RL.FIXEDWINDOW", "k", "1", "1000")):
            if port == redis_server.port and cmd[0].startswith("RL."):
                continue
            monitor.send(*cmd)
            assert monitor.line() == b"-ERR Replica can't interact with the keyspace"
        monitor.send("MONITOR")  # already monitoring: no reply at all
        monitor.send("RESET")
        assert monitor.line() == b"+RESET"  # it left monitor mode first: no line of its RESET
        monitor.send("PING")
        monitor.send("GET", "k")
        assert monitor.line() == b"+PONG"  # no line of its own any more
        assert monitor.line() == b"$-1"  # and the key space is open again
        monitor.close()


def test_a_monitor_that_quits_gets_no_line_of_its_quit_as_redis(redis_server, sluiced):
    """QUIT's +OK is the last thing a client gets, as Redis adds nothing to a client closing
    after its reply: a monitor's own QUIT line never comes."""
    for port in (redis_server.port, sluiced.port):
        monitor = Monitor(port)
        monitor.send("QUIT")
        assert monitor.line() == b"+OK"
        rest = b""
        while data := monitor.sock.recv(65536):
            rest += data
        assert monitor.buf + rest == b"", port
        monitor.sock.close()


def test_client_list_flags_a_monitor(sluiced):
    monitor = Monitor(sluiced.port)
    client = RespClient(sluiced.port)
    listing = client.call("CLIENT", "LIST").decode()
    flags = re.findall(r"flags=(\S+)", listing)
    assert sorted(flags) == ["N", "O"]
    client.close()
    monitor.close()


def test_lines_are_simple_strings_in_resp3_too(sluiced):
    monitor = Monitor(sluiced.port)
    monitor.send("HELLO", "3")
    monitor.line()  # HELLO's map header; its fields come before the line looked for below
    client = RespClient(sluiced.port)
    client.call("SET", "k", END)
    line = monitor.lines_until(END)[-1]
    assert line.startswith(b"+")
    assert _masked(line) == b'[client] "SET" "k" "%s"' % END.encode()
    client.close()
    monitor.close()
