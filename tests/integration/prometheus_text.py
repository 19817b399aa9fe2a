"""A small parser for Prometheus's text exposition format (0.0.4), strict enough to catch
malformed output: every sample belongs to a family declared by # TYPE before it, label values
are quoted with the format's escapes, no series appears twice, values are floats."""

import math
import re

_NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
_SAMPLE = re.compile(rf"^({_NAME})(?:\{{(.*)\}})? (\S+)(?: (-?\d+))?$")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')
_SUFFIXES = {"histogram": ("_bucket", "_sum", "_count"), "summary": ("", "_sum", "_count")}


class Metrics:
    def __init__(self):
        self.types = {}    # family name -> counter, gauge, histogram ...
        self.help = {}
        self.samples = {}  # (name, frozenset of (label, value)) -> float

    def get(self, name, **labels):
        """The value of one series; KeyError if absent."""
        return self.samples[(name, frozenset(labels.items()))]

    def value(self, name, default=0.0, **labels):
        return self.samples.get((name, frozenset(labels.items())), default)

    def series(self, name):
        """[(labels dict, value)] of every series named `name`."""
        return [(dict(labels), v) for (n, labels), v in self.samples.items() if n == name]


def _unescape(text):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "\\": "\\", '"': '"'}[m.group(1)], text)


def _labels(text, line):
    labels, pos = {}, 0
    while pos < len(text):
        m = _LABEL.match(text, pos)
        if not m:
            raise ValueError(f"bad labels in line {line!r}")
        if m.group(1) in labels:
            raise ValueError(f"label {m.group(1)} twice in line {line!r}")
        labels[m.group(1)] = _unescape(m.group(2))
        pos = m.end()
    return labels


def _family(name, types):
    if name in types:
        return name
    for family, kind in types.items():
        for suffix in _SUFFIXES.get(kind, ()):
            if suffix and name == family + suffix:
                return family
    return None


def parse(text):
    if text and not text.endswith("\n"):
        raise ValueError("the exposition must end with a newline")
    metrics = Metrics()
    for line in text.split("\n")[:-1]:
        if line.startswith("# HELP "):
            name, _, doc = line[7:].partition(" ")
            metrics.help[name] = doc
        elif line.startswith("# TYPE "):
            name, _, kind = line[7:].partition(" ")
            if kind not in ("counter", "gauge", "histogram", "summary", "untyped"):
                raise ValueError(f"bad type in line {line!r}")
            if name in metrics.types:
                raise ValueError(f"family {name} declared twice")
            metrics.types[name] = kind
        elif line.startswith("#") or not line:
            continue
        else:
            m = _SAMPLE.match(line)
            if not m:
                raise ValueError(f"malformed sample line {line!r}")
            name, label_text, value = m.group(1), m.group(2) or "", m.group(3)
            if _family(name, metrics.types) is None:
                raise ValueError(f"sample {name} before (or without) its # TYPE")
            key = (name, frozenset(_labels(label_text, line).items()))
            if key in metrics.samples:
                raise ValueError(f"series repeated: {line!r}")
            number = float(value)  # accepts +Inf, -Inf, NaN as the format does
            if math.isnan(number) and value != "NaN":
                raise ValueError(f"bad value in {line!r}")
            metrics.samples[key] = number
    return metrics


def check_histogram(metrics, family):
    """Buckets are cumulative, end with +Inf, and +Inf equals _count."""
    buckets = sorted(((float(labels["le"]), v) for labels, v in
                      metrics.series(family + "_bucket")), key=lambda b: b[0])
    assert buckets and buckets[-1][0] == math.inf, f"{family}: no +Inf bucket"
    counts = [v for _, v in buckets]
    assert counts == sorted(counts), f"{family}: buckets not cumulative: {buckets}"
    assert buckets[-1][1] == metrics.get(family + "_count"), family
    return buckets
