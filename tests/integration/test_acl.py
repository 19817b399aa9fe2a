"""ACL users: ACL SETUSER/GETUSER/LIST/USERS/WHOAMI/CAT/DELUSER/DRYRUN/LOG, AUTH and HELLO with
a user, NOPERM for commands, keys and channels (MULTI and scripts too) compared with
redis-server 7 byte for byte in RESP2 and RESP3; then sluice's own: `user` directives at start,
redis-py from a redis://user:pass@ URL, ioredis with username/password, and the limiter
commands under the ACL.
"""

import subprocess
from pathlib import Path

import pytest
import redis

import node_deps
import servers
from differential import Differ

NODE_DIR = Path(__file__).resolve().parent / "node"

# One user for the permission checks, set up identically on both servers.
CAROL = ("ACL", "SETUSER", "carol", "on", ">pw", "~k*", "%R~r*", "&ch*", "+get", "+set",
         "+publish", "+multi", "+exec", "+eval", "+ping", "+config|get", "+mget", "+subscribe",
         "+psubscribe", "+spublish", "+ssubscribe")


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def protocol(request):
    return request.param


@pytest.fixture
def differ_for(redis_server, sluiced):
    """differ_for(protocol) -> a Differ on fresh servers (ACL users outlive a shared one's
    reset); every Differ is closed at teardown."""
    made = []

    def make(protocol=2):
        d = Differ(redis_server.port, sluiced.port, protocol=protocol)
        made.append(d)
        return d

    yield make
    for d in made:
        d.close()


def test_users_as_redis(differ_for, protocol):
    d = differ_for(protocol)
    d.run([
        ("ACL", "SETUSER", "alice", "on", ">p1", "~cached:*", "%R~ro:*", "&chan*", "+get"),
        ("ACL", "GETUSER", "alice"), ("ACL", "GETUSER", "default"), ("ACL", "GETUSER", "nosuch"),
        ("ACL", "SETUSER", "bob"), ("ACL", "GETUSER", "bob"), ("ACL", "LIST"),
        ("ACL", "SETUSER", "bob", "reset", "+@all", "-get", "%W~w*", "%R~w*", "nopass"),
        ("ACL", "GETUSER", "bob"),
        # (Redis writes single commands in its hash table's order, which changes from run to
        # run: the rules compared leave one container and its subcommand to write.)
        ("ACL", "SETUSER", "bob", "-config", "+config|get", "allchannels", "<nope"),
        ("ACL", "SETUSER", "bob", "-config", "+config|get", "+get", "allchannels",
         "#" + "a" * 64),
        ("ACL", "LIST"), ("ACL", "USERS"), ("ACL", "WHOAMI"),
        ("ACL", "DELUSER", "default"), ("ACL", "DELUSER", "nosuch", "bob", "alice"),
        ("ACL", "USERS"), ("ACL", "LIST"),
    ])
    d.assert_same()


def test_bad_rules_and_subcommands_as_redis(differ_for, protocol):
    d = differ_for(protocol)
    d.run([("ACL", "SETUSER", "eve", "allkeys", "~x"), ("ACL", "SETUSER", "eve", "<nope"),
           ("ACL", "SETUSER", "eve", "#abc"), ("ACL", "SETUSER", "eve", "+foo"),
           ("ACL", "SETUSER", "eve", "+@foo"), ("ACL", "SETUSER", "eve", "bar"),
           ("ACL", "SETUSER", "eve", "allchannels", "&x"), ("ACL", "SETUSER", "eve", "%X~a"),
           ("ACL", "SETUSER", "eve", "+config|nosuch"), ("ACL", "SETUSER", "eve", "on", "bar"),
           ("ACL", "SETUSER", "a b", "on"), ("ACL", "SETUSER", "a\0b"),
           ("ACL", "USERS"),  # a failed SETUSER creates no user
           ("ACL", "SETUSER"), ("ACL", "GETUSER"), ("ACL", "NOSUCH"), ("ACL", "CAT"),
           ("ACL", "CAT", "nosuch"), ("ACL", "GENPASS", "0"), ("ACL", "GENPASS", "x"),
           ("ACL", "GENPASS", "4097"), ("ACL", "SAVE"), ("ACL", "LOAD"), ("ACL", "HELP"),
           ("ACL", "LOG", "x"), ("ACL", "LOG", "RESET"), ("ACL", "LOG"), ("ACL", "LOG", "-1"),
           ("ACL", "LOG", "1", "2"), ("ACL", "CAT", "a", "b"), ("ACL", "GENPASS", "1", "2"),
           ("ACL", "WHOAMI", "x"), ("ACL", "DRYRUN", "default", "config", "nosuch"),
           ("ACL", "DRYRUN", "default", "config"), ("ACL", "DRYRUN", "default", "config", "get"),
           ("ACL", "DRYRUN", "nosuch", "get", "a"), ("ACL", "DRYRUN", "default", "nosuch"),
           ("ACL", "DRYRUN", "default", "get"), ("ACL", "DRYRUN", "default", "get", "a"),
           CAROL,
           ("ACL", "DRYRUN", "carol", "get", "x"), ("ACL", "DRYRUN", "carol", "get", "k1"),
           ("ACL", "DRYRUN", "carol", "del", "k1"), ("ACL", "DRYRUN", "carol", "set", "r1", "v"),
           ("ACL", "DRYRUN", "carol", "publish", "other", "m"),
           ("ACL", "DRYRUN", "carol", "config", "set", "maxclients", "5"),
           ("ACL", "DRYRUN", "carol", "config", "get", "maxclients"),
           # What may run before AUTH is never refused, whatever the user's rules.
           ("ACL", "DRYRUN", "carol", "auth", "x", "y"), ("ACL", "DRYRUN", "carol", "hello"),
           ("ACL", "DRYRUN", "carol", "reset"), ("ACL", "DRYRUN", "carol", "quit")])
    d.assert_same()
    assert len(d.redis.call("ACL", "GENPASS", "5")) == len(d.sluice.call("ACL", "GENPASS", "5")) == 2


def test_acl_cat_of_a_category_names_redis_commands(differ_for):
    d = differ_for()
    for category in ("string", "dangerous", "pubsub", "scripting"):
        redis_names = set(d.redis.call("ACL", "CAT", category))
        sluice_names = set(d.sluice.call("ACL", "CAT", category))
        limiter = {n for n in sluice_names if n.startswith((b"rl.", b"cl."))}
        # sluice has fewer commands than Redis, and its own limiter commands.
        assert sluice_names - limiter, category
        assert sluice_names - limiter <= redis_names, (category, sluice_names - redis_names)


# Commands whose categories Redis sets by hand (its flags and group would say otherwise), and
# the users whose rules they decide.
HAND_SET_CATEGORIES = [
    ("ACL", "SETUSER", "nowrite", "on", ">pw", "~*", "&*", "+@all", "-@write"),
    ("ACL", "SETUSER", "nodanger", "on", ">pw", "~*", "&*", "+@all", "-@dangerous"),
    ("ACL", "SETUSER", "keyspace", "on", ">pw", "~*", "&*", "-@all", "+@keyspace"),
    ("ACL", "SETUSER", "conn", "on", ">pw", "~*", "&*", "-@all", "+@connection"),
    ("ACL", "SETUSER", "admin", "on", ">pw", "~*", "&*", "-@all", "+@admin"),
    ("ACL", "SETUSER", "reader", "on", ">pw", "~*", "&*", "-@all", "+@read"),
]
HAND_SET_COMMANDS = [("eval", "return 1", "0"), ("evalsha", "0" * 40, "0"),
                     ("eval_ro", "return 1", "0"), ("evalsha_ro", "0" * 40, "0"), ("exec",),
                     ("keys", "*"), ("info",), ("lastsave",), ("role",), ("dbsize",),
                     ("command",), ("command", "count")]


def test_hand_set_categories_as_redis(differ_for):
    """`+@all -@write` may run EVAL and EXEC (their commands are checked one by one), and
    `-@dangerous` stops KEYS, INFO, LASTSAVE and ROLE, as in Redis."""
    d = differ_for()
    d.run(HAND_SET_CATEGORIES)
    for user in ("nowrite", "nodanger", "keyspace", "conn", "admin", "reader"):
        for command in HAND_SET_COMMANDS:
            d.check("ACL", "DRYRUN", user, *command)
    for category in ("write", "read", "dangerous", "admin", "keyspace", "connection"):
        names = {"eval", "evalsha", "eval_ro", "evalsha_ro", "exec", "keys", "info", "lastsave",
                 "role", "dbsize", "command"}
        redis_names = {n.decode() for n in d.redis.call("ACL", "CAT", category)} & names
        sluice_names = {n.decode() for n in d.sluice.call("ACL", "CAT", category)} & names
        assert sluice_names == redis_names, category
    d.assert_same()


def test_subcommands_categories_decide_as_redis(differ_for):
    """A subcommand is allowed by its own categories, not its container's: `+@pubsub` may run
    PUBSUB NUMSUB, `+@read` may not run MEMORY STATS, `-@write` may not run FUNCTION LOAD."""
    d = differ_for()
    d.run([("ACL", "SETUSER", "pub", "on", ">pw", "~*", "&*", "-@all", "+@pubsub"),
           ("ACL", "SETUSER", "reader", "on", ">pw", "~*", "&*", "-@all", "+@read"),
           ("ACL", "SETUSER", "writer", "on", ">pw", "~*", "&*", "-@all", "+@write"),
           ("ACL", "SETUSER", "nowrite", "on", ">pw", "~*", "&*", "+@all", "-@write"),
           ("ACL", "SETUSER", "keyspace", "on", ">pw", "~*", "&*", "-@all", "+@keyspace")])
    for user in ("pub", "reader", "writer", "nowrite", "keyspace"):
        for command in [("pubsub", "numsub", "c"), ("pubsub", "channels"), ("pubsub", "help"),
                        ("memory", "stats"), ("memory", "usage", "k"), ("memory", "doctor"),
                        ("object", "encoding", "k"), ("object", "help"),
                        ("function", "load", "#!lua name=x\nreturn 1"), ("function", "list"),
                        ("script", "load", "return 1"), ("config", "help"),
                        ("client", "kill", "id", "1"), ("acl", "setuser", "x")]:
            d.check("ACL", "DRYRUN", user, *command)
    d.assert_same()


def test_noperm_as_redis(differ_for, protocol):
    admin = differ_for(protocol)
    admin.check(*CAROL)
    d = differ_for(protocol)
    d.run([
        ("AUTH", "carol", "wrong"), ("AUTH", "nosuch", "pw"), ("AUTH", "carol", "pw"),
        ("SET", "k1", "v"), ("GET", "k1"), ("GET", "x"), ("SET", "r1", "v"), ("GET", "r1"),
        ("MGET", "k1", "r1", "x"), ("DEL", "k1"),
        ("CONFIG", "SET", "maxclients", "5"), ("CONFIG", "GET", "maxclients"),
        ("PUBLISH", "chx", "m"), ("PUBLISH", "other", "m"), ("ACL", "WHOAMI"),
        ("SPUBLISH", "chx", "m"), ("SPUBLISH", "other", "m"),
        ("MULTI",), ("GET", "k1"), ("DEL", "k1"), ("GET", "x"), ("EXEC",),
        ("MULTI",), ("SET", "k2", "v"), ("EXEC",), ("GET", "k2"),
        ("EVAL", "return redis.call('del','k1')", "1", "k1"),
        ("EVAL", "return redis.pcall('del','k1')", "1", "k1"),
        ("EVAL", "return redis.pcall('get','zz')", "0"),
        ("EVAL", "return redis.pcall('publish','zz','m')", "0"),
        ("EVAL", "return redis.pcall('spublish','zz','m')", "0"),
        ("EVAL", "return redis.call('get','k1')", "1", "zz"),
        ("EVAL", "return redis.call('get','k1')", "1", "k1"),
        # Rules changed by another connection hold at the next command.
    ])
    admin.check("ACL", "SETUSER", "carol", "+del")
    d.run([("DEL", "k1"), ("SSUBSCRIBE", "other"), ("SSUBSCRIBE", "chx"),
           ("SUBSCRIBE", "other"), ("SUBSCRIBE", "chx", "other"),
           ("PSUBSCRIBE", "chx*"), ("PSUBSCRIBE", "ch*")])
    d.run([("AUTH", "default", "anything"), ("ACL", "WHOAMI"), ("PSUBSCRIBE", "chx*")])
    d.assert_same()
    admin.assert_same()


def test_acl_check_cmd_asks_the_callers_rules_as_redis(differ_for, protocol):
    """redis.acl_check_cmd answers for the script's caller: its command, subcommand, key and
    channel rules (it said yes to everything a known command name)."""
    admin = differ_for(protocol)
    admin.check("ACL", "SETUSER", "dave", "on", ">pw", "~k*", "&c*", "+@all", "-del",
                "-client|kill")
    d = differ_for(protocol)
    d.check("AUTH", "dave", "pw")
    check = "return redis.acl_check_cmd(unpack(ARGV))"
    for args in [("get", "k1"), ("get", "x"), ("del", "k1"), ("client", "kill", "x"),
                 ("client", "list"), ("publish", "c1", "m"), ("publish", "d1", "m"),
                 ("client", "nosuch"), ("client",), ("get",), ("nosuch",), ("mget", "k1", "x"),
                 ("set", "k1", 5)]:
        d.check("EVAL", check, "0", *args)
    d.check("EVAL", "if redis.acl_check_cmd('del', 'k1') then return redis.call('del', 'k1') "
                    "else return 'denied' end", "0")
    d.assert_same()
    admin.assert_same()


def test_rules_changed_before_exec_as_redis(differ_for, protocol):
    admin = differ_for(protocol)
    admin.check("ACL", "SETUSER", "mx", "on", "nopass", "~k*", "&*", "+@all")
    d = differ_for(protocol)
    d.run([("AUTH", "mx", "x"), ("MULTI",), ("GET", "k1"), ("SET", "k2", "v"),
           ("PUBLISH", "ch", "m"), ("PING",)])
    admin.check("ACL", "SETUSER", "mx", "-get", "resetkeys", "~z*", "resetchannels")
    d.check("EXEC")
    d.assert_same()
    admin.assert_same()


def test_acl_log_as_redis(differ_for):
    admin = differ_for()
    admin.check(*CAROL)
    d = differ_for()
    d.run([("AUTH", "carol", "nope"), ("AUTH", "carol", "pw"), ("GET", "x"), ("GET", "x"),
           ("DEL", "k"), ("PUBLISH", "other", "m"), ("MULTI",), ("GET", "y"), ("DISCARD",),
           ("EVAL", "return redis.pcall('del','k1')", "0")])

    def entries(client):
        # age-seconds and client-info differ by nature; the rest must be Redis's.
        return [{k: v for k, v in zip(e[::2], e[1::2])
                 if k not in (b"age-seconds", b"client-info")}
                for e in client.call("ACL", "LOG")]

    redis_log, sluice_log = entries(admin.redis), entries(admin.sluice)
    assert sluice_log == redis_log
    assert [e[b"reason"] for e in sluice_log] == [b"command", b"key", b"channel", b"command",
                                                  b"key", b"auth"]
    assert b"user=carol" in dict(zip(*[iter(admin.sluice.call("ACL", "LOG", "1")[0])] * 2))[
        b"client-info"]
    admin.run([("ACL", "LOG", "RESET"), ("ACL", "LOG")])
    admin.assert_same()


def test_acl_log_count_grouping_and_auth_entries_as_redis(differ_for):
    """ACL LOG shows 10 entries unless asked for more; a refusal joins an entry only among the
    10 newest; a failed AUTH is logged under the command's name as typed, and in EXEC with
    context multi, as Redis 7.0."""
    admin = differ_for()
    admin.check("ACL", "SETUSER", "erin", "on", ">pw", "~k*", "+get", "+multi", "+exec",
                "+auth", "+hello")
    d = differ_for()
    d.check("AUTH", "erin", "pw")
    d.run([("GET", f"x{i}") for i in range(12)])
    d.run([("GET", "x0"), ("GET", "x11"), ("GET", "x2")])
    d.run([("HELLO", "3", "AUTH", "nouser", "x"), ("hello", "3", "auth", "nouser", "x"),
           ("Auth", "nouser", "x"), ("MULTI",), ("AUTH", "nouser3", "x"), ("EXEC",)])

    def entries(client, *count):
        return [(e[1], e[3], e[5], e[7]) for e in client.call("ACL", "LOG", *count)]

    assert len(admin.sluice.call("ACL", "LOG")) == len(admin.redis.call("ACL", "LOG")) == 10
    assert entries(admin.sluice, "100") == entries(admin.redis, "100")
    d.assert_same()
    admin.assert_same()


def test_patterns_may_not_hold_a_nul_as_redis(differ_for):
    differ = differ_for()
    differ.run([("ACL", "SETUSER", "nul", "resetkeys", b"~a\x00b"),
                ("ACL", "SETUSER", "nul", b"&c\x00d"), ("ACL", "SETUSER", "nul", b"%R~a\x00b"),
                ("ACL", "LIST")])
    differ.assert_same()


def test_reset_requirepass_and_disabled_users_as_redis(differ_for, protocol):
    admin = differ_for(protocol)
    admin.run([("ACL", "SETUSER", "dave", "on", "nopass", "~*", "+@all"),
               ("ACL", "SETUSER", "off1", "off", ">pw", "~*", "+@all")])
    d = differ_for(protocol)
    d.run([("AUTH", "dave", "whatever"), ("ACL", "WHOAMI"), ("AUTH", "off1", "pw"),
           ("RESET",), ("ACL", "WHOAMI"), ("AUTH", "onlypass")])
    admin.run([("CONFIG", "SET", "requirepass", "sekret"), ("ACL", "GETUSER", "default")])
    d.run([("AUTH", "dave", "x"), ("RESET",), ("GET", "a"), ("AUTH", "sekret"),
           ("ACL", "WHOAMI"), ("HELLO", "2", "AUTH", "off1", "pw"),
           ("HELLO", "2", "AUTH", "default", "wrong")])
    admin.run([("ACL", "SETUSER", "default", "nopass"), ("CONFIG", "SET", "requirepass", "")])
    d.assert_same()
    admin.assert_same()


def test_hello_auth_with_a_user(redis_server, sluiced):
    for port in (redis_server.port, sluiced.port):
        with servers.RespClient(port) as c:
            assert c.call("ACL", "SETUSER", "hal", "on", ">pw", "~*", "+@all") == "OK"
        with servers.RespClient(port) as c:
            reply = c.call("HELLO", "3", "AUTH", "hal", "pw", "SETNAME", "h")
            assert isinstance(reply, servers.Map) and reply.as_dict()[b"proto"] == 3
            assert c.call("ACL", "WHOAMI") == b"hal"
            info = c.call("CLIENT", "INFO")
            assert b" user=hal " in info and b" name=h " in info, info


def test_deleted_users_connections_are_closed(redis_server, sluiced):
    for port in (redis_server.port, sluiced.port):
        with servers.RespClient(port) as admin, servers.RespClient(port) as victim:
            admin.call("ACL", "SETUSER", "gone", "on", "nopass", "~*", "+@all")
            assert victim.call("AUTH", "gone", "x") == "OK"
            assert admin.call("ACL", "DELUSER", "gone") == 1
            assert victim.is_closed(), port
            assert admin.call("PING") == "PONG"


def test_config_file_users_and_redis_py_url(sluiced_factory, tmp_path):
    conf = tmp_path / "sluice.conf"
    conf.write_text("user limiter on >secret ~limiter:* +@all -@dangerous\n"
                    "user reader on >r %R~* -@all +get +rl.status\n")
    server = sluiced_factory(config_file=conf)
    url = f"redis://limiter:secret@127.0.0.1:{server.port}/0"
    r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=30)
    assert r.acl_whoami() == "limiter"
    assert r.set("limiter:a", "1") and r.get("limiter:a") == "1"
    with pytest.raises(redis.exceptions.NoPermissionError):
        r.get("other")
    with pytest.raises(redis.exceptions.NoPermissionError):
        r.flushall()
    bad = redis.Redis.from_url(f"redis://limiter:nope@127.0.0.1:{server.port}/0")
    # (redis-py 4.3 raises WRONGPASS as a plain ResponseError, later ones as AuthenticationError)
    with pytest.raises((redis.exceptions.AuthenticationError, redis.exceptions.ResponseError),
                       match="WRONGPASS"):
        bad.ping()
    r.close()
    # The default user is untouched by the directives.
    with server.client() as c:
        assert c.call("ACL", "WHOAMI") == b"default"
        assert c.call("ACL", "USERS") == [b"default", b"limiter", b"reader"]


def test_a_default_user_line_is_reset_first_as_redis(sluiced_factory, tmp_path):
    """A `user default ...` line applies to the default user reset first, as Redis: reset's
    sanitize-payload shows in ACL LIST (Redis 7.0.15's listing of the same line)."""
    conf = tmp_path / "default.conf"
    conf.write_text("user default on nopass ~* &* +@all -flushall\n")
    with sluiced_factory(config_file=conf).client() as c:
        assert c.call("ACL", "LIST") == [
            b"user default on nopass sanitize-payload ~* &* +@all -flushall"]


def test_bad_user_directive_stops_the_start(tmp_path):
    proc = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--dir", tmp_path / "data", "--user", "x on +nosuch"],
        cwd=tmp_path)
    assert proc.returncode == 1
    assert b"Unknown command or category name in ACL" in proc.stderr, proc.stderr


def test_limiter_commands_follow_the_acl(sluiced):
    with sluiced.client() as admin:
        assert admin.call("ACL", "SETUSER", "app", "on", ">a", "~rl:*", "-@all", "+@write") == "OK"
        assert admin.call("ACL", "SETUSER", "viewer", "on", ">v", "~rl:*", "-@all",
                          "+@read") == "OK"
    with sluiced.client() as app:
        assert app.call("AUTH", "app", "a") == "OK"
        assert app.call("RL.TOKENBUCKET", "rl:k", "10", "5", "1000")[0] == 1
        assert app.call_raw("RL.TOKENBUCKET", "other", "10", "5", "1000") == (
            b"-NOPERM this user has no permissions to access one of the keys used as "
            b"arguments\r\n")
    with sluiced.client() as viewer:
        assert viewer.call("AUTH", "viewer", "v") == "OK"
        assert viewer.call_raw("RL.TOKENBUCKET", "rl:k", "10", "5", "1000") == (
            b"-NOPERM this user has no permissions to run the 'rl.tokenbucket' command\r\n")


@pytest.fixture(scope="module")
def node_ready():
    return node_deps.node_with(NODE_DIR, "ioredis")


@pytest.mark.parametrize("node_protocol", [3, 2])
def test_ioredis_username_and_password(node_ready, sluiced, node_protocol):
    with sluiced.client() as admin:
        assert admin.call("ACL", "SETUSER", "limiter", "on", ">secret", "~limiter:*",
                          "+@all", "-@dangerous") == "OK"
    proc = subprocess.run([node_ready, "acl_auth.js", str(sluiced.port), str(node_protocol),
                           "limiter", "secret"],
                          cwd=NODE_DIR, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "ALL OK" in proc.stdout, (
        f"node acl_auth.js exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
        f"stderr:\n{proc.stderr}")
