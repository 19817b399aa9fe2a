"""examples/node (ioredis with rate-limiter-flexible's RateLimiterRedis, and express-rate-limit
with rate-limit-redis) against a real sluiced: both libraries run their own Lua scripts, so this
needs EVAL. The checks live in examples/node/check.js; this runs it.

Skipped when node is missing, or when sluiced has no scripting yet (EVAL is an unknown
command)."""

import shutil
import subprocess
from pathlib import Path

import pytest

import node_deps
import servers

EXAMPLE_DIR = Path(__file__).resolve().parents[2] / "examples" / "node"


def test_node_examples(sluiced):
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed to run the Node examples")
    with sluiced.client() as c:
        reply = c.call("EVAL", "return 1", 0)
    if isinstance(reply, servers.Error) and reply.startswith("ERR unknown command"):
        pytest.skip("this sluiced has no scripting yet (EVAL is an unknown command); the "
                    "libraries in examples/node run Lua scripts")
    assert reply == 1, reply
    node_deps.npm_install(EXAMPLE_DIR, "rate-limit-redis")
    proc = subprocess.run([node, "check.js", str(sluiced.port)], cwd=EXAMPLE_DIR,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "ALL OK" in proc.stdout, (
        f"node check.js exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
        f"stderr:\n{proc.stderr}\nsluiced stderr:\n{sluiced.stderr()}")
