"""ioredis (pinned in node/package.json) against sluiced: connect with HELLO 3 and with RESP2
(INFO ready check, CLIENT SETINFO, CLIENT SETNAME), data commands of every type, pipelines,
MULTI/EXEC, a WATCH-retry loop under two competing clients, SCAN. The checks live in
node/basics.js; this runs it and checks its exit code.

Skipped when node or npm is missing; `npm install` runs once in node/ if node_modules is absent.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parent / "node"


@pytest.fixture(scope="module")
def node_ready():
    node = shutil.which("node")
    npm = shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node/npm are not installed: the ioredis tests need them")
    if not (NODE_DIR / "node_modules" / "ioredis").is_dir():
        proc = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            pytest.skip(f"npm install failed (no registry?):\n{proc.stderr[-2000:]}")
    return node


@pytest.mark.parametrize("protocol", [3, 2])
def test_ioredis_basics(node_ready, sluiced, protocol):
    proc = subprocess.run([node_ready, "basics.js", str(sluiced.port), str(protocol)],
                          cwd=NODE_DIR, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "ALL OK" in proc.stdout, (
        f"node basics.js exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
        f"stderr:\n{proc.stderr}\nsluiced stderr:\n{sluiced.stderr()}")
