"""COMMAND DOCS, which redis-cli 7.0 builds all its interactive help from: argument hints as
one types, `help <command>`, the completion of subcommands. For every command and subcommand
both servers have, the hint redis-cli renders from sluice's docs is the one it renders from
Redis's; the argument trees, the `since` versions and the reply's shape (RESP2 and RESP3) match
Redis 7.0's too, while the summaries are sluice's own words. Then the real interactive
redis-cli, through a pseudo-terminal.
"""

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time

import pytest

import servers

# The fields sluice leaves out of a command's docs (docs/notes.md, "Introspection").
_UNSHOWN = {"complexity", "history", "doc_flags", "deprecated_since", "replaced_by"}


def _plain(value):
    """A decoded RESP3 reply as dicts, lists and strs (bytes decoded)."""
    if isinstance(value, servers.Map):
        return {_plain(k): _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    return value


def _all_docs(server):
    """name -> docs of every command and subcommand ("client|kill"), from COMMAND DOCS."""
    with server.client() as c:
        c.call("HELLO", "3")
        top = _plain(c.call("COMMAND", "DOCS"))
    out = {}
    for name, doc in top.items():
        out[name] = doc
        out.update(doc.get("subcommands", {}))
    return out


def _hint_argument(arg):
    """One argument as redis-cli 7.0's cliAddArgument writes it."""
    token = arg.get("token")
    token_part = "" if token is None else (token or '""')
    kind = arg["type"]
    if kind == "oneof":
        repeat = "|".join(_hint_argument(a) for a in arg["arguments"])
    elif kind == "block":
        repeat = " ".join(_hint_argument(a) for a in arg["arguments"])
    elif kind == "pure-token":
        repeat = ""
    else:
        repeat = arg["name"] or '""'
    if token_part and kind != "pure-token":
        token_part += " "
    flags = {str(f) for f in arg.get("flags", [])}
    out = token_part + repeat
    if "multiple" in flags:
        out += " [" + (token_part if "multiple_token" in flags else "") + repeat + " ...]"
    return "[" + out + "]" if "optional" in flags else out


def _hint(doc):
    return " ".join(_hint_argument(a) for a in doc.get("arguments", []))


def _arguments_without_since(args):
    """The argument trees, less the per-argument history sluice does not keep."""
    out = []
    for arg in args:
        kept = {k: v for k, v in arg.items() if k not in ("since", "deprecated_since")}
        if "flags" in kept:
            kept["flags"] = sorted(str(f) for f in kept["flags"])
        if "arguments" in kept:
            kept["arguments"] = _arguments_without_since(kept["arguments"])
        out.append(kept)
    return out


@pytest.fixture
def both_docs(redis_server, sluiced):
    return _all_docs(redis_server), _all_docs(sluiced)


def test_hints_match_redis_for_every_shared_command(both_docs):
    theirs, ours = both_docs
    shared = sorted(set(theirs) & set(ours))
    assert len(shared) > 300, len(shared)
    wrong = {n: (_hint(ours[n]), _hint(theirs[n])) for n in shared
             if _hint(ours[n]) != _hint(theirs[n])}
    assert not wrong, f"hints differ (sluice, redis): {wrong}"
    # The ones the brief names, as redis-cli shows them.
    assert _hint(ours["set"]) == ("key value [NX|XX] [GET] [EX seconds|PX milliseconds|"
                                  "EXAT unix-time-seconds|PXAT unix-time-milliseconds|KEEPTTL]")
    assert _hint(ours["client|kill"]).startswith("ip:port|[ID client-id]|[TYPE NORMAL|MASTER|")


def test_arguments_and_since_match_redis(both_docs):
    theirs, ours = both_docs
    shared = sorted(set(theirs) & set(ours))
    wrong_args = [n for n in shared if _arguments_without_since(ours[n].get("arguments", []))
                  != _arguments_without_since(theirs[n].get("arguments", []))]
    assert not wrong_args, wrong_args
    wrong_since = {n: (ours[n]["since"], theirs[n]["since"]) for n in shared
                   if ours[n]["since"] != theirs[n]["since"]}
    assert not wrong_since, wrong_since
    wrong_group = {n: (ours[n]["group"], theirs[n]["group"]) for n in shared
                   if ours[n]["group"] != theirs[n]["group"]}
    assert not wrong_group, wrong_group
    # Containers list their subcommands, as Redis's do (sluice has a few more: CLIENT
    # SETINFO and NO-TOUCH from 7.2).
    for container in ("client", "command", "config", "slowlog", "latency", "cluster", "pubsub",
                      "object", "memory", "script", "acl", "function"):
        assert set(ours[container]["subcommands"]) >= (
            set(theirs[container]["subcommands"]) & set(ours)), container


def test_every_summary_is_sluices_own_and_not_empty(both_docs):
    theirs, ours = both_docs
    assert all(doc["summary"] for doc in ours.values()), [n for n, d in ours.items()
                                                         if not d["summary"]]
    same = [n for n in set(theirs) & set(ours)
            if ours[n]["summary"].rstrip(".").lower() == theirs[n]["summary"].rstrip(".").lower()]
    assert not same, same


def test_sluice_commands_have_docs_with_arguments(both_docs):
    theirs, ours = both_docs
    own = sorted(n for n in ours if n not in theirs and "|" not in n)
    assert {"rl.gcra", "rl.smooth", "cl.throttle", "rl.take", "rl.policy"} <= set(own), own
    for name in own:
        doc = ours[name]
        assert doc["since"] == "1.0.0" and doc["group"] == "limiter", (name, doc)
        if name == "rl.policy":
            assert set(doc["subcommands"]) == {"rl.policy|" + s for s in
                                               ("set", "get", "del", "list", "help")}
        else:
            assert doc.get("arguments"), name
    assert _hint(ours["rl.tokenbucket"]) == (
        "key capacity tokens period_ms [COST cost] [BLOCK milliseconds]")
    assert _hint(ours["rl.smooth"]) == (
        "key permits_per_second [MAXBURST seconds] [WARMUP warmup_ms [COLDFACTOR cold_factor]] "
        "[COST cost] [TIMEOUT timeout_ms]")
    assert _hint(ours["rl.policy|set"]) == (
        "name FIXEDWINDOW|SLIDINGLOG|SLIDINGWINDOW|TOKENBUCKET|LEAKYBUCKET|GCRA "
        "argument [argument ...]")
    assert _hint(ours["rl.take"]) == "key policy [policy ...] [COST cost] [BLOCK milliseconds]"


def _shape(value):
    """A reply's RESP types and structure, strings' contents left out."""
    if isinstance(value, servers.Map):
        return ("map", [(k, _shape(v)) for k, v in value])
    if isinstance(value, servers.Set):
        return ("set", [_shape(v) for v in value])
    if isinstance(value, list):
        return ("array", [_shape(v) for v in value])
    if isinstance(value, servers.Status):
        return ("status", str(value))
    if isinstance(value, int):
        return ("int", value)
    return ("bulk",)


def _drop(fields, drop, resp3):
    """A docs map's fields (RESP3 Map, or RESP2 flat array) less those named in `drop`, the
    arguments' own `since` and `deprecated_since` left out too."""
    pairs = list(fields) if resp3 else list(zip(fields[0::2], fields[1::2]))
    kept = []
    for k, v in pairs:
        if k.decode() in drop:
            continue
        if k == b"arguments":
            v = type(v)(_drop(a, {"since", "deprecated_since"}, resp3) for a in v)
        kept.append((k, v))
    return servers.Map(kept) if resp3 else [x for pair in kept for x in pair]


def _without_unshown(reply, resp3):
    """COMMAND DOCS of one command less the fields sluice leaves out."""
    if resp3:
        return servers.Map([(reply[0][0], _drop(reply[0][1], _UNSHOWN, resp3))])
    return [reply[0], _drop(reply[1], _UNSHOWN, resp3)]


@pytest.mark.parametrize("resp3", [False, True])
def test_reply_shape_matches_redis(redis_server, sluiced, resp3):
    """Field order, arrays, maps, sets of status flags: as Redis 7.0's (summaries aside)."""
    for name in ("set", "zadd", "getex", "client", "object", "get", "ping"):
        replies = []
        for server in (redis_server, sluiced):
            with server.client() as c:
                if resp3:
                    c.call("HELLO", "3")
                replies.append(_without_unshown(c.call("COMMAND", "DOCS", name), resp3))
        theirs, ours = replies
        if name in ("client", "object"):  # subcommands: same shape, each in its own order
            assert len(ours) == len(theirs)
            continue
        assert _shape(ours) == _shape(theirs), name


def test_unknown_names_and_subcommands_by_full_name(redis_server, sluiced):
    for server in (redis_server, sluiced):
        with server.client() as c:
            assert c.call("COMMAND", "DOCS", "nosuch") == []
            names = c.call("COMMAND", "DOCS", "get", "nosuch", "set")[0::2]
            assert names == [b"get", b"set"]
            # A subcommand by its full name.
            assert c.call("COMMAND", "DOCS", "CLIENT|KILL", "client|nosuch")[0::2] == [
                b"client|kill"]


# ---------------------------------------------------------------------------------------------
# The interactive redis-cli, through a pseudo-terminal.


class _Terminal:
    """redis-cli in interactive mode on a pty, as a person at an xterm runs it."""

    PROMPT = r"127\.0\.0\.1:\d+> $"

    def __init__(self, port):
        self.master, slave = pty.openpty()
        # A window size, or linenoise asks the terminal where its cursor is to find one.
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        env = dict(os.environ, TERM="xterm", REDISCLI_HISTFILE="/dev/null",
                   REDISCLI_RCFILE="/dev/null")
        self.proc = subprocess.Popen(
            [servers.redis_cli_path(), "-h", "127.0.0.1", "-p", str(port)],
            stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.seen = b""
        self.mark = 0  # where the output of what was typed last starts

    def read_until(self, pattern, timeout=10.0):
        """The screen's text since the last thing typed (less escape sequences), once it
        matches `pattern`."""
        deadline = time.monotonic() + timeout
        while not re.search(pattern, _plain_text(self.seen[self.mark:])):
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.seen[self.mark:][-2000:]!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break
        return _plain_text(self.seen[self.mark:])

    def type(self, text):
        self.mark = len(self.seen)
        os.write(self.master, text.encode())

    def run(self, line):
        """Types `line` and Enter; its output once the next prompt shows."""
        self.type(line + "\r")
        return self.read_until(r"\n" + self.PROMPT)

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)
        os.close(self.master)


@pytest.fixture
def terminal():
    if servers.redis_cli_path() is None:
        pytest.skip("redis-cli is not installed (apt-get install redis-tools)")
    opened = []

    def open_on(server):
        t = _Terminal(server.port)
        opened.append(t)
        t.read_until(_Terminal.PROMPT)
        return t

    yield open_on
    for t in opened:
        t.close()


def _plain_text(data):
    """Terminal output less its escape sequences and carriage returns."""
    return re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]|\r", b"", data).decode(errors="replace")


def test_interactive_help_and_hints(sluiced, terminal):
    t = terminal(sluiced)
    out = t.run("help set")
    assert ("SET key value [NX|XX] [GET] [EX seconds|PX milliseconds|EXAT unix-time-seconds|"
            "PXAT unix-time-milliseconds|KEEPTTL]") in out, out
    assert "summary: Stores a string at a key" in out, out
    assert "since: 1.0.0" in out and "group: string" in out, out
    # As one types, the hint follows the cursor.
    t.type("set ")
    t.read_until(r"set key value \[NX\|XX\] \[GET\] \[EX seconds")
    t.type("\x15")  # ^U: the line is empty again
    # Subcommands complete from the docs, as CLIENT KILL does against Redis.
    t.type("client kil\t")
    t.read_until(r"CLIENT KILL")
    t.type("\x15")
    out = t.run("help client")
    assert "CLIENT KILL" in out and "CLIENT LIST" in out and "CLIENT TRACKING" in out, out
    out = t.run("help rl.tokenbucket")
    assert "RL.TOKENBUCKET key capacity tokens period_ms [COST cost] [BLOCK milliseconds]" in out
    assert "group: limiter" in out, out
