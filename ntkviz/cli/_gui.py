"""``ntkviz gui``: start the desktop app (the default command).

A ``--session`` file is checked before any window opens: an unreadable file, a
file that is not an ntkviz session, an unknown panel or any invalid parameter is
refused with one line naming it (exit code 2), so the app never starts from a
half-applied session.
"""
from __future__ import annotations

import json
from pathlib import Path

from ntkviz.cli import CliError


def register(sub) -> None:
    p = sub.add_parser("gui", help="start the desktop app (default)")
    p.add_argument("--session", metavar="FILE.json", help="open a saved session")
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="save a screenshot of the window once the plots are drawn, then quit")
    p.add_argument("--tab", metavar="NAME", help="panel to show first (kernel, spectrum, ...)")
    p.set_defaults(func=run)


def read_session(path) -> dict:
    """The JSON object of a session file; ``CliError`` naming the file and the problem."""
    p = Path(path)
    if p.is_dir():
        raise CliError(f"--session {str(p)!r} is a folder, not a session file")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"--session {str(p)!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"--session {str(p)!r}: cannot read it ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"--session {str(p)!r}: invalid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise CliError(f"--session {str(p)!r}: JSON nested too deeply") from None
    return data


def check_session(path) -> None:
    """Refuse a session the app would not apply in full: the envelope (``app``,
    ``session_format``, ``panels``, ``current``) and, for every panel whose state is
    its parameter model's, each parameter (the model's own strict parser)."""
    from ntkviz.gui.main_window import SESSION_FORMAT
    from ntkviz.gui.panels import keys, model_class, panel_class
    from ntkviz.gui.panels._base import QtPanel

    name = f"--session {str(Path(path))!r}"
    data = read_session(path)
    if not isinstance(data, dict) or data.get("app") != "ntkviz" or not isinstance(data.get("panels"), dict):
        raise CliError(f"{name}: not an ntkviz session (expected an object with \"app\": \"ntkviz\" "
                       f"and \"panels\")")
    fmt = data.get("session_format", SESSION_FORMAT)
    if isinstance(fmt, bool) or not isinstance(fmt, int) or not 1 <= fmt <= SESSION_FORMAT:
        raise CliError(f"{name}: session_format must be an integer in [1, {SESSION_FORMAT}], got {fmt!r}")
    known = keys()
    current = data.get("current")
    if current is not None and (not isinstance(current, str) or current not in known):
        raise CliError(f"{name}: current must be one of {', '.join(known)}, got {current!r}")
    for key, state in data["panels"].items():
        if key not in known:
            raise CliError(f"{name}: unknown panel {key!r} (known: {', '.join(known)})")
        if not isinstance(state, dict):
            raise CliError(f"{name}: panel {key!r} must be an object of parameters, "
                           f"got {type(state).__name__}")
        try:
            view = panel_class(key)
            model = model_class(key)
        except ImportError:
            continue  # a panel that cannot load is skipped by the app with a message
        if model is None or view.set_state is not QtPanel.set_state:
            continue  # the panel restores its own state (and refuses a bad one itself)
        try:
            model.parse(state)
        except (ValueError, TypeError, OverflowError) as exc:
            raise CliError(f"{name}: panel {key!r}: {exc}") from None


def run(args) -> int:
    if args.session:
        check_session(args.session)
    from ntkviz.gui.app import main as gui_main

    return gui_main(session=args.session, screenshot=args.screenshot, tab=args.tab)
