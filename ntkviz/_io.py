"""Safe file output: every file ntkviz writes goes through :func:`atomic_write`.

The data are written to a temporary file in the target's folder and renamed
over the target only once complete (``os.replace`` is atomic on POSIX), so a
failed write (disk full, ``ulimit -f``, a crash, Ctrl+C) leaves the previous
file untouched and no fragment behind. An ``OSError`` about the temporary file
is re-raised naming the target (``k.csv: File too large``).
"""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

__all__ = ["atomic_write", "open_atomic", "write_text_atomic", "write_bytes_atomic", "write_csv"]


def atomic_write(path, writer: Callable[[Path], object]) -> Path:
    """Call ``writer(tmp)`` to write a temporary file, then rename it to ``path``.

    The temporary file sits in the same folder and keeps ``path``'s suffix, so
    writers that pick a format from the suffix (``QImage.save``, Pillow,
    ``numpy.save``) behave as for ``path``. On any exception the temporary file
    is removed and the exception propagates; ``path`` is never truncated.
    An existing target keeps its permission bits.
    """
    path = Path(path)
    tmp = _temporary(path)
    try:
        writer(tmp)
        _move_into_place(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _about_target(exc, tmp, path) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _about_target(exc: OSError, tmp: Path, path: Path) -> OSError:
    """``exc`` re-addressed to the user's ``path`` when it names the temporary file (or
    no file): messages then say ``k.csv: File too large``, not a hidden ``.k.csv.*.part``."""
    if exc.errno is None or (exc.filename is not None and str(exc.filename) != str(tmp)):
        return exc  # a message of its own, or about another file
    return OSError(exc.errno, exc.strerror or str(exc), str(path))


def _temporary(path: Path) -> Path:
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".part{path.suffix}",
                                    dir=path.parent)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
    os.close(fd)
    return Path(name)


def _move_into_place(tmp: Path, path: Path) -> None:
    try:
        mode = path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)
    os.replace(tmp, path)


@contextmanager
def open_atomic(path, mode: str = "w", **kwargs) -> Iterator:
    """``open()`` for writing, made atomic: the target appears only when the block
    ends without an exception (``mode`` is ``"w"`` or ``"wb"``)."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    path = Path(path)
    tmp = _temporary(path)
    try:
        with open(tmp, mode, **kwargs) as fh:
            yield fh
        _move_into_place(tmp, path)
    except OSError as exc:
        raise _about_target(exc, tmp, path) from exc
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically."""
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding=encoding))


def write_bytes_atomic(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return atomic_write(path, lambda tmp: tmp.write_bytes(data))


def write_csv(path, header: Sequence[str], rows: Iterable[Sequence]) -> Path:
    """Write a CSV table atomically: ``header`` then one line per row.

    Lines end with ``\n`` (LF, as every text file ntkviz writes; the ``csv`` module's
    default is CRLF). Floats (Python or NumPy) are written with ``repr``, the shortest
    text that reads back as the same float64 (``inf``, ``-inf`` and ``nan`` as such);
    other values with ``str``. ``rows`` may be a generator: it is consumed while the
    temporary file is written, and an exception raised by it leaves ``path`` as it was.
    """
    import csv

    with open_atomic(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(list(header))
        for row in rows:
            writer.writerow([repr(float(v)) if isinstance(v, float) else v for v in row])
    return Path(path)
