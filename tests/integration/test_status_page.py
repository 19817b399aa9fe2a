"""The status page on metrics-port: served self-contained, its status.json, and the page
itself in headless Chromium (node/status_page.js, playwright-core pinned in
node/package.json): it loads offline, its chart and tables follow limiter traffic, and it
leaves a screenshot. The browser test is skipped only when chromium or node is missing."""

import json
import os
import re
import shutil
import struct
import subprocess
import urllib.request
from pathlib import Path

import pytest

import node_deps
import servers

NODE_DIR = Path(__file__).resolve().parent / "node"


def get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return response.status, response.headers, response.read()


def start_with_metrics(sluiced_factory):
    port = servers.free_port()
    return sluiced_factory(metrics_port=port), port


def test_page_is_self_contained(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    status, headers, body = get(port, "/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    html = body.decode()
    assert "<canvas" in html and "status.json" in html
    # Nothing loaded from anywhere: no src/href attributes, no URLs with a scheme.
    assert not re.search(r"\b(src|href)\s*=", html, re.I), "the page references a resource"
    assert not re.search(r"\b(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", html, re.I), "a URL"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert get(port, "/index.html")[2] == body


def test_status_json(sluiced_factory):
    server, port = start_with_metrics(sluiced_factory)
    with server.client() as c:
        assert c.call("RL.POLICY", "SET", "api", "FIXEDWINDOW", 1, 60000) == "OK"
        for key, takes in (("hot", 5), ("warm", 3), (b"\xff\n<b>", 2)):
            for _ in range(takes):
                c.call("RL.TAKE", key, "api")
        status, headers, body = get(port, "/status.json")
        assert status == 200 and headers["Content-Type"] == "application/json"
        assert b"<b>" not in body  # escaped: the JSON can never close an HTML tag
        data = json.loads(body)
        assert data["clients"]["connected"] == 1
        assert data["limiters"] == {"allowed": 3, "refused": 7, "blocked": 0, "timed_out": 0}
        assert data["series"] == [{"name": "api", "kind": "policy", "algorithm": "fixedwindow",
                                   "allowed": 3, "refused": 7, "blocked": 0, "timed_out": 0}]
        top = [(t["key"], t["refused"]) for t in data["top_throttled"]]
        # The key's bytes are not valid UTF-8: shown as redis-cli shows them.
        assert top == [("hot", 4), ("warm", 2), ("\\xff\n<b>", 1)], top
        assert data["durability"]["appendfsync"] == "everysec"
        assert data["durability"]["background_error"] is None
        assert data["durability"]["wal_commits"] >= 1


def png_size(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    return struct.unpack(">II", data[16:24])


def test_status_page_in_chromium(sluiced_factory, tmp_path):
    node = shutil.which("node")
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if node is None or chromium is None:
        pytest.skip("the browser test needs node and chromium "
                    "(apt-get install nodejs chromium); missing: " +
                    ", ".join(n for n, p in (("node", node), ("chromium", chromium)) if not p))
    node_deps.npm_install(NODE_DIR, "playwright-core")
    server, port = start_with_metrics(sluiced_factory)
    proc = subprocess.run([node, "status_page.js", str(port), str(server.port), str(tmp_path)],
                          cwd=NODE_DIR, env={**os.environ, "CHROMIUM": chromium},
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ALL OK" in proc.stdout, (
        f"node status_page.js exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
        f"stderr:\n{proc.stderr}\nsluiced stderr:\n{server.stderr()}")
    width, height = png_size(tmp_path / "status_page.png")
    assert width >= 800 and height >= 600, (width, height)
