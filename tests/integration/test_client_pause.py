"""CLIENT PAUSE / UNPAUSE, as Redis 7.0: what a WRITE pause holds and lets through, compared
with a real redis-server on the same steps; an ALL pause ending at its time on the test clock;
held requests running in order once the pause ends.

No test waits for time to pass to show that a held request has not answered: it is known held
by an event (CLIENT LIST shows its client blocked on it, as Redis 7.0 does), the missing reply
is checked with a read that does not wait, and on the test clock TIME, queued behind a held
request, tells when the request ran. The active expiry cycle's steps are counted in INFO
(skipped by a pause, or run), so its test waits for those events."""

import pytest

from frozen_clock import T0, Clock
import servers


@pytest.fixture
def both(sluiced_factory, redis_factory):
    """(name, server) for a fresh sluiced and a fresh redis-server: a pause must not outlive
    its test on a shared server."""
    return [("sluice", sluiced_factory(enable_debug_command="yes")), ("redis", redis_factory())]


def wait_for_blocked(c, count):
    servers.wait_for(lambda: servers.blocked_clients(c) == count, f"{count} blocked clients")


def client_fields(line):
    """A CLIENT LIST line as {field: value}."""
    return dict(field.split("=", 1) for field in line.strip().split(" "))


def wait_until_held(admin, client_id, command):
    """Until the client `client_id` shows as held by the pause: flag b and the held command as
    cmd=, as Redis 7.0 reports a postponed client."""
    def held():
        fields = client_fields(admin.call("CLIENT", "LIST", "ID", client_id).decode())
        return "b" in fields["flags"] and fields["cmd"] == command
    servers.wait_for(held, f"client {client_id} held on {command}")


def assert_no_reply_yet(c):
    """Nothing has come back on `c`, read without waiting: call it once the request is known held
    (a held request answers nothing until the pause ends)."""
    assert servers.nothing_received(c, grace=0)


def time_reply(unix_ms):
    """TIME's reply at `unix_ms` on the server clock."""
    return [str(unix_ms // 1000).encode(), str(unix_ms % 1000 * 1000).encode()]


def test_pause_errors_as_redis(both):
    replies = {}
    for name, server in both:
        with server.client() as c:
            replies[name] = [c.call(*cmd) for cmd in [
                ("CLIENT", "PAUSE", "abc"), ("CLIENT", "PAUSE", "-1"),
                ("CLIENT", "PAUSE", "10", "BAD"), ("CLIENT", "PAUSE", "abc", "BAD"),
                ("CLIENT", "PAUSE", "-1", "WRITE"), ("CLIENT", "PAUSE", "1", "WRITE", "x"),
                ("CLIENT", "PAUSE"), ("CLIENT", "UNPAUSE", "x"),
                ("CLIENT", "PAUSE", "0", "ALL"),  # pauses nothing
                ("SET", "k", "v"), ("CLIENT", "UNPAUSE"), ("CLIENT", "UNPAUSE")]]
    assert replies["sluice"] == replies["redis"]
    assert replies["sluice"][9] == "OK"


def test_write_pause_holds_writes_and_lets_reads_through(both):
    """Reads (GET, EVAL_RO, INFO) answer during a WRITE pause; writes, EVAL, PUBLISH, PFCOUNT,
    a container's write subcommand (FUNCTION FLUSH, named function|flush in CLIENT LIST's cmd=)
    and a write queued in MULTI are held, each on its own connection, and run in order once
    CLIENT UNPAUSE comes."""
    held_commands = [("SET", "a", "1"), ("EVAL", "return redis.call('GET', 'a')", "0"),
                     ("PUBLISH", "ch", "m"), ("PFCOUNT", "hll"), ("FUNCTION", "FLUSH")]
    results = {}
    for name, server in both:
        with server.client() as admin:
            assert admin.call("SET", "a", "0") == "OK"
            assert admin.call("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
            assert admin.call("GET", "a") == b"0"
            assert admin.call("EVAL_RO", "return redis.call('GET', 'a')", "0") == b"0"
            held = [server.client() for _ in held_commands]
            multi = server.client()
            try:
                for c, cmd in zip(held, held_commands):
                    c.send(servers.encode(*cmd) + servers.encode("GET", "a"))
                assert multi.call("MULTI") == "OK"
                multi.send(servers.encode("INCR", "a"))
                wait_for_blocked(admin, len(held) + 1)
                # Each held client shows as blocked on the command held (Redis's cmd=).
                clients = [client_fields(line)
                           for line in admin.call("CLIENT", "LIST").decode().splitlines()]
                held_on = sorted(c["cmd"] for c in clients if "b" in c["flags"])
                assert len(held_on) == len(held) + 1, clients
                assert admin.call("GET", "a") == b"0"  # nothing held has run
                for c in held:
                    assert_no_reply_yet(c)
                assert admin.call("CLIENT", "UNPAUSE") == "OK"
                got = [(c.read(), c.read()) for c in held]
                got.append((multi.read(), multi.call("EXEC")))
                wait_for_blocked(admin, 0)
                results[name] = (held_on, got)
            finally:
                for c in held + [multi]:
                    c.close()
    assert results["sluice"] == results["redis"]
    assert results["sluice"][0] == ["eval", "function|flush", "incr", "pfcount", "publish", "set"]
    assert results["sluice"][1][0] == ("OK", b"1")


@pytest.mark.parametrize("mode", ["WRITE", "ALL"])
def test_a_monitors_own_commands_are_not_held_as_redis(both, mode):
    """A monitor is a replica to Redis, which never pauses replicas: its commands answer during
    a pause (keyspace commands with their refusal)."""
    replies = {}
    for name, server in both:
        with server.client() as admin, server.client() as monitor:
            assert monitor.call("MONITOR") == "OK"
            assert admin.call("CLIENT", "PAUSE", "100000", mode) == "OK"
            # Everyone else is held by an ALL pause: the monitor itself ends it.
            monitor.send(servers.encode("SET", "k", "v") + servers.encode("PING") +
                         servers.encode("CLIENT", "UNPAUSE"))
            # Between PONG and OK comes the monitor's own line of its PING (compared elsewhere).
            replies[name] = [monitor.read() for _ in range(4)]
            del replies[name][2]
    assert replies["sluice"] == replies["redis"]
    assert replies["sluice"][1:] == ["PONG", "OK"]


def test_exec_of_a_queued_write_is_held(both):
    results = {}
    for name, server in both:
        with server.client() as admin, server.client() as c:
            assert c.call("MULTI") == "OK"
            assert c.call("SET", "t", "1") == "QUEUED"
            assert admin.call("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
            c.send(servers.encode("EXEC"))
            wait_for_blocked(admin, 1)
            assert admin.call("EXISTS", "t") == 0
            assert admin.call("CLIENT", "UNPAUSE") == "OK"
            results[name] = (c.read(), admin.call("GET", "t"))
    assert results["sluice"] == results["redis"]
    assert results["sluice"][1] == b"1"


def test_replies_go_out_at_the_end_of_the_loop_turn_as_redis(both):
    """Requests released together by CLIENT UNPAUSE run in one loop turn, and a batch that wrote
    nothing answers at the turn's end, as every reply does in Redis (written just before its
    loop sleeps): a client killed by a later request of the same turn never gets its reply.
    (Sent at once, the DEL's reply used to reach its client before the kill.)"""
    results = {}
    for name, server in both:
        with server.client() as admin, server.client() as reader, server.client() as killer:
            reader_id = reader.call("CLIENT", "ID")
            killer_id = killer.call("CLIENT", "ID")
            assert killer.call("MULTI") == "OK"
            assert killer.call("SET", "k", "v") == "QUEUED"
            assert killer.call("CLIENT", "KILL", "ID", str(reader_id)) == "QUEUED"
            assert admin.call("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
            # A write command that writes nothing (the key does not exist), then a transaction
            # that writes: both held, in that order.
            reader.send(servers.encode("DEL", "missing"))
            wait_until_held(admin, reader_id, "del")
            killer.send(servers.encode("EXEC"))
            wait_until_held(admin, killer_id, "exec")
            assert admin.call("CLIENT", "UNPAUSE") == "OK"
            results[name] = (killer.read(), reader.read_until_closed())
    assert results["sluice"] == results["redis"]
    assert results["sluice"] == (["OK", 1], b"")


def test_a_write_pause_judges_scripts_by_what_they_declare(both):
    """As Redis 7.0 (evalGetCommandFlags, fcallGetCommandFlags): a function or shebang script
    declared no-writes answers during a WRITE pause, alone or in a transaction, while one that
    may write is held, even under FCALL_RO or EVAL_RO (where it then fails), and so is an EVAL
    that declares nothing. Until session 48 every FCALL and EVAL was held: a limiter's
    read-only status function waited out the pause."""
    library = ("#!lua name=lim\n"
               "redis.register_function{function_name='reader', flags={'no-writes'},"
               " callback=function() return 'r' end}\n"
               "redis.register_function('writer', function() return 'w' end)")
    reader_eval = "#!lua flags=no-writes\nreturn 'e'"
    held_commands = [("FCALL", "writer", "0"), ("FCALL_RO", "writer", "0"),
                     ("EVAL_RO", "#!lua\nreturn 1", "0"), ("EVAL", "return 2", "0")]
    results = {}
    for name, server in both:
        with server.client() as admin:
            assert admin.call("FUNCTION", "LOAD", library) == b"lim"
            sha = admin.call("SCRIPT", "LOAD", reader_eval).decode()
            assert admin.call("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
            answered = [admin.call("FCALL", "reader", "0"), admin.call("EVAL", reader_eval, "0"),
                        admin.call("EVALSHA", sha, "0"), admin.call("FCALL_RO", "reader", "0")]
            assert admin.call("MULTI") == "OK"
            assert admin.call("FCALL", "reader", "0") == "QUEUED"
            answered.append(admin.call("EXEC"))
            held = [server.client() for _ in held_commands]
            try:
                for c, cmd in zip(held, held_commands):
                    c.send(servers.encode(*cmd))
                wait_for_blocked(admin, len(held))
                for c in held:
                    assert_no_reply_yet(c)
                assert admin.call("CLIENT", "UNPAUSE") == "OK"
                results[name] = (answered, [str(c.read()) for c in held])
            finally:
                for c in held:
                    c.close()
    assert results["sluice"] == results["redis"]
    assert results["sluice"][0] == [b"r", b"e", b"e", b"r", [b"r"]]


def test_a_shorter_pause_during_a_longer_one_keeps_the_later_end(sluiced_factory):
    """As Redis 7.0's pauseClients: a second pause never shortens the one in force. A write held
    under a 100 s pause that a 10 ms one followed is still held 99.999 s on, and runs at the
    100 s end: TIME, queued behind it, answers that end. (On the test clock: redis-server has
    none, and its side would need real time to pass.)"""
    server = sluiced_factory(enable_debug_command="yes")
    with server.client() as admin, server.client() as c:
        clock = Clock(admin)
        c_id = c.call("CLIENT", "ID")
        assert admin.call("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
        assert admin.call("CLIENT", "PAUSE", "10", "WRITE") == "OK"
        c.send(servers.encode("SET", "x", "1") + servers.encode("TIME"))
        wait_until_held(admin, c_id, "set")
        clock.at(99_999)  # past the shorter pause's end
        assert_no_reply_yet(c)
        clock.at(100_000)
        assert c.read() == "OK"
        assert c.read() == time_reply(clock.t0 + 100_000)


def test_all_pause_ends_at_its_time_on_the_test_clock(sluiced_factory):
    """An ALL pause holds every command, the pausing client's own included, until its end
    time on the server clock: with the clock frozen, DEBUG CLOCK ADVANCE (never held) ends it,
    and the held requests answer in order."""
    server = sluiced_factory(enable_debug_command="yes")
    with server.client() as admin, server.client() as c, server.client() as debug:
        clock = Clock(debug)
        assert admin.call("CLIENT", "PAUSE", "1000") == "OK"
        # An ALL pause holds CLIENT LIST too (Redis 7.0's as well), so no event shows these held:
        # TIME, run after each, tells when they ran.
        c.send(servers.encode("SET", "k", "v") + servers.encode("TIME"))
        admin.send(servers.encode("TIME"))
        clock.at(999)
        assert_no_reply_yet(c)
        assert_no_reply_yet(admin)
        clock.at(1000)
        assert c.read() == "OK"
        assert c.read() == time_reply(clock.t0 + 1000)
        assert admin.read() == time_reply(clock.t0 + 1000)


def test_the_active_expiry_cycle_waits_for_the_pause(sluiced_factory):
    """As Redis: a paused server deletes no expired key by itself; the cycle resumes after.
    INFO's expire_cycle_steps_paused and _run (sluice's own) tell that a step of the cycle came
    and skipped, then came and ran."""
    server = sluiced_factory(enable_debug_command="yes")

    def stats(c):
        fields = servers.info_fields(c, "stats")
        return {name: int(fields[name]) for name in
                ("expired_keys", "expire_cycle_steps_run", "expire_cycle_steps_paused")}

    with server.client() as c:
        assert c.call("DEBUG", "CLOCK", "FREEZE") == "OK"
        assert c.call("SET", "short", "v", "PX", "100") == "OK"
        assert c.call("CLIENT", "PAUSE", "100000", "WRITE") == "OK"
        assert c.call("DEBUG", "CLOCK", "ADVANCE", "200") == "OK"
        paused = stats(c)
        assert paused["expired_keys"] == 0
        servers.wait_for(lambda: stats(c)["expire_cycle_steps_paused"] >
                         paused["expire_cycle_steps_paused"], "a step skipped by the pause")
        during = stats(c)
        assert during["expired_keys"] == 0
        assert during["expire_cycle_steps_run"] == paused["expire_cycle_steps_run"]
        assert c.call("CLIENT", "UNPAUSE") == "OK"
        servers.wait_for(lambda: stats(c)["expire_cycle_steps_run"] >
                         during["expire_cycle_steps_run"], "a step after the pause")
        # One step sweeps the whole (one-key) key space: the key is gone after the first.
        assert stats(c)["expired_keys"] == 1


@pytest.mark.parametrize("mode", ["WRITE", "ALL"])
def test_a_pause_holds_block_waiters(sluiced_factory, mode):
    """A BLOCK waiter whose turn comes during a pause is not served (serving writes the key's
    state); it is served when the pause ends. One whose deadline passes during the pause is
    refused, nothing taken."""
    server = sluiced_factory(enable_debug_command="yes")
    with server.client() as admin, server.client() as waiter, server.client() as short:
        Clock(admin)
        assert admin.call("RL.TOKENBUCKET", "tb", 1, 1, 1000) == [1, 1, 0, -1, 1000]
        waiter.send(servers.encode("RL.TOKENBUCKET", "tb", 1, 1, 1000, "BLOCK", 5000))
        wait_for_blocked(admin, 1)
        short.send(servers.encode("RL.TOKENBUCKET", "tb", 1, 1, 1000, "BLOCK", 2500))
        wait_for_blocked(admin, 2)
        assert admin.call("CLIENT", "PAUSE", 3000, mode) == "OK"
        assert admin.call("DEBUG", "CLOCK", "ADVANCE", 1500) == "OK"
        assert admin.call("DEBUG", "CLOCK") == T0 + 1500  # the wake has run
        assert_no_reply_yet(waiter)
        assert admin.call("DEBUG", "CLOCK", "ADVANCE", 1000) == "OK"
        # Refused as the key stands (full, nothing taken), its turn 1 s after the waiter's.
        assert short.read() == [0, 1, 1, 1000, 0]
        assert_no_reply_yet(waiter)
        assert admin.call("DEBUG", "CLOCK", "ADVANCE", 600) == "OK"  # the pause ends at 3000
        assert waiter.read() == [1, 1, 0, -1, 1000]
