"""Fixtures: real sluiced and redis-server processes, each on a free port in its own directory.

Everything started here is stopped at teardown, also when the test fails. A sluiced still
running at teardown is stopped with SIGTERM and must exit 0 (the contract's clean shutdown);
a sanitizer report or a crash at exit therefore fails the test that caused it (for a server
shared by a module, the module's last test).

Also the fixtures several suites share: `diff` (the differential tests, RESP2 and RESP3, on
one redis-server and one sluiced per module, emptied before each test: `shared_servers`) and
`server`, `c`, `clock`, `clients` (the limiter and blocking tests, on the frozen test clock);
`shared_sluiced` and `shared_debug_sluiced` give a module that opts in one server for its tests.
"""

import itertools
import shutil
import tempfile
from pathlib import Path

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
    _stop_sluiceds(started)


@pytest.fixture
def memory_dir(tmp_path):
    """A fresh directory on a tmpfs (/dev/shm) where there is one, else under tmp_path: syncs
    cost nothing there, so how long RocksDB's flushes take does not depend on what else the
    machine's disk is doing. Ask for it before sluiced_factory: fixtures end in the reverse
    order, so the servers stop before it is removed."""
    shm = Path("/dev/shm")
    if not shm.is_dir():
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="sluice-test-", dir=shm))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _stop_sluiceds(started):
    """SIGTERM each sluiced still running; fails the test unless every one exits 0."""
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


@pytest.fixture(scope="module")
def shared_servers(tmp_path_factory):
    """(redis_server, sluiced) shared by a module's tests that take `diff`, `pair` or
    `emptied_servers`, emptied before each (_reset_for_next_test). Starting both servers for
    every test was most of what those suites cost, under the sanitizers most of CI's time. A
    test that needs a fresh server, or changes one in ways the reset does not undo (CONFIG SET),
    takes `redis_server` and `sluiced`."""
    _require_redis_server()
    workdir = tmp_path_factory.mktemp("shared")
    (workdir / "redis").mkdir()
    (workdir / "sluiced").mkdir()
    redis_server = servers.RedisServer(workdir / "redis")
    sluiced = servers.Sluiced(workdir / "sluiced")
    try:
        redis_server.start()
        sluiced.start()
        yield redis_server, sluiced
    finally:
        redis_server.cleanup()
        _stop_sluiceds([sluiced])


def _reset_for_next_test(port):
    """What a test may leave behind on a server that is not its connections' own state: keys,
    scripts, statistics (INFO commandstats, errorstats, keyspace hits) and the slow log."""
    with servers.RespClient(port) as client:
        for command in (("FLUSHALL",), ("SCRIPT", "FLUSH"), ("CONFIG", "RESETSTAT"),
                        ("SLOWLOG", "RESET")):
            assert client.call(*command) == "OK", f"{command} on port {port}"


def _sluiced_for_the_module(tmp_path_factory, name, **directives):
    """Yields a sluiced started in a fresh directory, and stops it at the module's end."""
    sluiced = servers.Sluiced(tmp_path_factory.mktemp(name), **directives)
    try:
        sluiced.start()
        yield sluiced
    finally:
        _stop_sluiceds([sluiced])


@pytest.fixture(scope="module")
def _module_sluiced(tmp_path_factory):
    yield from _sluiced_for_the_module(tmp_path_factory, "shared-default")


@pytest.fixture
def shared_sluiced(_module_sluiced):
    """A sluiced with default directives, shared by a module's tests and emptied before each (a
    module opts in by defining `sluiced` from it; a test that needs a server of its own then
    takes sluiced_factory). For tests that neither restart it nor change its configuration or
    users, and read nothing an earlier test moves: client ids, connection counts, uptime."""
    _reset_for_next_test(_module_sluiced.port)
    return _module_sluiced


@pytest.fixture(scope="module")
def _module_debug_sluiced(tmp_path_factory):
    yield from _sluiced_for_the_module(tmp_path_factory, "shared-debug",
                                       enable_debug_command="yes")


@pytest.fixture
def shared_debug_sluiced(_module_debug_sluiced):
    """A sluiced with DEBUG enabled, shared by a module's tests and emptied before each, named
    policies included (a module opts in by defining `server` from it). For tests that neither
    restart it nor change its configuration."""
    _reset_for_next_test(_module_debug_sluiced.port)
    with _module_debug_sluiced.client() as client:
        for name in client.call("RL.POLICY", "LIST"):
            assert client.call("RL.POLICY", "DEL", name) == 1
    return _module_debug_sluiced


@pytest.fixture
def emptied_servers(shared_servers):
    """shared_servers, emptied for this test."""
    for server in shared_servers:
        _reset_for_next_test(server.port)
    return shared_servers


@pytest.fixture(params=["redis", "sluiced"])
def each_server(request, emptied_servers):
    """Each of emptied_servers in turn: a test that checks a property on either server alone
    (random replies, checked by what they must satisfy rather than compared) runs on both."""
    redis_server, sluiced = emptied_servers
    return redis_server if request.param == "redis" else sluiced


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def each_client(request, each_server):
    """A raw connection to each_server, in RESP2 and after HELLO 3 (its `protocol` says which)."""
    c = servers.RespClient(each_server.port)
    if request.param == 3:
        assert isinstance(c.call("HELLO", "3"), servers.Map)
    c.protocol = request.param
    yield c
    c.close()


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def diff(request, emptied_servers):
    """A Differ (differential.py) between a redis-server and a sluiced (emptied_servers): each
    test that takes it runs twice, in RESP2 and after HELLO 3."""
    redis_server, sluiced = emptied_servers
    d = Differ(redis_server.port, sluiced.port, protocol=request.param)
    yield d
    d.close()


@pytest.fixture
def pair(diff):
    """Two Differs on the same two servers, for what one client does to another's view (A
    watches or runs transactions, B interferes); RESP2 and RESP3 as `diff`."""
    b = Differ(diff.redis.port, diff.sluice.port, protocol=diff.protocol)
    yield diff, b
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
def clients(server):
    """make(n) -> n more clients of `server`, closed at teardown."""
    opened = []

    def make(n):
        made = [server.client() for _ in range(n)]
        opened.extend(made)
        return made

    yield make
    for client in opened:
        client.close()


@pytest.fixture
def require_redis_cli():
    if servers.redis_cli_path() is None:
        pytest.skip("redis-cli is not installed (apt-get install redis-tools)")
