"""Files a run reads and writes: atomic writes (an interrupted run never leaves a torn file) and bounded reads of
regular files only (a FIFO or a 95 MB file is refused at once). The lowest layer of ``verify``: it imports nothing of
the package, and the cache, the expectations, the reports and the figures all use it."""
from __future__ import annotations

import json
import os
import tempfile


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` atomically (an interrupted run never leaves a torn file, and no temporary file is
    left behind on any path out, Ctrl-C included). A symbolic link is followed (its target is replaced, the link
    stays) and an existing file keeps its permissions; a new one gets the umask's."""
    target = os.path.realpath(path) if os.path.islink(path) else path
    d = os.path.dirname(os.path.abspath(target)) or "."
    os.makedirs(d, exist_ok=True)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except OSError:
        mode = 0o666 & ~_umask()   # mkstemp's 0600 would make every new report private: the umask decides
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".part")   # a long name stays within NAME_MAX
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


#: the largest JSON or TOML file a run reads (``--resume``, ``--expect``, a cache entry): a report of every built-in
#: claim at the standard budget is under 1 MiB; a 95 MB file took 55 s and 1.7 GB to refuse
MAX_INPUT_BYTES = 32 * 2 ** 20


def read_input(path: str, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file ``path``, read without blocking on what is not one: a FIFO, a device or a
    directory is refused at once (``open`` of a FIFO waits for a writer forever), and so is a file larger than
    ``max_bytes``. Raises ``FileNotFoundError`` when it does not exist, ``ValueError`` (a short reason) or
    ``OSError`` otherwise."""
    import stat
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > max_bytes:
            raise ValueError(f"{st.st_size / 2 ** 20:.0f} MiB; files read by a run are at most {max_bytes >> 20} MiB")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:   # grew while being read
                raise ValueError(f"more than {max_bytes >> 20} MiB")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse_json(data: bytes):
    """JSON from ``data`` (UTF-8), with every way it can be unreadable — bad bytes, bad syntax, nesting deeper
    than the parser's recursion limit — as ``ValueError``."""
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 (byte {exc.start})") from None
