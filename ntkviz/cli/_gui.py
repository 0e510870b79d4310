"""``ntkviz gui``: start the desktop app (the default command).

A ``--session`` file is checked whole before any window opens
(:func:`ntkviz.gui.session.read_session`, the app's own check): an unreadable
file, a file that is not an ntkviz session, an unknown panel or any invalid
parameter is refused with one line naming it (exit code 2), so the app never
starts from a half-applied session.
"""
from __future__ import annotations

from ntkviz.cli import CliError


def register(sub) -> None:
    p = sub.add_parser("gui", help="start the desktop app (default)")
    p.add_argument("--session", metavar="FILE.json", help="open a saved session")
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="save a screenshot of the window once the plots are drawn, then quit")
    p.add_argument("--tab", metavar="NAME", help="panel to show first (kernel, spectrum, ...)")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.session:
        from ntkviz.gui.session import read_session

        try:
            read_session(args.session)
        except ValueError as exc:
            raise CliError(f"--session {exc}") from None
    from ntkviz.gui.app import main as gui_main

    return gui_main(session=args.session, screenshot=args.screenshot, tab=args.tab)
