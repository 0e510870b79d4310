"""``ntkviz export <view> ... --out FILE.{png,svg,csv,gif}``: headless figures.

Each view registers in ``ntkviz/cli/_export_<view>.py`` via ``register(sub)``
and, from its ``run(args)``, calls :func:`run_export` with the panel state its
options describe. :func:`run_export` is the one export path of the command line:

1. the state is validated by the panel's Qt-free model (``Model.parse``): a bad
   value is refused with a message naming it, before Qt is loaded;
2. ``.csv``: the table comes from the request's response (``csv_table(view)``),
   written by :func:`ntkviz._io.write_csv` — no Qt at all;
3. ``.png``/``.svg``/``.gif``: the panel class the app shows draws the figure
   offscreen (:func:`ntkviz.gui.headless.render_panel`) and the exporter
   registry of :mod:`ntkviz.gui.export` writes it, atomically.

The panel registry (``ntkviz/gui/panels/__init__.py``) is read by
:func:`registry` without importing :mod:`ntkviz.gui` (whose import loads Qt).
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from ntkviz import limits
from ntkviz.cli import OneLineParser

__all__ = ["register", "registry", "run_export", "validated_params", "EXPORT_VIEWS", "CSV_SUFFIX",
           "add_width_option", "check_width", "add_output_options", "check_suffix"]

#: the one format written without Qt; the others are listed by ntkviz.gui.export.WRITERS
CSV_SUFFIX = ".csv"
_REGISTRY_NAME = "ntkviz._panel_registry"


def registry():
    """The panel registry module (``PANELS``, ``TITLES``, ``model_class`` …), loaded
    from ``ntkviz/gui/panels/__init__.py`` without running ``ntkviz/gui/__init__.py``."""
    if "ntkviz.gui.panels" in sys.modules:
        return sys.modules["ntkviz.gui.panels"]
    module = sys.modules.get(_REGISTRY_NAME)
    if module is None:
        path = Path(__file__).resolve().parent.parent / "gui" / "panels" / "__init__.py"
        spec = importlib.util.spec_from_file_location(_REGISTRY_NAME, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[_REGISTRY_NAME] = module
    return module


#: ``ntkviz export <name>`` sub-commands: one module ``ntkviz/cli/_export_<name>.py`` each
#: (with ``register(sub)``); add yours here
EXPORT_VIEWS = ("kernel", "spectrum", "deform", "stability", "training", "classification", "learning")


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


def add_width_option(parser, formats: str = "PNG") -> None:
    """``--width PX`` of every ``export`` command (range: ``limits.EXPORT_WIDTH_RANGE``,
    checked by :func:`check_width`)."""
    lo, hi = limits.EXPORT_WIDTH_RANGE
    parser.add_argument("--width", type=int, default=None, metavar="PX",
                        help=f"{formats} width in pixels, in [{lo}, {hi}] (height keeps the "
                             f"figure's aspect ratio)")


def add_output_options(parser, views, default_view: str,
                       suffixes=(".png", ".svg", ".csv")) -> None:
    """``--view``, ``--width`` and ``--out`` of an ``export`` command whose figure has
    ``views`` and is written as one of ``suffixes``."""
    parser.add_argument("--view", default=default_view, choices=tuple(views),
                        help=f"the view to write (default {default_view})")
    add_width_option(parser)
    parser.add_argument("--out", required=True, metavar="FILE",
                        help=f"output file: {', '.join(suffixes)}")


def check_suffix(path, suffixes=(".png", ".svg", ".csv")) -> None:
    """Refuse an ``--out`` whose suffix is not one of ``suffixes`` (``ValueError``)."""
    name = Path(path).name
    if Path(path).suffix.lower() not in suffixes:
        raise ValueError(f"--out must end in one of {', '.join(suffixes)}, got {name!r}")


def check_width(width: int | None) -> None:
    """Refuse a ``--width`` outside ``limits.EXPORT_WIDTH_RANGE`` (``ValueError`` naming
    the option, before anything is computed)."""
    lo, hi = limits.EXPORT_WIDTH_RANGE
    if width is not None and not lo <= width <= hi:
        raise ValueError(f"--width must be in [{lo}, {hi}] pixels, got {width}")


def validated_params(panel_key: str, state: dict):
    """``(model_cls, params)`` for ``state`` of panel ``panel_key`` (``model_cls`` and
    ``params`` are ``None`` for a panel without a Qt-free model). ``ValueError``
    names the bad field."""
    model_cls = registry().model_class(panel_key)
    if model_cls is None:
        return None, None
    return model_cls, model_cls.parse(state or {})


def run_export(out_path, panel_key: str, state: dict | None, view: str | None = None,
               width: int | None = None, timeout_s: float = 600.0) -> Path:
    """Write ``view`` of panel ``panel_key`` with parameters ``state`` to ``out_path``.

    Parameters
    ----------
    out_path : str or Path
        ``.csv`` (the plotted data, full float64 precision), ``.png`` (``width``
        pixels wide), ``.svg`` or ``.gif`` (views that animate).
    panel_key : str
        A key of the panel registry (``kernel``, ``spectrum`` …).
    state : dict or None
        Session-style parameters (``Model.parse`` format); missing keys keep the
        model's defaults.
    view : str, optional
        One of the panel's exportable views (default: its first).
    width : int, optional
        PNG/GIF width in pixels (height keeps the panel's aspect ratio).

    Raises
    ------
    ValueError
        A bad parameter, view, suffix or folder (one line naming it); nothing is
        written then.
    """
    out = Path(out_path)
    check_width(width)
    if not out.parent.is_dir():
        raise ValueError(f"{out}: the folder {out.parent} does not exist")
    model_cls, params = validated_params(panel_key, state or {})  # before any Qt import
    if out.suffix.lower() == CSV_SUFFIX and model_cls is not None:
        from ntkviz._io import write_csv

        response = model_cls.build_request(params)()
        header, rows = response.csv_table(view) if view else response.csv_table()
        write_csv(out, header, rows)
        return out
    from ntkviz.gui.export import writer_for
    from ntkviz.gui.headless import render_panel

    writer_for(out)  # refuses an unknown suffix before anything is computed
    state = state if model_cls is None else model_cls(params).to_session()
    return render_panel(registry().panel_class(panel_key), state, view, out, width,
                        timeout_s=timeout_s)
