"""Entry point: ``ntkviz`` (or ``python -m ntkviz``).

With no sub-command, or ``gui``, the desktop app starts; every other
sub-command is headless (see ``ntkviz --help``).
"""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from ntkviz.cli import main as cli_main

    return cli_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
