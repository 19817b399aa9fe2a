#!/usr/bin/env python3
"""Plot how each sluice limiter treats the same bursty traffic: docs/algorithms.svg.

    tools/plot_algorithms.py [SLUICED] [--out docs/algorithms.svg] [--png FILE]

Starts a sluiced (path from the argument or $SLUICED) on a free port with a temporary data
directory and the test clock (enable-debug-command yes), replays 60 s of traffic to every
algorithm with comparable parameters (about 10 requests per second, a burst of 10) and plots,
one row per algorithm, the admitted and refused requests and the cumulative admissions. Time
moves only with DEBUG CLOCK ADVANCE, so the run takes a second or two and is reproducible.

Needs python3-matplotlib (Debian: apt-get install python3-matplotlib).
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T0 = 4_102_444_800_000  # 2100-01-01T00:00:00Z, ms: every window is aligned to it

# (label, command and parameters without the key; an RL.* command, or RL.SMOOTH with TIMEOUT 0:
# Guava's tryAcquire(), admitted iff the limiter is free right now)
ALGORITHMS = [
    ("FIXEDWINDOW 10 per 1000 ms", ("RL.FIXEDWINDOW", 10, 1000)),
    ("SLIDINGLOG 10 per 1000 ms", ("RL.SLIDINGLOG", 10, 1000)),
    ("SLIDINGWINDOW 10 per 1000 ms", ("RL.SLIDINGWINDOW", 10, 1000)),
    ("TOKENBUCKET capacity 10, 10 per 1000 ms", ("RL.TOKENBUCKET", 10, 10, 1000)),
    ("LEAKYBUCKET capacity 10, leaks 10 per 1000 ms", ("RL.LEAKYBUCKET", 10, 10, 1000)),
    ("GCRA max_burst 9, 10 per 1000 ms", ("RL.GCRA", 9, 10, 1000)),
    ("SMOOTH 10/s (Guava SmoothBursty), TIMEOUT 0", ("RL.SMOOTH", 10, "TIMEOUT", 0)),
    ("SMOOTH 10/s WARMUP 5000 (SmoothWarmingUp), TIMEOUT 0",
     ("RL.SMOOTH", 10, "WARMUP", 5000, "TIMEOUT", 0)),
]

PHASES = [  # (start s, end s, requests per second, label)
    (0, 10, 0.4, "quiet"),
    (10, 11, 50, "burst: 50 in 1 s"),
    (11, 30, 5, "steady 5/s"),
    (30, 31, 50, "burst"),
    (31, 45, 15, "overload 15/s"),
    (45, 60, 5, "steady 5/s"),
]


def request_times_ms():
    times = []
    for start, end, rate, _ in PHASES:
        step = 1000.0 / rate
        t = start * 1000.0
        while t < end * 1000.0 - 1e-9:
            times.append(int(round(t)))
            t += step
    return times


# ---- a minimal RESP client ----------------------------------------------------------------


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.file = self.sock.makefile("rb")

    def call(self, *args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            b = str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(b), b))
        self.sock.sendall(b"".join(out))
        return self._read()

    def _read(self):
        line = self.file.readline().rstrip(b"\r\n")
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            data = self.file.read(n + 2)
            return data[:-2]
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        if kind == b"_":
            return None
        raise RuntimeError(f"unexpected reply {line!r}")

    def close(self):
        self.file.close()
        self.sock.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sluiced(path, workdir):
    port = free_port()
    log = open(workdir / "sluiced.log", "wb")
    proc = subprocess.Popen(
        [path, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir / "data"),
         "--enable-debug-command", "yes", "--appendfsync", "no"],
        stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"sluiced exited with {proc.returncode}: "
                               f"{(workdir / 'sluiced.log').read_text(errors='replace')}")
        try:
            client = Client(port)
            if client.call("PING") == "PONG":
                return proc, client
            client.close()
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("sluiced did not answer PING within 30 s")


# ---- the run ------------------------------------------------------------------------------


def run(client):
    """{label: [(t_ms, admitted)]} for the same request times on every algorithm."""
    assert client.call("DEBUG", "CLOCK", "FREEZE", T0) == "OK"
    now = 0
    results = {label: [] for label, _ in ALGORITHMS}
    for t in request_times_ms():
        if t > now:
            assert client.call("DEBUG", "CLOCK", "ADVANCE", t - now) == "OK"
            now = t
        for i, (label, (cmd, *params)) in enumerate(ALGORITHMS):
            reply = client.call(cmd, f"plot:{i}", *params)
            admitted = (reply == 0) if cmd == "RL.SMOOTH" else (reply[0] == 1)
            results[label].append((t, admitted))
    return results


def plot(results, out, png=None):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "sluice"  # the same input gives the same file
    matplotlib.rcParams["svg.fonttype"] = "none"    # text stays text: a small, searchable file
    import matplotlib.pyplot as plt

    times = request_times_ms()
    rows = len(results) + 1
    fig, axes = plt.subplots(rows, 1, figsize=(12, 1.55 * rows + 0.6), sharex=True,
                             gridspec_kw={"hspace": 0.55})
    green, red, blue, grey = "#1a9850", "#d73027", "#2c7bb6", "#8c8c8c"

    # Row 0: the offered load, requests per second.
    ax = axes[0]
    per_second = [0] * 60
    for t in times:
        per_second[t // 1000] += 1
    ax.bar([s + 0.5 for s in range(60)], per_second, width=0.9, color=grey)
    ax.axhline(10, color=blue, linestyle="--", linewidth=0.8)
    ax.text(60.3, 10, "10/s", va="center", fontsize=8, color=blue)
    ax.set_title(f"Offered load: {len(times)} requests in 60 s, per second "
                 "(" + "; ".join(f"{a}-{b} s {label}" for a, b, _, label in PHASES) + ")",
                 fontsize=9, loc="left")
    ax.set_ylabel("req/s", fontsize=8)
    ax.tick_params(labelsize=8)

    for ax, (label, events) in zip(axes[1:], results.items()):
        ok = [t / 1000 for t, a in events if a]
        no = [t / 1000 for t, a in events if not a]
        ax.vlines(no, 0.08, 0.42, color=red, linewidth=0.6, rasterized=True)
        ax.vlines(ok, 0.58, 0.92, color=green, linewidth=0.6, rasterized=True)
        ax.set_ylim(0, 1)
        ax.set_yticks([0.25, 0.75])
        ax.set_yticklabels(["refused", "admitted"], fontsize=7)
        ax.set_title(f"{label}: {len(ok)} admitted, {len(no)} refused", fontsize=9,
                     loc="left")
        cumulative = ax.twinx()
        xs, ys, count = [0.0], [0], 0
        for t, a in events:
            count += a
            xs.append(t / 1000)
            ys.append(count)
        xs.append(60.0)
        ys.append(count)
        # Plain lines through the points (at this scale a staircase looks the same, and
        # matplotlib simplifies plain lines: a much smaller SVG).
        offered = [0.0] + [t / 1000 for t in times] + [60.0]
        cumulative.plot(offered, list(range(len(times) + 1)) + [len(times)], color=grey,
                        linewidth=0.8, linestyle="--")
        cumulative.plot(xs, ys, color=blue, linewidth=1.3)
        cumulative.set_ylim(0, len(times) * 1.05)
        cumulative.set_ylabel("admitted\n(cumulative)", fontsize=7, color=blue)
        cumulative.tick_params(labelsize=7, colors=blue)
        for start, *_ in PHASES[1:]:
            ax.axvline(start, color=grey, linewidth=0.5, linestyle="--")
    axes[-1].set_xlabel("time (s)", fontsize=8)
    axes[-1].set_xlim(0, 60)
    axes[-1].tick_params(axis="x", labelsize=8)
    fig.suptitle("sluice limiters on the same traffic. Ticks: each request, admitted (green) "
                 "or refused (red); blue: admitted so far; grey dashes: offered so far",
                 fontsize=10, x=0.01, ha="left")
    fig.subplots_adjust(left=0.08, right=0.93, top=0.95, bottom=0.04)
    fig.savefig(out, format="svg", dpi=150, metadata={"Date": None})
    if png:
        fig.savefig(png, format="png", dpi=80)
    plt.close(fig)


def main():
    repo = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sluiced", nargs="?", default=os.environ.get("SLUICED"),
                        help="path to the sluiced binary (default: $SLUICED)")
    parser.add_argument("--out", default=str(repo / "docs" / "algorithms.svg"))
    parser.add_argument("--png", help="also write a PNG (for a quick look)")
    args = parser.parse_args()
    if not args.sluiced:
        parser.error("give the sluiced binary as an argument or in $SLUICED")

    workdir = Path(tempfile.mkdtemp(prefix="sluice-plot-"))
    proc, client = start_sluiced(args.sluiced, workdir)
    try:
        results = run(client)
        client.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(workdir, ignore_errors=True)
    plot(results, args.out, args.png)
    for label, events in results.items():
        print(f"{sum(a for _, a in events):4d} of {len(events)} admitted  {label}")
    print(f"wrote {args.out}" + (f" and {args.png}" if args.png else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
