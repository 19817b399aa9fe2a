"""sluiced's test clock from a test: frozen at T0 (DEBUG CLOCK FREEZE), moved only forward."""

T0 = 4_102_444_800_000  # 2100-01-01 in ms: after any real clock, aligned to every window used


class Clock:
    """The daemon's test clock, frozen at T0; at(t) moves it forward to T0 + t ms."""

    def __init__(self, c, t0=T0):
        self.c = c
        self.t0 = t0
        self.now = 0
        assert c.call("DEBUG", "CLOCK", "FREEZE", t0) == "OK"

    def at(self, t):
        assert t >= self.now, f"the test clock only moves forward ({self.now} -> {t})"
        if t > self.now:
            assert self.c.call("DEBUG", "CLOCK", "ADVANCE", t - self.now) == "OK"
            self.now = t

    def advance(self, ms):
        self.at(self.now + ms)
