"""mixed_commands.py's random sequences spread over 3 or 4 numbered databases: SELECT (on
either connection, inside MULTI, and in scripts, where it is the script's own), RESET, MOVE,
COPY ... DB [REPLACE], SWAPDB, FLUSHDB, FLUSHALL and DBSIZE among the other families' commands
(and SORT, LCS, the HyperLogLogs, blocking pops where they cannot block), WATCH with
the second connection writing in the same database or another. mixed_db_hunt.py sends them to
redis-server and sluiced.

A generator of its own (DbGenerator, a subclass drawing from its own random stream), so the
sequences mixed_commands.sequence makes for a seed stay what they were. Database indexes out of
range or not integers come up too; nothing else outside the first four databases is touched.
"""

import random

from mixed_commands import Generator

DATABASES = 4  # the databases a sequence may use (0 to 3): mixed_db_hunt reads them all back
BAD_INDEXES = ["16", "-1", "x", "1.5", "", " 1", "2147483648", "99", "+1", "01", "-0",
               "4294967297"]


class DbGenerator(Generator):
    """Generator, with database commands mixed into the data commands and SELECTs between
    steps."""

    # Scripts whose last argument is a database: they SELECT it, then run the other arguments
    # as a command (mixed_hunt judges the reply by that command, cmd[3:]).
    DB_SCRIPTS = [
        "redis.call('SELECT', ARGV[#ARGV]) return redis.call(unpack(ARGV, 1, #ARGV - 1))",
        "redis.call('SELECT', ARGV[#ARGV]) return redis.pcall(unpack(ARGV, 1, #ARGV - 1))",
        "local s = redis.pcall('SELECT', ARGV[#ARGV]) "
        "if type(s) == 'table' and s.err then return 'E: ' .. s.err end "
        "local r = redis.pcall(unpack(ARGV, 1, #ARGV - 1)) "
        "if type(r) == 'table' and r.err then return 'E: ' .. r.err end return r",
        "redis.call('SELECT', ARGV[#ARGV]) redis.pcall(unpack(ARGV, 1, #ARGV - 1)) "
        "return {redis.call('DBSIZE'), redis.call('EXISTS', 'a', 'b', 'c', 'd')}",
        "redis.pcall(unpack(ARGV, 1, #ARGV - 1)) redis.call('SELECT', ARGV[#ARGV]) "
        "return redis.call('DBSIZE')",
        "redis.call('SELECT', ARGV[#ARGV]) local r = redis.pcall(unpack(ARGV, 1, #ARGV - 1)) "
        "redis.call('SELECT', '0') redis.call('INCR', 'a') return r",
    ]

    def __init__(self, rng):
        super().__init__(rng)
        self.used = list(range(rng.choice([3, DATABASES])))

    def db(self, p_bad=0.04):
        return self.pick([str(d) for d in self.used], BAD_INDEXES, p_bad)

    def db_command(self):
        rng, k = self.rng, self.key()
        table = [
            lambda: ("SELECT", self.db()),
            lambda: ("SELECT", self.db()),
            lambda: ("MOVE", k, self.db()),
            lambda: ("MOVE", k, self.db()),
            lambda: ("COPY", k, self.key(), "DB", self.db(),
                     *rng.choice([(), ("REPLACE",), (), ("REPLACE",)])),
            lambda: ("COPY", k, self.key(), *rng.choice([("REPLACE", "DB", self.db()),
                                                         ("DB", self.db(), "DB", self.db()),
                                                         ("DB",)])),
            lambda: ("SWAPDB", self.db(), self.db()),
            lambda: ("FLUSHDB", *rng.choice([(), (), ("ASYNC",), ("SYNC",), ("x",)])),
            lambda: ("DBSIZE",),
            lambda: ("FLUSHALL", *rng.choice([(), ("SYNC",)])) if rng.random() < 0.3
            else ("DBSIZE",),
        ]
        return rng.choice(table)()

    def other_command(self):
        """SORT, LCS and the HyperLogLogs, which mixed_commands leaves out: their keys (BY and
        GET patterns included: `*` names a key after each element) are read in the
        client's database. No BY nosort (a set's order would be Redis's hash table's) and no
        ALPHA BY (ties), as docs/notes.md "SORT and LCS" says."""
        rng, k = self.rng, self.key()

        def sort_opts():
            opts = [a for _ in range(rng.randint(0, 3)) for a in rng.choice([
                ("BY", rng.choice(["*", "*->f", "x*", "*->g"])), ("GET", "#"), ("GET", "*"),
                ("GET", "*->f"), ("GET", "*->1"), ("LIMIT", rng.choice(["0", "1"]), "2"),
                ("ALPHA",), ("DESC",), ("ASC",)])]
            if "BY" in opts:  # no ALPHA BY: its ties are left open (docs/notes.md)
                opts = [a for a in opts if a != "ALPHA"]
            return opts
        table = [
            lambda: ("SORT", k, *sort_opts()),
            lambda: ("SORT", k, *sort_opts(), "STORE", self.key()),
            lambda: ("SORT_RO", k, *sort_opts()),
            lambda: ("LCS", k, self.key(), *rng.choice([(), ("LEN",), ("IDX",),
                                                         ("IDX", "MINMATCHLEN", "2",
                                                          "WITHMATCHLEN")])),
            lambda: ("PFADD", k, *[self.member() for _ in range(rng.randint(0, 3))]),
            lambda: ("PFCOUNT", *self.keys(1, 3)),
            lambda: ("PFMERGE", k, *self.keys(0, 2)),
        ]
        return rng.choice(table)()

    def blocking_command(self):
        """A blocking pop, only where it cannot block: in MULTI and in scripts."""
        rng, k = self.rng, self.key()
        return rng.choice([
            lambda: (rng.choice(["BLPOP", "BRPOP"]), *self.keys(1, 2), "0"),
            lambda: ("BLMOVE", k, self.key(), rng.choice(["LEFT", "RIGHT"]),
                     rng.choice(["LEFT", "RIGHT"]), "0"),
            lambda: ("BRPOPLPUSH", k, self.key(), "0"),
            lambda: (rng.choice(["BZPOPMIN", "BZPOPMAX"]), *self.keys(1, 2), "0"),
            lambda: ("BLMPOP", "0", "1", k, rng.choice(["LEFT", "RIGHT"])),
            lambda: ("BZMPOP", "0", "1", k, rng.choice(["MIN", "MAX"]), "COUNT", "2"),
        ])()

    def data_command(self):
        r = self.rng.random()
        if 0.15 <= r < 0.21:
            return self.other_command()
        if r < 0.15:
            cmd = self.db_command()
            cmd = (self.maybe_case(cmd[0]), *cmd[1:])
            if self.rng.random() < 0.02:
                cmd = cmd + ("extra",)
            return cmd
        return super().data_command()

    def eval_command(self):
        r = self.rng.random()
        if r < 0.05:
            return ("EVAL", self.rng.choice(self.SCRIPTS), "0", *self.blocking_command())
        if r < 0.4:
            inner = super().data_command()  # no database command: ARGV's last is the database
            return ("EVAL", self.rng.choice(self.DB_SCRIPTS), "0", *inner, self.db())
        return super().eval_command()

    def step(self):
        rng = self.rng
        r = rng.random()
        if self.watching and r < 0.08:
            # The other connection in a database of its own choosing (same or other).
            self.steps.append((1, rng.choice([("SELECT", self.db(0)), self.db_command()])))
            return
        if not self.in_multi and r < 0.14:
            self.steps.append((0, ("SELECT", self.db())))
            return
        if not self.in_multi and r < 0.145:  # back to database 0 (and RESP2, no WATCH)
            self.steps.append((0, ("RESET",)))
            self.watching = False
            return
        if self.in_multi and r < 0.04:
            self.steps.append((0, self.blocking_command()))
            return
        super().step()


def sequence(seed, length=None):
    """The sequence of one seed (the same on every run of every machine)."""
    rng = random.Random(seed)
    n = length if length is not None else rng.randint(10, 60)
    return DbGenerator(rng).make(n)
