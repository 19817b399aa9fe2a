"""ioredis (pinned in node/package.json) against sluiced: connect with HELLO 3 and with RESP2
(INFO ready check, CLIENT SETINFO, CLIENT SETNAME), data commands of every type, pipelines,
MULTI/EXEC, a WATCH-retry loop under two competing clients, SCAN, HSCAN and ZSCAN streams. The
checks live in node/basics.js; this runs it and checks its exit code.

Skipped when node or npm is missing; `npm install` runs once in node/ if node_modules is absent.
"""

import subprocess
from pathlib import Path

import pytest

import node_deps

NODE_DIR = Path(__file__).resolve().parent / "node"


@pytest.fixture(scope="module")
def node_ready():
    return node_deps.node_with(NODE_DIR, "ioredis")


@pytest.mark.parametrize("protocol", [3, 2])
def test_ioredis_basics(node_ready, sluiced, protocol):
    proc = subprocess.run([node_ready, "basics.js", str(sluiced.port), str(protocol)],
                          cwd=NODE_DIR, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "ALL OK" in proc.stdout, (
        f"node basics.js exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
        f"stderr:\n{proc.stderr}\nsluiced stderr:\n{sluiced.stderr()}")
