"""The ACL file (`aclfile`, ACL LOAD, ACL SAVE) against redis-server 7.0.15 started with the
same file: the users it defines (ACL LIST, GETUSER, AUTH, WHOAMI), ACL LOAD replacing them all
or, on any bad line, nothing (the same error text), the connections it closes, ACL SAVE's file
byte for byte, the directive's CONFIG GET/SET, the start refused as Redis refuses it, and CONFIG
REWRITE writing no `user` lines. Both servers get the file by the same relative path, which
each resolves in its own directory (Redis's `dir`, sluiced's working directory), so even the
error texts, which name the file, compare byte for byte.
"""

import os
import subprocess

import pytest

import servers
from differential import Differ

ACL = "users.acl"
ALICE = "user alice on >pw ~a* %R~ro:* resetchannels &news* -@all +@read +set\n"
BOB = "user bob off #" + "b" * 64 + " ~* +@all -@dangerous\n"


@pytest.fixture
def start_pair(tmp_path):
    """start(acl_text, *redis_args, **sluiced_directives) -> (redis, sluiced), each started with
    `aclfile users.acl` in its own directory holding `acl_text`."""
    started = []

    def start(acl_text, *redis_args, **directives):
        n = len(started)
        redis_dir, sluiced_dir = tmp_path / f"redis{n}", tmp_path / f"sluiced{n}"
        for d in (redis_dir, sluiced_dir):
            d.mkdir()
            (d / ACL).write_text(acl_text)
        redis = servers.RedisServer(redis_dir, "--aclfile", ACL, *redis_args)
        sluiced = servers.Sluiced(sluiced_dir, aclfile=ACL, **directives)
        started.append((redis, sluiced))
        redis.start()
        sluiced.start()
        return redis, sluiced

    yield start
    failures = []
    for redis, sluiced in started:
        redis.cleanup()
        if sluiced.alive() and sluiced.terminate() != 0:
            failures.append(sluiced.stderr())
        sluiced.cleanup()
    assert not failures, failures


def acl_path(server):
    return server.workdir / ACL


def write_both(pair, text):
    for server in pair:
        acl_path(server).write_text(text)


def outcome(client, *cmd):
    """The reply, or "closed" when the server closed the connection instead."""
    try:
        return client.call(*cmd)
    except servers.ConnectionClosed:
        return "closed"


def test_users_from_the_file_as_redis(start_pair):
    # requirepass is set before the file is read: the file's users (a new default user here,
    # the file having none) win, as in Redis.
    pair = start_pair(ALICE + BOB, "--requirepass", "ignored", requirepass="ignored")
    d = Differ(pair[0].port, pair[1].port)
    d.run([("ACL", "LIST"), ("ACL", "USERS"), ("ACL", "GETUSER", "alice"),
           ("ACL", "GETUSER", "bob"), ("ACL", "GETUSER", "default"), ("ACL", "WHOAMI"),
           ("PING",), ("CONFIG", "GET", "aclfile"),
           ("CONFIG", "SET", "aclfile", "other.acl"), ("CONFIG", "GET", "aclfile"),
           ("AUTH", "bob", "x"), ("AUTH", "alice", "nope"), ("AUTH", "alice", "pw"),
           ("ACL", "WHOAMI"), ("GET", "a1"), ("GET", "ro:1"), ("SET", "ro:1", "v"),
           ("SET", "a1", "v"), ("DEL", "a1"), ("PUBLISH", "news1", "m")])
    d.assert_same()
    d.close()


def test_load_replaces_every_user_and_closes_their_connections(start_pair):
    pair = start_pair(ALICE + "user carol on nopass ~* +@all\n")
    write_both(pair, "user carol on nopass ~c* +@all\nuser dave on >d +@all ~*\n"
               "user default on >secret ~* &* +@all\n")
    seen = []
    for server in pair:
        alice, carol = server.client(), server.client()
        default, fresh_default = server.client(), server.client()
        assert alice.call("AUTH", "alice", "pw") == "OK"
        assert carol.call("AUTH", "carol", "x") == "OK"
        assert fresh_default.call("SUBSCRIBE", "ch")[0] == b"subscribe"
        # carol loads: OK, then her own connection is closed too (her user is a new one).
        seen.append([carol.call("ACL", "LOAD"), carol.is_closed(), alice.is_closed(),
                     outcome(default, "ACL", "WHOAMI"), outcome(default, "GET", "k"),
                     outcome(fresh_default, "PING")])
        with server.client() as after:
            seen[-1] += [after.call("PING"), after.call("AUTH", "default", "secret"),
                         after.call("ACL", "LIST"), after.call("AUTH", "alice", "pw"),
                         after.call("AUTH", "dave", "d"), after.call("ACL", "WHOAMI")]
        for c in (alice, carol, default, fresh_default):
            c.close()
    assert seen[0] == seen[1], seen
    assert seen[1][:6] == ["OK", True, True, b"default", None, [b"pong", b""]]


def test_load_without_a_default_line_resets_the_default_user(start_pair):
    pair = start_pair("user default on >secret ~* &* +@all\n")
    write_both(pair, ALICE)
    d = Differ(pair[0].port, pair[1].port)
    d.run([("AUTH", "secret"), ("ACL", "SETUSER", "default", "-flushall"),
           ("ACL", "LOAD"), ("ACL", "LIST"), ("ACL", "GETUSER", "default")])
    d.assert_same()
    d.close()


BAD_FILE = ("user alice on >pw ~a* +get foo\n"
            "bad line\n"
            "user x +nosuch bar\n"
            "user a\tb on\n"
            "#comment\n"
            "user carol on +@nosuch -bar\n"
            "\n"
            "user u junk junk2 +nosuch <nopw\n"
            "user v +config|get|x\n"
            "user w #abc\n"
            "user y ~* ~a\n"
            "user z &* &a\n"
            "user  q\n"
            "user carol on\n"
            "USER upper\n"
            "user\n"
            "user ok on +get\t\r\n")


def test_a_bad_file_changes_nothing(start_pair):
    pair = start_pair(ALICE)
    d = Differ(pair[0].port, pair[1].port)
    d.run([("ACL", "SETUSER", "later", "on", "nopass")])
    for text in [BAD_FILE, "user alice on\nuser alice off\n", "user ok on\nuser bad +@nope\n",
                 "user a on\t+get\n"]:
        write_both(pair, text)
        d.run([("ACL", "LOAD"), ("ACL", "LIST")])
    for server in pair:
        acl_path(server).unlink()
    d.run([("ACL", "LOAD"), ("ACL", "LIST"), ("ACL", "SAVE")])
    d.assert_same()
    d.close()
    assert "later" in acl_path(pair[1]).read_text(), "saved after all, though the load failed"


def test_save_writes_what_acl_list_shows(start_pair):
    pair = start_pair(ALICE)
    d = Differ(pair[0].port, pair[1].port)
    d.run([("ACL", "SETUSER", "new", "on", ">p1", ">p2", "~x*", "&y", "+@hash", "-hdel"),
           ("ACL", "SETUSER", "alice", "off", "resetkeys", "%W~w:*", "skip-sanitize-payload"),
           ("ACL", "SETUSER", "default", "resetpass", ">adm", "-flushall"),
           ("ACL", "DELUSER", "nobody"), ("ACL", "SAVE"), ("ACL", "LIST")])
    d.assert_same()
    theirs, ours = (acl_path(s).read_text() for s in pair)
    assert ours == theirs
    assert ours.startswith("user alice off skip-sanitize-payload "), ours
    assert [name for name in os.listdir(pair[1].workdir) if name.startswith(ACL + ".")] == [], (
        "no temporary file left")
    # What was saved loads back to the same users.
    d.run([("AUTH", "adm"), ("ACL", "LOAD"), ("ACL", "LIST")])
    d.assert_same()
    d.close()


def test_save_failure_keeps_the_old_file(tmp_path, redis_factory, sluiced_factory):
    """The file's directory fails writes (the fault library's EROFS, as a read-only remount:
    root ignores permission bits); Redis's reply is taken from a directory that is gone."""
    library = os.environ.get("SLUICE_IO_FAULT")
    if not library or not os.path.exists(library):
        pytest.fail("SLUICE_IO_FAULT is not set to the built libsluice_io_fault.so (CTest sets it)")
    gone = tmp_path / "gone"
    gone.mkdir()
    (gone / ACL).write_text(ALICE)
    redis = redis_factory("--aclfile", gone / ACL)
    (gone / ACL).unlink()
    gone.rmdir()
    with redis.client() as c:
        theirs = c.call_raw("ACL", "SAVE")
    assert theirs == (b"-ERR There was an error trying to save the ACLs. Please check the "
                      b"server logs for more information\r\n")
    etc = (tmp_path / "etc").resolve()
    etc.mkdir()
    (etc / ACL).write_text(ALICE)
    control = tmp_path / "fault"
    env = {"LD_PRELOAD": library, "SLUICE_FAULT_DIR": str(etc), "SLUICE_FAULT_FILE": str(control),
           "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"}
    sluiced = sluiced_factory(env=env, aclfile=etc / ACL)
    with sluiced.client() as c:
        assert c.call("ACL", "SETUSER", "new", "on") == "OK"
        control.write_text("EROFS")
        assert c.call_raw("ACL", "SAVE") == theirs
        assert (etc / ACL).read_text() == ALICE
        assert sorted(p.name for p in etc.iterdir()) == [ACL], "no temporary file left"
        control.unlink()
        assert c.call("ACL", "SAVE") == "OK"
    assert "user new on resetchannels -@all\n" in (etc / ACL).read_text()
    assert "Read-only file system" in sluiced.stderr(), sluiced.stderr()


def test_load_and_save_without_an_aclfile(redis_server, sluiced):
    d = Differ(redis_server.port, sluiced.port)
    d.run([("ACL", "LOAD"), ("ACL", "SAVE"), ("CONFIG", "GET", "aclfile"),
           ("ACL", "LOAD", "x"), ("ACL", "SAVE", "x")])
    d.assert_same()
    d.close()


def run_redis_expect_exit(args, cwd):
    proc = subprocess.run([servers.redis_server_path(), "--port", str(servers.free_port()),
                           "--save", "", "--dir", str(cwd), *map(str, args)], cwd=cwd,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return proc


@pytest.mark.parametrize("case", ["bad line", "missing file", "user lines too"])
def test_start_refused_as_redis(tmp_path, case):
    if servers.redis_server_path() is None:
        pytest.skip("needs redis-server")
    args = ["--aclfile", ACL]
    if case == "user lines too":
        args += ["--user", "alice on"]
    for d in ("redis", "sluiced"):
        (tmp_path / d).mkdir()
        if case != "missing file":
            (tmp_path / d / ACL).write_text("user ok on\nuser bad +nosuch\n")
    theirs = run_redis_expect_exit(args, tmp_path / "redis")
    ours = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--dir", tmp_path / "sluiced" / "data", *args],
        cwd=tmp_path / "sluiced")
    assert theirs.returncode == 1 and ours.returncode == 1, (theirs, ours)
    # Redis logs "... # <message>"; sluiced prints "sluiced: <message>".
    message = ours.stderr.decode().strip().removeprefix("sluiced: ")
    expected = {
        "bad line": "Aborting Redis startup because of ACL errors: users.acl:2: Error in "
                    "applying operation '+nosuch': Unknown command or category name in ACL. "
                    "WARNING: ACL errors detected, no change to the previously active ACL "
                    "rules was performed",
        "missing file": "Aborting Redis startup because of ACL errors: Error loading ACLs, "
                        "opening file 'users.acl': No such file or directory",
        "user lines too": "Configuring Redis with users defined in redis.conf and at the same "
                          "setting an ACL file path is invalid.",
    }[case]
    assert message.startswith(expected), message
    assert ("# " + message) in theirs.stdout.decode(), theirs.stdout


def test_config_rewrite_writes_no_user_lines(sluiced_factory, tmp_path):
    (tmp_path / ACL).write_text(ALICE)
    conf = tmp_path / "sluice.conf"
    conf.write_text(f"aclfile {tmp_path / ACL}\n# users in the file\ntimeout 5\n")
    server = sluiced_factory(config_file=conf)
    with server.client() as c:
        assert c.call("ACL", "SETUSER", "new", "on", "nopass") == "OK"
        assert c.call("CONFIG", "SET", "timeout", "7") == "OK"
        assert c.call("CONFIG", "REWRITE") == "OK"
    text = conf.read_text()
    assert text.startswith(f"aclfile {tmp_path / ACL}\n# users in the file\ntimeout 7\n"), text
    assert "\nuser " not in text, text
    assert (tmp_path / ACL).read_text() == ALICE, "CONFIG REWRITE leaves the ACL file alone"
