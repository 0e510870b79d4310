"""Headless command line: ``ntkviz <command> ...``.

Each command lives in its own module ``ntkviz/cli/_<command>.py`` (``-`` written ``_``) exposing
``register(subparsers)``, which adds its parser and sets ``func`` to a
``run(args) -> int``. Importing this package pulls in no Qt module; only the
``gui`` command and the PNG/SVG branch of ``export`` import Qt, lazily.

Exit codes: 0 success, 2 bad argument or unreadable input (one-line message on
stderr: the thing, what is wrong, the allowed range), 1 unexpected failure (one
line too; ``NTKVIZ_DEBUG=1`` shows the traceback), 130 interrupted.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

COMMANDS = ("gui", "kernel", "spectrum", "gram", "classify", "infimnist", "stability", "learn",
            "lazy-sweep", "gram-spectrum", "data-theory", "export")


class CliError(Exception):
    """A user error: printed as one line on stderr, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line and exit code 2.

    A value that starts with a minus sign and a digit -- ``--target -1:1``,
    ``--amplitudes -1,0.1``, ``--u -0.5,0`` -- is read as the option's value, as argparse
    does for a plain negative number (no option of ntkviz looks like one). Should a
    value still be taken for an option, the message says to write ``--option=VALUE``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse's test for "a negative number, not an option" (it reads only -1 and -.5)
        self._negative_number_matcher = _NEGATIVE_VALUE

    def error(self, message: str):  # noqa: D401 - argparse API
        if message.endswith("expected one argument"):
            message += " (a value that starts with '-' is written --option=VALUE, e.g. --target=-1:1)"
        self.exit(2, f"{self.prog}: error: {message}\n")


#: a minus sign, then a digit (or a point and a digit): a value such as -1, -.5, -1:1, -1,0.1
_NEGATIVE_VALUE = re.compile(r"^-\.?\d\S*$")


def build_parser() -> argparse.ArgumentParser:
    from ntkviz import __version__

    parser = OneLineParser(
        prog="ntkviz",
        description="Explore neural tangent kernels: kernel curves, Mercer spectra, "
        "CKN/NTK deformation stability and lazy training. "
        "Without a command the desktop app starts.",
    )
    parser.add_argument("--version", action="version", version=f"ntkviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    for name in COMMANDS:
        importlib.import_module(f"ntkviz.cli._{name.replace('-', '_')}").register(sub)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    if not argv:
        argv = ["gui"]
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (CliError, ValueError, OSError) as exc:
        prog = f"ntkviz {args.command}" if args.command else "ntkviz"
        text = exc
        if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
            text = f"{exc.filename}: {exc.strerror}"  # the file, then what is wrong
        print(f"{prog}: error: {text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ntkviz: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug, not bad input: one line, the traceback on request
        if os.environ.get("NTKVIZ_DEBUG"):
            raise
        prog = f"ntkviz {args.command}" if args.command else "ntkviz"
        print(f"{prog}: internal error: {type(exc).__name__}: {exc} (please report it; "
              "set NTKVIZ_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1
