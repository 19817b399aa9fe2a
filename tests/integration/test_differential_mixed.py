"""Random sequences over a few keys of every type at once (mixed_commands.py): strings, bitmaps,
hashes, lists, sets and sorted sets, the key-space commands, the *STORE commands overwriting
keys of other types, MULTI/EXEC/WATCH and EVAL, sent to redis-server and sluiced and compared
reply by reply (mixed_hunt.py says how), with the keyspace counters and what the keys hold at
the end, in RESP2 and after HELLO 3.

A fixed handful of seeds; the long hunt over thousands runs by hand (mixed_hunt.py's
docstring). A failure prints the seed, the command, both replies and a shrunk reproduction.
"""

import pytest

from mixed_hunt import Pair, hunt
import servers

FIRST_SEED = 20251126


@pytest.mark.parametrize("protocol", [2, 3], ids=["resp2", "resp3"])
def test_random_mixed_sequences(emptied_servers, protocol):
    redis_server, sluiced = emptied_servers
    pair = Pair(redis_server.port, sluiced.port, protocol)
    report = []
    try:
        # About 8 s on the release build; a sanitized sluiced runs several times slower.
        seeds = 60 if servers.sluiced_is_sanitized() else 250
        failing = hunt(pair, range(FIRST_SEED, FIRST_SEED + seeds), out=report.append)
    finally:
        pair.close()
    assert not failing, "\n".join(report)
