"""bench/compare as a module, for the other benchmarks (its file name has no .py)."""

import importlib.machinery
import importlib.util
from pathlib import Path

_loader = importlib.machinery.SourceFileLoader("compare", str(Path(__file__).parent / "compare"))
_spec = importlib.util.spec_from_loader("compare", _loader)
compare = importlib.util.module_from_spec(_spec)
_loader.exec_module(compare)
