#!/usr/bin/env python3
"""Crash consistency of sluiced: kill -9 at random moments loses nothing acknowledged.

For each appendfsync mode, several client threads run pipelined batches of writes against one
sluiced:
  - INCR on a counter of their own (every acknowledged value is exactly one more than the last),
  - MULTI / INCR pa / INCR pb / EXEC (both counters move together or not at all),
  - SET of an increasing sequence number,
  - RL.FIXEDWINDOW and RL.SLIDINGLOG decisions on shared keys with a known limit and a window
    far longer than the run (every acknowledged "allowed" is recorded).
A killer sends SIGKILL at a random moment; the daemon is restarted on the same `dir`, and a
checker verifies, for every client and key, that the stored state holds every acknowledged
write (and at most the writes that were in flight when the process died), that the MULTI pairs
are equal, and that no limiter ever admitted more than its limit summed over all the kills.
Then the clients go on against the restarted daemon, and it is killed again. At the end a clean
SIGTERM restart is checked the same way.

kill -9 must lose nothing acknowledged in ANY appendfsync mode: the WAL write (to the OS)
happens before the reply; appendfsync only matters when the OS itself goes down.

    SLUICED=build/sluiced tests/crash/crash_test.py --kills 5 --modes always,everysec,no

Prints its figures; exits 0 when every check held, 1 otherwise.
"""

import argparse
import os
import random
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "integration"))
import servers  # noqa: E402

WINDOW_MS = 3_600_000  # far longer than any run: limiter windows never roll over
# (command, key, limit): small limits are exhausted early in the run, large ones never.
LIMITERS = [
    ("RL.FIXEDWINDOW", "rl:fixed:small", 150),
    ("RL.FIXEDWINDOW", "rl:fixed:large", 1_000_000),
    ("RL.SLIDINGLOG", "rl:log:small", 300),
    ("RL.SLIDINGLOG", "rl:log:mid", 3_000),
]


class CheckFailed(AssertionError):
    pass


@dataclass
class ClientState:
    """What one client knows was acknowledged, and what it sent without seeing the reply."""

    idx: int
    counter: int = 0           # last acknowledged INCR value (the stored value is at least this)
    counter_unacked: int = 0   # INCRs sent in the batch that died
    pairs: int = 0             # acknowledged MULTI/EXEC pairs
    pairs_unacked: int = 0
    seq_acked: int = 0         # last acknowledged SET value
    seq_sent: int = 0          # last SET value sent
    ops_acked: int = 0
    allowed_acked: dict = field(default_factory=dict)   # limiter key -> acked allowed (this run)
    refused_acked: dict = field(default_factory=dict)
    limiter_unacked: dict = field(default_factory=dict)  # limiter key -> calls in the dead batch
    error: str = ""

    def counter_key(self):
        return f"ctr:{self.idx}"

    def pair_keys(self):
        return f"pa:{self.idx}", f"pb:{self.idx}"

    def seq_key(self):
        return f"seq:{self.idx}"


def _fail(message):
    raise CheckFailed(message)


def run_client(port, state, rng, stop):
    """Pipelined batches until the connection dies or `stop` is set."""
    try:
        client = servers.RespClient(port, timeout=30)
    except OSError as e:
        state.error = f"client {state.idx}: cannot connect: {e}"
        return
    try:
        while not stop.is_set():
            batch = []  # (kind, detail) per expected reply
            wire = []
            for _ in range(rng.randint(1, 24)):
                kind = rng.choice(("incr", "incr", "pair", "set", "limiter", "limiter"))
                if kind == "incr":
                    wire.append(servers.encode("INCR", state.counter_key()))
                    batch.append(("incr", None))
                elif kind == "pair":
                    pa, pb = state.pair_keys()
                    wire.append(servers.encode("MULTI") + servers.encode("INCR", pa) +
                                servers.encode("INCR", pb) + servers.encode("EXEC"))
                    batch += [("multi", None), ("queued", None), ("queued", None),
                              ("exec", None)]
                elif kind == "set":
                    state.seq_sent += 1
                    wire.append(servers.encode("SET", state.seq_key(), state.seq_sent))
                    batch.append(("set", state.seq_sent))
                else:
                    command, key, limit = rng.choice(LIMITERS)
                    wire.append(servers.encode(command, key, limit, WINDOW_MS))
                    batch.append(("limiter", key))
            # What the batch may have done if the process dies before its replies arrive.
            state.counter_unacked = sum(1 for k, _ in batch if k == "incr")
            state.pairs_unacked = sum(1 for k, _ in batch if k == "exec")
            state.limiter_unacked = {}
            for k, key in batch:
                if k == "limiter":
                    state.limiter_unacked[key] = state.limiter_unacked.get(key, 0) + 1
            try:
                client.send(b"".join(wire))
            except OSError:
                return
            for kind, detail in batch:
                try:
                    reply = client.read()
                except (servers.ConnectionClosed, OSError):
                    return
                if isinstance(reply, servers.Error):
                    state.error = f"client {state.idx}: error reply {reply!r} to {kind}"
                    return
                if kind == "incr":
                    if reply != state.counter + 1:
                        state.error = (f"client {state.idx}: INCR acknowledged {reply}, "
                                       f"expected {state.counter + 1}")
                        return
                    state.counter = reply
                    state.counter_unacked -= 1
                elif kind in ("multi", "queued"):
                    if reply != ("OK" if kind == "multi" else "QUEUED"):
                        state.error = f"client {state.idx}: MULTI/INCR answered {reply!r}"
                        return
                elif kind == "exec":
                    if not (isinstance(reply, list) and len(reply) == 2 and reply[0] == reply[1]
                            and reply[0] == state.pairs + 1):
                        state.error = (f"client {state.idx}: EXEC answered {reply!r}, expected "
                                       f"[{state.pairs + 1}, {state.pairs + 1}]")
                        return
                    state.pairs += 1
                    state.pairs_unacked -= 1
                elif kind == "set":
                    if reply != "OK":
                        state.error = f"client {state.idx}: SET answered {reply!r}"
                        return
                    state.seq_acked = detail
                else:
                    allowed = reply[0]
                    table = state.allowed_acked if allowed == 1 else state.refused_acked
                    table[detail] = table.get(detail, 0) + 1
                    state.limiter_unacked[detail] -= 1
                state.ops_acked += 1
            state.counter_unacked = state.pairs_unacked = 0
            state.limiter_unacked = {}
    finally:
        client.close()


class ModeRun:
    """One appendfsync mode: a daemon, its clients, the kills and the checks."""

    def __init__(self, sluiced_path, workdir, mode, clients, seed, log):
        os.environ["SLUICED"] = sluiced_path
        self.mode = mode
        self.log = log
        self.rng = random.Random(seed)
        self.server = servers.Sluiced(workdir, appendfsync=mode)
        self.states = [ClientState(i) for i in range(clients)]
        # Per limiter key: what the daemon had counted at the last check (the baseline that
        # later acknowledgements add to), and every allowed decision ever acknowledged.
        self.limiter_base = {key: 0 for _, key, _ in LIMITERS}
        self.allowed_total = {key: 0 for _, key, _ in LIMITERS}
        self.refused_total = {key: 0 for _, key, _ in LIMITERS}
        self.kills = 0
        self.checks = 0
        self.ops_acked = 0
        self.lost_in_flight = 0  # commands sent whose replies never came (allowed to be lost)

    # -- the checks ---------------------------------------------------------------------------
    def check(self, c, after):
        """Compare the daemon's state with what the clients saw acknowledged."""
        for s in self.states:
            if s.error:
                _fail(f"[{self.mode}] {s.error}")
            value = int(c.call("GET", s.counter_key()) or 0)
            self._expect(s.counter <= value <= s.counter + s.counter_unacked,
                         f"{s.counter_key()} = {value} after {after}: acknowledged "
                         f"{s.counter}, {s.counter_unacked} in flight")
            self.lost_in_flight += s.counter + s.counter_unacked - value
            s.counter = value
            pa, pb = s.pair_keys()
            a, b = (int(v or 0) for v in c.call("MGET", pa, pb))
            self._expect(a == b, f"{pa} = {a} but {pb} = {b} after {after}: "
                                 "a MULTI/EXEC was applied in part")
            self._expect(s.pairs <= a <= s.pairs + s.pairs_unacked,
                         f"{pa} = {a} after {after}: acknowledged {s.pairs}, "
                         f"{s.pairs_unacked} in flight")
            s.pairs = a
            seq = int(c.call("GET", s.seq_key()) or 0)
            self._expect(s.seq_acked <= seq <= s.seq_sent,
                         f"{s.seq_key()} = {seq} after {after}: last acknowledged "
                         f"{s.seq_acked}, last sent {s.seq_sent}")
            s.seq_acked = s.seq_sent = seq
            s.counter_unacked = s.pairs_unacked = 0
            self.ops_acked += s.ops_acked
            s.ops_acked = 0
        for command, key, limit in LIMITERS:
            acked = sum(s.allowed_acked.get(key, 0) for s in self.states)
            in_flight = sum(s.limiter_unacked.get(key, 0) for s in self.states)
            self.allowed_total[key] += acked
            self.refused_total[key] += sum(s.refused_acked.get(key, 0) for s in self.states)
            reply = c.call(command, key, limit, WINDOW_MS, "COST", 0)
            used = limit - reply[2]
            self._expect(self.limiter_base[key] + acked <= used <=
                         self.limiter_base[key] + acked + in_flight,
                         f"{command} {key}: the daemon counts {used} after {after}; counted "
                         f"{self.limiter_base[key]} before, then acknowledged {acked} allowed, "
                         f"{in_flight} in flight")
            self._expect(self.allowed_total[key] <= limit,
                         f"{command} {key}: {self.allowed_total[key]} requests acknowledged as "
                         f"allowed over all the kills, limit {limit}")
            self.limiter_base[key] = used
        for s in self.states:
            s.allowed_acked, s.refused_acked, s.limiter_unacked = {}, {}, {}

    def _expect(self, condition, message):
        self.checks += 1
        if not condition:
            _fail(f"[appendfsync {self.mode}] {message}")

    # -- the run ------------------------------------------------------------------------------
    def run_clients(self, until):
        """Clients against the running daemon until `until()` returns (it kills or stops)."""
        stop = threading.Event()
        threads = [threading.Thread(target=run_client,
                                    args=(self.server.port, s,
                                          random.Random(self.rng.random()), stop))
                   for s in self.states]
        for t in threads:
            t.start()
        try:
            until()
        finally:
            stop.set()
            for t in threads:
                t.join(60)
                if t.is_alive():
                    _fail(f"[{self.mode}] a client thread did not finish within 60 s")

    def wait_for_acknowledged_write(self, timeout_s=60):
        """Until a client has an INCR, EXEC or SET acknowledged since this was called: a run's
        random moment counts from there, so each kill and stop has acknowledged writes to lose
        however long a loaded machine takes to restart the daemon and connect the clients."""
        def acknowledged():
            return sum(s.counter + s.pairs + s.seq_acked for s in self.states)
        before = acknowledged()
        deadline = time.monotonic() + timeout_s
        while acknowledged() == before:
            if time.monotonic() > deadline:
                _fail(f"[{self.mode}] no write acknowledged within {timeout_s} s")
            time.sleep(0.005)

    def run(self, kills, min_s, max_s):
        self.server.start()
        try:
            for n in range(kills):
                delay = self.rng.uniform(min_s, max_s)

                def kill_later():
                    self.wait_for_acknowledged_write()
                    time.sleep(delay)
                    self.server.kill()
                self.run_clients(kill_later)
                self.kills += 1
                self.server.start()
                with self.server.client() as c:
                    self.check(c, f"kill -9 #{n + 1} (at {delay:.2f} s)")
            # A last stretch ended by a clean stop: SIGTERM must exit 0 and keep everything.
            def stop_cleanly():
                self.wait_for_acknowledged_write()
                time.sleep(min_s)
            self.run_clients(stop_cleanly)
            code = self.server.terminate()
            if code != 0:
                _fail(f"[{self.mode}] SIGTERM exit code {code}; stderr:\n{self.server.stderr()}")
            self.server.start()
            with self.server.client() as c:
                self.check(c, "a clean SIGTERM restart")
            code = self.server.terminate()
            if code != 0:
                _fail(f"[{self.mode}] SIGTERM exit code {code}; stderr:\n{self.server.stderr()}")
        finally:
            self.server.cleanup()

    def figures(self):
        lines = [f"appendfsync {self.mode}: {self.kills} kill -9, {self.ops_acked} acknowledged "
                 f"operations, {self.lost_in_flight} unacknowledged INCRs lost in flight, "
                 f"{self.checks} checks passed"]
        for command, key, limit in LIMITERS:
            lines.append(f"  {command} {key} limit {limit}: {self.allowed_total[key]} allowed "
                         f"and {self.refused_total[key]} refused acknowledged, daemon counts "
                         f"{self.limiter_base[key]}")
        return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sluiced", default=os.environ.get("SLUICED"),
                        help="the sluiced binary (default: $SLUICED)")
    parser.add_argument("--modes", default="always,everysec,no")
    parser.add_argument("--kills", type=int, default=5, help="kill -9 per mode")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--min-run", type=float, default=0.3,
                        help="shortest time between a start's first acknowledged write and its kill, seconds")
    parser.add_argument("--max-run", type=float, default=1.5)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workdir", default=None, help="kept afterwards if given")
    args = parser.parse_args(argv)
    if not args.sluiced:
        parser.error("give --sluiced or set SLUICED")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"crash test: seed {seed}, {args.kills} kills per mode, {args.clients} clients",
          flush=True)
    started = time.monotonic()
    failures = []
    with tempfile.TemporaryDirectory(prefix="sluice-crash-") as tmp:
        root = Path(args.workdir) if args.workdir else Path(tmp)
        for i, mode in enumerate(args.modes.split(",")):
            workdir = root / mode
            workdir.mkdir(parents=True, exist_ok=True)
            run = ModeRun(os.path.abspath(args.sluiced), workdir, mode, args.clients,
                          seed + i, print)
            try:
                run.run(args.kills, args.min_run, args.max_run)
            except (CheckFailed, RuntimeError, AssertionError) as e:
                failures.append(str(e))
                print(f"FAILED appendfsync {mode}: {e}", flush=True)
            print(run.figures(), flush=True)
    elapsed = time.monotonic() - started
    print(f"crash test: {len(failures)} failed mode(s), {elapsed:.1f} s", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
