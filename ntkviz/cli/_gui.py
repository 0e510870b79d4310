"""``ntkviz gui``: start the desktop app (the default command)."""
from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("gui", help="start the desktop app (default)")
    p.add_argument("--session", metavar="FILE.json", help="open a saved session")
    p.add_argument("--screenshot", metavar="FILE.png",
                   help="save a screenshot of the window once the plots are drawn, then quit")
    p.add_argument("--tab", metavar="NAME", help="panel to show first (kernel, spectrum, ...)")
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz.gui.app import main as gui_main

    return gui_main(session=args.session, screenshot=args.screenshot, tab=args.tab)
