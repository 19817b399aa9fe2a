"""Installs the pinned npm packages of a test's node project once, for tests running in
parallel: an exclusive lock file serializes `npm install` in one directory."""

import fcntl
import shutil
import subprocess
from pathlib import Path


def npm_install(project_dir, module, timeout=600):
    """Runs `npm install` in project_dir unless node_modules/<module> is already there.
    Raises AssertionError with npm's output if the install fails."""
    project_dir = Path(project_dir)
    if (project_dir / "node_modules" / module).is_dir():
        return
    npm = shutil.which("npm")
    assert npm, "npm is not installed"
    with open(project_dir / ".npm-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (project_dir / "node_modules" / module).is_dir():  # done while we waited
            return
        proc = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=project_dir,
                              capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, (
            f"npm install in {project_dir} failed:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}")


def node_with(project_dir, module):
    """The node binary, with project_dir's packages installed (under the lock); skips the
    calling test when node/npm are missing or the registry cannot be reached."""
    import pytest
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        pytest.skip("node/npm are not installed: the ioredis tests need them")
    try:
        npm_install(project_dir, module, timeout=300)
    except AssertionError as failure:
        pytest.skip(f"npm install failed (no registry?):\n{failure}")
    return node
