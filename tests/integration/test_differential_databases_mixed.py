"""Random sequences over several databases (mixed_db_commands.py): SELECT on both connections,
in MULTI/EXEC and in scripts, MOVE, COPY ... DB, SWAPDB, FLUSHDB, FLUSHALL and DBSIZE among
mixed_commands.py's commands of every type, WATCH with a second connection writing in the same
database or another, sent to redis-server and sluiced and compared reply by reply
(mixed_hunt.py's rules), then the keyspace counters, every database's DBSIZE and keys (type,
contents, TTL) and INFO keyspace, in RESP2 and after HELLO 3.

A fixed handful of seeds; the long hunt runs by hand (mixed_db_hunt.py's docstring). A failure
prints the seed, the command, both replies and a shrunk reproduction.
"""

import pytest

from mixed_db_hunt import DbPair, hunt
import servers

FIRST_SEED = 20261126


@pytest.mark.parametrize("protocol", [2, 3], ids=["resp2", "resp3"])
def test_random_database_sequences(emptied_servers, protocol):
    redis_server, sluiced = emptied_servers
    pair = DbPair(redis_server.port, sluiced.port, protocol)
    report = []
    try:
        # A few seconds on the release build; a sanitized sluiced runs several times slower.
        seeds = 50 if servers.sluiced_is_sanitized() else 200
        failing = hunt(pair, range(FIRST_SEED, FIRST_SEED + seeds), out=report.append)
    finally:
        pair.close()
    assert not failing, "\n".join(report)
