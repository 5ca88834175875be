"""The shipped systemd units (deploy/*.service, deploy/*.timer) and environment file, as the
hosting guide installs them.

- ``systemd-analyze verify`` finds nothing to say about any unit (the paths moved from
  /srv/companion to this checkout, so that the programs they start exist), when the machine has
  it; the test skips otherwise.
- Each unit starts what docs/hosting.md says it starts (its ``ExecStart=`` line is in the guide).
- ``companion@.service`` listens on its instance's port even when the environment file names
  another ``COMPANION_BIND`` (systemd lets the file win over the unit's ``Environment=``).
- The environment file reads the same in systemd and in the guide's ``sh -c 'set -a; .
  companion.env'`` (a value with a space once ran ``::1`` as a command).
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import stop_server
from .test_proxy import _free_port

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
UNITS = sorted([*DEPLOY.glob("*.service"), *DEPLOY.glob("*.timer")])
GUIDE = (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8")
GUIDE_WORDS = " ".join(GUIDE.split())  # (a line of the guide may wrap inside a command)
ENV_EXAMPLE = DEPLOY / "companion.env.example"
VENV_BIN = Path(sys.executable).parent
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")


def installed(unit: Path, folder: Path, instance: str = "8001") -> Path:
    """``unit`` as this checkout would install it: /srv/companion is this checkout (its
    virtualenv the one running the tests), the environment file the shipped example; a template
    is written as one instance of it."""
    text = unit.read_text(encoding="utf-8")
    text = (text.replace("/srv/companion/.venv/bin/", f"{VENV_BIN}/")
            .replace("/srv/companion", str(ROOT))
            .replace("/etc/companion/companion.env", str(ENV_EXAMPLE)))
    target = folder / unit.name.replace("@.", f"@{instance}.")
    target.write_text(text, encoding="utf-8")
    return target


def exec_start(unit: Path) -> str:
    found = re.findall(r"^ExecStart=(.+)$", unit.read_text(encoding="utf-8"), re.M)
    assert len(found) == 1, unit.name
    return found[0]


def test_there_are_the_units_the_guide_installs():
    names = {unit.name for unit in UNITS}
    assert {"companion.service", "companion@.service", "companion-purge.service",
            "companion-purge.timer"} <= names
    for name in names:
        assert f"deploy/{name}" in GUIDE, f"docs/hosting.md never names deploy/{name}"


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="no systemd-analyze on this machine")
def test_systemd_finds_nothing_to_say_about_the_units(tmp_path):
    units = [installed(unit, tmp_path) for unit in UNITS]
    verified = subprocess.run([str(SYSTEMD_ANALYZE), "verify", *[u.name for u in units]],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "SYSTEMD_LOG_LEVEL": "notice"})
    about_ours = [line for line in (verified.stdout + verified.stderr).splitlines()
                  if any(u.name in line for u in units)]
    assert verified.returncode == 0 and about_ours == [], verified.stdout + verified.stderr


@pytest.mark.parametrize("unit", [u for u in UNITS if u.suffix == ".service"],
                         ids=lambda u: u.name)
def test_each_unit_starts_what_the_guide_says(unit):
    command = exec_start(unit)
    assert f"ExecStart={command}" in GUIDE_WORDS, (
        f"docs/hosting.md does not give {unit.name}'s ExecStart: {command}")


def test_the_template_listens_on_its_instances_port_whatever_the_environment_says(tmp_path):
    """companion@PORT.service's ExecStart, run with the environment file's COMPANION_BIND set
    to another port (as systemd would run it: the file's value wins over Environment=)."""
    port, elsewhere = _free_port(), _free_port()
    command = exec_start(installed(DEPLOY / "companion@.service", tmp_path, str(port)))
    command = command.replace("%i", str(port))
    environment = {**os.environ, "COMPANION_BIND": f"127.0.0.1:{elsewhere}",
                   "COMPANION_INSTANCE": str(tmp_path / "instance"), "WEB_CONCURRENCY": "1",
                   "RUNTIME_DIRECTORY": str(tmp_path / "run"), "COMPANION_SECRET_KEY": "t"}
    for name in ("DATABASE_URL", "RATELIMIT_STORAGE_URI", "CACHE_REDIS_URL"):
        environment.pop(name, None)
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(command.split(), env=environment, cwd=ROOT, stdout=output,
                                  stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        status = None
        while status is None and time.monotonic() < deadline and server.poll() is None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/healthz")
                status = connection.getresponse().status
            except OSError:
                time.sleep(0.2)
            finally:
                connection.close()
        assert status == 200, log.read_text(errors="replace")[-3000:]
        assert f"Listening at: http://127.0.0.1:{port}" in log.read_text(errors="replace")
        assert f"127.0.0.1:{elsewhere}" not in log.read_text(errors="replace")
    finally:
        stop_server(server)


def _settings(text: str) -> dict[str, str]:
    """The example's settings as systemd's EnvironmentFile= reads these simple lines."""
    return dict(line.split("=", 1) for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("#"))


def test_the_environment_file_reads_the_same_in_sh_as_in_systemd():
    expected = _settings(ENV_EXAMPLE.read_text(encoding="utf-8"))
    assert {"DATABASE_URL", "COMPANION_SECRET_KEY", "TRUSTED_PROXIES", "METRICS_ALLOW"} <= set(
        expected)
    sourced = subprocess.run(
        ["sh", "-c", 'set -a; . "$1"; env -0', "sh", str(ENV_EXAMPLE)],
        capture_output=True, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=30)
    assert sourced.returncode == 0 and sourced.stderr == b"", sourced.stderr
    seen = dict(item.split("=", 1) for item in sourced.stdout.decode().split("\0") if item)
    assert {name: seen.get(name) for name in expected} == expected


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="no systemd-analyze on this machine")
def test_the_guides_upgrade_drop_in_moves_a_server_to_the_new_checkout(tmp_path):
    """The guide's rolling upgrade writes a drop-in with printf: run that printf, and systemd
    reads the result over the template, starting the new checkout's gunicorn (this checkout
    here, as the old one is) on the instance's port."""
    found = re.search(r"^\s*(printf '[^']+') > /etc/systemd/system/companion@8001\.service\.d/"
                      r"release\.conf$", GUIDE, re.M)
    assert found is not None, "docs/hosting.md no longer gives the upgrade's drop-in"
    written = subprocess.run(["sh", "-c", found[1]], capture_output=True, text=True, timeout=30)
    assert written.returncode == 0, written.stderr
    drop_in = written.stdout
    assert "ExecStart=\nExecStart=/srv/companion-next/.venv/bin/gunicorn -c /srv/companion-next" \
           "/deploy/gunicorn.conf.py --bind 127.0.0.1:%i\n" in drop_in
    unit = installed(DEPLOY / "companion@.service", tmp_path)
    folder = tmp_path / f"{unit.name}.d"
    folder.mkdir()

    def verify(text: str) -> subprocess.CompletedProcess:
        (folder / "release.conf").write_text(text, encoding="utf-8")
        return subprocess.run([str(SYSTEMD_ANALYZE), "verify", unit.name], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "SYSTEMD_LOG_LEVEL": "notice"})

    verified = verify(drop_in.replace("/srv/companion-next/.venv/bin/", f"{VENV_BIN}/")
                      .replace("/srv/companion-next", str(ROOT))
                      .replace("/srv/companion", str(ROOT)))
    assert verified.returncode == 0 and verified.stderr == "", verified.stderr
    # (and systemd did read it: the same drop-in left naming /srv/companion-next fails)
    assert verify(drop_in).returncode != 0
