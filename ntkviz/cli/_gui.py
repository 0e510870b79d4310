"""``ntkviz gui``: start the desktop app (the default command).

A ``--session`` file is checked whole before any window opens
(:func:`ntkviz.gui.session.read_session`, the app's own check): an unreadable
file, a file that is not an ntkviz session, an unknown panel or any invalid
parameter is refused with one line naming it (exit code 2), so the app never
starts from a half-applied session. ``--session-text STRING`` (a string of File → Copy
session as text) is checked the same way (:func:`ntkviz.gui.session.read_session_text`).
``--tab`` must name a declared panel (or its earlier name).

``--screenshot FILE.png`` saves the window once the tab has drawn; its folder is checked
(a file is created there and removed) before the app starts. A tab that computes only
on demand (stability, classification) is started as its Start button would, with
the session's parameters, its progress on stderr; if the tab fails or stalls, no
file is written and the exit code is 1 (never an empty plot with exit code 0).
"""
from __future__ import annotations

from ntkviz.cli import CliError


def register(sub) -> None:
    p = sub.add_parser("gui", help="start the desktop app (default)")
    given = p.add_mutually_exclusive_group()
    given.add_argument("--session", metavar="FILE.json", help="open a saved session")
    given.add_argument("--session-text", metavar="STRING",
                       help="open a session given as text (File → Copy session as text: "
                            "ntkviz1.eNq…)")
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="save a screenshot of the window once the tab has drawn, then quit (a tab "
                        "that computes on demand is started; exit code 1 and no file if it fails)")
    from ntkviz import panels  # standard library only: the tab keys, in tab order

    p.add_argument("--tab", metavar="NAME", help="the tab shown first: " + ", ".join(
        f"{s.key} ({s.title})" for s in panels.specs()))
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz import panels
    from ntkviz.cli._common import progress_line

    if args.tab is not None:
        try:
            args.tab = panels.spec(args.tab).key
        except ValueError:
            raise CliError(f"--tab must be one of {', '.join(panels.keys())}; "
                           f"got {args.tab!r}") from None
    if args.screenshot:  # before the app starts (a tab may run its job first)
        from ntkviz.cli._common import output_path

        output_path(args.screenshot, (".png",), option="--screenshot")
    if args.session:
        from ntkviz.gui.session import read_session

        try:
            read_session(args.session)
        except ValueError as exc:
            raise CliError(f"--session {exc}") from None
    if args.session_text is not None:
        from ntkviz.gui.session import read_session_text

        try:
            read_session_text(args.session_text, where="--session-text")
        except ValueError as exc:
            raise CliError(str(exc)) from None
    from ntkviz.gui.app import main as gui_main

    def progress(fraction: float, final: bool) -> None:
        progress_line(f"{args.tab or 'screenshot'} job", fraction, final)

    return gui_main(session=args.session, screenshot=args.screenshot, tab=args.tab,
                    progress=progress, session_text=args.session_text)
