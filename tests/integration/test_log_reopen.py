"""SIGHUP reopens the logfile, so logrotate can rename it: after the signal sluiced writes to
a new file at the configured path, and the renamed one gets nothing more."""

import signal
from pathlib import Path

import servers


def test_sighup_reopens_the_log_file(sluiced_factory, tmp_path):
    log = tmp_path / "sluiced.log"
    server = sluiced_factory(logfile=log, loglevel="verbose")
    servers.wait_for(lambda: "Ready to accept connections" in log.read_text(),
                     "the first log lines")
    rotated = tmp_path / "sluiced.log.1"
    log.rename(rotated)  # what logrotate does before its postrotate step
    server.proc.send_signal(signal.SIGHUP)
    servers.wait_for(log.exists, "a new log file after SIGHUP")
    servers.wait_for(lambda: "log file reopened" in log.read_text(),
                     "the reopen line in the new file")
    with server.client() as c:
        assert c.call("PING") == "PONG"  # still serving: SIGHUP is not a shutdown
    old_text = rotated.read_text()
    server.terminate()
    new_text = log.read_text()
    assert "ready to exit" in new_text  # later lines go to the new file...
    assert "ready to exit" not in old_text and rotated.read_text() == old_text  # ...only
    assert "Ready to accept connections" in old_text


def test_sighup_without_logfile_is_harmless(sluiced):
    sluiced.proc.send_signal(signal.SIGHUP)
    servers.wait_for(lambda: "Received SIGHUP" in sluiced.stderr_path.read_text(),
                     "the SIGHUP line")
    with sluiced.client() as c:
        assert c.call("PING") == "PONG"
    assert sluiced.alive()


def test_a_log_file_in_a_missing_directory_is_refused(tmp_path):
    """As Redis: a logfile sluiced cannot open is one line on stderr and exit code 1, and no
    directory is made on the way (a mistyped path is not created)."""
    missing = tmp_path / "no-such-dir"
    result = servers.run_sluiced_expect_exit(
        ["--port", servers.free_port(), "--bind", "127.0.0.1", "--dir", tmp_path / "data",
         "--logfile", missing / "sluiced.log"], cwd=tmp_path)
    lines = result.stderr.decode().strip().splitlines()
    assert result.returncode == 1, result
    assert len(lines) == 1 and "can't open the log file" in lines[0], lines
    assert "No such file or directory" in lines[0], lines
    assert not missing.exists()


def test_sighup_keeps_the_log_file_when_its_directory_went(sluiced_factory, tmp_path):
    """A log file that cannot be reopened (its directory removed) is kept, with a warning in
    it, and the directory is not made again."""
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "sluiced.log"
    server = sluiced_factory(logfile=log)
    servers.wait_for(lambda: "Ready to accept connections" in log.read_text(),
                     "the first log lines")
    log.unlink()
    logs.rmdir()
    server.proc.send_signal(signal.SIGHUP)
    fds = Path(f"/proc/{server.proc.pid}/fd")

    def old_log_says(text):  # the removed file, still open in the server
        return any(str(fd.readlink()).endswith("sluiced.log (deleted)") and text in fd.read_text()
                   for fd in fds.iterdir() if fd.is_symlink())

    servers.wait_for(lambda: old_log_says("still using the old one"), "the SIGHUP warning")
    assert not logs.exists()
    with server.client() as c:
        assert c.call("PING") == "PONG"
