"""Where cdna4-tune's work runs: in this process, in local worker processes that end with it, or on a Dask cluster."""
import concurrent.futures
import ctypes
import os
import re
import signal
import socket
import sys

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class SchedulerProblem(Exception):
    """A Dask scheduler address that cannot be used, with the reason."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stop as for Ctrl-C (what finished is kept)."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stop_on_signals():
    """SIGTERM and SIGHUP raise Terminated in the main thread, so that the workers are stopped on the way out."""
    def raise_terminated(signum, frame):
        raise Terminated(signum)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, raise_terminated)


def max_workers():
    return 4 * (os.cpu_count() or 1)


def _worker_start(parent):
    """In each local worker: its own process group (the terminal's Ctrl-C reaches only the parent, which stops the
    workers), the default action for SIGTERM, and death with the parent even when the parent is killed (-9)."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _kill_workers(pool):
    for pid in list(getattr(pool, "_processes", None) or {}):
        try:
            os.killpg(pid, signal.SIGKILL)  # the worker's group: anything it started goes too
        except OSError:
            try:
                os.kill(pid, signal.SIGKILL)  # not yet in its own group
            except OSError:
                pass


def _run_local(fn, tasks, workers, on_result):
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=_worker_start,
                                                  initargs=(os.getpid(),))
    finished = False
    try:
        futures = [pool.submit(fn, t) for t in tasks]
        for future in concurrent.futures.as_completed(futures):
            on_result(future.result())
        finished = True
    finally:
        if not finished:  # interrupted or failed: the workers stop now, their unfinished candidates are redone
            _kill_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


SCHEDULER_ADDRESS = re.compile(r"^(?:(tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):([0-9]{1,5})$")


def parse_scheduler(address):
    """'tcp://HOST:PORT' (or HOST:PORT) -> (address for Dask, host, port)."""
    m = SCHEDULER_ADDRESS.match(address)
    if not m or not 1 <= int(m.group(3)) <= 65535:
        raise SchedulerProblem(f"--scheduler '{address}': expected tcp://HOST:PORT (a Dask scheduler)")
    scheme, host, port = m.group(1) or "tcp", m.group(2), int(m.group(3))
    return f"{scheme}://{host}:{port}", host.strip("[]"), port


def _connect(address, timeout):
    url, host, port = parse_scheduler(address)
    try:  # a plain TCP connection first: a closed port or an unknown host fails now, not after Dask's retries
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as e:
        raise SchedulerProblem(f"--scheduler {url}: cannot connect ({e.strerror or e})")
    from distributed import Client
    try:
        client = Client(url, timeout=timeout)
    except (OSError, TimeoutError) as e:
        raise SchedulerProblem(f"--scheduler {url}: no Dask scheduler answered within {timeout:g} s ({e})")
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError) as e:
        client.close()
        raise SchedulerProblem(f"--scheduler {url}: no worker joined the scheduler within {timeout:g} s "
                               f"(start some with: dask worker {url}) ({type(e).__name__})")
    return client


def _run_dask(fn, tasks, address, timeout, on_result):
    from distributed import as_completed
    with _connect(address, timeout) as client:
        futures = client.map(fn, tasks, pure=False)
        try:
            for future in as_completed(futures):
                on_result(future.result())
        finally:
            client.cancel(futures)


def run_all(fn, tasks, workers, scheduler, on_result, scheduler_timeout=60.0):
    """fn over tasks, on_result(result) in this process as each finishes."""
    if not tasks:
        return
    if scheduler:
        _run_dask(fn, tasks, scheduler, scheduler_timeout, on_result)
    elif workers == 1:
        for t in tasks:
            on_result(fn(t))
    else:
        _run_local(fn, tasks, workers, on_result)
