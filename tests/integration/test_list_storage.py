"""How sluiced stores a list (storage/list_type.h): up to 128 elements of up to 64 bytes (and
about 4 KB in all) in the key's record, with no sub-entry (DEBUG RAWSUBKEYS counts them on
disk), past any limit one sub-entry per element, for good; both survive a kill -9 once
acknowledged. What the commands reply is test_differential_lists.py's, against Redis.
"""


def _compacted_subkeys(c):
    assert c.call("DEBUG", "COMPACT") == "OK"
    return c.call("DEBUG", "RAWSUBKEYS")


def test_a_short_list_lives_in_its_record_until_it_grows_past_128(debug_sluiced):
    with debug_sluiced.client() as c:
        for i in range(128):
            assert c.call("RPUSH", "l", f"e{i}") == i + 1
        assert c.call("LPUSH", "window", "1", "2", "3") == 3
        assert c.call("LTRIM", "window", "0", "1") == "OK"
        assert _compacted_subkeys(c) == 0
        assert c.call("RPUSH", "l", "e128") == 129
        assert _compacted_subkeys(c) == 129
        assert c.call("LPOP", "l", "120") == [f"e{i}".encode() for i in range(120)]
        assert _compacted_subkeys(c) == 9  # shorter again, and still one sub-entry each
        assert c.call("RPUSH", "long", "x" * 65) == 1  # an element past 64 bytes
        assert _compacted_subkeys(c) == 10
    debug_sluiced.kill()
    debug_sluiced.start()
    with debug_sluiced.client() as c:
        assert c.call("LRANGE", "window", "0", "-1") == [b"3", b"2"]
        assert c.call("LRANGE", "l", "0", "-1") == [f"e{i}".encode() for i in range(120, 129)]
        assert c.call("LRANGE", "long", "0", "-1") == [b"x" * 65]
        assert c.call("OBJECT", "ENCODING", "window") == b"quicklist"  # Redis 7.0's only one
