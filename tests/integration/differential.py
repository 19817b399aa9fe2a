"""Send the same commands to redis-server and sluiced and compare the exact reply bytes."""

import servers

# Replies that depend on the wall clock: equal up to this much between two servers queried a
# moment apart (only used where the test cannot pin the time; both run on the same host clock).
CLOCK_TOLERANCE = {"TTL": 1, "EXPIRETIME": 1, "PTTL": 1500, "PEXPIRETIME": 1500}
# Compared with CLOCK_TOLERANCE unless a check says otherwise: a TTL counts down from when each
# server ran the EXPIRE, and a loaded machine (an ASan build, parallel tests) can put more than
# the 500 ms that TTL's rounding leaves between that and the TTL on one server but not the
# other. EXPIRETIME and PEXPIRETIME are exact by default: an absolute time does not count down,
# and the tests that read them check its rounding; those that set a relative expiry and then
# read it back absolute pass clock=True.
CLOCK_BY_DEFAULT = ("TTL", "PTTL")


class Differ:
    """One raw connection to each server; check() sends a command to both and compares.
    protocol=3 switches both connections to RESP3 first (hello3)."""

    def __init__(self, redis_port, sluiced_port, protocol=2):
        self.protocol = protocol
        self.redis = servers.RespClient(redis_port)
        self.sluice = servers.RespClient(sluiced_port)
        self.mismatches = []
        self.count = 0
        if protocol == 3:
            self.hello3()

    def close(self):
        self.redis.close()
        self.sluice.close()

    def hello3(self):
        """Switch both connections to RESP3; the HELLO replies differ by design (server name,
        version, id), so only their shape is compared."""
        for client in (self.redis, self.sluice):
            reply = client.call("HELLO", "3")
            assert isinstance(reply, servers.Map), f"HELLO 3 on port {client.port}: {reply!r}"
            assert reply.as_dict()[b"proto"] == 3

    def both(self, *cmd):
        """(redis reply, sluiced reply), each as (value, raw bytes)."""
        self.redis.send(servers.encode(*cmd))
        self.sluice.send(servers.encode(*cmd))
        return self.redis.read_reply_raw(), self.sluice.read_reply_raw()

    def check(self, *cmd, sort=False, clock=None):
        """Compare one command's replies: bytes exactly; sort=True compares an array's elements
        as a multiset (KEYS); clock=True allows CLOCK_TOLERANCE on non-negative integers, and
        clock=None (the default) does for the commands in CLOCK_BY_DEFAULT. Only two times a
        little apart pass: -1 (no expiry) or -2 (no key) against anything else, another RESP
        type, or times further apart than the tolerance still differ."""
        self.count += 1
        (rv, rraw), (sv, sraw) = self.both(*cmd)
        if rraw == sraw:
            return rv
        if sort and isinstance(rv, list) and isinstance(sv, list):
            if sorted(rv) == sorted(sv):
                return rv
        name = _name(cmd[0])
        if clock is None:
            clock = name in CLOCK_BY_DEFAULT
        if clock and _clock_close(rv, sv, CLOCK_TOLERANCE[name]):
            return rv
        self.mismatches.append((cmd, rraw, sraw))
        return rv

    def run(self, commands):
        for cmd in commands:
            self.check(*cmd)

    def report(self, limit=40):
        lines = [f"{len(self.mismatches)} of {self.count} replies differ:"]
        for cmd, rraw, sraw in self.mismatches[:limit]:
            lines.append(f"  {' '.join(map(_show, cmd))}\n"
                         f"      redis:   {rraw!r}\n      sluiced: {sraw!r}")
        if len(self.mismatches) > limit:
            lines.append(f"  ... and {len(self.mismatches) - limit} more")
        return "\n".join(lines)

    def assert_same(self):
        assert not self.mismatches, self.report()


def _name(arg):
    return (arg.decode("latin-1") if isinstance(arg, bytes) else str(arg)).upper()


def _clock_close(r, s, tolerance):
    """Two remaining times (or absolute ones) of the same key read a moment apart: both
    integers that are not -1 or -2, at most `tolerance` apart. The drift is how much longer one
    server took than the other between its EXPIRE and this read, and either may be the slower,
    so it may go either way; the time both spend (a stalled client) does not count."""
    return (type(r) is int and type(s) is int and r >= 0 and s >= 0
            and abs(r - s) <= tolerance)


def _show(arg):
    text = arg.decode("latin-1") if isinstance(arg, bytes) else str(arg)
    return repr(text) if (not text or any(c in text for c in " \r\n\0")) else text


def assert_command_info_as_redis(differ, names):
    """COMMAND INFO and DOCS of each command as Redis's: name, arity, key positions, ACL
    categories and tips; the flags but denyoom (sluice has none); the docs' since and group (the
    summary is in sluice's own words: only there)."""
    for name in names:
        [theirs] = differ.redis.call("COMMAND", "INFO", name)
        [ours] = differ.sluice.call("COMMAND", "INFO", name)
        assert ours[0] == theirs[0], (ours, theirs)
        assert list(ours[1:2] + ours[3:8]) == list(theirs[1:2] + theirs[3:8]), (ours, theirs)
        assert sorted(ours[2]) == sorted(f for f in theirs[2] if f != "denyoom"), (ours, theirs)
        their_docs = _as_dict(_as_dict(differ.redis.call("COMMAND", "DOCS", name))[name.encode()])
        our_docs = _as_dict(_as_dict(differ.sluice.call("COMMAND", "DOCS", name))[name.encode()])
        for field in (b"since", b"group"):
            assert our_docs[field] == their_docs[field], (name, field)
        assert our_docs[b"summary"], name


def _as_dict(reply):
    """A RESP3 map, or its RESP2 form (a flat array of keys and values), as a dict."""
    if isinstance(reply, servers.Map):
        return reply.as_dict()
    return dict(zip(reply[0::2], reply[1::2]))
