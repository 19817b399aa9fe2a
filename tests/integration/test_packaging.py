"""Packaging: packaging/sluice.conf lists every directive with its default and starts sluiced
unchanged; the systemd unit is valid and hardened; `cpack -G DEB` builds a .deb holding the
binary, the unit and the config."""

import configparser
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import servers

REPO = Path(__file__).resolve().parents[2]
CONF = REPO / "packaging" / "sluice.conf"
UNIT = REPO / "packaging" / "sluiced.service"

# CONFIG GET answers these for clients' probes; they are not directives of sluice.conf.
READ_ONLY_PROBES = {"save", "appendonly", "maxmemory", "maxmemory-policy"}
# Directives CONFIG GET does not list (they accumulate).
REPEATED = {"policy", "rename-command"}


def conf_directives():
    """{directive: value} of active lines, and the set of directives shown commented out."""
    active, commented = {}, set()
    for line in CONF.read_text().splitlines():
        m = re.match(r"^([a-z][a-z-]+) (.*)$", line)
        if m:
            assert m.group(1) not in active, f"{m.group(1)} set twice"
            active[m.group(1)] = m.group(2)
        m = re.match(r"^# ([a-z][a-z-]+) \S", line)
        if m:
            commented.add(m.group(1))
    return active, commented


def config_get_all(server):
    with server.client() as c:
        reply = c.call("CONFIG", "GET", "*")
    return {reply[i].decode(): reply[i + 1].decode() for i in range(0, len(reply), 2)}


def test_sample_config_lists_every_directive(sluiced):
    active, commented = conf_directives()
    known = set(config_get_all(sluiced)) - READ_ONLY_PROBES
    missing = (known | REPEATED) - set(active) - commented
    assert not missing, f"sluice.conf does not mention {sorted(missing)}"
    unknown = set(active) - known
    assert not unknown, f"sluice.conf sets directives sluiced does not report: {unknown}"


def test_sample_config_starts_sluiced_with_the_defaults(sluiced_factory):
    # The fixture adds --port, --bind and --dir (free port, own directory) after the file.
    from_file = config_get_all(sluiced_factory(config_file=CONF))
    defaults = config_get_all(sluiced_factory())
    for name in ("port", "dir"):
        from_file.pop(name), defaults.pop(name)
    assert from_file == defaults


def test_sample_config_as_is_from_its_own_directory(tmp_path):
    """Unchanged, with no override but the port: the relative dir lands in the working
    directory, as it does under systemd (WorkingDirectory=/var/lib/sluice)."""
    port = servers.free_port()
    proc = subprocess.Popen([servers.sluiced_path(), str(CONF), "--port", str(port)],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + servers.START_TIMEOUT_S
        while not servers._ping_once(port):
            assert proc.poll() is None, f"sluiced exited: {proc.stderr.read().decode()}"
            assert time.monotonic() < deadline, "sluiced did not answer PING"
            time.sleep(servers.POLL_S)
        assert (tmp_path / "sluice-data").is_dir()
    finally:
        proc.terminate()
        code = proc.wait(timeout=servers.STOP_TIMEOUT_S)
    assert code == 0


def test_systemd_unit_is_hardened():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read_string(UNIT.read_text())
    service = unit["Service"]
    assert service["ExecStart"] == "/usr/bin/sluiced /etc/sluice/sluice.conf"
    expected = {"ProtectSystem": "strict", "NoNewPrivileges": "yes", "DynamicUser": "yes",
                "StateDirectory": "sluice", "WorkingDirectory": "/var/lib/sluice",
                "PrivateTmp": "yes", "ProtectHome": "yes", "CapabilityBoundingSet": ""}
    for key, value in expected.items():
        assert service.get(key) == value, f"{key}={service.get(key)!r}"
    assert "HUP" in service["ExecReload"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_systemd_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # verify checks that ExecStart exists: point it at the binary under test.
    unit = tmp_path / "sluiced.service"
    unit.write_text(UNIT.read_text().replace("/usr/bin/sluiced", servers.sluiced_path()))
    proc = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and "sluiced.service" not in proc.stderr, proc.stderr


def test_deb_package_contents(tmp_path):
    if servers.sluiced_is_sanitized():
        # Packing the sanitized binary and its debug information takes half a minute; CI's
        # release pass packs the build users install.
        pytest.skip("the package is checked with the release build")
    cpack, dpkg_deb = shutil.which("cpack"), shutil.which("dpkg-deb")
    if cpack is None or dpkg_deb is None:
        pytest.skip("cpack (cmake) and dpkg-deb are needed to build the .deb")
    build_dir = Path(servers.sluiced_path()).resolve().parent
    if not (build_dir / "CPackConfig.cmake").is_file():
        pytest.skip(f"{build_dir} is not a CMake build directory (no CPackConfig.cmake)")
    proc = subprocess.run([cpack, "-G", "DEB", "--config", str(build_dir / "CPackConfig.cmake"),
                           "-B", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    debs = list(tmp_path.glob("sluice_*.deb"))
    assert len(debs) == 1, os.listdir(tmp_path)
    listing = subprocess.run([dpkg_deb, "-c", str(debs[0])], capture_output=True, text=True,
                             check=True).stdout
    files = {line.split()[-1] for line in listing.splitlines()}
    for path in ("./usr/bin/sluiced", "./etc/sluice/sluice.conf",
                 "./lib/systemd/system/sluiced.service", "./usr/share/doc/sluice/README.md"):
        assert path in files, f"{path} not in the package:\n{listing}"
    assert re.search(r"^-rwxr-xr-x .* \./usr/bin/sluiced$", listing, re.M), listing
    info = subprocess.run([dpkg_deb, "-I", str(debs[0])], capture_output=True, text=True,
                          check=True).stdout
    assert re.search(r"^ Package: sluice$", info, re.M), info
    conffiles = subprocess.run([dpkg_deb, "-I", str(debs[0]), "conffiles"], capture_output=True,
                               text=True, check=True).stdout
    assert conffiles.split() == ["/etc/sluice/sluice.conf"]
