"""examples/python/app.py (wsgiref + redis-py) against a real sluiced: requests pass until the
limit, then 429 Too Many Requests with a Retry-After a client can trust."""

import importlib.util
import threading
import urllib.error
import urllib.request
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest

redis = pytest.importorskip("redis", reason="python3-redis is not installed")

APP = Path(__file__).resolve().parents[2] / "examples" / "python" / "app.py"


def load_example():
    spec = importlib.util.spec_from_file_location("sluice_example_app", APP)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def app_url(sluiced):
    example = load_example()
    client = redis.Redis(host="127.0.0.1", port=sluiced.port)
    httpd = make_server("127.0.0.1", 0, example.make_app(client), handler_class=QuietHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()
    client.close()


def get(url, api_key):
    request = urllib.request.Request(url, headers={"X-Api-Key": api_key})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as e:
        return e.code, e.headers


def test_cell_throttle_route(app_url):
    results = [get(app_url + "/cell", "alice") for _ in range(7)]
    assert [status for status, _ in results] == [200] * 5 + [429] * 2
    assert results[4][1]["X-RateLimit-Remaining"] == "0"
    retry = int(results[5][1]["Retry-After"])
    assert 1 <= retry <= 12  # 5 per minute: a new one every 12 s
    assert get(app_url + "/cell", "bob")[0] == 200  # every client has its own budget


def test_take_route_with_a_policy(app_url):
    results = [get(app_url + "/take", "carol") for _ in range(4)]
    assert [status for status, _ in results] == [200, 200, 200, 429]
    retry = int(results[3][1]["Retry-After"])
    assert 1 <= retry <= 10  # one token per 10 s
    assert get(app_url + "/nope", "carol")[0] == 404
