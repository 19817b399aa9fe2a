"""SIGHUP reopens the logfile, so logrotate can rename it: after the signal sluiced writes to
a new file at the configured path, and the renamed one gets nothing more."""

import signal

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
