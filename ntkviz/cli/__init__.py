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


#: the areas of ntkviz and their commands, with one line each for ``ntkviz --help``; a
#: command of :data:`COMMANDS` missing here is listed under "More" with its own help
AREAS = (
    ("The app", (
        ("gui", "start the desktop app (the default without a command)"),
        ("export", "a tab's figure: PNG, SVG, PDF (with its own command) or CSV"),
    )),
    ("Kernel curves and eigenvalue decay", (
        ("kernel", "a kernel curve κ(u): arc-cosine kernels, NTK, NNGP (CSV)"),
        ("spectrum", "Mercer eigenvalues μ_k on the sphere with error estimates (CSV)"),
    )),
    ("Deformations and stability", (
        ("stability", "CKN vs NTK distances against the deformation size (CSV)"),
        ("infimnist", "Infinite-MNIST digits from your data folder (.npz)"),
    )),
    ("Lazy training", (
        ("lazy-sweep", "lazy vs rich training over the output scale α and width m (CSV)"),
    )),
    ("Classification", (
        ("gram", "exact CKN / conv NTK Gram matrices: tiled, resumable, on Dask"),
        ("classify", "kernel ridge classification: CKN vs NTK vs pixels (CSV)"),
        ("gram-spectrum", "eigenvalues of a Gram matrix, the labels' alignment (CSV)"),
        ("data-theory", "predicted vs measured KRR test error on labelled data (CSV)"),
    )),
    ("Generalisation", (
        ("learn", "learning curves of kernel ridge regression on the sphere (CSV)"),
    )),
)


def _commands_text(sub) -> str:
    """The commands of ``ntkviz --help``, grouped by area, one line each."""
    helps = {a.dest: (a.help or "") for a in sub._choices_actions}  # each command's own help
    listed = {name for _, commands in AREAS for name, _ in commands}
    groups = [(title, [(n, text) for n, text in commands if n in COMMANDS])
              for title, commands in AREAS]
    more = [(n, helps.get(n, "").split(". ")[0]) for n in COMMANDS if n not in listed]
    if more:
        groups.append(("More", more))
    width = max(len(n) for _, commands in groups for n, _ in commands) + 2
    lines = ["commands (ntkviz COMMAND --help for its options):"]
    for title, commands in groups:
        if commands:
            lines.append(f"  {title}")
            lines += [f"    {n.ljust(width)}{text}" for n, text in commands]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    import textwrap

    from ntkviz import __version__, panels

    parser = OneLineParser(
        prog="ntkviz",
        usage="ntkviz [-h] [--version] [COMMAND [OPTIONS]]",
        description=textwrap.fill(
            "Explore neural tangent kernels, one tab each: "
            + ", ".join(s.title.lower() for s in panels.specs())
            + " — in the desktop app, and headless with the commands below. Without a "
              "command the desktop app starts.", 78),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ntkviz {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser,
                                help=argparse.SUPPRESS, prog="ntkviz")  # "ntkviz gui", not the usage
    for name in COMMANDS:
        importlib.import_module(f"ntkviz.cli._{name.replace('-', '_')}").register(sub)
    parser.epilog = _commands_text(sub)
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
