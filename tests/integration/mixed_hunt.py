"""Mixed-type random sequences (mixed_commands.py) sent to redis-server and sluiced, every reply
compared, stopping at the first difference with the seed, the step, the command, both replies
and a reproduction shrunk to the commands that matter.

After the commands, a sequence also compares how it moved keyspace_hits and keyspace_misses and
what the keys hold at its end (type, contents, TTL, encoding), read on connections of their own.

Replies are compared byte for byte, except where Redis leaves them open (docs/notes.md):
- unordered: HGETALL, HKEYS, HVALS, SMEMBERS and the set algebra, SPOP and SRANDMEMBER (whole
  sets only), HRANDFIELD and ZRANDMEMBER (whole), the *SCAN pages, KEYS: multisets of the same
  RESP types;
- RANDOMKEY: any key when the key space holds more than one;
- TTL, PTTL, EXPIRETIME, PEXPIRETIME: differential.CLOCK_TOLERANCE;
- OBJECT ENCODING where Redis's answer remembers the key's history (a string made by APPEND,
  SETRANGE, SETBIT, BITOP or BITFIELD stays `raw`, INCRBYFLOAT makes an `embstr` of what
  looks like an integer, a hash or set once converted stays a `hashtable`);
and the same inside EXEC's reply (each queued command by its own rule) and EVAL's (the rule of
the command the script calls). A sequence stops comparing at a difference after which the two
servers knowingly hold unlike states (parts_knowingly); the summary counts those.

The long hunt, by hand (starts its own servers; SLUICED as for the integration tests):
    SLUICED=build-rel/sluiced python3 tests/integration/mixed_hunt.py --seeds 2000
Options: --first N (first seed), --resp 2 3, --length N (steps per sequence), --keep-going
(report every failing seed), --no-keyspace (skip the counters), --pipeline N (send up to N
steps in a row before reading their replies), --redis-port/--sluiced-port (use running
servers: they are flushed). 1,000 seeds in both protocols take 2 to 5 minutes.
test_differential_mixed.py runs a fixed handful of seeds in the suite.
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mixed_commands  # noqa: E402
import servers  # noqa: E402
from differential import CLOCK_TOLERANCE, Differ  # noqa: E402
from keyspace_counts import keyspace_counters  # noqa: E402

UNORDERED = {"HGETALL", "HKEYS", "HVALS", "HRANDFIELD", "SMEMBERS", "SINTER", "SUNION", "SDIFF",
             "SPOP", "SRANDMEMBER", "ZRANDMEMBER", "HSCAN", "SSCAN", "ZSCAN", "SCAN", "KEYS"}
# (Redis's answer, sluice's) for OBJECT ENCODING where Redis's depends on the key's history.
HISTORY_ENCODINGS = {(b"raw", b"embstr"), (b"raw", b"int"), (b"embstr", b"int"),
                     (b"hashtable", b"listpack"), (b"hashtable", b"intset")}
SCRIPTS = {"EVAL", "EVAL_RO", "EVALSHA", "EVALSHA_RO"}
SCANS = {"SCAN", "HSCAN", "SSCAN", "ZSCAN"}
SORT_ERANGE = servers.Error("ERR One or more scores can't be converted into double")


class _Bytes(servers.RespClient):
    """RespClient's parser over bytes already received."""

    def __init__(self, data):  # no socket
        self.buf, self.pos, self.port = data, 0, None

    def _fill(self):
        raise AssertionError("truncated reply")


def parse(raw):
    return _Bytes(raw).read_reply_raw()[0]


def array_elements(raw):
    """The raw bytes of each element of an array reply; None if it is not an array."""
    p = _Bytes(raw)
    header = p._line()
    if header[:1] != b"*" or int(header[1:]) < 0:
        return None
    return [p.read_reply_raw()[1] for _ in range(int(header[1:]))]


def _canonical(value):
    """A form in which every array, set and map is sorted (types kept)."""
    if isinstance(value, list):
        items = value if not isinstance(value, servers.Map) else [(k, v) for k, v in value]
        return (type(value).__name__, tuple(sorted(repr(_canonical(x)) for x in items)))
    return (type(value).__name__, value)


def _walk(r, s, leaf_ok):
    """r and s alike up to leaves that leaf_ok accepts."""
    if isinstance(r, list) and isinstance(s, list):
        return type(r) is type(s) and len(r) == len(s) and all(
            _walk(x, y, leaf_ok) for x, y in zip(r, s))
    if type(r) is type(s) and r == s:
        return True
    return leaf_ok(r, s)


def _clock_ok(name):
    tolerance = CLOCK_TOLERANCE[name]
    return lambda r, s: (isinstance(r, int) and isinstance(s, int) and r >= 0 and s >= 0
                         and abs(r - s) <= tolerance)


def _partial_pages(r, s):
    """A page of a scan that has not ended: cursors and pages are each server's own (a Redis
    hash table's buckets, sluice's key order), and where one server answers a collection whole
    the other may page it (docs/notes.md, SSCAN and HSCAN): only whole answers compare."""
    def partial(page):
        return isinstance(page, list) and len(page) == 2 and page[0] != b"0"
    return partial(r) or partial(s)


def _rule(cmd, encodings=HISTORY_ENCODINGS):
    """How two different replies to `cmd` may still be the same answer (None: they may not)."""
    name = str(cmd[0]).upper()
    if name in SCRIPTS and len(cmd) > 3:
        inner = _rule(cmd[3:], encodings)  # the scripts call ARGV as a command
        if inner is None:
            return None
        # One script returns the call's reply inside a table of one ({redis.call(...)}).
        return lambda r, s: inner(r, s) or (
            isinstance(r, list) and isinstance(s, list) and len(r) == len(s) == 1
            and inner(r[0], s[0]))
    if name in SCANS:
        return lambda r, s: _partial_pages(r, s) or _canonical(r) == _canonical(s)
    if name in UNORDERED:
        return lambda r, s: _canonical(r) == _canonical(s)
    if name in CLOCK_TOLERANCE:
        return lambda r, s: _walk(r, s, _clock_ok(name))
    if name == "OBJECT":
        return lambda r, s: _walk(r, s, lambda a, b: (a, b) in encodings)
    if name == "RANDOMKEY":
        return lambda r, s: _walk(r, s, lambda a, b: isinstance(a, bytes) and
                                  isinstance(b, bytes))
    if name in ("SORT", "SORT_RO") and not any(str(a).upper() == "ALPHA" for a in cmd):
        # Redis's numeric SORT reads a stale errno: after a command that left ERANGE there (a
        # score of 1e309), a weight that is not an integer fails it (docs/notes.md, "SORT and
        # LCS", difference 4).
        return lambda r, s: r == SORT_ERANGE and isinstance(s, list)
    return None


def equivalent(cmd, rraw, sraw, queued=None, encodings=HISTORY_ENCODINGS):
    """Whether the two replies to `cmd` are the same answer; `queued`: the commands an EXEC
    runs, whose replies are judged one by one; `encodings`: the (Redis's, sluice's) OBJECT
    ENCODING answers taken as the same."""
    if rraw == sraw:
        return True
    if str(cmd[0]).upper() == "EXEC" and queued is not None:
        relems, selems = array_elements(rraw), array_elements(sraw)
        if relems is None or selems is None or not len(relems) == len(selems) == len(queued):
            return False
        return all(equivalent(q, r, s, None, encodings)
                   for q, r, s in zip(queued, relems, selems))
    rule = _rule(cmd, encodings)
    return rule is not None and rule(parse(rraw), parse(sraw))


def _words(cmd):
    return {str(a).upper() for a in cmd}


class Transaction:
    """Connection 0's MULTI and WATCH as its Redis replies left them, before the current step."""

    def __init__(self):
        self.in_multi, self.queued, self.multi_at = False, [], None
        self.watched_from = None  # the first WATCH still in effect

    def follow(self, i, cmd, rraw):
        name = str(cmd[0]).upper()
        if self.in_multi and rraw == b"+QUEUED\r\n":
            self.queued.append(cmd)
        elif name == "WATCH" and rraw == b"+OK\r\n" and self.watched_from is None:
            self.watched_from = i
        elif name == "MULTI" and rraw == b"+OK\r\n":
            self.in_multi, self.queued, self.multi_at = True, [], i
        elif self.in_multi and name in ("EXEC", "DISCARD"):
            self.in_multi, self.watched_from = False, None
        elif (name == "UNWATCH" and rraw == b"+OK\r\n") or name == "RESET":
            self.watched_from = None
            self.in_multi = self.in_multi and name != "RESET"


def parts_knowingly(steps, i, rraw, sraw, tx):
    """Whether step `i` is one of the differences docs/notes.md records after which the two
    servers hold unlike states, so that nothing after it compares (session 82); `tx`:
    connection 0's transaction state before it:
    - Redis's numeric SORT failing on a stale errno ("SORT and LCS", difference 4) where sluice
      went on to store the result or to look keys up (STORE, GET, BY: the final state or the
      keyspace counters part), alone or inside EXEC (session 83);
    - EXEC answering nil in sluice only, the WATCH broken by a BITFIELD whose writes failed
      under OVERFLOW FAIL ("Bitmaps", one difference), called directly or by a script, on any
      connection while the WATCH held (session 83): the transaction ran in Redis only."""
    conn, cmd = steps[i]
    if _sort_parts(cmd, rraw, sraw):
        return True
    if str(cmd[0]).upper() != "EXEC" or conn != 0 or not tx.in_multi:
        return False
    relems, selems = array_elements(rraw), array_elements(sraw)
    if (relems is not None and selems is not None and len(relems) == len(selems) == len(tx.queued)
            and any(_sort_parts(q, r, s) for q, r, s in zip(tx.queued, relems, selems))):
        return True
    if sraw in (b"*-1\r\n", b"_\r\n") and rraw[:1] == b"*" and tx.watched_from is not None:
        # What ran while the WATCH held: not connection 0's commands queued after its MULTI.
        ran = [c for j, (c_conn, c) in enumerate(steps[:i]) if j > tx.watched_from
               and not (c_conn == 0 and j > tx.multi_at)]
        return any({"BITFIELD", "FAIL"} <= _words(c) for c in ran)
    return False


def _sort_parts(cmd, rraw, sraw):
    """A numeric SORT that failed on Redis's stale errno and went on in sluice."""
    words = _words(cmd[1:])
    return (str(cmd[0]).upper() in ("SORT", "SORT_RO") and "ALPHA" not in words
            and bool(words & {"STORE", "GET", "BY"})
            and parse(rraw) == SORT_ERANGE and parse(sraw) != SORT_ERANGE)


class Mismatch:
    def __init__(self, index, cmd, rraw, sraw, where="step"):
        self.index, self.cmd, self.rraw, self.sraw, self.where = index, cmd, rraw, sraw, where

    def signature(self):
        """What a shrunk sequence must still get wrong to count as the same difference."""
        return (self.where, show(self.cmd) if self.where != "step" else None)

    def __str__(self):
        return (f"{self.where} {self.index}: {show(self.cmd)}\n"
                f"    redis:   {self.rraw!r}\n    sluiced: {self.sraw!r}")


def show(cmd):
    out = []
    for arg in cmd:
        text = arg.decode("latin-1") if isinstance(arg, bytes) else str(arg)
        plain = text and not any(c in text for c in " \r\n\0\"'\\") and text.isprintable()
        out.append(text if plain else repr(text))
    return " ".join(out)


def _epilogue(side):
    """Read back what every key holds at the end: (command, reply raw) pairs for both servers."""
    keys = mixed_commands.KEYS + mixed_commands.KEY_EXTRAS
    reads = {"string": [("GET",)], "hash": [("HGETALL",)], "list": [("LRANGE", "0", "-1")],
             "set": [("SMEMBERS",)], "zset": [("ZRANGE", "0", "-1", "WITHSCORES")]}
    for key in keys:
        (rtype, rraw), (_, sraw) = side.both("TYPE", key)
        yield ("TYPE", key), rraw, sraw
        if rraw != sraw:
            return
        for read in reads.get(str(rtype), []):
            cmd = (read[0], key, *read[1:])
            yield cmd, *(raw for _, raw in side.both(*cmd))
        if rtype != "none":
            for cmd in (("PTTL", key), ("OBJECT", "ENCODING", key)):
                yield cmd, *(raw for _, raw in side.both(*cmd))


class Pair:
    """Connections to a redis-server and a sluiced; run() plays one sequence on both."""

    encodings = HISTORY_ENCODINGS  # OBJECT ENCODING answers taken as the same
    pipeline = 1  # steps sent before their replies are read (see _replies)
    cut_short = 0  # sequences that stopped comparing at a documented difference

    def __init__(self, redis_port, sluiced_port, protocol, keyspace=True):
        self.ports, self.protocol, self.keyspace = (redis_port, sluiced_port), protocol, keyspace
        self.side = Differ(redis_port, sluiced_port)

    def close(self):
        self.side.close()

    def reset(self):
        for client in (self.side.redis, self.side.sluice):
            for command in (("FLUSHALL",), ("CONFIG", "RESETSTAT")):
                assert client.call(*command) == "OK", (command, client.port)

    def run(self, steps):
        """The first Mismatch of `steps` on freshly emptied servers, or None."""
        self.reset()
        conns = [Differ(*self.ports, protocol=self.protocol) for _ in range(2)]
        try:
            return self._run(steps, conns)
        finally:
            for d in conns:
                d.close()

    def _replies(self, steps, conns):
        """(index, connection, command, Redis's reply, sluiced's raw reply) for each step,
        or a Mismatch where a connection closed. With pipeline > 1, up to that many steps in a
        row on one connection are sent before their replies are read (a RANDOMKEY ends a
        batch: its check reads DBSIZE)."""
        i = 0
        while i < len(steps):
            conn = steps[i][0]
            batch = [steps[i][1]]
            while (len(batch) < self.pipeline and i + len(batch) < len(steps)
                   and steps[i + len(batch)][0] == conn
                   and str(batch[-1][0]).upper() != "RANDOMKEY"):
                batch.append(steps[i + len(batch)][1])
            side = conns[conn]
            try:
                for client in (side.redis, side.sluice):
                    client.send(b"".join(servers.encode(*cmd) for cmd in batch))
                replies = [(side.redis.read_reply_raw(), side.sluice.read_reply_raw())
                           for _ in batch]
            except servers.ConnectionClosed as e:
                yield Mismatch(i, batch[0], b"", str(e).encode())
                return
            for cmd, ((rv, rraw), (_, sraw)) in zip(batch, replies):
                yield i, conn, cmd, (rv, rraw), sraw
                i += 1

    def _run(self, steps, conns):
        tx = Transaction()
        for item in self._replies(steps, conns):
            if isinstance(item, Mismatch):
                return item
            i, conn, cmd, (rv, rraw), sraw = item
            name = str(cmd[0]).upper()
            if parts_knowingly(steps, i, rraw, sraw, tx):
                self.cut_short += 1
                return None
            runs = tx.queued if (conn == 0 and tx.in_multi and name == "EXEC") else None
            if not equivalent(cmd, rraw, sraw, runs, self.encodings) or not self._randomkey_ok(
                    name, rv, rraw, sraw, conns[conn]):
                return Mismatch(i, cmd, rraw, sraw)
            if conn == 0:
                tx.follow(i, cmd, rraw)
        if self.keyspace:
            counts = [keyspace_counters(c) for c in (self.side.redis, self.side.sluice)]
            if counts[0] != counts[1]:
                return Mismatch(len(steps), ("INFO", "stats"), repr(counts[0]).encode(),
                                repr(counts[1]).encode(), where="keyspace counters")
        for cmd, rraw, sraw in self.final_state():
            if not equivalent(cmd, rraw, sraw, None, self.encodings):
                return Mismatch(len(steps), cmd, rraw, sraw, where="final state")
        return None

    def final_state(self):
        """(command, Redis's reply raw, sluiced's) pairs that read back the keys at the end."""
        return _epilogue(self.side)

    def _randomkey_ok(self, name, rv, rraw, sraw, conn):
        """Two different keys from RANDOMKEY are only right if there were several to pick
        (`conn`: the connections the step ran on)."""
        if name != "RANDOMKEY" or rraw == sraw or not isinstance(rv, bytes):
            return True
        return self.side.redis.call("DBSIZE") > 1


def shrink(pair, steps, mismatch):
    """Greedily drop steps (halves first, then ever smaller chunks, down to single steps) while
    the run still fails the same way: at the failing command, now last, for a reply; at the end
    for the counters and the final state. Returns (steps, whether it failed again at all)."""
    tail = []
    body = list(steps)
    if mismatch.where == "step":
        body, tail = body[:mismatch.index], [body[mismatch.index]]

    def still_fails(candidate):
        found = pair.run(candidate + tail)
        if found is None or found.signature() != mismatch.signature():
            return False
        return found.where != "step" or found.index == len(candidate)

    if not still_fails(body):
        return steps, False
    chunk = max(1, len(body) // 2)
    while chunk >= 1:
        i = 0
        while i < len(body):
            candidate = body[:i] + body[i + chunk:]
            if still_fails(candidate):
                body = candidate
            else:
                i += chunk
        chunk //= 2
    return body + tail, True


def reproduction(steps):
    """The shrunk steps as Python, ready for a differential test."""
    lines = []
    for conn, cmd in steps:
        args = ", ".join(repr(a) for a in cmd)
        lines.append(f"    ({conn}, ({args},)),")
    return "[\n" + "\n".join(lines) + "\n]"


def hunt(pair, seeds, length=None, keep_going=False, out=print, make=mixed_commands.sequence):
    """Run each seed's sequence (`make(seed, length)`); report failures with their shrunk
    reproduction. Returns the failing seeds."""
    failing = []
    for seed in seeds:
        steps = make(seed, length)
        found = pair.run(steps)
        if found is None:
            continue
        failing.append(seed)
        out(f"seed {seed} (RESP{pair.protocol}), {found}")
        small, reproduced = shrink(pair, steps, found)
        if reproduced:
            again = pair.run(small)
            out(f"  shrunk to {len(small)} steps, ending {again}\n{reproduction(small)}")
        else:
            out("  did not fail again on a second run (timing?)")
        if not keep_going:
            break
    return failing


def _start_servers(workdir):
    redis_server = servers.RedisServer(workdir / "redis")
    sluiced = servers.Sluiced(workdir / "sluiced")
    (workdir / "redis").mkdir()
    (workdir / "sluiced").mkdir()
    redis_server.start()
    sluiced.start()
    return redis_server, sluiced


def main(pair_class=Pair, make=mixed_commands.sequence, doc=__doc__):
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--resp", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--length", type=int, default=None)
    parser.add_argument("--keep-going", action="store_true")
    parser.add_argument("--no-keyspace", action="store_true")
    parser.add_argument("--pipeline", type=int, default=1,
                        help="send up to N steps in a row on one connection before reading")
    parser.add_argument("--redis-port", type=int)
    parser.add_argument("--sluiced-port", type=int)
    args = parser.parse_args()
    started = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.redis_port and args.sluiced_port:
            ports = (args.redis_port, args.sluiced_port)
        else:
            started = _start_servers(Path(tmp))
            ports = tuple(s.port for s in started)
        try:
            failing, cut_short = [], 0
            for protocol in args.resp:
                pair = pair_class(*ports, protocol, keyspace=not args.no_keyspace)
                pair.pipeline = args.pipeline
                seeds = range(args.first, args.first + args.seeds)
                failing += [(protocol, s) for s in
                            hunt(pair, seeds, args.length, args.keep_going, make=make)]
                cut_short += pair.cut_short
                pair.close()
                if failing and not args.keep_going:
                    break
            print(f"{len(failing)} failing: {failing}" if failing else
                  f"no difference in {args.seeds} seeds x RESP{args.resp}")
            if cut_short:
                print(f"{cut_short} sequences stopped comparing at a difference docs/notes.md "
                      "records (parts_knowingly)")
        finally:
            for server in started:
                if isinstance(server, servers.Sluiced):
                    server.terminate()
                server.cleanup()
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
