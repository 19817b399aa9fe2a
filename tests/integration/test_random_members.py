"""ZRANDMEMBER and HRANDFIELD where the reply is random: properties that hold for every reply,
checked the same way on redis-server and on sluiced (so each property is Redis's own), in RESP2
and RESP3. The replies that are determined (errors, count 0, missing keys, a count >= the size)
are compared byte for byte in test_differential_{zsets,hashes}.py.

  positive count  min(count, size) distinct elements of the key, with their own scores/values;
  negative count  exactly -count elements of the key, repeats allowed;
  no count        one element (a bulk string);
and over many calls every element of a small key comes up: the answer is not fixed.
"""

import random

import pytest

import servers

ZSET = {f"m{i}": float(i % 4) - 1.5 for i in range(6)} | {"inf": float("inf"), "": 0.25}
HASH = {"a": "1", "b": "", "c": "three", "": "empty", "e": "5", "f": "x" * 70}
BIG = 200  # past the inline limits: Redis's skiplist / hashtable, sluice's sub-entries


@pytest.fixture
def client(each_client):
    c = each_client
    c.call("ZADD", "z", *[x for m, s in ZSET.items() for x in (repr(s), m)])
    c.call("HSET", "h", *[x for f, v in HASH.items() for x in (f, v)])
    c.call("ZADD", "bigz", *[x for i in range(BIG) for x in (str(i % 9), f"member:{i}")])
    c.call("HSET", "bigh", *[x for i in range(BIG) for x in (f"field:{i}", f"value:{i}")])
    return c


def _text(x):
    return x.decode() if isinstance(x, bytes) else x


def _pairs(client, reply, with_extra):
    """[(element, score or value)] from a reply with WITHSCORES / WITHVALUES (flat in RESP2,
    nested pairs in RESP3), or [(element, None)] without."""
    assert isinstance(reply, list), reply
    if not with_extra:
        assert all(isinstance(x, bytes) for x in reply), reply
        return [(_text(x), None) for x in reply]
    if client.protocol == 3:
        assert all(isinstance(p, list) and len(p) == 2 for p in reply), reply
        return [(_text(e), x) for e, x in reply]
    assert len(reply) % 2 == 0, reply
    return [(_text(e), x) for e, x in zip(reply[0::2], reply[1::2])]


def _check_scores(client, pairs, scores):
    for member, score in pairs:
        assert member in scores, member
        if score is None:
            continue
        if client.protocol == 3:
            assert isinstance(score, servers.Double), score
            assert float(score) == scores[member], (member, score)
        else:
            assert isinstance(score, bytes) and float(score) == scores[member], (member, score)


def _check_values(pairs, values):
    for field, value in pairs:
        assert field in values, field
        if value is not None:
            assert value == values[field].encode(), (field, value)


def _zset(client, key, count, with_scores=False):
    args = ["ZRANDMEMBER", key, str(count)] + (["WITHSCORES"] if with_scores else [])
    return _pairs(client, client.call(*args), with_scores)


def _hash(client, key, count, with_values=False):
    args = ["HRANDFIELD", key, str(count)] + (["WITHVALUES"] if with_values else [])
    return _pairs(client, client.call(*args), with_values)


BIG_ZSET = {f"member:{i}": float(i % 9) for i in range(BIG)}
BIG_HASH = {f"field:{i}": f"value:{i}" for i in range(BIG)}


@pytest.mark.parametrize("count", [1, 2, 4, 6])
def test_zrandmember_positive_count_gives_distinct_members(client, count):
    for with_scores in (False, True):
        for _ in range(30):
            got = _zset(client, "z", count, with_scores)
            assert len(got) == count
            assert len({m for m, _ in got}) == count, got
            _check_scores(client, got, ZSET)


@pytest.mark.parametrize("count", [-1, -3, -8, -50])
def test_zrandmember_negative_count_gives_exactly_that_many(client, count):
    for with_scores in (False, True):
        for _ in range(20):
            got = _zset(client, "z", count, with_scores)
            assert len(got) == -count
            _check_scores(client, got, ZSET)
    # 50 picks of 8 members repeat some of them.
    if count == -50:
        assert len({m for m, _ in got}) < 50


def test_zrandmember_every_member_comes_up(client):
    for args, make in [((), lambda: [_text(client.call("ZRANDMEMBER", "z"))]),
                       ((2,), lambda: [m for m, _ in _zset(client, "z", 2)]),
                       ((-3,), lambda: [m for m, _ in _zset(client, "z", -3, True)])]:
        seen = set()
        for _ in range(200):
            got = make()
            assert all(m in ZSET for m in got), got
            seen.update(got)
        assert seen == set(ZSET), (args, seen)


def test_zrandmember_of_a_large_set(client):
    seen = set()
    for count in [1, 10, 60, 199, -1, -10, -300]:
        for _ in range(20):
            got = _zset(client, "bigz", count, with_scores=True)
            assert len(got) == abs(count)
            if count > 0:
                assert len({m for m, _ in got}) == count
            _check_scores(client, got, BIG_ZSET)
            seen.update(m for m, _ in got)
    for _ in range(300):
        seen.add(_text(client.call("ZRANDMEMBER", "bigz")))
    assert seen == set(BIG_ZSET)


@pytest.mark.parametrize("count", [1, 3, 5])
def test_hrandfield_positive_count_gives_distinct_fields(client, count):
    for with_values in (False, True):
        for _ in range(30):
            got = _hash(client, "h", count, with_values)
            assert len(got) == count
            assert len({f for f, _ in got}) == count, got
            _check_values(got, HASH)


@pytest.mark.parametrize("count", [-1, -4, -7, -40])
def test_hrandfield_negative_count_gives_exactly_that_many(client, count):
    for with_values in (False, True):
        for _ in range(20):
            got = _hash(client, "h", count, with_values)
            assert len(got) == -count
            _check_values(got, HASH)


def test_hrandfield_every_field_comes_up(client):
    for make in [lambda: [_text(client.call("HRANDFIELD", "h"))],
                 lambda: [f for f, _ in _hash(client, "h", 3, True)],
                 lambda: [f for f, _ in _hash(client, "h", -2)]]:
        seen = set()
        for _ in range(200):
            got = make()
            assert all(f in HASH for f in got), got
            seen.update(got)
        assert seen == set(HASH)


def test_hrandfield_of_a_large_hash(client):
    seen = set()
    for count in [1, 10, 60, 199, -1, -10, -300]:
        for _ in range(20):
            got = _hash(client, "bigh", count, with_values=True)
            assert len(got) == abs(count)
            if count > 0:
                assert len({f for f, _ in got}) == count
            _check_values(got, BIG_HASH)
            seen.update(f for f, _ in got)
    for _ in range(300):
        seen.add(_text(client.call("HRANDFIELD", "bigh")))
    assert seen == set(BIG_HASH)


def test_a_negative_count_of_a_hundred_thousand(client):
    got = _zset(client, "z", -100000, with_scores=True)
    assert len(got) == 100000
    _check_scores(client, got, ZSET)
    assert {m for m, _ in got} == set(ZSET)
    got = _hash(client, "h", -100000)
    assert len(got) == 100000 and {f for f, _ in got} == set(HASH)


def test_random_fields_again_and_again_with_changes_between(client):
    """Calls in a row draw picks ahead for the calls after them (storage/draws_ahead.h): every
    write of the hash's fields drops them, so every pick has the field's value of the moment."""
    c = client
    model = dict(BIG_HASH)
    rng = random.Random(12)
    for step in range(1500):
        assert _text(c.call("HRANDFIELD", "bigh")) in model, step
        _check_values(_hash(c, "bigh", -3, with_values=True), model)
        got = _hash(c, "bigh", 5)
        assert len({f for f, _ in got}) == 5, (step, got)
        _check_values(got, model)
        field = sorted(model)[rng.randrange(len(model))]
        change = step % 50
        if change == 5:
            c.call("MULTI")
            c.call("HSET", "bigh", field, f"multi:{step}")
            c.call("HRANDFIELD", "bigh", "-50", "WITHVALUES")
            _, picked = c.call("EXEC")
            model[field] = f"multi:{step}"
            _check_values(_pairs(c, picked, True), model)
        elif change == 10:
            assert c.call("HSET", "bigh", field, f"new:{step}") == 0
            model[field] = f"new:{step}"
        elif change == 20:
            assert c.call("HDEL", "bigh", field) == 1
            del model[field]
        elif change == 30:
            c.call("HSET", "bigh", field, "7")
            assert c.call("HINCRBY", "bigh", field, "5") == 12
            model[field] = "12"
        elif change in (40, 45):
            assert c.call("HSETNX", "bigh", f"added:{step}", "x") == 1
            model[f"added:{step}"] = "x"
    assert c.call("HLEN", "bigh") == len(model)


def test_random_members_again_and_again_with_changes_between(client):
    """The same for a sorted set: every write of its members drops the picks drawn ahead, so
    every pick has the member's score of the moment."""
    c = client
    model = dict(BIG_ZSET)
    rng = random.Random(13)
    for step in range(1500):
        assert _text(c.call("ZRANDMEMBER", "bigz")) in model, step
        _check_scores(c, _zset(c, "bigz", -3, with_scores=True), model)
        got = _zset(c, "bigz", 5, with_scores=True)
        assert len({m for m, _ in got}) == 5, (step, got)
        _check_scores(c, got, model)
        member = sorted(model)[rng.randrange(len(model))]
        change = step % 50
        if change == 5:
            c.call("MULTI")
            c.call("ZADD", "bigz", str(step), member)
            c.call("ZRANDMEMBER", "bigz", "-50", "WITHSCORES")
            _, picked = c.call("EXEC")
            model[member] = float(step)
            _check_scores(c, _pairs(c, picked, True), model)
        elif change == 10:
            c.call("ZINCRBY", "bigz", "0.5", member)
            model[member] += 0.5
        elif change == 20:
            assert c.call("ZREM", "bigz", member) == 1
            del model[member]
        elif change == 30:
            popped = c.call("ZPOPMIN", "bigz")
            del model[_text(popped[0])]
        elif change in (40, 45):
            assert c.call("ZADD", "bigz", "-1", f"added:{step}") == 1
            model[f"added:{step}"] = -1.0
    assert c.call("ZCARD", "bigz") == len(model)


# ---- sluiced alone: a negative count whose reply could never be sent -------------------------------
# Redis 7.0.15 starts building a reply of |count| elements and, for -LONG_MAX, never returns (and
# takes all the memory there is). sluiced refuses, with the "value is out of range" Redis gives
# past +-LONG_MAX/2, a count whose reply must pass the client-output-buffer-limit hard limit
# (6 bytes an element at least), once the key is known to exist and be of the right type.

@pytest.mark.parametrize("cmd", ["ZRANDMEMBER", "HRANDFIELD"])
def test_sluiced_refuses_a_reply_too_large_to_send(sluiced, cmd):
    key = "z" if cmd == "ZRANDMEMBER" else "h"
    with sluiced.client() as c:
        c.call("ZADD", "z", "1", "a", "2", "b")
        c.call("HSET", "h", "f", "v")
        c.call("SET", "s", "x")
        for count in ["-9223372036854775807", "-4611686018427387903", "-11184811"]:
            reply = c.call(cmd, key, count)
            assert isinstance(reply, servers.Error) and reply == "ERR value is out of range", reply
            assert c.call(cmd, "nope", count) == []
            reply = c.call(cmd, "s", count)
            assert isinstance(reply, servers.Error) and reply.startswith("WRONGTYPE"), reply
        assert c.call("PING") == "PONG"
        # The bound follows the hard limit: 1 MB allows 174,762 elements, 64 MB (the default)
        # many more.
        assert len(c.call(cmd, key, "-174763")) == 174763
        assert c.call("CONFIG", "SET", "client-output-buffer-limit", "normal 1048576 0 0") == "OK"
        reply = c.call(cmd, key, "-174763")
        assert isinstance(reply, servers.Error) and reply == "ERR value is out of range", reply
        assert len(c.call(cmd, key, "-100000")) == 100000
