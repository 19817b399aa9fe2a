"""The script cache as Redis 8.0 keeps it: at most 500 scripts that EVAL made, the least
recently used (by EVAL or EVALSHA) evicted first (INFO's evicted_scripts); SCRIPT LOAD's
scripts, and EVAL's once a SCRIPT LOAD names them, stay until SCRIPT FLUSH. Redis 7.0 kept
every EVAL'd script, so a client writing its values into the script's text filled the Lua
heap."""

import hashlib

import servers

CAP = 500


def _sha(body):
    return hashlib.sha1(body.encode()).hexdigest()


def _eval_all(c, bodies):
    c.send(b"".join(servers.encode("EVAL", body, "0") for body in bodies))
    return [c.read() for _ in bodies]


def test_eval_scripts_past_500_are_evicted_least_recently_used_first(sluiced):
    body = lambda i: f"return {i}"  # noqa: E731
    with sluiced.client() as c:
        loaded = c.call("SCRIPT", "LOAD", "return 'loaded'").decode()
        assert c.call("EVAL", "return 'run'", "0") == b"run"
        assert c.call("SCRIPT", "LOAD", "return 'run'").decode() == _sha("return 'run'")  # kept
        assert _eval_all(c, [body(i) for i in range(300)]) == list(range(300))
        assert c.call("EVAL", body(0), "0") == 0  # the most recently used again
        assert c.call("EVALSHA", _sha(body(1)), "0") == 1  # so are EVALSHA's
        assert _eval_all(c, [body(i) for i in range(300, 600)]) == list(range(300, 600))

        assert servers.info_fields(c, "stats")["evicted_scripts"] == "100"
        assert servers.info_fields(c, "memory")["number_of_cached_scripts"] == str(CAP + 2)
        shas = [loaded, _sha("return 'run'"), _sha(body(0)), _sha(body(1)), _sha(body(2)),
                _sha(body(101)), _sha(body(102)), _sha(body(599))]
        assert c.call("SCRIPT", "EXISTS", *shas) == [1, 1, 1, 1, 0, 0, 1, 1]
        reply = c.call("EVALSHA", _sha(body(2)), "0")
        assert isinstance(reply, servers.Error) and str(reply).startswith("NOSCRIPT"), reply
        assert c.call("EVAL", body(2), "0") == 2  # compiled again
        assert c.call("CONFIG", "RESETSTAT") == "OK"
        assert servers.info_fields(c, "stats")["evicted_scripts"] == "0"
        assert c.call("SCRIPT", "FLUSH") == "OK"
        assert servers.info_fields(c, "memory")["number_of_cached_scripts"] == "0"
