"""gunicorn's settings for companion (``gunicorn -c deploy/gunicorn.conf.py``), read by the
systemd unit (deploy/companion.service). Every value can be changed in the environment file
(deploy/companion.env.example) without editing this one.

- ``COMPANION_BIND`` (default ``127.0.0.1:8000``): where the proxy reaches this server.
- ``WEB_CONCURRENCY`` (default 2 per core): sync worker processes.
- ``timeout`` 180 s: the longest request the app allows (restoring the largest backup an import
  takes); the proxy's read timeout is longer (deploy/nginx/companion.conf: 190 s).
- Graceful: ``systemctl reload`` (HUP) starts new workers with the new code and lets the old
  ones finish what they serve; ``systemctl stop`` (TERM) lets requests in flight finish for up
  to ``graceful_timeout`` seconds.
- No access log from gunicorn: the app writes one line per request itself, with every link
  token masked (companion.web.logs); gunicorn's own lines (start, stop, a worker killed) go to
  standard error, so to the journal.
- ``/metrics`` sums every worker's counts: ``PROMETHEUS_MULTIPROC_DIR`` (default
  ``companion-metrics-<port>`` in :data:`worker_tmp_dir`, the port the server listens on,
  ``--bind`` included; under the unit the runtime folder ``/run/companion``) is emptied at
  start, a dead worker's files are merged away, and the default folder is removed when the
  server stops (:func:`on_exit`).
- The workers' heartbeat files (gunicorn's ``worker_tmp_dir``) are in memory
  (:func:`in_memory`: the unit's runtime folder, a tmpfs, else ``/dev/shm``): a worker marks
  its file (``os.fchmod``) before every request it takes, and on a disk-backed folder — the
  system's temporary folder, gunicorn's default, on the disk even with the unit's
  ``PrivateTmp`` — that mark waits for the file system's journal whenever the disk is busy
  (gunicorn's own note on the setting: "may block a worker for arbitrary time"), the request
  waiting with it; the metrics' files, written at every request, likewise.
- Each worker, once it has loaded the app, moves what loading made (some 200,000 objects: the
  modules, the templates' environment, the database's engine) out of the garbage collector's
  reach (``gc.freeze``): a full collection, when one comes, then walks only what the worker made
  since — about 2 ms instead of about 100 ms, a pause the request in hand would wait out
  (bench/RESULTS.md, issue 36, session 10). The app is still loaded by each worker, not by the
  master (no ``preload_app``), so that a reload (HUP) starts workers with the new code.
- The collector's young collections run between requests, not inside them: after each answer
  (``post_request``: the whole answer is sent by then) a worker collects once Python's own
  threshold is passed (700 objects more made than freed), the generation Python would take
  then; inside a request a collection starts only past :data:`IN_REQUEST` (a background thread,
  a job that runs long, is still collected). With Python's thresholds alone, four saves in ten
  ran a collection (0.1–2 ms) before their answer (bench/RESULTS.md, issue 36, session 12).
- Each worker, once started, reads its settings as plain attributes (:func:`settled`): gunicorn
  looks each one up by name on every read (some thirty a request: 20 µs of a 304's 190 µs), and
  a worker's settings never change (a reload starts new workers). Its answers' ``Date`` is made
  once a second (:func:`dated_once_a_second`: the same text, 5 µs a request less).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import re
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

bind = os.environ.get("COMPANION_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count()))
worker_class = "sync"
timeout = 180
graceful_timeout = 30
keepalive = 5
wsgi_app = "companion:create_app()"
control_socket_disable = True
accesslog = None
errorlog = "-"



def in_memory(environ: Mapping[str, str] = os.environ) -> str | None:
    """A folder in memory for what the workers write at every request: the runtime folder the
    unit makes (``RUNTIME_DIRECTORY``, a tmpfs under ``/run``), else the user's
    (``XDG_RUNTIME_DIR``), else ``/dev/shm``, the first that is a folder; None where there is
    none (gunicorn's default then, the system's temporary folder)."""
    for folder in (environ.get("RUNTIME_DIRECTORY", ""), environ.get("XDG_RUNTIME_DIR", ""),
                   "/dev/shm"):
        folder = folder.split(":")[0]  # (systemd lists several runtime folders with colons)
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return None


worker_tmp_dir = in_memory()


def counts_folder(address: str, base: str | None) -> str:
    """The folder of the workers' counts of a server listening at ``address`` (``host:port``,
    ``unix:path``), in ``base`` (else the system's temporary folder): one per server, named
    by its port (or its socket's path), so two servers on one machine never mix their counts."""
    where = address[len("unix:"):] if address.startswith("unix:") else address.rsplit(":", 1)[-1]
    name = re.sub(r"[^0-9A-Za-z.-]+", "_", where).strip("_.") or "server"
    return str(Path(base or "/tmp") / f"companion-metrics-{name}")


OWN_METRICS_FOLDER = "PROMETHEUS_MULTIPROC_DIR" not in os.environ
"""Whether no operator named the folder of the workers' counts: it is then named here, after
where the server listens (:func:`counts_folder`, :func:`on_starting`), and goes with the
server when it stops (:func:`on_exit`)."""
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", counts_folder(bind, worker_tmp_dir))


def on_starting(server):  # noqa: ANN001
    """A fresh folder for the workers' counts (the last run's are not this run's), named after
    where the server listens as started (``--bind`` included) unless the operator named one."""
    if OWN_METRICS_FOLDER:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = counts_folder(server.cfg.bind[0], worker_tmp_dir)
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700, parents=True)


def on_exit(server):  # noqa: ANN001
    """The server stops: the folder of its workers' counts named here goes with it (in memory:
    outside a systemd unit ``/dev/shm``, which nothing else empties before the machine
    restarts — one folder was left per port a server was ever started on). Left: a folder the
    operator named, and wherever a binary upgrade (``USR2``) is or was under way — the old
    master and the new one then share the folder, and the one stopping cannot tell whether the
    other serves on: gunicorn's own rule for the Unix socket it would unlink."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if (folder == counts_folder(server.cfg.bind[0], worker_tmp_dir)
            and getattr(server, "reexec_pid", 0) == getattr(server, "master_pid", 0) == 0):
        shutil.rmtree(folder, ignore_errors=True)


YOUNG = 700
"""Python's own threshold for a young collection: objects made and not freed since the last."""
IN_REQUEST = 10_000
"""The threshold inside a request (a request makes far fewer and frees them before it ends)."""


def post_worker_init(worker):  # noqa: ANN001
    """The app is loaded in this worker: what loading made is frozen (see above), after one
    collection so that no garbage of the loading is kept for good; from now on the young
    collections wait for the end of a request (:func:`post_request`). Its settings are read as
    plain attributes from now on (:func:`settled`), and its answers dated once a second."""
    settled(worker.cfg)
    dated_once_a_second()
    gc.collect()
    gc.freeze()
    gc.set_threshold(IN_REQUEST, *gc.get_threshold()[1:])


def settled(cfg):  # noqa: ANN001, ANN201
    """``cfg`` (gunicorn's ``Config``) with each setting's value kept on the object itself, where
    Python finds an attribute first: gunicorn's ``Config.__getattr__`` looks a setting up by name
    in its table on every read otherwise (the parser reads some thirty a request). The values
    are the ones gunicorn would give (``settings[name].get()``); a name the class itself
    defines (a property, a method) is left to it. For a worker, whose settings are set once in
    the master and never again (``cfg.set`` is the master's: a reload starts new workers). A
    gunicorn whose settings are not read so (no ``settings`` table of objects with ``get``) is
    left as it is: the worker starts, its settings looked up as gunicorn looks them up."""
    try:
        values = {name: setting.get() for name, setting in cfg.settings.items()
                  if not hasattr(type(cfg), name)}
    except (AttributeError, TypeError):
        return cfg
    vars(cfg).update(values)
    return cfg


def dated_once_a_second() -> None:
    """gunicorn's ``Date`` header (``gunicorn.util.http_date()``, ``email.utils.formatdate``: 5 µs
    a request) made once a second: a second's text is the same for every answer in it
    (``formatdate`` writes whole seconds). A date asked for another time is gunicorn's own. A
    gunicorn without ``util.http_date`` is left as it is."""
    from gunicorn import util

    found = getattr(util, "http_date", None)
    if not callable(found):
        return
    made = getattr(found, "made_by", None)
    own = made if made is not None else found
    last: list[object] = [None, ""]

    def http_date(timestamp=None):  # noqa: ANN001, ANN202
        if timestamp is not None:
            return own(timestamp)
        now = int(time.time())
        if last[0] != now:
            last[:] = [now, own(now)]
        return last[1]

    http_date.made_by = own  # type: ignore[attr-defined]
    util.http_date = http_date


def post_request(worker, req, environ, resp):  # noqa: ANN001, ARG001
    """The answer is sent: a collection now, where Python would have made one during the
    request, of the generation it would have taken (the older ones' thresholds as Python's)."""
    young, middle, old = gc.get_count()
    if young > YOUNG:
        _, middle_most, old_most = gc.get_threshold()
        gc.collect(2 if old > old_most else 1 if middle > middle_most else 0)


def child_exit(server, worker):  # noqa: ANN001, ARG001
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
