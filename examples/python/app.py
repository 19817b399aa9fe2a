"""A tiny WSGI app (standard library wsgiref) rate-limited by sluice through redis-py:

  /cell   redis-cell's CL.THROTTLE: a burst of 5, then 5 requests per minute per client
  /take   RL.TAKE against a named policy, defined once at start with RL.POLICY SET

Refused requests get 429 Too Many Requests with Retry-After (whole seconds, rounded up so a
retry then succeeds). A client is its X-Api-Key header, or its address.

    SLUICE_PORT=6379 PORT=8000 python3 app.py
    curl -i http://127.0.0.1:8000/cell
"""

import math
import os
from wsgiref.simple_server import make_server

import redis

POLICY = "example-api"
POLICY_DEFINITION = ("TOKENBUCKET", 3, 1, 10000)  # 3 at once, refilled 1 per 10 s


def client_id(environ):
    return environ.get("HTTP_X_API_KEY") or environ.get("REMOTE_ADDR", "unknown")


def cell_decision(r, who):
    """(allowed, retry_after_ms or None, remaining) from CL.THROTTLE key 4 5 60: max_burst 4
    (so 5 at once), 5 per 60 s."""
    limited, _limit, remaining, retry_s, _reset_s = r.execute_command(
        "CL.THROTTLE", f"cell:{who}", 4, 5, 60)
    return limited == 0, (retry_s * 1000 if retry_s >= 0 else None), remaining


def take_decision(r, who):
    """The same from RL.TAKE key policy: [allowed, limit, remaining, retry_after_ms, reset_ms]
    (a flat array in RESP2, which redis-py speaks by default)."""
    allowed, _limit, remaining, retry_ms, _reset_ms = r.execute_command(
        "RL.TAKE", f"take:{who}", POLICY)
    return allowed == 1, (retry_ms if retry_ms >= 0 else None), remaining


ROUTES = {"/cell": cell_decision, "/take": take_decision}


def make_app(r):
    """The WSGI application, using the redis-py client `r` (pointed at sluiced)."""
    r.execute_command("RL.POLICY", "SET", POLICY, *POLICY_DEFINITION)

    def app(environ, start_response):
        decide = ROUTES.get(environ.get("PATH_INFO", ""))
        if decide is None:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"try /cell or /take\n"]
        allowed, retry_ms, remaining = decide(r, client_id(environ))
        headers = [("Content-Type", "text/plain"), ("X-RateLimit-Remaining", str(remaining))]
        if allowed:
            start_response("200 OK", headers)
            return [b"hello\n"]
        if retry_ms is not None:  # None: this request can never fit the limit
            headers.append(("Retry-After", str(max(1, math.ceil(retry_ms / 1000)))))
        start_response("429 Too Many Requests", headers)
        return [b"Too Many Requests\n"]

    return app


def main():
    r = redis.Redis(host=os.environ.get("SLUICE_HOST", "127.0.0.1"),
                    port=int(os.environ.get("SLUICE_PORT", "6379")))
    port = int(os.environ.get("PORT", "8000"))
    with make_server("127.0.0.1", port, make_app(r)) as httpd:
        print(f"listening on http://127.0.0.1:{port}/cell and /take")
        httpd.serve_forever()


if __name__ == "__main__":
    main()
