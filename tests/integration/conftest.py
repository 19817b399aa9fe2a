"""Fixtures: real sluiced and redis-server processes, each on a free port in its own directory.

Everything started here is stopped at teardown, also when the test fails. A sluiced still
running at teardown is stopped with SIGTERM and must exit 0 (the contract's clean shutdown);
a sanitizer report or a crash at exit therefore fails the test that caused it.

Also the fixtures several suites share: `diff` (the differential tests, RESP2 and RESP3) and
`server`, `c`, `clock` (the limiter tests, on the frozen test clock).
"""

import itertools

import pytest

import servers
from differential import Differ
from frozen_clock import Clock


@pytest.fixture
def sluiced_factory(tmp_path):
    """start(**directives) -> a running Sluiced; each call gets a fresh data directory.

    Directive names use '_' for '-' (enable_debug_command="yes"). Pass data_dir= to reuse one,
    config_file= to put a config file first on the command line, env= to add environment
    variables.
    """
    started = []
    counter = itertools.count()

    def start(data_dir=None, config_file=None, env=None, **directives):
        workdir = tmp_path / f"sluiced{next(counter)}"
        workdir.mkdir()
        server = servers.Sluiced(workdir, data_dir=data_dir, config_file=config_file, env=env,
                                 **directives)
        started.append(server)
        return server.start()

    yield start

    failures = []
    for server in started:
        if server.expected_dead or not server.alive():
            continue
        try:
            code = server.terminate()
        except AssertionError as e:
            failures.append(str(e))
            continue
        if code != 0:
            failures.append(f"sluiced on port {server.port} exited {code} on SIGTERM; "
                            f"stderr:\n{server.stderr()}")
    for server in started:
        server.cleanup()
    if failures:
        pytest.fail("\n\n".join(failures))


@pytest.fixture
def sluiced(sluiced_factory):
    """A sluiced with default directives (DEBUG disabled)."""
    return sluiced_factory()


@pytest.fixture
def debug_sluiced(sluiced_factory):
    """A sluiced with DEBUG (and so the test clock) enabled."""
    return sluiced_factory(enable_debug_command="yes")


def _require_redis_server():
    if servers.redis_server_path() is None:
        pytest.skip("redis-server is not installed: the differential tests need a real Redis "
                    "(apt-get install redis-server)")


@pytest.fixture
def redis_factory(tmp_path):
    """start(*extra_args) -> a running RedisServer (no persistence) in its own directory."""
    _require_redis_server()
    started = []
    counter = itertools.count()

    def start(*extra):
        workdir = tmp_path / f"redis{next(counter)}"
        workdir.mkdir()
        server = servers.RedisServer(workdir, *extra)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.cleanup()


@pytest.fixture
def redis_server(redis_factory):
    return redis_factory()


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def diff(request, redis_server, sluiced):
    """A Differ (differential.py) between redis_server and sluiced: each test that takes it runs
    twice, in RESP2 and after HELLO 3."""
    d = Differ(redis_server.port, sluiced.port, protocol=request.param)
    yield d
    d.close()


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def pair(request, redis_server, sluiced):
    """Two Differs on the same two servers, for what one client does to another's view (A
    watches or runs transactions, B interferes); RESP2 and RESP3 as `diff`."""
    a = Differ(redis_server.port, sluiced.port, protocol=request.param)
    b = Differ(redis_server.port, sluiced.port, protocol=request.param)
    yield a, b
    a.close()
    b.close()


# The limiter tests' trio: `server` (DEBUG enabled, for the test clock), `c` (a client of it) and
# `clock` (its test clock, frozen at frozen_clock.T0).
@pytest.fixture
def server(debug_sluiced):
    return debug_sluiced


@pytest.fixture
def c(server):
    with server.client() as client:
        yield client


@pytest.fixture
def clock(c):
    return Clock(c)


@pytest.fixture
def require_redis_cli():
    if servers.redis_cli_path() is None:
        pytest.skip("redis-cli is not installed (apt-get install redis-tools)")
