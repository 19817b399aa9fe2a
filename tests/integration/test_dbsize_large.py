"""DBSIZE of a key space past 10,000 records, which sluice counts off its loop thread while the
asking client waits (server/key_count_rounds.h): the same answers as redis-server, in pipelines
with the client's own writes before and after it, inside MULTI/EXEC and scripts (counted on the
spot), for several clients at once, and for a client that leaves before its answer.
"""

import socket
import threading

import redis

KEYS = 15_000  # past the 10,000 records counted on the loop thread


def _load(port, n=KEYS):
    r = redis.Redis(host="127.0.0.1", port=port, socket_timeout=60)
    pipe = r.pipeline(transaction=False)
    for i in range(n):
        pipe.set(f"key:{i}", "v")
    pipe.execute()
    return r


def test_dbsize_of_a_large_key_space_is_exact_and_in_order(diff):
    _load(diff.redis.port)
    _load(diff.sluice.port)
    diff.run([
        ("DBSIZE",), ("SET", "new", "1"), ("DBSIZE",), ("DEL", "key:0", "key:1"), ("DBSIZE",),
        ("MULTI",), ("SET", "in-multi", "1"), ("DBSIZE",), ("EXEC",),
        ("EVAL", "redis.call('SET', 'from-script', '1') return redis.call('DBSIZE')", "0"),
        ("DBSIZE",), ("GET", "new"),
    ])
    diff.assert_same()


def test_a_pipeline_counts_its_own_earlier_writes(sluiced):
    r = _load(sluiced.port)
    pipe = r.pipeline(transaction=False)
    pipe.set("a", "1")
    pipe.dbsize()
    pipe.set("b", "1")
    pipe.delete("key:5")
    pipe.dbsize()
    pipe.get("a")
    assert pipe.execute() == [True, KEYS + 1, True, 1, KEYS + 1, b"1"]


def test_clients_asking_at_once_all_get_the_count(sluiced):
    _load(sluiced.port)
    answers = []

    def ask():
        r = redis.Redis(host="127.0.0.1", port=sluiced.port, socket_timeout=60)
        for _ in range(5):
            answers.append(r.dbsize())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [KEYS] * 40


def test_expired_keys_are_not_counted(server, c, clock):
    r = redis.Redis(host="127.0.0.1", port=server.port, socket_timeout=60)
    pipe = r.pipeline(transaction=False)
    for i in range(12_000):
        pipe.set(f"short:{i}", "v", px=1_000)
    for i in range(3_000):
        pipe.set(f"long:{i}", "v")
    pipe.execute()
    assert r.dbsize() == 15_000
    clock.advance(2_000)
    assert r.dbsize() == 3_000


def test_a_client_that_leaves_before_its_answer_harms_nobody(sluiced):
    r = _load(sluiced.port)
    for _ in range(3):
        s = socket.create_connection(("127.0.0.1", sluiced.port))
        s.sendall(b"*1\r\n$6\r\nDBSIZE\r\n")
        s.close()
    assert r.ping()
    assert r.dbsize() == KEYS
    r.set("after", "1")
    assert r.dbsize() == KEYS + 1
