"""CLIENT TRACKING (client-side caching) against Redis 7.0: the same commands sent to a
redis-server and a sluiced, and everything each connection received compared byte for byte, in
order: replies and invalidation pushes (RESP3), pub/sub messages on __redis__:invalidate (RESP2
with REDIRECT), the null a flush sends, tracking-redir-broken. Each connection's transcript is
read up to a PING marker, so what arrived before or after a reply is compared too. Then what
redis-server cannot show the same way: expiry on sluiced's test clock, limiter commands, and a
real client library's cache."""

import re
import subprocess
from pathlib import Path

import pytest

from frozen_clock import Clock
from node_deps import node_with
import servers

NODE_DIR = Path(__file__).parent / "node"


class Conn:
    """A connection whose transcript is read up to a marker: sync() returns the raw bytes of
    every reply and message that came since the last sync, in order."""

    def __init__(self, port, protocol=3):
        self.c = servers.RespClient(port)
        if protocol == 3:
            assert isinstance(self.c.call("HELLO", "3"), servers.Map)
        self.id = self.c.call("CLIENT", "ID")
        self.marks = 0

    def send(self, *args):
        self.c.send(servers.encode(*args))

    def sync(self):
        self.marks += 1
        marker = f"mark-{self.marks}".encode()
        self.c.send(servers.encode("PING", marker))
        got = []
        while True:
            value, raw = self.c.read_reply_raw()
            # PING answers the marker, or ["pong", marker] in RESP2 pub/sub mode.
            if value == marker or (isinstance(value, list) and value[-1:] == [marker]):
                return got
            got.append(raw)

    def cmd(self, *args):
        self.send(*args)
        return self.sync()

    def pipeline(self, *commands):
        """The commands and the marker in one write, so the server reads them at once (one
        loop turn); their transcript."""
        self.marks += 1
        marker = f"mark-{self.marks}".encode()
        self.c.send(b"".join(servers.encode(*cmd) for cmd in commands) +
                    servers.encode("PING", marker))
        got = []
        while True:
            value, raw = self.c.read_reply_raw()
            if value == marker:
                return got
            got.append(raw)

    def close(self):
        self.c.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _both(emptied_servers, scenario):
    """scenario(port) on redis-server then on sluiced; both transcripts."""
    redis_server, sluiced = emptied_servers
    return scenario(redis_server.port), scenario(sluiced.port)


def _same(emptied_servers, scenario):
    theirs, ours = _both(emptied_servers, scenario)
    assert ours == theirs
    return ours


INVALIDATE = b">2\r\n$10\r\ninvalidate\r\n"


def _push(*keys):
    return INVALIDATE + servers.encode(*keys)


# --- arguments, errors and introspection ------------------------------------------------------

ARGUMENT_CASES = [
    ("CLIENT", "TRACKING", "on", "PREFIX", "a"),
    ("CLIENT", "TRACKING", "on", "BCAST", "OPTIN"),
    ("CLIENT", "TRACKING", "on", "OPTIN", "OPTOUT"),
    ("CLIENT", "TRACKING", "on", "REDIRECT", "999999"),
    ("CLIENT", "TRACKING", "on", "REDIRECT", "0"),
    ("CLIENT", "TRACKING", "on", "REDIRECT", "x"),
    ("CLIENT", "TRACKING", "off", "REDIRECT", "999999"),
    ("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "a"),
    ("CLIENT", "TRACKING", "on", "foo"),
    ("CLIENT", "TRACKING", "maybe"),
    ("CLIENT", "TRACKING", "on", "PREFIX"),
    ("CLIENT", "TRACKING", "on", "REDIRECT"),
    ("CLIENT", "TRACKING"),
    ("CLIENT", "CACHING", "yes"),
    ("CLIENT", "CACHING"),
    ("CLIENT", "CACHING", "yes", "extra"),
    ("CLIENT", "TRACKINGINFO"),
    ("CLIENT", "TRACKINGINFO", "x"),
    ("CLIENT", "GETREDIR"),
    ("CLIENT", "GETREDIR", "x"),
    ("CLIENT", "TRACKING", "on", "OPTIN"),
    ("CLIENT", "TRACKING", "on", "OPTOUT"),
    ("CLIENT", "TRACKING", "on", "BCAST"),
    ("CLIENT", "CACHING", "no"),
    ("CLIENT", "CACHING", "maybe"),
    ("CLIENT", "CACHING", "YES"),
    ("CLIENT", "TRACKINGINFO"),
    ("CLIENT", "GETREDIR"),
    ("CLIENT", "TRACKING", "on", "NOLOOP"),
    ("CLIENT", "TRACKINGINFO"),
    ("CLIENT", "TRACKING", "OFF"),
    ("CLIENT", "TRACKINGINFO"),
    ("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "ab", "PREFIX", "cd"),
    ("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a"),
    ("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "cde"),
    ("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "x", "noloop"),
    ("CLIENT", "TRACKING", "on"),
    ("CLIENT", "TRACKINGINFO"),
    ("CLIENT", "TRACKING", "off"),
    ("CLIENT", "TRACKING", "on", "BCAST"),
    ("CLIENT", "TRACKINGINFO"),
    ("RESET",),
    ("CLIENT", "TRACKINGINFO"),
    ("CLIENT", "GETREDIR"),
]


@pytest.mark.parametrize("protocol", [2, 3])
def test_arguments_errors_and_trackinginfo_match_redis(emptied_servers, protocol):
    def scenario(port):
        with Conn(port, protocol) as conn:
            return [conn.c.call_raw(*cmd) for cmd in ARGUMENT_CASES]

    theirs, ours = _both(emptied_servers, scenario)
    differing = [(cmd, t, o) for cmd, t, o in zip(ARGUMENT_CASES, theirs, ours) if t != o]
    assert not differing


def test_redirect_argument_rules_match_redis(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            bid = str(b.id)
            return [a.c.call_raw("CLIENT", "TRACKING", "on", "REDIRECT", bid, "REDIRECT", bid),
                    a.c.call_raw("CLIENT", "TRACKING", "on", "REDIRECT", bid),
                    a.c.call("CLIENT", "GETREDIR") == b.id,
                    a.c.call("CLIENT", "TRACKINGINFO").as_dict()[b"redirect"] == b.id]

    assert _same(emptied_servers, scenario)[2:] == [True, True]


def _client_fields(conn, target_id):
    line = conn.c.call("CLIENT", "LIST", "ID", str(target_id))
    line = line.decode() if isinstance(line, bytes) else str(line)
    fields = dict(part.split("=", 1) for part in line.split())
    return fields["flags"], fields["redir"]


def test_client_list_flags_and_info_fields_match_redis(emptied_servers):
    def scenario(port):
        a, b, c, gone = Conn(port), Conn(port), Conn(port), Conn(port)
        try:
            seen = [_client_fields(b, a.id)]
            a.cmd("CLIENT", "TRACKING", "on", "REDIRECT", str(gone.id))
            b.cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p", "PREFIX", "q")
            c.cmd("CLIENT", "TRACKING", "on")
            c.cmd("MGET", "k1", "k2", "k3")
            a.cmd("GET", "k1")
            gone.close()
            seen.append(_client_fields(b, a.id)[0])
            b.cmd("SET", "k1", "v")  # a's redirect target is gone: a is told, and flagged R
            seen.append(a.sync())
            seen += [_client_fields(b, a.id), _client_fields(a, b.id), _client_fields(a, c.id)]
            info = servers.info_fields(b.c)
            seen.append([info[f] for f in ("tracking_clients", "tracking_total_keys",
                                           "tracking_total_items", "tracking_total_prefixes")])
            return [str(s).replace(str(gone.id), "<gone>") for s in seen]
        finally:
            for conn in (a, b, c):
                conn.close()

    ours = _same(emptied_servers, scenario)
    assert "'tR'" in ours[3]  # CLIENT LIST's flags of a client whose redirect is gone
    assert ours[-1] == "['3', '2', '2', '2']"


# --- default mode --------------------------------------------------------------------------

def test_default_mode_invalidations_match_redis(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            got = [a.cmd("CLIENT", "TRACKING", "on")]
            b.cmd("SET", "k", "1")
            got.append(a.cmd("GET", "k"))
            got.append(b.cmd("SET", "k", "2"))  # a is told at once, once
            got.append(b.cmd("SET", "k", "3"))
            got.append(a.sync())
            # Its own write: the invalidation follows the reply, before the next reply.
            a.send("GET", "k")
            a.send("SET", "k", "4")
            a.send("INCR", "n")
            got.append(a.sync())
            # Several keys; a DEL that removes only one invalidates only that one.
            got.append(a.cmd("MGET", "k", "absent", "n"))
            got.append(b.cmd("DEL", "k", "other"))
            got.append(b.cmd("DEL", "absent"))  # nothing to delete: no invalidation
            got.append(a.sync())
            # Other types and reads: a hash field write, EXISTS, STRLEN, LRANGE.
            a.cmd("HGET", "h", "f")
            a.cmd("EXISTS", "e")
            a.cmd("LRANGE", "l", "0", "-1")
            b.cmd("HSET", "h", "f", "v")
            b.cmd("SET", "e", "1")
            b.cmd("RPUSH", "l", "x")
            got.append(a.sync())
            # A write command's own reads are not remembered.
            a.cmd("INCR", "w")
            b.cmd("INCR", "w")
            got.append(a.sync())
            # A key read in another database is the same key to the table.
            a.cmd("SELECT", "1")
            a.cmd("GET", "d")
            b.cmd("SET", "d", "0")
            got.append(a.sync())
            a.cmd("SELECT", "0")
            # A transaction: the invalidation of its own write comes after EXEC's reply.
            a.cmd("GET", "m")
            a.send("MULTI")
            a.send("SET", "m", "1")
            a.send("GET", "m")
            a.send("EXEC")
            got.append(a.sync())
            got.append(b.cmd("SET", "m", "2"))
            got.append(a.sync())
            return got

    ours = _same(emptied_servers, scenario)
    assert _push("k") in ours[4]


def test_tracking_switched_inside_a_transaction_matches_redis(emptied_servers):
    """CLIENT TRACKING ON queued in MULTI with a read and a write of the key: the invalidation
    follows EXEC's reply, though no client tracked when EXEC began; OFF queued after a write
    still sends the write's."""
    def scenario(port):
        with Conn(port) as a:
            got = [a.pipeline(("MULTI",), ("CLIENT", "TRACKING", "on"), ("GET", "t"),
                              ("SET", "t", "1"), ("EXEC",))]
            a.cmd("GET", "u")
            got.append(a.pipeline(("MULTI",), ("SET", "u", "1"), ("CLIENT", "TRACKING", "off"),
                                  ("EXEC",)))
            got.append(a.cmd("SET", "u", "2"))
            return got

    ours = _same(emptied_servers, scenario)
    assert ours[0][-1] == _push("t")
    assert ours[1][-1] == _push("u")


# Writes of several keys: which keys each invalidates, and in which order (the list moves
# report their destination first, as Redis).
WRITES = [("RPUSH", "l", "a", "b", "c"), ("SADD", "s", "a", "b"), ("RPOPLPUSH", "l", "l2"),
          ("LMOVE", "l", "l2", "LEFT", "RIGHT"), ("BLMOVE", "l2", "l", "LEFT", "LEFT", "0"),
          ("BRPOPLPUSH", "l", "l2", "0"), ("SMOVE", "s", "s2", "a"), ("MSET", "k2", "1", "k1", "2"),
          ("DEL", "k2", "k1", "none"), ("MSETNX", "n2", "1", "n1", "1"), ("RENAMENX", "n2", "n3"),
          ("RENAME", "n3", "n2"), ("COPY", "n2", "c"), ("MOVE", "c", "1"), ("EXPIRE", "n1", "100"),
          ("PERSIST", "n1"), ("EXPIRE", "none", "10"), ("ZADD", "z", "1", "a"),
          ("ZRANGESTORE", "zd", "z", "0", "-1"), ("SINTERSTORE", "si", "s", "s2"),
          ("BITOP", "OR", "bo", "n1", "n2"), ("LMPOP", "2", "none", "l2", "LEFT"),
          ("GEOADD", "g", "0", "0", "m"), ("GEORADIUS", "g", "0", "0", "10", "km", "STORE", "gs"),
          ("SWAPDB", "0", "1"), ("SWAPDB", "0", "1"), ("GETDEL", "n1")]
WRITTEN_KEYS = ["l", "l2", "s", "s2", "k1", "k2", "n1", "n2", "n3", "c", "z", "zd", "si", "bo",
                "g", "gs", "none"]


def test_multi_key_writes_invalidate_as_redis(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            a.cmd("CLIENT", "TRACKING", "on")
            got = []
            for write in WRITES:
                a.cmd("MGET", *WRITTEN_KEYS)
                got.append((write, b.cmd(*write), a.sync()))
            return got

    ours = _same(emptied_servers, scenario)
    assert ours[2][2] == [_push("l2"), _push("l")]


LIBRARY = ("#!lua name=trk\n"
           "redis.register_function('trk_read', function(keys, args) "
           "return redis.call('get', 'e2') end)")


def test_scripts_track_their_declared_keys_as_redis_7_0(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            a.cmd("CLIENT", "TRACKING", "on")
            a.cmd("MSET", "e1", "1", "e2", "2", "e3", "3")
            # Redis 7.0 remembers the keys EVAL declared when the script runs a read-only
            # command, not the keys that command read.
            got = [a.cmd("EVAL", "return redis.call('get', KEYS[1] .. '')", "1", "e1"),
                   a.cmd("EVAL", "redis.call('get', 'e2') return 1", "1", "e3"),
                   a.cmd("EVAL", "return 1", "1", "e2"),
                   a.cmd("EVAL_RO", "return redis.call('get', 'e2')", "0")]
            b.cmd("MSET", "e1", "x", "e2", "y", "e3", "z")
            got.append(a.sync())
            # FCALL likewise: its declared key, not the one its function read.
            b.cmd("FUNCTION", "LOAD", "REPLACE", LIBRARY)
            got.append(a.cmd("FCALL", "trk_read", "1", "e1"))
            b.cmd("MSET", "e1", "x", "e2", "y")
            got.append(a.sync())
            b.cmd("FUNCTION", "DELETE", "trk")
            # A script's write of the caller's key: after EVAL's reply.
            a.cmd("GET", "s")
            got.append(a.cmd("EVAL", "redis.call('set', 's', '9') return 1", "0"))
            return got

    ours = _same(emptied_servers, scenario)
    assert ours[6] == [_push("e1")]
    assert ours[-1][-1] == _push("s")


def test_noloop_optin_optout_match_redis(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            got = [a.cmd("CLIENT", "TRACKING", "on", "NOLOOP")]
            a.cmd("GET", "n")
            got.append(a.cmd("SET", "n", "1"))  # its own write: nothing
            b.cmd("SET", "n", "2")  # forgotten already
            got.append(a.sync())
            a.cmd("GET", "s")
            got.append(a.cmd("EVAL", "redis.call('set', 's', '9') return 1", "0"))
            a.cmd("CLIENT", "TRACKING", "off")
            a.cmd("CLIENT", "TRACKING", "on", "OPTIN")
            a.send("GET", "o1")
            a.send("CLIENT", "CACHING", "yes")
            a.send("CLIENT", "GETNAME")  # a CLIENT command keeps CACHING for the next one
            a.send("GET", "o2")
            a.send("GET", "o3")
            got.append(a.sync())
            b.cmd("MSET", "o1", "1", "o2", "2", "o3", "3")
            got.append(a.sync())
            a.send("CLIENT", "CACHING", "yes")
            a.send("MULTI")
            a.send("GET", "o1")
            a.send("GET", "o2")
            a.send("EXEC")
            a.send("GET", "o3")
            got.append(a.sync())
            b.cmd("MSET", "o1", "1", "o2", "2", "o3", "3")
            got.append(a.sync())
            a.cmd("CLIENT", "TRACKING", "off")
            a.cmd("CLIENT", "TRACKING", "on", "OPTOUT")
            a.send("GET", "o1")
            a.send("CLIENT", "CACHING", "no")
            a.send("CLIENT", "TRACKINGINFO")
            a.send("GET", "o2")
            a.send("GET", "o3")
            got.append(a.sync())
            b.cmd("MSET", "o1", "1", "o2", "2", "o3", "3")
            got.append(a.sync())
            return got

    ours = _same(emptied_servers, scenario)
    assert ours[-1] == [_push("o1"), _push("o3")]


def test_client_reply_off_does_not_silence_invalidations_as_redis(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            a.cmd("CLIENT", "TRACKING", "on")
            a.cmd("GET", "k")
            got = [a.pipeline(("CLIENT", "REPLY", "OFF"), ("SET", "k", "1"), ("GET", "k"),
                              ("CLIENT", "REPLY", "ON"))]
            b.cmd("SET", "k", "2")
            got.append(a.sync())
            a.cmd("GET", "k")
            got.append(a.pipeline(("CLIENT", "REPLY", "SKIP"), ("SET", "k", "3"), ("GET", "k")))
            a.send("CLIENT", "REPLY", "OFF")  # (no marker: its reply would be dropped)
            a.send("GET", "k")
            b.cmd("SET", "k", "4")
            got.append(a.cmd("CLIENT", "REPLY", "ON"))
            return got

    ours = _same(emptied_servers, scenario)
    assert ours[0] == [_push("k"), b"+OK\r\n"]


# --- BCAST -------------------------------------------------------------------------------------

def test_bcast_batches_per_loop_turn_as_redis(emptied_servers):
    def scenario(port):
        a, b, c = Conn(port), Conn(port), Conn(port)
        try:
            got = [a.cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p:", "PREFIX", "q:"),
                   c.cmd("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP")]
            # Read at once: one message per prefix, after all the replies of the batch.
            got.append(a.pipeline(("SET", "p:2", "x"), ("SET", "p:1", "x"), ("SET", "z", "1"),
                                  ("MSET", "q:1", "1", "p:1", "y")))
            got.append(a.sync())
            got.append(c.sync())
            b.cmd("SET", "p:3", "x")
            got += [a.sync(), c.sync()]
            # NOLOOP: the keys it modified itself are left out; nothing if none is left.
            c.cmd("SET", "own", "1")
            got.append(c.sync())
            got.append(c.pipeline(("SET", "own", "2"), ("SET", "p:9", "2")))
            got.append(c.sync())
            b.cmd("DEL", "p:3", "nothing")
            got += [a.sync(), c.sync()]
            return got
        finally:
            for conn in (a, b, c):
                conn.close()

    ours = _same(emptied_servers, scenario)
    assert ours[2] == [b"+OK\r\n"] * 4
    assert ours[3] == [_push("p:1", "p:2"), _push("q:1")]


# --- redirect, RESP2, flushes --------------------------------------------------------------

def test_redirect_to_a_resp2_subscriber_and_a_broken_redirect_match_redis(emptied_servers):
    def scenario(port):
        sub, t = Conn(port, 2), Conn(port, 2)
        plain, r3 = Conn(port, 2), Conn(port)
        t3, w = Conn(port), Conn(port)
        try:
            got = [sub.cmd("SUBSCRIBE", "__redis__:invalidate")]
            got.append(t.cmd("CLIENT", "TRACKING", "on", "REDIRECT", str(sub.id)))
            t.cmd("GET", "rk")
            got.append(w.cmd("SET", "rk", "1"))
            got.append(sub.sync())
            # The target itself writes: the message comes before its own reply.
            t.cmd("GET", "rk")
            t.cmd("CLIENT", "TRACKING", "on", "REDIRECT", str(r3.id))
            t.cmd("GET", "rk")
            got.append(r3.cmd("SET", "rk", "2"))
            # The tracking client writes: the target gets it after the writer's reply.
            t.cmd("GET", "rk")
            got.append(t.cmd("SET", "rk", "3"))
            got.append(r3.sync())
            # A RESP2 target not in pub/sub mode gets nothing.
            t.cmd("CLIENT", "TRACKING", "on", "REDIRECT", str(plain.id))
            t.cmd("GET", "rk")
            w.cmd("SET", "rk", "4")
            got.append(plain.sync())
            # Broken: the tracking client (RESP3) is told, each time.
            gone = Conn(port)
            t3.cmd("CLIENT", "TRACKING", "on", "REDIRECT", str(gone.id))
            t3.cmd("GET", "bk")
            gone.close()
            w.cmd("INFO", "clients")  # the close is seen
            w.cmd("SET", "bk", "1")
            got.append(t3.sync())
            t3.cmd("GET", "bk")
            got.append(t3.cmd("SET", "bk", "2"))
            got.append(t3.cmd("CLIENT", "TRACKINGINFO"))
            return [[raw.replace(f":{gone.id}\r\n".encode(), b":<gone>\r\n") for raw in each]
                    for each in got]
        finally:
            for conn in (sub, t, plain, r3, t3, w):
                conn.close()

    ours = _same(emptied_servers, scenario)
    assert ours[3] == [b"*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$2\r\nrk\r\n"]


def test_flushes_send_a_null_to_every_tracking_client_as_redis(emptied_servers):
    def scenario(port):
        a, bc, r2, target = Conn(port), Conn(port), Conn(port, 2), Conn(port)
        r2plain = Conn(port, 2)
        try:
            a.cmd("CLIENT", "TRACKING", "on")
            bc.cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "zz")
            r2.cmd("CLIENT", "TRACKING", "on", "REDIRECT", str(target.id))
            r2plain.cmd("CLIENT", "TRACKING", "on")
            a.cmd("GET", "k")
            got = [r2plain.cmd("FLUSHDB")]
            got += [a.sync(), bc.sync(), target.sync(), r2plain.sync()]
            # The flushing client's own null follows its reply.
            a.send("FLUSHALL")
            a.send("GET", "k")
            got.append(a.sync())
            got.append(servers.info_fields(a.c)["tracking_total_keys"])
            return got
        finally:
            for conn in (a, bc, r2, target, r2plain):
                conn.close()

    ours = _same(emptied_servers, scenario)
    # A RESP2 tracker redirecting to a RESP3 target: RESP2's null inside the push, as Redis.
    assert ours[3] == [INVALIDATE + b"$-1\r\n"]
    assert ours[1] == [INVALIDATE + b"_\r\n"]


def test_resp2_without_redirect_is_told_nothing_as_redis(emptied_servers):
    def scenario(port):
        with Conn(port, 2) as a, Conn(port) as b:
            got = [a.cmd("CLIENT", "TRACKING", "on"), a.cmd("GET", "q"), b.cmd("SET", "q", "1"),
                   a.cmd("GET", "q"), a.cmd("SET", "q", "2"), a.cmd("FLUSHALL")]
            got.append(servers.info_fields(b.c)["tracking_clients"])
            return got

    _same(emptied_servers, scenario)


def test_tracking_table_max_keys_evicts_with_invalidations(emptied_servers):
    def scenario(port):
        with Conn(port) as a, Conn(port) as b:
            got = [b.c.call_raw("CONFIG", "GET", "tracking-table-max-keys"),
                   b.c.call_raw("CONFIG", "SET", "tracking-table-max-keys", "-1"),
                   b.c.call_raw("CONFIG", "SET", "tracking-table-max-keys", "x"),
                   b.c.call_raw("CONFIG", "SET", "tracking-table-max-keys", "2")]
            a.cmd("CLIENT", "TRACKING", "on")
            # The next command (here the marker PING) evicts random keys before its reply: the
            # keys differ, their number does not.
            evicted = a.cmd("MGET", "m1", "m2", "m3", "m4", "m5")[1:]
            got.append(len(evicted))
            got.append(all(raw.startswith(INVALIDATE + b"*1\r\n$2\r\nm") for raw in evicted))
            got.append(servers.info_fields(b.c)["tracking_total_keys"])
            got.append(b.c.call_raw("CONFIG", "SET", "tracking-table-max-keys", "0"))
            a.cmd("MGET", "m1", "m2", "m3", "m4", "m5")
            b.cmd("PING")
            got.append(servers.info_fields(b.c)["tracking_total_keys"])
            b.c.call("CONFIG", "SET", "tracking-table-max-keys", "1000000")
            return got

    ours = _same(emptied_servers, scenario)
    assert ours[4:7] == [3, True, "2"]


def test_config_rewrite_writes_tracking_table_max_keys(sluiced_factory, tmp_path):
    conf = tmp_path / "sluiced.conf"
    conf.write_text("tracking-table-max-keys 5\n")
    sluiced = sluiced_factory(config_file=conf)
    with sluiced.client() as c:
        assert c.call("CONFIG", "GET", "tracking-table-max-keys") == [b"tracking-table-max-keys",
                                                                      b"5"]
        assert c.call("CONFIG", "SET", "tracking-table-max-keys", "7") == "OK"
        assert c.call("CONFIG", "REWRITE") == "OK"
    assert "tracking-table-max-keys 7" in conf.read_text().splitlines()


def test_keys_read_by_clients_gone_are_forgotten_when_written_as_redis(emptied_servers):
    """Short-lived tracking connections (job workers, serverless functions) read keys and leave
    before anyone writes them: the write that comes after still forgets them, as Redis's writes
    always invalidate. Before, with no tracking client connected, sluice kept every departed
    client's id for good, the table grew by one entry per connection and key, and so did its
    memory."""
    def scenario(port):
        for _ in range(20):
            with Conn(port) as reader:
                reader.cmd("CLIENT", "TRACKING", "on")
                reader.cmd("MGET", "k1", "k2", "k3")
        with Conn(port, protocol=2) as writer:
            counts = [servers.info_fields(writer.c)[f"tracking_total_{name}"]
                      for name in ("keys", "items")]
            writer.cmd("MSET", "k1", "a", "k2", "b")
            writer.cmd("SET", "k3", "c")
            info = servers.info_fields(writer.c)
            return counts, [info["tracking_total_keys"], info["tracking_total_items"]]

    (before, after) = _same(emptied_servers, scenario)
    assert after == ["0", "0"], before


# --- what redis-server cannot show the same way ---------------------------------------------

def test_expiry_on_the_test_clock_invalidates_lazily_and_actively(debug_sluiced):
    a, b = Conn(debug_sluiced.port), Conn(debug_sluiced.port)
    try:
        clock = Clock(b.c)
        a.cmd("CLIENT", "TRACKING", "on")
        b.cmd("SET", "lazy", "v", "PX", "100")
        # Later than the others, so that the real-time expiry cycle cannot find it before the
        # steps below have read what they expect.
        b.cmd("SET", "active", "v", "PX", "1000")
        a.cmd("MGET", "lazy", "active")
        clock.advance(200)
        # Another client's read expires it (unless the expiry cycle was first): the reader's
        # cached copy is invalid either way.
        assert b.cmd("GET", "lazy") == [b"_\r\n"]
        assert a.sync() == [_push("lazy")]
        # Its own read expires it (or the cycle does): told once, and it reads it again.
        b.cmd("SET", "own", "v", "PX", "100")
        a.cmd("GET", "own")
        clock.advance(200)
        assert sorted(a.cmd("GET", "own")) == sorted([b"_\r\n", _push("own")])
        # Nobody reads this one: the active expiry cycle finds it by itself.
        clock.advance(700)
        got = []
        servers.wait_for(lambda: got.extend(a.sync()) or _push("active") in got,
                         "the active expiry's invalidation")
        assert got == [_push("active")]
    finally:
        a.close()
        b.close()


def test_limiter_commands_invalidate_the_keys_they_write(debug_sluiced):
    a, b = Conn(debug_sluiced.port), Conn(debug_sluiced.port)
    try:
        Clock(b.c)
        a.cmd("CLIENT", "TRACKING", "on")
        a.cmd("GET", "rl")
        a.cmd("GET", "cl")
        b.cmd("RL.FIXEDWINDOW", "rl", "10", "1000")
        assert a.sync() == [_push("rl")]
        b.cmd("CL.THROTTLE", "cl", "5", "10", "60")
        assert a.sync() == [_push("cl")]
        # Not read since: nothing more.
        b.cmd("RL.FIXEDWINDOW", "rl", "10", "1000")
        assert a.sync() == []
        # BCAST sees them too.
        c = Conn(debug_sluiced.port)
        c.cmd("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "r")
        b.cmd("RL.FIXEDWINDOW", "rl", "10", "1000")
        assert c.sync() == [_push("rl")]
        c.close()
    finally:
        a.close()
        b.close()


def test_no_tracking_client_no_tracking_state(emptied_servers):
    _, sluiced = emptied_servers
    with sluiced.client() as c:
        c.call("GET", "k")
        c.call("SET", "k", "1")
        info = servers.info_fields(c)
        assert [info["tracking_clients"], info["tracking_total_keys"]] == ["0", "0"]


def test_node_redis_client_side_cache(emptied_servers):
    """node-redis's RESP3 client-side cache (clientSideCache) on sluiced: a cached GET is served
    from the cache until another client's write invalidates it."""
    _, sluiced = emptied_servers
    node = node_with(NODE_DIR, "redis")
    proc = subprocess.run([node, str(NODE_DIR / "client_side_cache.js"), str(sluiced.port)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "ALL OK" in proc.stdout, proc.stdout + proc.stderr
