"""Session files: every panel's parameters and the current tab, as JSON.

Format (``session_format`` 1)::

    {"app": "ntkviz", "version": "0.1.0", "session_format": 1,
     "current": "<panel key>", "panels": {"<panel key>": {<model fields>}}}

A session is validated whole before anything is applied: the top-level keys and
their types, every panel key against :data:`ntkviz.panels.PANELS` and every panel's
parameters through its model (``Model.parse``). The first problem is refused with one
line naming the field (``panels.kernel.depth must be in [2, 50], got 999``), so a bad
file never changes anything. A panel's earlier name (``deform``) is read as its key
(``deformation``). No window is needed: the command line can check ``ntkviz gui
--session FILE`` before a window exists; nothing here imports Qt.

Text form (File → Copy session as text, ``ntkviz gui --session-text``): the same JSON,
compact, compressed with zlib and written in base64url (letters, digits, ``-`` and ``_``:
safe in a URL, a chat message or a shell argument) behind the prefix ``ntkviz<format>.``
(``ntkviz1.eNqrVkpMT…``). :func:`read_session_text` reads it back through the same
validation, and refuses a damaged or foreign string in one line naming what is wrong.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from ntkviz import panels
from ntkviz._io import write_text_atomic
from ntkviz._text import json_int

__all__ = ["SESSION_FORMAT", "Session", "validate_session", "read_session", "write_session",
           "MAX_SESSION_BYTES", "session_text", "read_session_text", "TEXT_PREFIX"]

SESSION_FORMAT = 1
#: larger files are refused unread (a session is a few kB)
MAX_SESSION_BYTES = 1_000_000
_TOP_KEYS = ("app", "version", "session_format", "current", "panels")


@dataclass(frozen=True)
class Session:
    """A validated session: ``states`` maps panel key -> parameters as JSON values
    (already accepted by the panel's model); ``current`` is a panel key or ``None``."""

    current: str | None
    states: dict

    def to_json(self, version: str) -> dict:
        return {"app": "ntkviz", "version": version, "session_format": SESSION_FORMAT,
                "current": self.current, "panels": self.states}


def _key(name, keys: list[str]):
    """The panel key of ``name`` (a key, or an earlier name of a panel among ``keys``)."""
    if name in keys:
        return name
    try:
        key = panels.spec(name).key
    except (ValueError, TypeError):
        return None
    return key if key in keys else None


def validate_session(data, keys: list[str] | None = None) -> Session:
    """Check a decoded session ``data`` against the panels ``keys`` (default: every
    panel). ``ValueError`` naming the first bad field."""
    keys = panels.keys() if keys is None else list(keys)
    if not isinstance(data, dict):
        raise ValueError(f"a session must be a JSON object, got {_kind(data)}")
    if data.get("app") != "ntkviz":
        raise ValueError(f"app must be \"ntkviz\", got {_kind(data.get('app'))}")
    for key in data:
        if key not in _TOP_KEYS:
            raise ValueError(f"unknown key {key!r} (known: {', '.join(_TOP_KEYS)})")
    fmt = data.get("session_format", SESSION_FORMAT)
    if isinstance(fmt, bool) or not isinstance(fmt, int) or not 1 <= fmt <= SESSION_FORMAT:
        raise ValueError(f"session_format must be an integer in [1, {SESSION_FORMAT}], "
                         f"got {_kind(fmt)}")
    version = data.get("version", "")
    if not isinstance(version, str):
        raise ValueError(f"version must be a string, got {_kind(version)}")
    current = data.get("current")
    if current is not None:
        if not isinstance(current, str) or _key(current, keys) is None:
            raise ValueError(f"current must be a panel name ({', '.join(keys)}), got "
                             f"{_kind(current)}")
        current = _key(current, keys)
    entries = data.get("panels")
    if not isinstance(entries, dict):
        raise ValueError(f"panels must be an object keyed by panel name, got {_kind(entries)}")
    states = {}
    for name, state in entries.items():
        key = _key(name, keys)
        if key is None:
            raise ValueError(f"panels: unknown panel {name!r} (known: {', '.join(keys)})")
        if key in states:
            raise ValueError(f"panels: panel {key!r} is given twice (as {name!r})")
        if not isinstance(state, dict):
            raise ValueError(f"panels.{name} must be an object of parameters, got {_kind(state)}")
        try:
            panels.model_class(key).parse(state)
        except ValueError as exc:
            raise ValueError(f"panels.{name}: {exc}") from None
        states[key] = dict(state)
    return Session(current, states)


def read_session(path, keys: list[str] | None = None) -> Session:
    """Read and validate the session file ``path``; ``ValueError`` ("<file>: <what is
    wrong>") for anything unreadable or invalid."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > MAX_SESSION_BYTES:
            raise ValueError(f"{path.name}: a session file must be at most "
                             f"{MAX_SESSION_BYTES:,} bytes, got {size:,}")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"{path.name}: cannot read the file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path.name}: not a text (UTF-8) file") from None
    return _validated(_parse_json(text, path.name), keys, path.name)


def _parse_json(text: str, where: str):
    """Decode session JSON; ``ValueError("<where>: …")`` for anything that is not JSON."""
    try:
        return json.loads(text, parse_int=json_int)  # a 5000-digit integer reaches its field's check
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    except RecursionError:
        raise ValueError(f"{where}: not a session (JSON nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise ValueError(f"{where}: not a session ({exc})") from None


def _validated(data, keys, where: str) -> Session:
    try:
        return validate_session(data, keys)
    except RecursionError:
        raise ValueError(f"{where}: not a session (nested too deeply)") from None
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


#: the text form's prefix, followed by the session format and a dot
TEXT_PREFIX = "ntkviz"
_TEXT = re.compile(rf"{TEXT_PREFIX}(\d{{1,4}})\.([A-Za-z0-9_-]*)=*")


def session_text(data: dict) -> str:
    """The session ``data`` (as :meth:`Session.to_json` makes it) as one URL-safe line:
    ``ntkviz<format>.`` then the base64url (unpadded) of the zlib-compressed compact JSON."""
    raw = json.dumps(data, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    packed = base64.urlsafe_b64encode(zlib.compress(raw.encode("utf-8"), 9)).decode("ascii")
    return f"{TEXT_PREFIX}{data.get('session_format', SESSION_FORMAT)}.{packed.rstrip('=')}"


def read_session_text(text: str, keys: list[str] | None = None,
                      where: str = "session text") -> Session:
    """Read and validate a session string of :func:`session_text` (spaces and line breaks
    in it are ignored: a string wrapped by a mail program still reads). ``ValueError``
    ("<where>: <what is wrong>") for a foreign, damaged or invalid string."""
    if not isinstance(text, str):
        raise ValueError(f"{where}: expected a string, got {_kind(text)}")
    compact = "".join(text.split())
    if len(compact) > 2 * MAX_SESSION_BYTES:
        raise ValueError(f"{where}: at most {2 * MAX_SESSION_BYTES:,} characters, got "
                         f"{len(compact):,}")
    found = _TEXT.fullmatch(compact)
    if not compact.startswith(TEXT_PREFIX) or found is None:
        start = compact[:12] + ("…" if len(compact) > 12 else "")
        raise ValueError(f"{where}: not an ntkviz session string (it must be "
                         f"{TEXT_PREFIX}{SESSION_FORMAT}. then letters, digits, - and _ only; "
                         f"got {start!r})")
    fmt = int(found.group(1))
    if not 1 <= fmt <= SESSION_FORMAT:
        raise ValueError(f"{where}: session format {fmt} is not one this ntkviz reads "
                         f"(1 to {SESSION_FORMAT}); a newer ntkviz wrote it")
    payload = found.group(2)
    try:
        packed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
        inflate = zlib.decompressobj()
        raw = inflate.decompress(packed, MAX_SESSION_BYTES + 1)
        if len(raw) > MAX_SESSION_BYTES or inflate.unconsumed_tail:
            raise ValueError(f"{where}: a session must be at most {MAX_SESSION_BYTES:,} bytes "
                             "of JSON once unpacked")
        if not inflate.eof:
            raise ValueError(f"{where}: cut short (the end of the string is missing)")
        if inflate.unused_data:
            raise ValueError(f"{where}: damaged (characters added after its end)")
        text_json = raw.decode("utf-8")
    except (binascii.Error, zlib.error):
        raise ValueError(f"{where}: damaged (a character was changed, added or lost: it does "
                         "not unpack)") from None
    except UnicodeDecodeError:
        raise ValueError(f"{where}: damaged (the unpacked text is not UTF-8)") from None
    data = _parse_json(text_json, where)
    if isinstance(data, dict) and data.get("session_format", fmt) != fmt:
        raise ValueError(f"{where}: damaged (its prefix says format {fmt}, its content "
                         f"{_kind(data.get('session_format'))})")
    return _validated(data, keys, where)


def write_session(path, session: Session, version: str) -> Path:
    """Write ``session`` as indented JSON, atomically."""
    return write_text_atomic(path, json.dumps(session.to_json(version), indent=2,
                                              sort_keys=True))


def _kind(value) -> str:
    if value is None:
        return "nothing"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 24 else text[:21] + '…'}"
