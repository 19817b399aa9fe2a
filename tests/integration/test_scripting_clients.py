"""Scripts through real client libraries, compared between redis-server 7.0 and sluiced:
python3-redis's register_script (EVALSHA, SCRIPT LOAD on NOSCRIPT, pipelines) and ioredis's
defineCommand (node/scripts.js; skipped without node / npm).
"""

import json
import subprocess
from pathlib import Path

import pytest

import node_deps

import script_limiters as scripts

NODE_DIR = Path(__file__).resolve().parent / "node"


def _python_client_transcript(port):
    redis = pytest.importorskip("redis", reason="python3-redis is not installed")
    r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=30)
    out = [r.flushall()]
    bucket = r.register_script(scripts.TOKEN_BUCKET)
    window = r.register_script(scripts.FIXED_WINDOW)
    out.append(bucket(keys=["tb:t", "tb:s"], args=[2.5, 5, 100, 1]))
    out.append(r.script_flush())
    out.append(bucket(keys=["tb:t", "tb:s"], args=[2.5, 5, 100.5, 2]))  # NOSCRIPT, then load
    out.extend(window(keys=["fw"], args=[3, 100]) for _ in range(4))
    out.append(r.script_exists(bucket.sha, window.sha, "0" * 40))
    pipe = r.pipeline()
    bucket(keys=["tb:t", "tb:s"], args=[2.5, 5, 101, 3], client=pipe)
    window(keys=["fw2"], args=[1, 100], client=pipe)
    pipe.get("tb:t")
    out.append(pipe.execute())
    failing = r.register_script("return redis.call('incr', KEYS[1])")
    r.set("notanumber", "x")
    try:
        failing(keys=["notanumber"])
        out.append("no error")
    except redis.exceptions.ResponseError as e:
        out.append(str(e))
    r.close()
    return out


def test_python_register_script(redis_server, sluiced):
    assert _python_client_transcript(sluiced.port) == _python_client_transcript(redis_server.port)


@pytest.fixture(scope="module")
def node():
    return node_deps.node_with(NODE_DIR, "ioredis")


def _ioredis_transcript(node, port, protocol, tmp_path):
    scripts_file = tmp_path / f"scripts-{port}.json"
    scripts_file.write_text(json.dumps({"token_bucket": scripts.TOKEN_BUCKET,
                                        "fixed_window": scripts.FIXED_WINDOW}))
    proc = subprocess.run([node, "scripts.js", str(port), str(protocol), str(scripts_file)],
                          cwd=NODE_DIR, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"scripts.js failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("protocol", [3, 2])
def test_ioredis_define_command(node, redis_server, sluiced, protocol, tmp_path):
    got = _ioredis_transcript(node, sluiced.port, protocol, tmp_path)
    expected = _ioredis_transcript(node, redis_server.port, protocol, tmp_path)
    assert got == expected
