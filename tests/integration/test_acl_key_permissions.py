"""Read and write key permissions (%R~, %W~, %RW~) decided per key as Redis 7.0 decides them
from each key spec's flags (a key whose value is read needs R, one inserted into, deleted or
updated needs W, one only looked at, as EXISTS's, neither), compared with redis-server 7.0.15:
ACL DRYRUN of a broad list of commands with every key in a read-only, a write-only, a
read-write and an unreachable key space; the refusals themselves (NOPERM, ACL LOG); and the
patterns as GETUSER and LIST render them.
"""

import itertools

import pytest

from differential import Differ

# Key spaces: r: read only, w: write only, rw: both, n: none (the user's patterns below).
USER = ("ACL", "SETUSER", "kp", "on", "nopass", "+@all", "%R~r:*", "%W~w:*", "%RW~rw:*",
        "resetchannels")
SPACES = ("r:", "w:", "rw:", "n:")

# Each command with {0}, {1}, {2} where its keys go.
COMMANDS = """
get {0} | set {0} v | set {0} v GET | set {0} v EX 10 get | setnx {0} v | setex {0} 10 v
psetex {0} 10 v | getset {0} v | getdel {0} | getex {0} | getex {0} PERSIST | append {0} v
incr {0} | decr {0} | incrby {0} 2 | decrby {0} 2 | incrbyfloat {0} 1.5 | strlen {0}
getrange {0} 0 1 | substr {0} 0 1 | setrange {0} 0 v | mget {0} {1} | mset {0} v {1} v
msetnx {0} v {1} v | lcs {0} {1}
del {0} {1} | unlink {0} {1} | exists {0} {1} | touch {0} {1} | type {0} | expire {0} 10
pexpire {0} 10 | expireat {0} 10 | pexpireat {0} 10 | persist {0} | ttl {0} | pttl {0}
expiretime {0} | pexpiretime {0} | rename {0} {1} | renamenx {0} {1} | copy {0} {1}
copy {0} {1} REPLACE | move {0} 1 | object encoding {0} | object freq {0} | memory usage {0}
object refcount {0}
watch {0} {1}
hset {0} f v | hsetnx {0} f v | hget {0} f | hmget {0} f g | hmset {0} f v | hdel {0} f
hexists {0} f | hlen {0} | hstrlen {0} f | hgetall {0} | hkeys {0} | hvals {0}
hincrby {0} f 1 | hincrbyfloat {0} f 1.5 | hrandfield {0} | hscan {0} 0
lpush {0} a | rpush {0} a | lpushx {0} a | rpushx {0} a | lpop {0} | rpop {0} 2 | llen {0}
lrange {0} 0 -1 | lindex {0} 0 | lset {0} 0 v | linsert {0} BEFORE a b | lrem {0} 0 a
ltrim {0} 0 1 | lpos {0} a | lmove {0} {1} LEFT RIGHT | rpoplpush {0} {1} | blpop {0} {1} 1
brpop {0} 1 | blmove {0} {1} LEFT RIGHT 1 | brpoplpush {0} {1} 1 | lmpop 2 {0} {1} LEFT
blmpop 1 2 {0} {1} LEFT
sadd {0} a | srem {0} a | smembers {0} | sismember {0} a | smismember {0} a b | scard {0}
spop {0} | srandmember {0} | smove {0} {1} a | sinter {0} {1} | sinterstore {0} {1} {2}
sunion {0} {1} | sunionstore {0} {1} {2} | sdiff {0} {1} | sdiffstore {0} {1} {2}
sintercard 2 {0} {1} | sscan {0} 0
zadd {0} 1 a | zadd {0} INCR 1 a | zincrby {0} 1 a | zrem {0} a | zcard {0} | zcount {0} 0 1
zscore {0} a | zmscore {0} a | zrank {0} a | zrevrank {0} a | zrange {0} 0 -1
zrangebyscore {0} 0 1 | zrevrange {0} 0 -1 | zrangebylex {0} - + | zlexcount {0} - +
zremrangebyrank {0} 0 1 | zremrangebyscore {0} 0 1 | zremrangebylex {0} - + | zpopmin {0}
zpopmax {0} | bzpopmin {0} 1 | bzpopmax {0} {1} 1 | zmpop 2 {0} {1} MIN
bzmpop 1 2 {0} {1} MIN | zrandmember {0} | zunion 2 {0} {1} | zinter 2 {0} {1}
zdiff 2 {0} {1} | zunionstore {0} 2 {1} {2} | zinterstore {0} 2 {1} {2}
zdiffstore {0} 2 {1} {2} | zrangestore {0} {1} 0 -1 | zscan {0} 0
setbit {0} 0 1 | getbit {0} 0 | bitcount {0} | bitpos {0} 1 | bitop AND {0} {1} {2}
bitop NOT {0} {1} | bitfield {0} GET u8 0 | bitfield {0} SET u8 0 1 | bitfield {0} INCRBY u8 0 1
bitfield {0} OVERFLOW SAT GET u8 0 | bitfield {0} GET u8 | bitfield {0} | bitfield_ro {0} GET u8 0
pfadd {0} a | pfcount {0} {1} | pfmerge {0} {1} {2}
geoadd {0} 13.36 38.11 a | geodist {0} a b | geohash {0} a | geopos {0} a
georadius {0} 15 37 200 km | georadius {0} 15 37 200 km STORE {1}
georadiusbymember {0} a 100 km STOREDIST {1} | georadius_ro {0} 15 37 200 km
geosearch {0} FROMLONLAT 15 37 BYRADIUS 200 km
geosearchstore {0} {1} FROMLONLAT 15 37 BYRADIUS 200 km
sort {0} | sort {0} STORE {1} | sort {0} BY nosort STORE {1} | sort_ro {0}
eval return 2 {0} {1} | evalsha 0123 1 {0} | eval_ro return 1 {0} | fcall f 1 {0}
fcall_ro f 1 {0}
dump {0} | restore {0} 0 payload | restore {0} 0 payload REPLACE | zintercard 2 {0} {1}
spublish {0} m | ssubscribe {0}
"""


def templates():
    for entry in COMMANDS.replace("\n", " | ").split("|"):
        words = entry.split()
        if words:
            yield words


def requests(words):
    """The command with each combination of key spaces for its keys."""
    slots = sorted({w for w in words if w.startswith("{")})
    for spaces in itertools.product(SPACES, repeat=len(slots)):
        names = {slot: f"{space}{i}" for i, (slot, space) in enumerate(zip(slots, spaces))}
        yield [names.get(w, w) for w in words]


def test_dryrun_of_every_command_as_redis(redis_server, sluiced):
    d = Differ(redis_server.port, sluiced.port)
    d.check(*USER)
    count = 0
    for words in templates():
        for request in requests(words):
            d.check("ACL", "DRYRUN", "kp", *request)
            count += 1
    d.assert_same()
    assert count > 1000


@pytest.fixture
def as_kp(redis_server, sluiced):
    admin = Differ(redis_server.port, sluiced.port)
    admin.check(*USER)
    d = Differ(redis_server.port, sluiced.port)
    d.check("AUTH", "kp", "x")
    yield admin, d
    admin.assert_same()
    d.assert_same()
    admin.close()
    d.close()


def test_refusals_and_the_acl_log_as_redis(as_kp):
    admin, d = as_kp
    d.run([("SET", "w:1", "5"), ("INCR", "w:1"), ("GET", "w:1"), ("GET", "rw:1"),
           ("SET", "rw:1", "1"), ("INCR", "rw:1"), ("LPUSH", "w:l", "a"), ("LPOP", "w:l"),
           ("EXISTS", "r:1", "w:1"), ("COPY", "rw:1", "w:2"), ("COPY", "w:1", "rw:2"),
           ("SET", "w:1", "v", "GET"), ("SET", "rw:1", "v", "GET"),
           ("EVAL", "return redis.pcall('incr', KEYS[1])", "1", "w:1"),
           ("EVAL", "return redis.pcall('lpush', KEYS[1], 'x')", "1", "w:1")])

    def entries(client):
        return [{k: v for k, v in zip(e[::2], e[1::2])
                 if k not in (b"age-seconds", b"client-info")}
                for e in client.call("ACL", "LOG")]

    theirs, ours = entries(admin.redis), entries(admin.sluice)
    assert ours == theirs
    # INCR, GET, COPY's source, SET ... GET, the EVAL's key and the script's INCR: one entry.
    assert [(e[b"reason"], e[b"object"], e[b"count"]) for e in ours][:2] == [
        (b"key", b"w:1", 6), (b"key", b"w:l", 1)], ours


def test_sort_by_and_get_need_every_key_as_redis(redis_server, sluiced):
    """SORT's BY (with a pattern) and GET read keys the ACL never sees: refused, as Redis
    refuses them, to a user that may not read every key (a user limited to k* read secret* by
    them before)."""
    admin = Differ(redis_server.port, sluiced.port)
    admin.run([("SET", "secret1", "topsecret"), ("RPUSH", "k2", "1"), ("SET", "w_1", "3"),
               ("ACL", "SETUSER", "sk", "on", ">pw", "~k*", "+@all"),
               ("ACL", "SETUSER", "every", "on", ">pw", "~*", "+@all")])
    d = Differ(redis_server.port, sluiced.port)
    d.check("AUTH", "sk", "pw")
    d.run([("SORT", "k2", "BY", "nosort", "GET", "secret*"), ("SORT", "k2", "GET", "#"),
           ("SORT", "k2", "BY", "w_*"), ("SORT_RO", "k2", "BY", "w_*"), ("SORT", "k2"),
           ("SORT", "k2", "BY", "nosort"), ("SORT_RO", "k2", "GET", "secret*")])
    every = Differ(redis_server.port, sluiced.port)
    every.check("AUTH", "every", "pw")
    every.run([("SORT", "k2", "BY", "nosort", "GET", "secret*"), ("SORT", "k2", "BY", "w_*")])
    for differ in (admin, d, every):
        differ.assert_same()
        differ.close()


def test_key_patterns_as_getuser_and_list_render_them(as_kp):
    admin, _ = as_kp
    admin.run([("ACL", "GETUSER", "kp"), ("ACL", "LIST"),
               ("ACL", "SETUSER", "kp", "%R~both:*", "%W~both:*", "%rw~lower:*", "%WR~wr:*"),
               ("ACL", "GETUSER", "kp"), ("ACL", "LIST"),
               ("ACL", "SETUSER", "kp", "%X~bad"), ("ACL", "SETUSER", "kp", "%R"),
               ("ACL", "SETUSER", "kp", "%RR~twice"), ("ACL", "SETUSER", "kp", "%~none"),
               ("ACL", "SETUSER", "kp", "%R~"), ("ACL", "SETUSER", "kp", "~"),
               ("ACL", "DRYRUN", "kp", "incr", "both:1"), ("ACL", "DRYRUN", "kp", "get", "wr:1")])
