"""Mixed-type random sequences over several databases (mixed_db_commands.py) sent to
redis-server and sluiced, every reply compared as mixed_hunt.py compares them, stopping at the
first difference with the seed, the step, both replies and a shrunk reproduction.

After the commands, a sequence compares the keyspace counters (as mixed_hunt), then for each of
the first mixed_db_commands.DATABASES databases its DBSIZE and what every key holds (type,
contents, TTL, encoding), and INFO keyspace's keys= and expires= for every database (avg_ttl is
left out: it is an estimate in both).

The long hunt, by hand (starts its own servers; SLUICED as for the integration tests):
    SLUICED=build/sluiced python3 tests/integration/mixed_db_hunt.py --seeds 2000
with mixed_hunt.py's options (--first, --resp, --length, --keep-going, --no-keyspace,
--pipeline, --redis-port/--sluiced-port). 1,500 seeds in both protocols take 5 to 10 minutes. test_differential_databases_mixed.py runs a fixed handful of seeds
in the suite.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mixed_db_commands  # noqa: E402
import mixed_hunt  # noqa: E402


def _keyspace_lines(raw):
    """INFO keyspace's db lines without avg_ttl, as bytes to compare."""
    text = mixed_hunt.parse(raw)
    lines = []
    for line in bytes(text).decode().splitlines():
        if line.startswith("db"):
            name, fields = line.split(":", 1)
            kept = [f for f in fields.split(",") if not f.startswith("avg_ttl=")]
            lines.append(f"{name}:{','.join(kept)}")
    return "\n".join(lines).encode()


class DbPair(mixed_hunt.Pair):
    """Pair, reading back every database in use at the end."""

    # A sorted set that SORT read is a skiplist for good in Redis, not in sluice
    # (docs/notes.md, "SORT and LCS").
    encodings = mixed_hunt.HISTORY_ENCODINGS | {(b"skiplist", b"listpack")}

    def final_state(self):
        side = self.side  # (Pair.reset's FLUSHALL empties every database whichever is selected)
        for db in range(mixed_db_commands.DATABASES):
            select = ("SELECT", str(db))
            yield select, *(raw for _, raw in side.both(*select))
            yield ("DBSIZE",), *(raw for _, raw in side.both("DBSIZE"))
            yield from mixed_hunt._epilogue(side)
        (_, rraw), (_, sraw) = side.both("INFO", "keyspace")
        yield ("INFO", "keyspace"), _keyspace_lines(rraw), _keyspace_lines(sraw)

    def _randomkey_ok(self, name, rv, rraw, sraw, conn):
        """As Pair's, counting the keys of the database the step ran in (its connection's)."""
        if name != "RANDOMKEY" or rraw == sraw or not isinstance(rv, bytes):
            return True
        return conn.redis.call("DBSIZE") > 1


def hunt(pair, seeds, length=None, keep_going=False, out=print):
    return mixed_hunt.hunt(pair, seeds, length, keep_going, out, make=mixed_db_commands.sequence)


if __name__ == "__main__":
    sys.exit(mixed_hunt.main(DbPair, mixed_db_commands.sequence, __doc__))
