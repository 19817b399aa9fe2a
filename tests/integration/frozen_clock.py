"""sluiced's test clock from a test: frozen at T0 (DEBUG CLOCK FREEZE), moved only forward."""

# 2100-01-01T00:00:00Z in ms: later than any real clock (so a restarted daemon, which runs on the
# real clock until a test freezes it again, never expires the keys written at T0) and a multiple
# of every window the tests use (RL.SLIDINGWINDOW aligns its windows to the epoch).
T0 = 4_102_444_800_000


class Clock:
    """The daemon's test clock, frozen at T0; at(t) moves it forward to T0 + t ms."""

    def __init__(self, c, t0=T0):
        self.c = c
        self.t0 = t0
        self.now = 0
        reply = c.call("DEBUG", "CLOCK", "FREEZE", t0)
        assert reply == "OK", reply

    def at(self, t):
        assert t >= self.now, f"the test clock only moves forward ({self.now} -> {t})"
        if t > self.now:
            assert self.c.call("DEBUG", "CLOCK", "ADVANCE", t - self.now) == "OK"
            self.now = t

    def advance(self, ms):
        self.at(self.now + ms)
