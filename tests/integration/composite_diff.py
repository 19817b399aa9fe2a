"""Shared pieces of the differential suites for hashes, sorted sets, lists, sets and transactions
(test_differential_{hashes,zsets,lists,sets,transactions}.py; their `diff` fixture is
conftest.py's):
a check for replies whose order Redis does not define, and the key-level commands mixed into
every random sequence.

Nothing here depends on the wall clock: relative expiries are >= 100 s, and TTL replies are
compared with differential.CLOCK_TOLERANCE.
"""

import servers

# Unordered replies: HGETALL (pairs), HKEYS and HVALS (multisets), HSCAN's page (its pairs).
# Redis answers small hashes in insertion order and large ones in hash-table order; sluice
# answers in field order. Sets likewise (an intset's order is numeric in both): SMEMBERS and
# the algebra, SPOP and SRANDMEMBER with a count that takes the whole set (the only ones whose
# reply is determined), SSCAN's page (its members).
UNORDERED = {"HGETALL": "pairs", "HKEYS": "multiset", "HVALS": "multiset", "HSCAN": "page",
             "SMEMBERS": "multiset", "SINTER": "multiset", "SUNION": "multiset",
             "SDIFF": "multiset", "SPOP": "multiset", "SRANDMEMBER": "multiset",
             "SSCAN": "members page"}
CLOCKED = ("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME")

FAR = 4102444800  # 2100-01-01T00:00:00Z, seconds


def _normalize(value, how):
    if isinstance(value, servers.Map):
        return ("map", sorted(value))
    if how == "page" and isinstance(value, list) and len(value) == 2:
        return ("page", value[0], _normalize(value[1], "pairs"))
    if how == "members page" and isinstance(value, list) and len(value) == 2:
        return ("page", value[0], _normalize(value[1], "multiset"))
    if isinstance(value, list):
        if how == "pairs":
            if len(value) % 2:
                return ("odd", value)
            return ("pairs", sorted(zip(value[0::2], value[1::2])))
        return ("list", sorted(value))
    return ("other", value)


def check(d, *cmd):
    """Differ.check, with the unordered commands compared as multisets of the same RESP type
    and the clock-dependent ones with a tolerance."""
    name = str(cmd[0]).upper()
    how = UNORDERED.get(name)
    if how is None:
        return d.check(*cmd, clock=name in CLOCKED)
    d.count += 1
    (rv, rraw), (sv, sraw) = d.both(*cmd)
    if rraw == sraw:
        return rv
    same_type = type(rv) is type(sv)
    if same_type and _normalize(rv, how) == _normalize(sv, how):
        return rv
    d.mismatches.append((cmd, rraw, sraw))
    return rv


def run(d, commands):
    for cmd in commands:
        check(d, *cmd)


def key_command(rng, keys):
    """One key-level command on the random sequences' keys: expiry, deletion, type, rename."""
    k = rng.choice(keys)
    k2 = rng.choice(keys)
    table = [
        lambda: ("EXPIRE", k, rng.choice(["100", "250", "1000", "0", "-1"])),
        lambda: ("PEXPIRE", k, rng.choice(["100000", "600000"])),
        lambda: ("EXPIREAT", k, str(FAR + rng.randrange(100))),
        lambda: ("PERSIST", k),
        lambda: ("TTL", k),
        lambda: ("DEL", k),
        lambda: ("UNLINK", k, k2),
        lambda: ("EXISTS", k, k2),
        lambda: ("TYPE", k),
        lambda: ("RENAME", k, k2),
        lambda: ("RENAMENX", k, k2),
        lambda: ("COPY", k, k2, *rng.choice([(), ("REPLACE",)])),
        lambda: ("SET", k, "plain"),
        lambda: ("GET", k),
    ]
    return rng.choice(table)()


def random_sequences(d, rng, keys, make_command, sequences, steps=(5, 40), key_ratio=0.15):
    """`sequences` runs of random commands on `keys`, each starting from an empty key space."""
    for _ in range(sequences):
        d.check("DEL", *keys)
        for _ in range(rng.randrange(*steps)):
            if rng.random() < key_ratio:
                cmd = key_command(rng, keys)
            else:
                cmd = make_command(rng)
            check(d, *cmd)
        if len(d.mismatches) > 40:
            break
    d.assert_same()
