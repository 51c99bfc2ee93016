"""cdna4-tune's files: bounded JSON reads, atomic writes, the output directory's lock and tolerant JSON-lines reads."""
import json
import math
import os
import socket
import stat
import sys

MAX_JSON_BYTES = 16 << 20  # a space or a schedule file; the schedule parser's limit too


class FileProblem(Exception):
    """A file that cannot be read or written as asked, with the reason."""


def _finite(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(text):
    """JSON text to Python values: NaN, Infinity and numbers out of the float range are refused."""
    return json.loads(text, parse_float=_finite, parse_constant=_no_constant)


def read_bytes(path, limit=MAX_JSON_BYTES):
    """A regular file's bytes, at most `limit` (FIFOs, devices and directories are refused, never read)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise FileProblem(f"{path}: {e.strerror}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"{path}: not a regular file")
        if info.st_size > limit:
            raise FileProblem(f"{path}: {info.st_size} bytes, more than the {limit} a file may hold here")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:  # grew while read
                raise FileProblem(f"{path}: more than the {limit} bytes a file may hold here")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise FileProblem(f"{path}: {e.strerror}")
    finally:
        os.close(fd)


def read_json(path, limit=MAX_JSON_BYTES):
    data = read_bytes(path, limit)
    try:
        return parse_json(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise FileProblem(f"{path}: not UTF-8 text (byte {e.start})")
    except json.JSONDecodeError as e:
        raise FileProblem(f"{path}: not JSON: {e}")
    except (ValueError, RecursionError) as e:
        raise FileProblem(f"{path}: {e}")


def write_atomic(path, text):
    """Writes a temporary file beside `path`, syncs it and renames it over `path`: readers see the old file or the
    new one, never part of one."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise FileProblem(f"{path}: cannot write: {e.strerror or e}")


def make_directory(path, what):
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise FileProblem(f"{what} {path}: exists and is not a directory")
    except OSError as e:
        raise FileProblem(f"{what} {path}: {e.strerror}")
    if not os.path.isdir(path):
        raise FileProblem(f"{what} {path}: not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise FileProblem(f"{what} {path}: not writable")


def _started(pid):
    """When the process started (clock ticks after boot, /proc/PID/stat), or None: with the pid, it names one
    process, so a pid reused by another process is not taken for the lock's owner."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _alive(pid, started):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return started is None or _started(pid) in (None, started)


class DirectoryLock:
    """One search at a time per output directory. The lock file holds "pid host start-time" of its owner and appears
    whole (written aside, then linked); a lock whose owner no longer runs on this host (killed) is taken over."""
    NAME = "tune.lock"

    def __init__(self, directory):
        self.directory = directory
        self.path = os.path.join(directory, self.NAME)
        self.held = False

    @staticmethod
    def owner(path):
        """(pid, host, start time or None), or Nones for a file that is no lock."""
        try:
            fields = read_bytes(path, 4096).decode("utf-8", "replace").split()
            return int(fields[0]), fields[1], (fields[2] if len(fields) > 2 and fields[2] != "-" else None)
        except (FileProblem, ValueError, IndexError):
            return None, None, None

    def acquire(self):
        here = socket.gethostname()
        mine = f"{self.path}.{os.getpid()}"
        for _ in range(10):
            try:
                with open(mine, "w") as f:
                    f.write(f"{os.getpid()} {here} {_started(os.getpid()) or '-'}\n")
                    f.flush()
                    os.fsync(f.fileno())
                try:
                    os.link(mine, self.path)  # atomic, and fails when the lock exists
                    self.held = True
                    return self
                except FileExistsError:
                    pass
            except OSError as e:
                raise FileProblem(f"{self.path}: {e.strerror}")
            finally:
                try:
                    os.unlink(mine)
                except OSError:
                    pass
            if not os.path.lexists(self.path):  # released in the meantime
                continue
            if os.path.islink(self.path) or not os.path.isfile(self.path):
                raise FileProblem(f"{self.path}: not a lock file (a directory or a link); delete it")
            pid, host, started = self.owner(self.path)
            if pid is not None and host != here:
                raise FileProblem(f"{self.directory} is in use by cdna4-tune pid {pid} on {host}; if that run has "
                                  f"ended, delete {self.path}")
            if pid is not None and _alive(pid, started):
                raise FileProblem(f"{self.directory} is in use by another cdna4-tune (pid {pid}); wait for it to end "
                                  f"or stop it")
            self._remove_stale(pid, started)
        raise FileProblem(f"{self.path}: could not take the lock (other runs keep taking it)")

    def _remove_stale(self, pid, started):
        # Renamed aside first: of two runs finding the same stale lock, one removes it; a fresh lock taken in between
        # by a third run is put back.
        aside = f"{self.path}.{os.getpid()}.stale"
        try:
            os.rename(self.path, aside)
        except OSError:
            return
        now, _, now_started = self.owner(aside)
        if now is not None and (now, now_started) != (pid, started) and _alive(now, now_started):
            try:
                os.link(aside, self.path)
            except OSError:
                pass
        else:
            what = "unreadable" if pid is None else \
                f"pid {pid}, {'now another process' if _alive(pid, None) else 'no longer running'}"
            print(f"cdna4-tune: took over the stale lock of {self.directory} ({what})", file=sys.stderr)
        try:
            os.unlink(aside)
        except OSError as e:
            raise FileProblem(f"{self.path}: cannot be taken over ({e.strerror}); delete it")

    def release(self):
        if self.held and self.owner(self.path)[:1] == (os.getpid(),):
            try:
                os.unlink(self.path)
            except OSError:
                pass
        self.held = False

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def read_jsonl(path, check, stream=sys.stderr):
    """{id: record} from a JSON-lines results file. A last line cut by an interruption is dropped from the file (it
    is redone); any other line `check(record)` refuses (returns a reason) is skipped with a warning naming it."""
    out = {}
    if not os.path.lexists(path):
        return out
    if not os.path.isfile(path) or os.path.islink(path):
        raise FileProblem(f"{path}: not a regular file")
    try:
        with open(path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
                data = data[:data.rfind(b"\n") + 1]
    except OSError as e:
        raise FileProblem(f"{path}: {e.strerror}")
    for number, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            record = parse_json(raw.decode("utf-8"))
            reason = check(record) if isinstance(record, dict) else "not a JSON object"
        except UnicodeDecodeError:
            reason = "not UTF-8 text"
        except (ValueError, RecursionError) as e:
            reason = f"not JSON ({e})"
        if reason:
            print(f"cdna4-tune: {path} line {number}: {reason}; skipped (that candidate is redone)", file=stream)
            continue
        out[record["id"]] = record
    return out
