"""``ntkviz export <view> ... --out FILE.{png,svg,csv,...}``: headless figures.

Each view registers in ``ntkviz/cli/_export_<view>.py`` via ``register(sub)``;
PNG/SVG go through the same panel classes as the GUI, rendered offscreen.
"""
from __future__ import annotations

import importlib

from ntkviz.cli import OneLineParser

EXPORT_VIEWS = ("kernel", "spectrum", "deform", "stability", "training")


def register(sub) -> None:
    p = sub.add_parser("export", help="render a view headless to PNG/SVG/CSV")
    views = p.add_subparsers(dest="view", metavar="VIEW", parser_class=OneLineParser)
    for name in EXPORT_VIEWS:
        try:
            mod = importlib.import_module(f"ntkviz.cli._export_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"ntkviz.cli._export_{name}":
                raise
            continue
        mod.register(views)
