"""Python rate-limiter libraries, unchanged, against sluiced and a real redis-server: Debian's
python3-limits (its RedisStorage runs Lua scripts through register_script: INCRBY + EXPIRE for
the fixed window, LINDEX / LPUSH / LTRIM / EXPIRE for the moving window, KEYS + DEL for a reset)
and python3-flask-limiter, a Flask app's limits on top of it. The same calls go to both
servers and must decide the same way; the test clock then shows sluice's windows ending.

Skipped when the libraries are not installed (`tools/install-deps.sh --test` installs them).
"""

import pytest

from frozen_clock import Clock

limits = pytest.importorskip("limits")
from limits import parse, strategies  # noqa: E402
from limits.storage import storage_from_string  # noqa: E402

STRATEGIES = {
    "fixed": strategies.FixedWindowRateLimiter,
    "elastic": strategies.FixedWindowElasticExpiryRateLimiter,
    "moving": strategies.MovingWindowRateLimiter,
}


def _storage(server):
    return storage_from_string(f"redis://127.0.0.1:{server.port}")


def _limits_scenario(server):
    """What the three strategies decide for 5/minute: seven hits of one user, a peek, the window's
    remaining count, two hits of cost 3 of another user, a clear and a hit after it."""
    storage = _storage(server)
    five_a_minute = parse("5/minute")
    seen = {"check": storage.check()}
    for name, strategy in STRATEGIES.items():
        limiter = strategy(storage)
        hits = [limiter.hit(five_a_minute, "user", name) for _ in range(7)]
        peek = limiter.test(five_a_minute, "user", name)
        _, remaining = limiter.get_window_stats(five_a_minute, "user", name)
        heavy = [limiter.hit(five_a_minute, "heavy", name, cost=3) for _ in range(2)]
        limiter.clear(five_a_minute, "user", name)
        seen[name] = {"hits": hits, "peek": peek, "remaining": remaining, "heavy": heavy,
                      "after_clear": limiter.hit(five_a_minute, "user", name)}
    seen["reset"] = storage.reset()  # the clear_keys script: KEYS LIMITER* and DEL
    return seen


def test_limits_strategies_decide_as_on_redis(redis_server, sluiced):
    on_sluice = _limits_scenario(sluiced)
    assert on_sluice == _limits_scenario(redis_server)
    for name in STRATEGIES:
        assert on_sluice[name] == {"hits": [True] * 5 + [False] * 2, "peek": False,
                                   "remaining": 0, "heavy": [True, False],
                                   "after_clear": True}, name
    # Left after the clears: each strategy's "user" and "heavy" keys.
    assert on_sluice["reset"] == 6


def _flask_scenario(server):
    flask = pytest.importorskip("flask")
    flask_limiter = pytest.importorskip("flask_limiter")
    from flask_limiter.util import get_remote_address
    seen = {}
    for strategy in ("fixed-window", "moving-window", "fixed-window-elastic-expiry"):
        app = flask.Flask(f"app-{strategy}")
        limiter = flask_limiter.Limiter(get_remote_address, app=app, strategy=strategy,
                                        storage_uri=f"redis://127.0.0.1:{server.port}",
                                        key_prefix=strategy, headers_enabled=True)

        @app.route("/")
        @limiter.limit("3/minute")
        def index():
            return "ok"

        client = app.test_client()
        responses = [client.get("/") for _ in range(5)]
        seen[strategy] = [(r.status_code, r.headers.get("X-RateLimit-Remaining"))
                          for r in responses]
    return seen


def test_flask_limiter_app_answers_as_on_redis(redis_server, sluiced):
    on_sluice = _flask_scenario(sluiced)
    assert on_sluice == _flask_scenario(redis_server)
    expected = [(200, "2"), (200, "1"), (200, "0"), (429, "0"), (429, "0")]
    assert on_sluice == {strategy: expected for strategy in on_sluice}


class _MovedTime:
    """Stands in for the time module in limits.storage.redis: the moving window stamps its
    entries with the client's time, which must move with the daemon's test clock."""

    def __init__(self, start):
        self.now = start

    def time(self):
        return self.now


def test_limits_windows_end_on_the_test_clock(debug_sluiced, monkeypatch):
    import limits.storage.redis as redis_storage
    with debug_sluiced.client() as c:
        clock = Clock(c)
        client_time = _MovedTime(clock.t0 / 1000)
        monkeypatch.setattr(redis_storage, "time", client_time)

        def advance(ms):
            clock.advance(ms)
            client_time.now = (clock.t0 + clock.now) / 1000

        storage = _storage(debug_sluiced)
        three_a_minute = parse("3/minute")
        fixed = strategies.FixedWindowRateLimiter(storage)
        moving = strategies.MovingWindowRateLimiter(storage)
        limiters = {"fixed": fixed, "moving": moving}  # the name keeps their keys apart
        for name, limiter in limiters.items():
            assert [limiter.hit(three_a_minute, name) for _ in range(4)] == [True] * 3 + [False]
        advance(30_000)
        for name, limiter in limiters.items():
            assert not limiter.hit(three_a_minute, name), name
            assert limiter.hit(three_a_minute, name + "-fresh"), name
        # The fixed window's key expires (EXPIRE 60 on its first hit); the moving window's
        # three entries fall out of the last 60 s of client time.
        advance(30_001)
        for name, limiter in limiters.items():
            assert limiter.hit(three_a_minute, name), name
            assert limiter.get_window_stats(three_a_minute, name)[1] == 2, name
