"""Geo commands (GEOADD GEODIST GEOHASH GEOPOS GEORADIUS GEORADIUSBYMEMBER and their _RO forms,
GEOSEARCH GEOSEARCHSTORE): the same sequences sent to redis-server and sluiced, every reply
compared to the byte in RESP2 and after HELLO 3; the scores the geo sets hold (ZRANGE ...
WITHSCORES) and the sets the STORE forms write compared too. Seeded random points and searches
(circles and boxes, both orders, COUNT and ANY, every WITH option, every unit), points near the
poles and across the antimeridian, scores that are not geohashes, errors in Redis's order,
WATCH, MULTI/EXEC, scripts, a blocked BZPOPMIN served by a STORE, COMMAND INFO and keyspace
hits as Redis's; expiry on sluiced's test clock.

Nothing here depends on the wall clock: relative expiries are >= 100 s, and TTL replies are
compared with differential.CLOCK_TOLERANCE.
"""

import random

import pytest

from composite_diff import random_sequences, run
from differential import assert_command_info_as_redis
from frozen_clock import Clock
from keyspace_counts import assert_counters_move_as_redis, case_ids
import servers

SICILY = [("13.361389", "38.115556", "Palermo"), ("15.087269", "37.502669", "Catania"),
          ("13.583333", "37.316667", "Agrigento"), ("12.758489", "38.788135", "edge1"),
          ("17.241510", "38.222239", "edge2")]

ALL_WITH = ("WITHCOORD", "WITHDIST", "WITHHASH")


def _geoadd_sicily(key="Sicily"):
    return ("GEOADD", key, *[x for point in SICILY for x in point])


def _coord(rng, low, high, digits=6):
    return repr(round(rng.uniform(low, high), digits))


def _random_points(rng, n, lon=(-180.0, 180.0), lat=(-85.05112878, 85.05112878), prefix="m"):
    """GEOADD's arguments for n random points in the ranges (member names distinct)."""
    args = []
    for i in range(n):
        args += [_coord(rng, *lon), _coord(rng, *lat), f"{prefix}{i}"]
    return args


def test_geoadd_geopos_geohash_geodist(diff):
    run(diff, [
        _geoadd_sicily(), ("ZRANGE", "Sicily", "0", "-1", "WITHSCORES"),
        ("GEOPOS", "Sicily", "Palermo", "Catania", "nope", "edge1"),
        ("GEOHASH", "Sicily", "Palermo", "Catania", "nope", "edge2"),
        ("GEOPOS", "Sicily"), ("GEOHASH", "Sicily"), ("GEOPOS", "nokey", "a", "b"),
        ("GEOHASH", "nokey", "a"), ("GEOPOS", "nokey"),
        ("GEODIST", "Sicily", "Palermo", "Catania"),
        ("GEODIST", "Sicily", "Palermo", "Catania", "km"),
        ("GEODIST", "Sicily", "Palermo", "Catania", "KM"),
        ("GEODIST", "Sicily", "Palermo", "Catania", "mi"),
        ("GEODIST", "Sicily", "Palermo", "Catania", "Ft"),
        ("GEODIST", "Sicily", "Palermo", "Catania", "M"),
        ("GEODIST", "Sicily", "Palermo", "Palermo"), ("GEODIST", "Sicily", "Palermo", "nope"),
        ("GEODIST", "Sicily", "nope", "Palermo"), ("GEODIST", "nokey", "a", "b"),
        ("GEODIST", "nokey", "a", "b", "yards"), ("GEODIST", "Sicily", "Palermo", "Catania", "yd"),
        ("GEODIST", "Sicily", "Palermo", "Catania", "km", "x"),
        ("GEODIST", "Sicily", "Palermo", "Catania", b"km\x00junk"),
        ("GEODIST", "Sicily", "Palermo"),
        # The limits themselves, and just past them.
        ("GEOADD", "lim", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw",
         "180", "-85.05112878", "se", "-180", "85.05112878", "nw", "0", "0", "zero",
         "-0", "-0", "negzero", "179.99999999", "85.05112877", "almost"),
        ("ZRANGE", "lim", "0", "-1", "WITHSCORES"),
        ("GEOPOS", "lim", "ne", "sw", "se", "nw", "zero", "negzero", "almost"),
        ("GEOHASH", "lim", "ne", "sw", "se", "nw", "zero", "negzero", "almost"),
        ("GEODIST", "lim", "ne", "sw"), ("GEODIST", "lim", "nw", "se", "km"),
        ("GEOADD", "lim", "180.000001", "0", "x"), ("GEOADD", "lim", "-180.000001", "0", "x"),
        ("GEOADD", "lim", "0", "85.05112879", "x"), ("GEOADD", "lim", "0", "-85.0511288", "x"),
        ("GEOADD", "lim", "0", "90", "x"), ("GEOADD", "lim", "inf", "0", "x"),
        ("GEOADD", "lim", "0", "-inf", "x"), ("GEOADD", "lim", "1e400", "0", "x"),
        ("GEOADD", "lim", "nan", "0", "x"), ("GEOADD", "lim", "abc", "0", "x"),
        ("GEOADD", "lim", "-1.7976931348623157e308", "-1e308", "x"),
        ("GEOSEARCH", "lim", "FROMLONLAT", "1e300", "0", "BYRADIUS", "1", "m"),
        ("GEOADD", "lim", "0", "", "x"), ("GEOADD", "lim", " 1", "0", "x"),
        ("GEOADD", "lim", "0x10", "1e1", "hexa"), ("GEOPOS", "lim", "hexa"),
        ("EXISTS", "x"), ("ZCARD", "lim"),
        ("GEOADD", "binary", "1", "2", b"\x00\xff member"),
        ("GEOPOS", "binary", b"\x00\xff member"),
        ("GEOHASH", "binary", b"\x00\xff member"),
    ])
    diff.assert_same()


def test_geoadd_options_and_errors(diff):
    run(diff, [
        ("GEOADD", "g", "NX", "1", "2", "a"), ("GEOADD", "g", "NX", "3", "4", "a", "5", "6", "b"),
        ("ZRANGE", "g", "0", "-1", "WITHSCORES"),
        ("GEOADD", "g", "XX", "7", "8", "a", "9", "10", "c"),
        ("GEOADD", "g", "XX", "CH", "7", "8", "a", "11", "12", "b"),
        ("GEOADD", "g", "CH", "11", "12", "b", "13", "14", "d"),
        ("GEOADD", "g", "ch", "nx", "15", "16", "d", "17", "18", "e"),
        ("GEOADD", "g", "CH", "CH", "XX", "XX", "1", "1", "e"),
        ("GEOADD", "g", "1", "2", "dup", "3", "4", "dup"), ("GEOPOS", "g", "dup"),
        ("GEOADD", "g", "CH", "5", "6", "dup", "5", "6", "dup"),
        ("ZRANGE", "g", "0", "-1", "WITHSCORES"),
        ("GEOADD", "g", "NX", "XX", "1", "2", "a"), ("GEOADD", "g", "XX", "NX", "1", "2", "a"),
        ("GEOADD", "g", "GT", "1", "2", "a"), ("GEOADD", "g", "INCR", "1", "2", "a"),
        ("GEOADD", "g", "1", "2", "a", "3"), ("GEOADD", "g", "1", "2", "a", "3", "4"),
        ("GEOADD", "g", "CH", "1", "2"), ("GEOADD", "g", "NX", "NX", "NX"),
        ("GEOADD", "g", "NX", "CH", "XX"), ("GEOADD", "g", "1", "2"), ("GEOADD", "g"),
        ("GEOADD", "g", "1", "2", "a", "200", "2", "b"),
        ("GEOADD", "g", "1", "2", "a", "x", "2", "b"),
        ("GEOADD", "g", "1", "2", "a", "1", "y", "b"),
        ("GEOADD", "g", "500", "y", "b"), ("GEOADD", "g", "y", "500", "b"),
        ("GEOADD", "g", b"nx\x00zzz", "1", "1", "nxmember"),
        ("ZRANGE", "g", "0", "-1", "WITHSCORES"),
        ("GEOADD", "nokey", "XX", "1", "2", "a"), ("EXISTS", "nokey"),
        ("SET", "str", "x"), ("GEOADD", "str", "1", "2", "a"), ("GEOADD", "str", "200", "2", "a"),
        ("GEOADD", "str", "NX", "XX", "1", "2", "a"), ("GEOPOS", "str", "a"),
        ("GEOHASH", "str"), ("GEODIST", "str", "a", "b"), ("GEODIST", "str", "a", "b", "parsec"),
        ("RPUSH", "list", "x"), ("GEOSEARCH", "list", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"),
        ("GEORADIUS", "list", "0", "0", "bad", "m"),
        ("GEORADIUSBYMEMBER", "list", "x", "1", "m"), ("GEORADIUS_RO", "list", "0", "0", "1", "m"),
        ("GEOSEARCHSTORE", "d", "list", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"),
        ("EXISTS", "d"),
    ])
    diff.assert_same()


def test_scores_that_are_not_geohashes(diff):
    run(diff, [
        ("ZADD", "z", "-1", "neg", "inf", "pinf", "-inf", "ninf", "1e30", "big", "1e19", "e19",
         "9.3e18", "e63", "100.5", "frac", "0", "zero", "4503599627370496", "two52",
         "9007199254740992", "two53", "-9.3e18", "negbig", "0.4", "small"),
        ("GEOPOS", "z", "neg", "pinf", "ninf", "big", "e19", "e63", "frac", "zero", "two52",
         "two53", "negbig", "small"),
        ("GEOHASH", "z", "neg", "pinf", "ninf", "big", "e19", "e63", "frac", "zero", "two52",
         "two53", "negbig", "small"),
        ("GEODIST", "z", "neg", "pinf"), ("GEODIST", "z", "frac", "zero", "ft"),
        ("GEORADIUSBYMEMBER", "z", "neg", "100", "km", "WITHCOORD", "WITHHASH", "ASC"),
        ("GEORADIUSBYMEMBER", "z", "zero", "10", "km", "WITHCOORD", "WITHHASH", "WITHDIST"),
        ("GEOSEARCH", "z", "FROMMEMBER", "two53", "BYBOX", "100", "100", "km", *ALL_WITH),
        ("GEOSEARCH", "z", "FROMLONLAT", "-180", "-85.05112878", "BYRADIUS", "1", "km",
         "WITHHASH", "WITHDIST"),
        ("GEORADIUSBYMEMBER", "z", "zero", "10", "km", "STORE", "dst"),
        ("ZRANGE", "dst", "0", "-1", "WITHSCORES"),
    ])
    diff.assert_same()


def test_searches_of_sicily(diff):
    cmds = [_geoadd_sicily()]
    for order in ((), ("ASC",), ("DESC",)):
        for with_opts in ((), ("WITHDIST",), ("WITHCOORD",), ("WITHHASH",),
                          ("WITHDIST", "WITHHASH"), ALL_WITH, ("withcoord", "withdist")):
            cmds += [
                ("GEORADIUS", "Sicily", "15", "37", "200", "km", *with_opts, *order),
                ("GEORADIUS_RO", "Sicily", "15", "37", "200", "km", *order, *with_opts),
                ("GEORADIUSBYMEMBER", "Sicily", "Agrigento", "100", "km", *with_opts, *order),
                ("GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "200", "km", *order, *with_opts),
                ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km",
                 *order, *with_opts),
                ("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km",
                 *with_opts, *order),
            ]
    for count in ("1", "2", "3", "10"):
        cmds += [
            ("GEORADIUS", "Sicily", "15", "37", "500", "km", "COUNT", count),
            ("GEORADIUS", "Sicily", "15", "37", "500", "km", "COUNT", count, "DESC", "WITHDIST"),
            ("GEORADIUS", "Sicily", "15", "37", "500", "km", "COUNT", count, "ANY"),
            ("GEORADIUS", "Sicily", "15", "37", "500", "km", "COUNT", count, "ANY", "ASC"),
            ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "500", "km",
             "COUNT", count, "ANY", "DESC"),
            ("GEOSEARCH", "Sicily", "FROMMEMBER", "edge2", "BYBOX", "800", "800", "km",
             "COUNT", count, "WITHCOORD"),
        ]
    cmds += [
        # Units, repeated options (the last wins), zero and huge radii.
        ("GEORADIUS", "Sicily", "15", "37", "200000", "m", "WITHDIST"),
        ("GEORADIUS", "Sicily", "15", "37", "124.2742", "mi", "WITHDIST"),
        ("GEORADIUS", "Sicily", "15", "37", "656168", "ft", "WITHDIST"),
        ("GEORADIUS", "Sicily", "15", "37", "200", "KM", "WITHDIST", "ASC", "DESC"),
        ("GEORADIUS", "Sicily", "15", "37", "200", "km", "COUNT", "5", "COUNT", "1"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "0", "km", "WITHDIST"),
        ("GEORADIUS", "Sicily", "13.361389", "38.115556", "0", "m"),
        ("GEORADIUS", "Sicily", "0", "0", "20000", "km", "ASC", "WITHDIST"),
        ("GEORADIUS", "Sicily", "0", "0", "5000", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "0", "0", "km"),
        ("GEOSEARCH", "Sicily", "FROMMEMBER", "Catania", "BYBOX", "0", "0", "km", "WITHDIST"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "40000", "20000", "km", "ASC"),
        ("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMMEMBER", "Catania", "BYRADIUS",
         "100", "km", "BYRADIUS", "10", "km", "WITHDIST"),
        ("GEOSEARCH", "Sicily", "frommember", "Palermo", "bybox", "500", "100", "mi", "asc",
         "withdist", "withhash", "withcoord"),
        ("GEOSEARCH", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "500", "km"),
        ("GEOSEARCH", "nokey", "FROMMEMBER", "nope", "BYRADIUS", "500", "km"),
        ("GEORADIUS", "nokey", "15", "37", "500", "km", "WITHDIST"),
        ("GEORADIUSBYMEMBER", "nokey", "m", "500", "km"),
        ("GEORADIUSBYMEMBER", "nokey", "m", "bad", "nounit"),
        ("GEORADIUSBYMEMBER_RO", "nokey", "m", "-1", "km", "COUNT", "2"),
    ]
    run(diff, cmds)
    diff.assert_same()


def test_search_errors_in_redis_order(diff):
    run(diff, [
        _geoadd_sicily(),
        # GEORADIUS: position, radius, unit, then the options in turn.
        ("GEORADIUS", "Sicily", "x", "37", "200", "km"),
        ("GEORADIUS", "Sicily", "15", "x", "200", "km"),
        ("GEORADIUS", "Sicily", "200", "37", "x", "km"),
        ("GEORADIUS", "Sicily", "15", "37", "x", "km"),
        ("GEORADIUS", "Sicily", "15", "37", "-1", "km"),
        ("GEORADIUS", "Sicily", "15", "37", "-0", "km"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "kms"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "WITHDISTANCE"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "0"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "-3"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "x"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "1.5"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "ANY"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "ANY", "COUNT", "0"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "STOREDIST"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "d", "WITHDIST"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "WITHHASH", "STOREDIST", "d"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "d", "WITHCOORD", "FOO"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "FROMLONLAT", "1", "2"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "BYRADIUS", "1", "km"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "d", "ANY"),
        ("GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STORE", "d"),
        ("GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STOREDIST", "d"),
        ("GEORADIUS", "Sicily", "15", "37", "1"), ("GEORADIUS", "Sicily", "15", "37"),
        # GEORADIUSBYMEMBER: the member first, then the radius.
        ("GEORADIUSBYMEMBER", "Sicily", "nope", "x", "km"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "x", "km"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "x"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "km", "STORE", "d", "WITHHASH"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "km", "COUNT", "1", "ANY", "FOO"),
        ("GEORADIUSBYMEMBER_RO", "Sicily", "Palermo", "1", "km", "STORE", "d"),
        # GEOSEARCH: each option in turn, then what is missing.
        ("GEOSEARCH", "Sicily", "BYRADIUS", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "WITHDIST"),
        ("GEOSEARCH", "Sicily", "FROMMEMBER", "nope", "BYRADIUS", "-1", "km"),
        ("GEOSEARCH", "Sicily", "BYRADIUS", "-1", "km", "FROMMEMBER", "nope"),
        ("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "FROMLONLAT", "15", "37",
         "BYRADIUS", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo",
         "BYRADIUS", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km",
         "BYBOX", "1", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "km",
         "BYRADIUS", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "x", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "x", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "-1", "nounit"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "1", "nounit"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "99", "BYBOX", "1", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "x", "37", "BYBOX", "1", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "STORE", "d"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "STOREDIST"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "ANY"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "FROMMEMBER"),
        ("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1"),
        ("geosearch", "Sicily", "FROMMEMBER", "Palermo", "COUNT", "1"),
        ("GeoSearch", "Sicily", "ASC", "BYRADIUS", "1", "km"),
        ("GEOSEARCH", "nokey", "BYRADIUS", "1", "km", "ASC"),
        ("GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km", "ANY"),
        ("GEOSEARCH", "nokey", "FROMLONLAT", "500", "0", "BYRADIUS", "1", "km"),
        ("GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37"),
        # GEOSEARCHSTORE: WITH options are refused, STOREDIST is a flag.
        ("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km",
         "WITHDIST"),
        ("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km",
         "STORE", "e"),
        ("geosearchstore", "d", "Sicily", "BYRADIUS", "1", "km", "WITHCOORD"),
        ("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "1", "1"),
        ("GEOSEARCHSTORE", "d", "nokey", "FROMMEMBER", "Palermo", "ANY", "BYBOX", "1", "1", "m"),
        ("EXISTS", "d"),
    ])
    diff.assert_same()


def test_store_forms(diff):
    run(diff, [
        _geoadd_sicily(),
        ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d1"),
        ("ZRANGE", "d1", "0", "-1", "WITHSCORES"),
        ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d2"),
        ("ZRANGE", "d2", "0", "-1", "WITHSCORES"),
        ("GEORADIUS", "Sicily", "15", "37", "200", "mi", "STOREDIST", "d2", "COUNT", "2", "DESC"),
        ("ZRANGE", "d2", "0", "-1", "WITHSCORES"),
        ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST", "d3", "STORE", "d4"),
        ("EXISTS", "d3", "d4"), ("ZRANGE", "d4", "0", "-1", "WITHSCORES"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STORE", "d5", "COUNT", "1"),
        ("ZRANGE", "d5", "0", "-1", "WITHSCORES"),
        ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "ft", "STOREDIST", "d6", "ANY", "COUNT",
         "3"),
        ("ZRANGE", "d6", "0", "-1", "WITHSCORES"),
        ("GEOSEARCHSTORE", "d7", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km"),
        ("ZRANGE", "d7", "0", "-1", "WITHSCORES"),
        ("GEOSEARCHSTORE", "d8", "Sicily", "FROMMEMBER", "Catania", "BYRADIUS", "300", "km",
         "STOREDIST", "DESC", "COUNT", "2"),
        ("ZRANGE", "d8", "0", "-1", "WITHSCORES"),
        ("GEOSEARCHSTORE", "d8", "Sicily", "FROMMEMBER", "Catania", "BYRADIUS", "300", "mi",
         "STOREDIST", "STOREDIST"),
        ("ZRANGE", "d8", "0", "-1", "WITHSCORES"),
        # The destination is replaced whatever it held, its TTL gone; an empty result deletes it.
        ("SET", "s", "x", "EX", "1000"), ("GEOSEARCHSTORE", "s", "Sicily", "FROMLONLAT", "15",
                                           "37", "BYRADIUS", "100", "km"),
        ("TYPE", "s"), ("TTL", "s"), ("ZRANGE", "s", "0", "-1", "WITHSCORES"),
        ("RPUSH", "l", "x"), ("GEORADIUS", "Sicily", "15", "37", "100", "km", "STORE", "l"),
        ("TYPE", "l"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "m", "STORE", "l"), ("EXISTS", "l"),
        ("GEORADIUS", "Sicily", "15", "37", "1", "m", "STORE", "never"), ("EXISTS", "never"),
        ("GEOSEARCHSTORE", "d7", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "m"),
        ("EXISTS", "d7"),
        # A missing source deletes the destination too.
        ("GEORADIUS", "nokey", "15", "37", "1", "m", "STORE", "d1"), ("EXISTS", "d1"),
        ("GEORADIUSBYMEMBER", "nokey", "x", "1", "m", "STOREDIST", "d2"), ("EXISTS", "d2"),
        ("GEOSEARCHSTORE", "d4", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "m"),
        ("EXISTS", "d4"),
        # Onto the source itself.
        ("GEOSEARCHSTORE", "Sicily", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "200", "km"),
        ("ZRANGE", "Sicily", "0", "-1", "WITHSCORES"),
        ("GEORADIUS", "Sicily", "15", "37", "500", "km", "STOREDIST", "Sicily"),
        ("ZRANGE", "Sicily", "0", "-1", "WITHSCORES"), ("GEOPOS", "Sicily", "Palermo"),
    ])
    diff.assert_same()


def _search_args(rng, key, members):
    """A random search on `key`: GEORADIUS, GEORADIUSBYMEMBER, their _RO forms or GEOSEARCH,
    with random options (a FROMMEMBER / BYMEMBER member among `members`, sometimes missing)."""
    unit = rng.choice(["m", "km", "mi", "ft", "KM"])
    scale = {"m": 1000.0, "km": 1.0, "KM": 1.0, "mi": 0.621371, "ft": 3280.84}[unit]
    size = rng.choice([0.5, 5, 50, 300, 1500, 6000, 15000]) * rng.uniform(0.3, 1.5)
    radius = repr(round(size * scale, 3))
    options = []
    for opt in ALL_WITH:
        if rng.random() < 0.3:
            options.append(opt)
    if rng.random() < 0.6:
        options.append(rng.choice(["ASC", "DESC"]))
    if rng.random() < 0.4:
        options += ["COUNT", str(rng.choice([1, 2, 3, 5, 10, 50]))]
        if rng.random() < 0.4:
            options.append("ANY")
    member = rng.choice(members + ["missing"]) if rng.random() < 0.95 else "missing"
    lon, lat = _coord(rng, -180, 180), _coord(rng, -85.05112878, 85.05112878)
    kind = rng.randrange(5)
    if kind == 0:
        return ("GEORADIUS", key, lon, lat, radius, unit, *options)
    if kind == 1:
        return ("GEORADIUS_RO", key, lon, lat, radius, unit, *options)
    if kind == 2:
        return (rng.choice(["GEORADIUSBYMEMBER", "GEORADIUSBYMEMBER_RO"]), key, member, radius,
                unit, *options)
    origin = ("FROMMEMBER", member) if rng.random() < 0.5 else ("FROMLONLAT", lon, lat)
    if rng.random() < 0.5:
        shape = ("BYRADIUS", radius, unit)
    else:
        width = repr(round(size * scale * rng.uniform(0.5, 2.5), 3))
        shape = ("BYBOX", width, repr(round(size * scale * rng.uniform(0.5, 2.5), 3)), unit)
    parts = [origin, shape, tuple(options)]
    rng.shuffle(parts)
    return ("GEOSEARCH", key, *[x for part in parts for x in part])


def _store_variant(rng, search):
    """`search` as one of the STORE forms into "dst", or None for a search that cannot be one."""
    name = search[0]
    options = [x for x in search if x not in ALL_WITH]
    if name == "GEOSEARCH":
        store = ("GEOSEARCHSTORE", "dst", *options[1:])
        return store + (("STOREDIST",) if rng.random() < 0.5 else ())
    if name.endswith("_RO"):
        name = name[:-3]
    return (name, *options[1:], rng.choice(["STORE", "STOREDIST"]), "dst")


def _random_searches(diff, rng, key, members, n):
    for _ in range(n):
        search = _search_args(rng, key, members)
        diff.check(*search)
        if rng.random() < 0.3:
            diff.check(*_store_variant(rng, search))
            diff.check("ZRANGE", "dst", "0", "-1", "WITHSCORES")
            diff.check("TYPE", "dst")


def test_random_points_and_searches(diff):
    rng = random.Random(20261126)
    # Points all over the world, then clusters (a city, around the poles' limits and across the
    # antimeridian), searched from random places and from their members.
    world = _random_points(rng, 300)
    clusters = (_random_points(rng, 60, lon=(13.0, 13.6), lat=(37.9, 38.3), prefix="c") +
                _random_points(rng, 60, lon=(178.5, 180.0), lat=(84.0, 85.05112878), prefix="n") +
                _random_points(rng, 60, lon=(-180.0, -178.5), lat=(84.0, 85.05112878),
                               prefix="w") +
                _random_points(rng, 60, lon=(-180.0, 180.0), lat=(-85.05112878, -83.0),
                               prefix="s"))
    diff.check("GEOADD", "world", *world)
    diff.check("GEOADD", "clusters", *clusters)
    diff.check("ZRANGE", "world", "0", "-1", "WITHSCORES")
    diff.check("ZRANGE", "clusters", "0", "-1", "WITHSCORES")
    names = [world[i] for i in range(2, len(world), 3)]
    cluster_names = [clusters[i] for i in range(2, len(clusters), 3)]
    diff.check("GEOPOS", "world", *names)
    diff.check("GEOHASH", "clusters", *cluster_names)
    for _ in range(100):
        a, b = rng.choice(names), rng.choice(names)
        diff.check("GEODIST", "world", a, b, rng.choice(["m", "km", "mi", "ft"]))
    diff.assert_same()
    _random_searches(diff, rng, "world", names, 250)
    diff.assert_same()
    _random_searches(diff, rng, "clusters", cluster_names, 250)
    diff.assert_same()
    # Searches centred on the limits themselves, of every size.
    for lon in ("180", "-180", "179.9999", "0"):
        for lat in ("85.05112878", "-85.05112878", "84.9", "-84.9", "0"):
            for radius in ("1", "30", "300", "3000", "20000"):
                diff.check("GEORADIUS", "clusters", lon, lat, radius, "km", "ASC", "WITHDIST")
                diff.check("GEOSEARCH", "clusters", "FROMLONLAT", lon, lat, "BYBOX", radius,
                           radius, "km", "DESC", "WITHHASH")
    diff.assert_same()


def test_small_sets_searched_at_every_step(diff):
    # A small (inline) set, searched with radii from centimetres to the whole Earth, so every
    # geohash step and the neighbours' wrap-around are used.
    rng = random.Random(77)
    diff.check("GEOADD", "g", *_random_points(rng, 40))
    diff.check("GEOADD", "g", *_random_points(rng, 20, lon=(2.34, 2.36), lat=(48.85, 48.87),
                                             prefix="paris"))
    radius = 0.01
    while radius < 4.1e7:
        for centre in (("2.35", "48.86"), ("-179.99", "0.5"), ("45", "-85"), ("0", "0")):
            diff.check("GEORADIUS", "g", *centre, repr(radius), "m", "ASC", "WITHDIST")
            diff.check("GEOSEARCH", "g", "FROMLONLAT", *centre, "BYBOX", repr(radius),
                       repr(radius / 3), "m", "ASC")
            diff.check("GEORADIUS", "g", *centre, repr(radius), "m", "COUNT", "4", "ANY")
        radius *= 3.7
    diff.check("GEORADIUS", "g", "0", "0", "1e30", "m", "ASC")
    diff.check("GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYBOX", "inf", "inf", "m")
    diff.check("GEOSEARCH", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "inf", "m")
    diff.assert_same()


def test_equal_distances_in_redis_order(diff):
    # Members at a few shared positions: with COUNT below the number found, Redis's partial
    # quicksort leaves equal distances in an order of its own; the full sort keeps them in the
    # order found.
    rng = random.Random(5)
    for _ in range(60):
        n = rng.choice([5, 8, 13, 30, 45, 80, 150])
        positions = [(_coord(rng, 13.45, 13.55, 4), _coord(rng, 38.05, 38.15, 4))
                     for _ in range(rng.randrange(1, 6))]
        args = [x for i in range(n) for x in (*rng.choice(positions), f"m{i}")]
        diff.check("DEL", "t")
        diff.check("GEOADD", "t", *args)
        for _ in range(5):
            count = str(rng.randrange(1, n + 2))
            order = rng.choice(["ASC", "DESC"])
            diff.check("GEORADIUS", "t", "13.5", "38.1", "50", "km", "COUNT", count, order)
            diff.check("GEOSEARCH", "t", "FROMLONLAT", "13.5", "38.1", "BYBOX", "50", "50", "km",
                       "COUNT", count, order, "WITHDIST")
            diff.check("GEOSEARCHSTORE", "d", "t", "FROMLONLAT", "13.5", "38.1", "BYRADIUS",
                       "50", "km", "COUNT", count, order)
            diff.check("ZRANGE", "d", "0", "-1", "WITHSCORES")
    diff.assert_same()


def test_geo_sets_are_sorted_sets(diff):
    run(diff, [
        _geoadd_sicily("g"), ("TYPE", "g"), ("ZCARD", "g"), ("ZRANGE", "g", "0", "-1"),
        ("ZREM", "g", "Palermo"), ("GEOPOS", "g", "Palermo"),
        ("ZADD", "g", "3479099956230698", "Palermo2"), ("GEOPOS", "g", "Palermo2"),
        ("ZINCRBY", "g", "1", "Palermo2"), ("GEOHASH", "g", "Palermo2"),
        ("GEOADD", "g", "1", "1", "x"), ("EXPIRE", "g", "1000"), ("GEOADD", "g", "2", "2", "y"),
        ("TTL", "g"), ("GEORADIUS", "g", "1", "1", "200", "km"),
        ("ZUNIONSTORE", "u", "1", "g"), ("GEORADIUS", "u", "1", "1", "200", "km", "WITHHASH"),
        ("OBJECT", "ENCODING", "g"),
        ("GEORADIUS", "g", "15", "37", "500", "km", "STORE", "dst"),
        ("OBJECT", "ENCODING", "dst"),
    ])
    diff.assert_same()


def test_multi_exec_and_watch(pair):
    a, b = pair
    run(a, [
        _geoadd_sicily(), ("MULTI",), ("GEOADD", "Sicily", "1", "1", "x"),
        ("GEORADIUS", "Sicily", "1", "1", "10", "km"),
        ("GEOSEARCHSTORE", "d", "Sicily", "FROMMEMBER", "x", "BYRADIUS", "10", "km"),
        ("GEOPOS", "d", "x"), ("GEOADD", "Sicily", "500", "1", "y"), ("EXEC",),
        ("MULTI",), ("GEOADD", "Sicily", "500", "1", "y"), ("EXEC",),
    ])
    steps = [
        # A STORE signals its destination only, never its source.
        (a, ("WATCH", "Sicily")), (b, ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE",
                                       "d")),
        (a, ("MULTI",)), (a, ("ZCARD", "d")), (a, ("EXEC",)),
        (a, ("WATCH", "d")), (b, ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STOREDIST",
                                  "d")),
        (a, ("MULTI",)), (a, ("ZCARD", "d")), (a, ("EXEC",)),
        (a, ("WATCH", "d")), (b, ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "m", "STORE",
                                  "d")),
        (a, ("MULTI",)), (a, ("EXISTS", "d")), (a, ("EXEC",)),
        # STORE repeated: the last one is written, and its WATCH broken.
        (a, ("WATCH", "d2")), (b, ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE",
                                   "d1", "STORE", "d2")),
        (a, ("MULTI",)), (a, ("ZCARD", "d2")), (a, ("EXEC",)),
        (a, ("WATCH", "d1")), (b, ("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE",
                                   "d1", "STOREDIST", "d1", "STORE", "d1")),
        (a, ("MULTI",)), (a, ("ZCARD", "d1")), (a, ("EXEC",)),
        # An empty result onto a missing destination changes nothing.
        (a, ("WATCH", "d")), (b, ("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "m", "STORE",
                                  "d")),
        (a, ("MULTI",)), (a, ("EXISTS", "d")), (a, ("EXEC",)),
        (a, ("WATCH", "Sicily", "e")), (b, ("GEOSEARCHSTORE", "e", "Sicily", "FROMLONLAT", "15",
                                            "37", "BYRADIUS", "200", "km")),
        (a, ("MULTI",)), (a, ("ZCARD", "e")), (a, ("EXEC",)),
        (a, ("WATCH", "Sicily")), (b, ("GEOSEARCHSTORE", "e", "Sicily", "FROMLONLAT", "15",
                                       "37", "BYRADIUS", "200", "km")),
        (a, ("MULTI",)), (a, ("ZCARD", "e")), (a, ("EXEC",)),
        # GEOADD signals its key when it changed something.
        (a, ("WATCH", "Sicily")), (b, ("GEOADD", "Sicily", "NX", "1", "1", "Palermo")),
        (a, ("MULTI",)), (a, ("ZCARD", "Sicily")), (a, ("EXEC",)),
        (a, ("WATCH", "Sicily")), (b, ("GEOADD", "Sicily", "1", "1", "Palermo")),
        (a, ("MULTI",)), (a, ("ZCARD", "Sicily")), (a, ("EXEC",)),
    ]
    for d, cmd in steps:
        run(d, [cmd])
    assert not a.mismatches and not b.mismatches, a.report() + b.report()


def test_scripts_call_geo_commands(diff):
    run(diff, [
        ("EVAL", "return redis.call('GEOADD', KEYS[1], 13.361389, 38.115556, 'Palermo', "
                 "'15.087269', '37.502669', 'Catania')", "1", "Sicily"),
        ("EVAL", "return redis.call('GEOPOS', KEYS[1], 'Palermo', 'nope')", "1", "Sicily"),
        ("EVAL", "return redis.call('GEOHASH', KEYS[1], 'Palermo', 'nope')", "1", "Sicily"),
        ("EVAL", "return redis.call('GEODIST', KEYS[1], 'Palermo', 'Catania', 'km')", "1",
         "Sicily"),
        ("EVAL", "return redis.call('GEORADIUS', KEYS[1], 15, 37, 200, 'km', 'WITHDIST', "
                 "'WITHCOORD', 'WITHHASH', 'ASC')", "1", "Sicily"),
        ("EVAL", "redis.setresp(3); return redis.call('GEOPOS', KEYS[1], 'Palermo')", "1",
         "Sicily"),
        ("EVAL", "redis.setresp(3); local p = redis.call('GEOPOS', KEYS[1], 'Palermo'); "
                 "return tostring(p[1][1]['double'])", "1", "Sicily"),
        ("EVAL", "return redis.call('GEOSEARCHSTORE', KEYS[2], KEYS[1], 'FROMMEMBER', "
                 "'Palermo', 'BYRADIUS', 200, 'km', 'STOREDIST')", "2", "Sicily", "d"),
        ("ZRANGE", "d", "0", "-1", "WITHSCORES"),
        ("EVAL", "return redis.pcall('GEORADIUS', KEYS[1], 15, 37, -1, 'km')", "1", "Sicily"),
        ("EVAL_RO", "return redis.call('GEORADIUS_RO', KEYS[1], 15, 37, 200, 'km')", "1",
         "Sicily"),
        ("EVAL_RO", "return redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', 15, 37, "
                    "'BYRADIUS', 200, 'km')", "1", "Sicily"),
        # GEORADIUS and GEORADIUSBYMEMBER are write commands, also without STORE.
        ("EVAL_RO", "return redis.call('GEORADIUS', KEYS[1], 15, 37, 200, 'km')", "1", "Sicily"),
        ("EVAL_RO", "return redis.call('GEORADIUSBYMEMBER', KEYS[1], 'Palermo', 200, 'km')",
         "1", "Sicily"),
        ("EVAL_RO", "return redis.call('GEOADD', KEYS[1], 1, 1, 'x')", "1", "Sicily"),
    ])
    diff.assert_same()


def test_command_info_and_getkeys(diff):
    run(diff, [
        ("COMMAND", "GETKEYS", "GEOADD", "k", "1", "2", "m"),
        ("COMMAND", "GETKEYS", "GEODIST", "k", "a", "b"),
        ("COMMAND", "GETKEYS", "GEOPOS", "k", "a"), ("COMMAND", "GETKEYS", "GEOHASH", "k"),
        ("COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km"),
        ("COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km", "STORE", "d"),
        ("COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km", "storedist", "d", "ASC"),
        ("COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km", "STORE", "d",
         "STOREDIST", "e"),
        ("COMMAND", "GETKEYS", "GEORADIUSBYMEMBER", "k", "m", "3", "km", "STORE", "d"),
        ("COMMAND", "GETKEYS", "GEORADIUSBYMEMBER", "k", "store", "3", "km"),
        ("COMMAND", "GETKEYS", "GEORADIUS_RO", "k", "1", "2", "3", "km"),
        ("COMMAND", "GETKEYS", "GEOSEARCH", "k", "FROMMEMBER", "m", "BYRADIUS", "1", "km"),
        ("COMMAND", "GETKEYS", "GEOSEARCHSTORE", "d", "k", "FROMMEMBER", "m", "BYRADIUS", "1",
         "km"),
        ("COMMAND", "GETKEYS", "GEOSEARCHSTORE", "d", "k", "FROMMEMBER"),
    ])
    diff.check("COMMAND", "LIST", "FILTERBY", "ACLCAT", "geo", sort=True)
    diff.assert_same()
    # Key specs as Redis's, GEORADIUS's STORE keywords and GEOSEARCHSTORE's destination and
    # source included.
    for name in ["geoadd", "geodist", "geohash", "geopos", "georadius", "georadius_ro",
                 "georadiusbymember", "georadiusbymember_ro", "geosearch", "geosearchstore"]:
        [theirs] = diff.redis.call("COMMAND", "INFO", name)
        [ours] = diff.sluice.call("COMMAND", "INFO", name)
        assert ours[8] == theirs[8], (name, ours[8], theirs[8])
    assert_command_info_as_redis(diff, [
        "geoadd", "geodist", "geohash", "geopos", "georadius", "georadius_ro",
        "georadiusbymember", "georadiusbymember_ro", "geosearch", "geosearchstore"])


def test_blocked_pop_served_by_a_store(emptied_servers):
    """A BZPOPMIN waiting on a key gets the first member a GEORADIUS ... STORE or a
    GEOSEARCHSTORE writes there, on both servers alike."""
    replies = []
    for server in emptied_servers:
        with servers.RespClient(server.port) as observer, \
                servers.RespClient(server.port) as waiter:
            observer.call("GEOADD", "Sicily", *[x for point in SICILY for x in point])
            servers.send_until_blocked(observer, waiter, "BZPOPMIN", "dst", "0")
            got = [observer.call("GEORADIUS", "Sicily", "15", "37", "200", "km",
                                 "STOREDIST", "dst")]
            got.append(waiter.read())
            servers.send_until_blocked(observer, waiter, "BZPOPMIN", "dst2", "0")
            got.append(observer.call("GEOSEARCHSTORE", "dst2", "Sicily", "FROMMEMBER",
                                     "Palermo", "BYRADIUS", "1", "km"))
            got.append(waiter.read())
            got.append(observer.call("ZRANGE", "dst", "0", "-1", "WITHSCORES"))
        replies.append(got)
    assert replies[0] == replies[1]
    assert replies[0][1][0] == b"dst"


# ---- Keyspace hits and misses -----------------------------------------------------------------

HITS_SETUP = [("FLUSHALL",), _geoadd_sicily(), ("SET", "s", "x")]

HITS_CASES = [
    [("GEOADD", "Sicily", "1", "1", "x")], [("GEOADD", "nope", "1", "1", "x")],
    [("GEOADD", "s", "1", "1", "x")], [("GEOPOS", "Sicily", "Palermo", "nope", "Catania")],
    [("GEOPOS", "nope", "a")], [("GEOPOS", "Sicily")], [("GEOHASH", "Sicily", "a", "Palermo")],
    [("GEOHASH", "s", "a")], [("GEODIST", "Sicily", "Palermo", "Catania")],
    [("GEODIST", "Sicily", "Palermo", "nope")], [("GEODIST", "nope", "a", "b")],
    [("GEODIST", "Sicily", "a", "b", "parsec")],
    [("GEORADIUS", "Sicily", "15", "37", "200", "km")],
    [("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "d")],
    [("GEORADIUS", "nope", "15", "37", "200", "km", "STORE", "d")],
    [("GEORADIUS_RO", "Sicily", "15", "37", "200", "km")],
    [("GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STOREDIST", "Sicily")],
    [("GEORADIUSBYMEMBER_RO", "Sicily", "nope", "200", "km")],
    [("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km")],
    [("GEOSEARCH", "nope", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km")],
    [("GEOSEARCH", "s", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km")],
    [("GEOSEARCHSTORE", "d", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km")],
    [("GEOSEARCHSTORE", "Sicily", "nope", "FROMLONLAT", "15", "37", "BYRADIUS", "2", "km")],
    [("EVAL", "return redis.call('GEOSEARCH', KEYS[1], 'FROMMEMBER', 'Palermo', 'BYRADIUS', "
              "1, 'km')", "1", "Sicily")],
    [("MULTI",), ("GEOPOS", "Sicily", "Palermo"), ("GEORADIUS", "Sicily", "15", "37", "1", "m",
                                                    "STORE", "d"), ("EXEC",)],
]


@pytest.mark.parametrize("case", HITS_CASES, ids=case_ids(HITS_CASES))
def test_keyspace_hits_and_misses_move_as_redis(emptied_servers, case):
    assert_counters_move_as_redis(emptied_servers, HITS_SETUP, case)


# ---- Expiry on the test clock (sluiced alone: Redis's clock cannot be frozen) ----------------

def test_expired_keys_are_missing_to_geo_commands(shared_debug_sluiced):
    with shared_debug_sluiced.client() as c:
        clock = Clock(c)
        assert c.call(*_geoadd_sicily()) == len(SICILY)
        assert c.call("PEXPIRE", "Sicily", "1000") == 1
        assert c.call("GEOADD", "Sicily", "1", "1", "x") == 1  # a live key: the TTL stays
        assert c.call("PTTL", "Sicily") == 1000
        assert len(c.call("GEORADIUS", "Sicily", "15", "37", "200", "km")) == 3
        assert c.call("GEOSEARCHSTORE", "kept", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS",
                      "200", "km") == 3
        assert c.call("SET", "dst", "x") == "OK"
        clock.at(1001)
        assert c.call("GEOPOS", "Sicily", "Palermo") == [None]
        assert c.call("GEOHASH", "Sicily", "Palermo") == [None]
        assert c.call("GEODIST", "Sicily", "Palermo", "Catania") is None
        assert c.call("GEORADIUS", "Sicily", "15", "37", "200", "km") == []
        assert c.call("GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "1",
                      "km") == []
        # A STORE from an expired source deletes its destination.
        assert c.call("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "km", "STORE", "dst") == 0
        assert c.call("EXISTS", "dst", "kept") == 1
        # GEOADD on an expired key starts a new one, without the old members or TTL.
        assert c.call("GEOADD", "Sicily", "XX", "1", "1", "Palermo") == 0
        assert c.call("GEOADD", "Sicily", "2", "2", "y") == 1
        assert c.call("ZCARD", "Sicily") == 1
        assert c.call("PTTL", "Sicily") == -1


# ---- Random sequences ---------------------------------------------------------------------------

KEYS = ["g0", "g1", "g2"]
MEMBERS = ["a", "b", "c", "d", "e", "f"]


def _geo_command(rng):
    k = rng.choice(KEYS)
    m = rng.choice(MEMBERS)
    near = lambda: (_coord(rng, 12.0, 14.0), _coord(rng, 37.0, 39.0))  # noqa: E731
    table = [
        lambda: ("GEOADD", k, *rng.choice([(), ("NX",), ("XX",), ("CH",), ("XX", "CH")]),
                 *[x for _ in range(rng.randrange(1, 4)) for x in (*near(), rng.choice(MEMBERS))]),
        lambda: ("GEOADD", k, *near(), m),
        lambda: ("GEOPOS", k, *rng.sample(MEMBERS, rng.randrange(0, 4))),
        lambda: ("GEOHASH", k, *rng.sample(MEMBERS, rng.randrange(0, 3))),
        lambda: ("GEODIST", k, m, rng.choice(MEMBERS), rng.choice(["m", "km"])),
        lambda: ("GEORADIUS", k, *near(), rng.choice(["10", "50", "150"]), "km", "ASC",
                 "WITHDIST"),
        lambda: ("GEORADIUSBYMEMBER", k, m, rng.choice(["10", "50", "150"]), "km",
                 *rng.choice([(), ("STORE", rng.choice(KEYS)), ("STOREDIST", rng.choice(KEYS))])),
        lambda: ("GEOSEARCH", k, "FROMMEMBER", m, "BYBOX", "100", "100", "km", "DESC",
                 "WITHCOORD"),
        lambda: ("GEOSEARCHSTORE", rng.choice(KEYS), k, "FROMLONLAT", *near(), "BYRADIUS",
                 rng.choice(["30", "120"]), "km", *rng.choice([(), ("STOREDIST",)])),
        lambda: ("ZRANGE", k, "0", "-1", "WITHSCORES"),
        lambda: ("ZREM", k, m),
        lambda: ("ZADD", k, rng.choice(["0", "1e15", "-5"]), m),
        lambda: ("SADD", k, m),
    ]
    return rng.choice(table)()


def test_random_geo_sequences(diff):
    random_sequences(diff, random.Random(20261127), KEYS, _geo_command, sequences=120)
