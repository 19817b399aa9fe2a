"""Seeded random command sequences over a few keys of every type at once: strings, bitmaps,
hashes, lists, sets, sorted sets, the generic key commands, the *STORE commands that overwrite
a key of another type, MULTI/EXEC/DISCARD/WATCH (with a second connection interfering) and
EVAL calling all of these through redis.call and redis.pcall. Arguments lean towards edge cases:
wrong types, empty results that delete keys, negative, huge, non-integer and non-float numbers,
options in odd orders or repeated. mixed_hunt.py sends the sequences to redis-server and
sluiced and compares the replies.

A sequence is a list of steps (connection, command): connection 0 runs everything, connection
1 only plain commands, between a WATCH and its EXEC. Nothing here depends on the wall clock:
relative expiries are long (nothing expires during a run), and every relative expiry is a
different length, so GT and LT never compare two equal lengths set a millisecond apart.
Replies that are legitimately unordered are generated only where the whole answer is
determined (SPOP and SRANDMEMBER of more than the set holds, RANDOMKEY is checked apart),
and the driver compares those as multisets (mixed_hunt.UNORDERED).
"""

import hashlib
import random

KEYS = ["a", "b", "c", "d"]
# An absent key always at hand, and one with a hash tag and a space.
KEY_EXTRAS = ["missing", "{a}x y"]

I64_MAX = "9223372036854775807"
I64_MIN = "-9223372036854775808"
FAR = 4102444800  # 2100-01-01T00:00:00Z, seconds

LONG45 = "s" * 45  # past embstr (44 bytes)
LONG65 = "L" * 65  # past the hash, sorted-set and (as a member) listpack limits (64 bytes)

INTS = ["0", "1", "-1", "2", "3", "10", "100", "-7", I64_MAX, I64_MIN, "9223372036854775808",
        "-9223372036854775809", "1.5", "abc", "", "01", " 1", "+1", "-0", "1e3", "4294967296",
        "0x10"]
SMALL_INTS = ["0", "1", "-1", "2", "3", "-2", "5", "10", "-100", "100"]
FLOATS = ["0", "1", "-1", "1.5", "-2.25", "0.1", "inf", "-inf", "+inf", "nan", "1e308",
          "-1e308", "1e309", "3e-5", "abc", "", "1e", "1.", ".5", " 1", "5.0e3", "0x1p3",
          "17", "-0.0", "1.7976931348623157e308"]
# ("-0" is left out of scores: a skiplist sorted set keeps it in Redis, sluice stores 0, as
# docs/notes.md says.)
SCORES = ["0", "1", "-1", "2", "1.5", "-2.5", "10", "100", "inf", "-inf", "+inf", "3e2", "0.1",
          "nan", "abc", "", "(1", "1e309", "1e-310", "9007199254740993"]
VALUES = ["", "v", "1", "10", "-3", "3.5", "abc", "12", "0", LONG45, LONG65, b"\x00\xff", I64_MAX,
          "1e3", " 7", "-0", "9223372036854775808", "x y"]
MEMBERS = ["a", "b", "c", "1", "2", "-3", "10", "007", "", LONG65]
FIELDS = ["f", "g", "h", "1", "", LONG65]
PATTERNS = ["*", "a", "?", "[ab]", "[^a]*", "*x*", "\\a", "[a-c]", "{*", "", "b*", "[a-"]
# Their reply is random unless their count takes the whole collection: never without it.
RANDOM = {"SPOP", "SRANDMEMBER", "HRANDFIELD", "ZRANDMEMBER"}
TYPES = ["string", "hash", "list", "set", "zset", "none", "STRING", "stream", "foo"]


class Generator:
    """make(length) -> one sequence of (connection, command) steps."""

    def __init__(self, rng):
        self.rng = rng
        self.key_names = rng.sample(KEYS, rng.randint(2, len(KEYS)))  # fewer: more collisions
        self.ttl_counter = 0
        self.steps = []
        self.in_multi = False
        self.watching = False

    # ---- picks ------------------------------------------------------------------------------
    def pick(self, pool, edge=None, p_edge=0.15):
        if edge and self.rng.random() < p_edge:
            return self.rng.choice(edge)
        return self.rng.choice(pool)

    def key(self):
        if self.rng.random() < 0.06:
            return self.rng.choice(KEY_EXTRAS)
        return self.rng.choice(self.key_names)

    def keys(self, lo=1, hi=3):
        return [self.key() for _ in range(self.rng.randint(lo, hi))]

    def counted_keys(self):
        """numkeys and the keys (LMPOP, ZMPOP, SINTERCARD): the count mostly right."""
        keys = self.keys(1, 3)
        return (self.pick([str(len(keys))], ["0", "-1", "x", str(len(keys) + 1)]), *keys)

    def int_arg(self):
        return self.pick(SMALL_INTS, INTS, 0.25)

    def value(self):
        return self.rng.choice(VALUES)

    def member(self):
        return self.rng.choice(MEMBERS) if self.rng.random() < 0.2 else \
            self.rng.choice(MEMBERS[:7])

    def score(self):
        return self.pick(["0", "1", "2", "-1", "1.5", "10"], SCORES, 0.3)

    def relative(self, unit_ms):
        """A long relative expiry, different from every other one of the sequence (see the
        module's docstring)."""
        self.ttl_counter += 1
        base = self.rng.choice([10_000, 500_000, 20_000_000])
        seconds = base + 10 * self.ttl_counter
        return str(seconds * 1000 if unit_ms else seconds)

    def maybe_case(self, name):
        r = self.rng.random()
        if r < 0.05:
            return name.lower()
        if r < 0.07:
            return name.capitalize()
        return name

    # ---- families ---------------------------------------------------------------------------
    def string_command(self):
        rng, k, v = self.rng, self.key(), self.value()
        table = [
            lambda: self.set_command(k, v),
            lambda: ("GET", k),
            lambda: ("GETSET", k, v),
            lambda: ("GETDEL", k),
            lambda: ("GETEX", k, *self.getex_options()),
            lambda: ("SETNX", k, v),
            lambda: ("SETEX", k, self.pick([self.relative(False)], ["0", "-1", "abc"]), v),
            lambda: ("PSETEX", k, self.pick([self.relative(True)], ["0", "1.5"]), v),
            lambda: ("MSET", *self.pairs(self.key, self.value)),
            lambda: ("MSETNX", *self.pairs(self.key, self.value)),
            lambda: ("MGET", *self.keys(1, 4)),
            lambda: ("INCR", k),
            lambda: ("DECR", k),
            lambda: ("INCRBY", k, self.int_arg()),
            lambda: ("DECRBY", k, self.int_arg()),
            lambda: ("INCRBYFLOAT", k, self.pick(FLOATS[:8], FLOATS, 0.4)),
            lambda: ("APPEND", k, rng.choice(["x", "", "12", LONG45, "-"])),
            lambda: ("STRLEN", k),
            lambda: ("SETRANGE", k, rng.choice(["0", "1", "3", "50", "-1", "abc", "536870912",
                                                 "16384"]), rng.choice(["", "zz", "9"])),
            lambda: ("GETRANGE", k, self.int_arg(), self.int_arg()),
            lambda: ("SUBSTR", k, self.int_arg(), self.int_arg()),
        ]
        return rng.choice(table)()

    def set_command(self, k, v):
        rng = self.rng
        opts = []
        for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
            kind = self.pick(["NX", "XX", "GET", "GET", "KEEPTTL", "EX", "PX", "EXAT", "PXAT"],
                             ["BOGUS"], 0.03)
            if kind == "EX":
                opts += ["EX", self.pick([self.relative(False)], ["0", "-5", "abc", I64_MAX])]
            elif kind == "PX":
                opts += ["PX", self.pick([self.relative(True)], ["0", "1.0"])]
            elif kind == "EXAT":
                opts += ["EXAT", str(FAR + rng.randrange(100))]
            elif kind == "PXAT":
                opts += ["PXAT", str((FAR + rng.randrange(100)) * 1000)]
            else:
                opts.append(rng.choice([kind, kind.lower()]))
        return ("SET", k, v, *opts)

    def getex_options(self):
        rng = self.rng
        return rng.choice([
            (), ("PERSIST",), ("EX", self.relative(False)), ("PX", self.relative(True)),
            ("EXAT", str(FAR + rng.randrange(100))), ("PXAT", str(FAR * 1000 + 5)),
            ("EX", "0"), ("EX", "-1"), ("PERSIST", "EX", "100"), ("EX", "10", "PX", "100"),
            ("EX",), ("FOO",), ("EX", "abc"), ("PXAT", "1"),
        ])

    def pairs(self, left, right, lo=1, hi=3):
        out = []
        for _ in range(self.rng.randint(lo, hi)):
            out += [left(), right()]
        if self.rng.random() < 0.05:
            out.append(left())  # odd count
        return out

    def bitmap_command(self):
        rng, k = self.rng, self.key()
        offset = lambda: rng.choice(["0", "1", "7", "8", "15", "23", "100", "-1", "4294967296",
                                     "abc", "131080"])  # (past 16 KiB: stored apart)
        unit = lambda: rng.choice([(), (), ("BIT",), ("BYTE",), ("bit",), ("BITS",)])
        table = [
            lambda: ("SETBIT", k, offset(), rng.choice(["0", "1", "1", "2"])),
            lambda: ("GETBIT", k, offset()),
            lambda: ("BITCOUNT", k, *rng.choice([(), (self.int_arg(), self.int_arg(), *unit())])),
            lambda: ("BITPOS", k, rng.choice(["0", "1", "2"]),
                     *rng.choice([(), (self.int_arg(),),
                                  (self.int_arg(), self.int_arg(), *unit())])),
            lambda: ("BITOP", rng.choice(["AND", "OR", "XOR", "NOT", "not", "NAND"]), self.key(),
                     *self.keys(1, 3)),
            lambda: ("BITFIELD", k, *self.bitfield_ops(write=True)),
            lambda: ("BITFIELD_RO", k, *self.bitfield_ops(write=False)),
        ]
        return rng.choice(table)()

    def bitfield_ops(self, write):
        rng, ops = self.rng, []
        ftype = lambda: rng.choice(["u8", "i8", "u1", "i64", "u63", "u64", "i5", "x8"])
        foff = lambda: rng.choice(["0", "3", "#1", "100", "-1"])
        for _ in range(rng.randint(0, 3)):
            names = ["GET", "SET", "INCRBY", "OVERFLOW"] if write else ["GET"] * 6 + ["SET"]
            op = rng.choice(names)
            if op == "GET":
                ops += ["GET", ftype(), foff()]
            elif op == "SET":
                ops += ["SET", ftype(), foff(), self.int_arg()]
            elif op == "INCRBY":
                ops += ["INCRBY", ftype(), foff(), self.int_arg()]
            else:
                ops += ["OVERFLOW", rng.choice(["WRAP", "SAT", "FAIL", "bogus"])]
        return ops

    def hash_command(self):
        rng, k, f = self.rng, self.key(), self.rng.choice(FIELDS)
        table = [
            lambda: (rng.choice(["HSET", "HMSET"]), k,
                     *self.pairs(lambda: rng.choice(FIELDS), self.value)),
            lambda: ("HSETNX", k, f, self.value()),
            lambda: ("HGET", k, f),
            lambda: ("HMGET", k, *[rng.choice(FIELDS) for _ in range(rng.randint(1, 3))]),
            lambda: ("HDEL", k, *[rng.choice(FIELDS) for _ in range(rng.randint(1, 3))]),
            lambda: ("HLEN", k),
            lambda: ("HEXISTS", k, f),
            lambda: ("HSTRLEN", k, f),
            lambda: ("HINCRBY", k, f, self.int_arg()),
            lambda: ("HINCRBYFLOAT", k, f, self.pick(FLOATS[:8], FLOATS, 0.4)),
            lambda: ("HGETALL", k),
            lambda: ("HKEYS", k),
            lambda: ("HVALS", k),
            lambda: ("HRANDFIELD", k, *rng.choice([("1000",), ("1000", "WITHVALUES"), ("0",),
                                                    ("abc",), ("5", "WITHVALUES", "x")])),
            lambda: ("HSCAN", k, "0", *rng.choice([(), ("COUNT", "100"),
                                                   ("MATCH", rng.choice(PATTERNS)),
                                                   ("COUNT", "0"), ("COUNT", "-1")])),
        ]
        return rng.choice(table)()

    def list_command(self):
        rng, k = self.rng, self.key()
        end = lambda: rng.choice(["LEFT", "RIGHT", "left", "UP"])
        count = lambda: rng.choice(["1", "2", "5", "0", "-1", "abc", I64_MAX])
        table = [
            lambda: (rng.choice(["LPUSH", "RPUSH", "LPUSHX", "RPUSHX"]), k,
                     *[self.value() for _ in range(rng.randint(1, 3))]),
            lambda: (rng.choice(["LPOP", "RPOP"]), k, *rng.choice([(), (count(),)])),
            lambda: ("LRANGE", k, self.int_arg(), self.int_arg()),
            lambda: ("LINDEX", k, self.int_arg()),
            lambda: ("LLEN", k),
            lambda: ("LSET", k, self.int_arg(), self.value()),
            lambda: ("LREM", k, self.int_arg(), self.value()),
            lambda: ("LINSERT", k, rng.choice(["BEFORE", "AFTER", "after", "MIDDLE"]),
                     self.value(), self.value()),
            lambda: ("LTRIM", k, self.int_arg(), self.int_arg()),
            lambda: ("LPOS", k, self.value(), *self.lpos_options()),
            lambda: ("LMOVE", k, self.key(), end(), end()),
            lambda: ("RPOPLPUSH", k, self.key()),
            lambda: ("LMPOP", *self.counted_keys(), end(), *rng.choice([(), ("COUNT", count())])),
        ]
        return rng.choice(table)()

    def lpos_options(self):
        rng, opts = self.rng, []
        for _ in range(rng.randint(0, 2)):
            opts += [rng.choice(["RANK", "COUNT", "MAXLEN", "rank"]),
                     rng.choice(["1", "-1", "0", "2", "abc", I64_MIN])]
        return opts

    def set_type_command(self):
        rng, k = self.rng, self.key()
        members = lambda lo=1, hi=3: [self.member() for _ in range(rng.randint(lo, hi))]
        table = [
            lambda: ("SADD", k, *members()),
            lambda: ("SREM", k, *members()),
            lambda: ("SCARD", k),
            lambda: ("SISMEMBER", k, self.member()),
            lambda: ("SMISMEMBER", k, *members()),
            lambda: ("SMEMBERS", k),
            lambda: ("SMOVE", k, self.key(), self.member()),
            lambda: (rng.choice(["SINTER", "SUNION", "SDIFF"]), *self.keys(1, 3)),
            lambda: (rng.choice(["SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"]), self.key(),
                     *self.keys(1, 3)),
            lambda: ("SINTERCARD", *self.counted_keys(),
                     *rng.choice([(), ("LIMIT", self.pick(["0", "1", "2"], ["-1", "x"]))])),
            lambda: ("SPOP", k, rng.choice(["1000", "0", "-1", "x"])),
            lambda: ("SRANDMEMBER", k, rng.choice(["1000", "0", "x"])),
            lambda: ("SSCAN", k, "0", *rng.choice([(), ("COUNT", "100"),
                                                   ("MATCH", rng.choice(PATTERNS))])),
        ]
        return rng.choice(table)()

    def zset_command(self):
        rng, k = self.rng, self.key()
        table = [
            lambda: ("ZADD", k, *self.zadd_flags(), *self.pairs(self.score, self.member)),
            lambda: ("ZINCRBY", k, self.score(), self.member()),
            lambda: ("ZREM", k, *[self.member() for _ in range(rng.randint(1, 3))]),
            lambda: ("ZCARD", k),
            lambda: ("ZSCORE", k, self.member()),
            lambda: ("ZMSCORE", k, self.member(), self.member()),
            lambda: (rng.choice(["ZRANK", "ZREVRANK"]), k, self.member()),
            lambda: ("ZRANGE", k, *self.zrange_args()),
            lambda: ("ZRANGESTORE", self.key(), k, *self.zrange_args(store=True)),
            lambda: (rng.choice(["ZRANGEBYSCORE", "ZREVRANGEBYSCORE"]), k, self.range_score(),
                     self.range_score(), *rng.choice([(), ("WITHSCORES",),
                                                      ("LIMIT", "0", "2")])),
            lambda: ("ZCOUNT", k, self.range_score(), self.range_score()),
            lambda: ("ZLEXCOUNT", k, self.range_lex(), self.range_lex()),
            lambda: ("ZREMRANGEBYSCORE", k, self.range_score(), self.range_score()),
            lambda: ("ZREMRANGEBYRANK", k, self.int_arg(), self.int_arg()),
            lambda: ("ZREMRANGEBYLEX", k, self.range_lex(), self.range_lex()),
            lambda: (rng.choice(["ZPOPMIN", "ZPOPMAX"]), k,
                     *rng.choice([(), ("2",), ("0",), ("-1",), ("x",)])),
            lambda: ("ZMPOP", *self.counted_keys(), self.pick(["MIN", "MAX", "max"], ["MID"]),
                     *rng.choice([(), ("COUNT", self.pick(["1", "3"], ["0", "-1"]))])),
            lambda: ("ZRANDMEMBER", k, *rng.choice([("1000",), ("1000", "WITHSCORES"), ("0",)])),
            lambda: ("ZSCAN", k, "0", *rng.choice([(), ("COUNT", "100"),
                                                   ("MATCH", rng.choice(PATTERNS))])),
            lambda: self.zalgebra(),
        ]
        return rng.choice(table)()

    def zadd_flags(self):
        flags = self.rng.choice([(), (), ("NX",), ("XX",), ("GT",), ("LT",), ("CH",),
                                 ("INCR",), ("XX", "CH"), ("NX", "GT"), ("GT", "LT"),
                                 ("NX", "XX"), ("CH", "CH"), ("gt", "ch")])
        return list(flags)

    def range_score(self):
        return self.rng.choice(["-inf", "+inf", "0", "1", "(1", "2", "(0", "10", "1.5", "x", "(",
                                "[1", "nan"])

    def range_lex(self):
        return self.rng.choice(["-", "+", "[a", "(a", "[b", "(c", "[1", "a", "[", "(",
                                "[" + LONG65])

    def zrange_args(self, store=False):
        rng = self.rng
        kind = rng.choice(["index", "index", "score", "lex"])
        if kind == "index":
            args = [self.int_arg(), self.int_arg()]
        elif kind == "score":
            args = [self.range_score(), self.range_score(), "BYSCORE"]
        else:
            args = [self.range_lex(), self.range_lex(), "BYLEX"]
        if rng.random() < 0.3:
            args.append("REV")
        if rng.random() < 0.3:
            args += ["LIMIT", rng.choice(["0", "1", "-1"]), rng.choice(["1", "-1", "2", "0"])]
        if not store and rng.random() < 0.3:
            args.append("WITHSCORES")
        if rng.random() < 0.05:
            rng.shuffle(args)
        return args

    def zalgebra(self):
        rng = self.rng
        keys = self.keys(1, 3)
        numkeys = str(len(keys)) if rng.random() < 0.9 else rng.choice(["0", "5", "x", "-1"])
        opts = []
        if rng.random() < 0.3:
            opts += ["WEIGHTS", *[rng.choice(["1", "2", "-1", "0.5", "x", "inf"])
                                  for _ in keys]]
        if rng.random() < 0.3:
            opts += ["AGGREGATE", rng.choice(["SUM", "MIN", "MAX", "avg"])]
        name = rng.choice(["ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE",
                           "ZDIFFSTORE"])
        if name == "ZDIFF" or name == "ZDIFFSTORE":
            opts = [] if rng.random() < 0.8 else opts
        if name.endswith("STORE"):
            return (name, self.key(), numkeys, *keys, *opts)
        if rng.random() < 0.4:
            opts.append("WITHSCORES")
        return (name, numkeys, *keys, *opts)

    def key_space_command(self):
        rng, k, k2 = self.rng, self.key(), self.key()
        expire_flags = lambda: rng.choice([(), (), ("NX",), ("XX",), ("GT",), ("LT",),
                                           ("NX", "XX"), ("GT", "LT"), ("XX", "GT"),
                                           ("nx",), ("FOO",)])
        table = [
            lambda: ("DEL", *self.keys(1, 3)),
            lambda: ("UNLINK", *self.keys(1, 3)),
            lambda: ("EXISTS", *self.keys(1, 4)),
            lambda: ("TYPE", k),
            lambda: ("RENAME", k, k2),
            lambda: ("RENAMENX", k, k2),
            lambda: ("COPY", k, k2, *rng.choice([(), ("REPLACE",), ("DB", "0"), ("DB", "x"),
                                                 ("DB", "0", "REPLACE"), ("REPLACE", "REPLACE")])),
            lambda: ("EXPIRE", k, self.pick([self.relative(False)],
                                            ["0", "-1", I64_MAX, "abc", "1.5"], 0.25),
                     *expire_flags()),
            lambda: ("PEXPIRE", k, self.pick([self.relative(True)], ["-5", I64_MAX], 0.2),
                     *expire_flags()),
            lambda: ("EXPIREAT", k, rng.choice([str(FAR + rng.randrange(1000)), "1", "0"]),
                     *expire_flags()),
            lambda: ("PEXPIREAT", k, rng.choice([str(FAR * 1000 + rng.randrange(10 ** 6)),
                                                 "-1"]), *expire_flags()),
            lambda: ("PERSIST", k),
            lambda: (rng.choice(["TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"]), k),
            lambda: ("OBJECT", rng.choice(["ENCODING", "encoding"]), k),
            lambda: ("TOUCH", *self.keys(1, 3)),
            lambda: ("DBSIZE",),
            lambda: ("SCAN", "0", *self.scan_options()),
            lambda: ("KEYS", rng.choice(PATTERNS)),
            lambda: ("RANDOMKEY",),
        ]
        return rng.choice(table)()

    def scan_options(self):
        rng, opts = self.rng, []
        for _ in range(rng.randint(0, 3)):
            kind = rng.choice(["MATCH", "TYPE", "COUNT"])
            if kind == "MATCH":
                opts += ["MATCH", rng.choice(PATTERNS)]
            elif kind == "TYPE":
                opts += ["TYPE", rng.choice(TYPES)]
            else:
                opts += ["COUNT", rng.choice(["100", "1000", "0", "-1", "x"])]
        return opts

    def bulk_command(self):
        """A write of many elements at once, past an encoding's size limit: a sorted set's 128
        members (listpack), a set's or hash's 512 (intset, listpack)."""
        rng, k = self.rng, self.key()
        n = rng.choice([120, 129, 140, 511, 513, 530])
        items = [str(i * rng.choice([1, 3, -1])) for i in range(n)]
        kind = rng.choice(["SADD", "ZADD", "HSET", "RPUSH"])
        if kind == "ZADD":
            return ("ZADD", k, *[a for m in items for a in (str(len(m)), "m" + m)])
        if kind == "HSET":
            return ("HSET", k, *[a for m in items for a in ("f" + m, m)])
        return (kind, k, *items)

    def data_command(self):
        """One command of any family but transactions and scripts."""
        r = self.rng.random()
        if r < 0.01:
            return self.bulk_command()
        if r < 0.20:
            cmd = self.key_space_command()
        elif r < 0.34:
            cmd = self.string_command()
        elif r < 0.44:
            cmd = self.bitmap_command()
        elif r < 0.56:
            cmd = self.hash_command()
        elif r < 0.70:
            cmd = self.list_command()
        elif r < 0.84:
            cmd = self.set_type_command()
        else:
            cmd = self.zset_command()
        cmd = (self.maybe_case(cmd[0]), *cmd[1:])
        if self.rng.random() < 0.02:  # arity errors
            drop = len(cmd) > 1 and self.rng.random() < 0.5 and cmd[0].upper() not in RANDOM
            cmd = cmd[:-1] if drop else cmd + ("extra",)
        return cmd

    # ---- scripts ----------------------------------------------------------------------------
    SCRIPTS = [
        "return redis.call(unpack(ARGV))",
        "return redis.pcall(unpack(ARGV))",
        "local r = redis.pcall(unpack(ARGV)) "
        "if type(r) == 'table' and r.err then return 'E: ' .. r.err end return {type(r), r}",
        "redis.setresp(3) return redis.call(unpack(ARGV))",
        "redis.setresp(3) local r = redis.pcall(unpack(ARGV)) "
        "if type(r) == 'table' and r.double then return tostring(r.double) end return r",
        "redis.pcall(unpack(ARGV)) return redis.call('TYPE', ARGV[2] or 'a')",
        "local ok, e = pcall(redis.call, unpack(ARGV)) if ok then return e end "
        "return {'caught', type(e), type(e) == 'table' and e.err or e}",
        "return {redis.call(unpack(ARGV))}",
        "local r = redis.pcall(unpack(ARGV)) if type(r) == 'string' then return tonumber(r) end "
        "return r",
        "local r = redis.call(unpack(ARGV)) redis.call('INCR', 'a') return r",
    ]

    def eval_command(self):
        rng = self.rng
        inner = self.data_command()
        script = rng.choice(self.SCRIPTS)
        how = rng.random()
        if how < 0.15:  # NOSCRIPT until an EVAL of the same script ran
            return (rng.choice(["EVALSHA", "EVALSHA_RO"]),
                    hashlib.sha1(script.encode()).hexdigest(), "0", *inner)
        if how < 0.25:  # a write refused from a read-only script
            return ("EVAL_RO", script, "0", *inner)
        return (rng.choice(["EVAL", "EVAL", "eval"]), script, "0", *inner)

    # ---- sequences --------------------------------------------------------------------------
    def step(self):
        """One or more steps appended to self.steps."""
        rng = self.rng
        r = rng.random()
        if self.in_multi:
            if r < 0.12:
                self.steps.append((0, (rng.choice(["EXEC", "EXEC", "DISCARD"]),)))
                self.in_multi = self.watching = False
            elif r < 0.14:
                self.steps.append((0, rng.choice([("MULTI",), ("WATCH", self.key()),
                                                  ("NOSUCHCOMMAND",)])))
            elif r < 0.2:
                self.steps.append((0, self.eval_command()))
            else:
                self.steps.append((0, self.data_command()))
            return
        if r < 0.05:
            self.steps.append((0, ("MULTI",)))
            self.in_multi = True
        elif r < 0.08:
            self.steps.append((0, ("WATCH", *self.keys(1, 2))))
            self.watching = True
        elif r < 0.09:
            self.steps.append((0, rng.choice([("UNWATCH",), ("EXEC",), ("DISCARD",)])))
        elif r < 0.17:
            self.steps.append((0, self.eval_command()))
        elif self.watching and r < 0.35:
            self.steps.append((1, self.data_command()))
        else:
            self.steps.append((0, self.data_command()))

    def make(self, length):
        self.steps = []
        self.in_multi = self.watching = False
        while len(self.steps) < length:
            self.step()
        return self.steps


def sequence(seed, length=None):
    """The sequence of one seed (the same on every run of every machine)."""
    rng = random.Random(seed)
    n = length if length is not None else rng.randint(10, 60)
    return Generator(rng).make(n)
