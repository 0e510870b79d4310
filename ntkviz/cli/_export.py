"""``ntkviz export <panel> [options] --out FILE.{png,svg,csv}``: any panel's figure headless.

One sub-command per panel of :data:`ntkviz.panels.PANELS`, generated from its model:

* every ``Params`` field that declares an option (:func:`ntkviz.models.options_of`)
  is one option; values are read by the option's ``text`` or by the field's type,
  and the options not given keep the model's defaults (``export_state`` first);
* ``--view`` chooses among the model's ``views`` (an export of a view sets the
  display fields it ``shows``; a view that ``needs`` fields is refused without them);
* ``--width PX`` and ``--out FILE``.

The state is then validated by the model (``Model.parse``) before anything is
computed, and a refused value is reported under the option that set its field (the
options say which fields they set), one line, exit code 2. Then:

1. ``.csv``: the model's table of the request's response (``Model.csv_table``),
   written by :func:`ntkviz._io.write_csv` — no Qt at all;
2. ``.png``/``.svg`` (``.gif`` for animated panels): the panel the app shows draws the
   figure offscreen (:func:`ntkviz.gui.headless.render_panel`) and the exporter
   registry of :mod:`ntkviz.gui.export` writes it, atomically.

A panel whose export needs more than its model's options (an image file to read, the
frames of a GIF) names a hook module in its spec (``PanelSpec.export``), which may
define ``SUFFIXES`` (the accepted ``--out`` suffixes), ``add_arguments(parser)``,
``check(args)``, ``width(args, view)`` (a default ``--width``), ``before(args, params,
view)``, ``PANEL_SIZE``, ``prepare(panel, args)`` (before the figure is written) and
``after(args, params, response)`` (warnings).
"""
from __future__ import annotations

import importlib
import math
import types
import typing
from pathlib import Path

from ntkviz import limits
from ntkviz.cli import CliError, OneLineParser

__all__ = ["register", "run_export", "add_width_option", "check_width", "CSV_SUFFIX",
           "SUFFIXES", "state_from_options"]

#: the one format written without Qt; the others are listed by ntkviz.gui.export.WRITERS
CSV_SUFFIX = ".csv"
#: what an export writes unless its hooks say otherwise
SUFFIXES = (".png", ".svg", ".csv")


def register(sub) -> None:
    from ntkviz import panels

    p = sub.add_parser("export", help="render a panel's view headless to PNG/SVG/CSV")
    views = p.add_subparsers(dest="panel", metavar="PANEL", parser_class=OneLineParser)
    for spec in panels.specs():
        _add_panel(views, spec)


def _hooks(spec):
    return importlib.import_module(spec.export) if spec.export else types.SimpleNamespace()


def _add_panel(sub, spec) -> None:
    from ntkviz import panels
    from ntkviz.models import options_of

    model = panels.resolve(spec.model)
    hooks = _hooks(spec)
    p = sub.add_parser(spec.key, aliases=list(spec.aliases), help=f"the {spec.title} tab",
                       description=f"The {spec.title} tab of the app, drawn headless from the same "
                                   "model: PNG/SVG as in the app, CSV the plotted numbers. Options "
                                   "not given keep the app's defaults.")
    hints = typing.get_type_hints(model.Params)
    for field, opt in options_of(model.Params).items():
        kwargs = {"dest": f"opt_{field}", "default": None, "help": opt.help}
        if opt.takes_value:
            kwargs["metavar"] = opt.metavar or _METAVARS.get(hints[field], "TEXT")
        else:
            kwargs.update(action="store_const", const=True)
        if opt.choices:
            kwargs["help"] = f"{opt.help} ({', '.join(map(str, opt.choices))})"
        p.add_argument(opt.flag, **kwargs)
    names = model.view_names()
    p.add_argument("--view", default=None, choices=names,
                   help="; ".join(f"{v.name}: {v.help}" if v.help else v.name for v in model.views)
                   + f" (default {_default_view(model)})")
    add_width_option(p, "PNG/GIF" if ".gif" in getattr(hooks, "SUFFIXES", SUFFIXES) else "PNG")
    suffixes = getattr(hooks, "SUFFIXES", SUFFIXES)
    p.add_argument("--out", required=True, metavar="FILE",
                   help=f"output file: {', '.join(suffixes)} (figure as in the app; .csv: the "
                        "plotted numbers)")
    if hasattr(hooks, "add_arguments"):
        hooks.add_arguments(p)
    p.set_defaults(func=run, panel_key=spec.key)


_METAVARS = {int: "N", float: "X"}


def _default_view(model) -> str:
    return model.default_view or model.views[0].name


def add_width_option(parser, formats: str = "PNG") -> None:
    """``--width PX`` (range: ``limits.EXPORT_WIDTH_RANGE``, checked by :func:`check_width`)."""
    lo, hi = limits.EXPORT_WIDTH_RANGE
    parser.add_argument("--width", type=int, default=None, metavar="PX",
                        help=f"{formats} width in pixels, in [{lo}, {hi}] (height keeps the "
                             f"figure's aspect ratio)")


def check_width(width: int | None) -> None:
    """Refuse a ``--width`` outside ``limits.EXPORT_WIDTH_RANGE`` (``ValueError`` naming
    the option, before anything is computed)."""
    lo, hi = limits.EXPORT_WIDTH_RANGE
    if width is not None and not lo <= width <= hi:
        raise ValueError(f"--width must be in [{lo}, {hi}] pixels, got {width}")


# ----------------------------------------------------------------- options -> state
def _typed(flag: str, hint, text: str):
    """``text`` as a value of the annotation ``hint`` (int, float, str, or X | None)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        hint = inner[0] if len(inner) == 1 else str
    if hint is int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{flag} must be an integer, got {text!r}") from None
    if hint is float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(f"{flag} must be a finite number, got {text!r}")
        return value
    if hint is str:
        return text
    raise TypeError(f"{flag}: a {hint!r} field needs an Option(text=...) reader")


def _jsonable(value):
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    return value


def state_from_options(model, given: dict) -> tuple[dict, dict]:
    """``(state, set_by)`` for the options ``given`` (``{field: typed text, or True for a
    flag}``): the model's session state (``export_state`` and what the options set) and,
    per field set, the option that set it. ``ValueError`` naming an option whose text
    cannot be read or that does not apply."""
    from ntkviz.models import options_of

    options = options_of(model.Params)
    hints = typing.get_type_hints(model.Params)
    state, set_by, extra = dict(model.export_state), {}, {}
    for field, raw in given.items():
        opt = options[field]
        if not opt.takes_value:
            value = opt.value
        elif opt.text is not None:
            value = opt.text(opt.flag, raw)
        else:
            value = _typed(opt.flag, hints[field], raw)
        values = value if isinstance(value, dict) else {field: value}
        for f, v in values.items():
            state[f], set_by[f] = _jsonable(v), opt.flag
        for f, v in opt.extra(value).items():
            extra.setdefault(f, (v, opt.flag))
    for f, (v, flag) in extra.items():
        if f not in set_by:
            state[f], set_by[f] = _jsonable(v), flag
    defaults = model.Params()
    for field in given:
        req = options[field].requires
        if req is not None:
            now = state.get(req.field, getattr(defaults, req.field))
            if not req.holds(tuple(now) if isinstance(now, list) else now):
                raise ValueError(req.message(options[field].flag, state))
    return state, set_by


def validated(model, state: dict, set_by: dict):
    """``model.parse(state)``; a refusal names the option that set the bad field (the
    first whose fields, left at their defaults, make the rest valid)."""
    try:
        return model.parse(state)
    except ValueError as exc:
        error = exc
    for flag in dict.fromkeys(set_by.values()):
        rest = {f: v for f, v in state.items() if set_by.get(f) != flag}
        try:
            model.parse(rest)
        except ValueError:
            continue
        raise ValueError(f"{flag}: {error}") from None
    raise error


# ------------------------------------------------------------------------- the run
def run(args) -> int:
    from ntkviz import panels
    from ntkviz.cli._common import output_path
    from ntkviz.models import options_of

    spec = panels.spec(args.panel_key)
    model = panels.resolve(spec.model)
    hooks = _hooks(spec)
    out = output_path(args.out, getattr(hooks, "SUFFIXES", SUFFIXES))
    try:
        check_width(args.width)
        if hasattr(hooks, "check"):
            hooks.check(args)
        given = {f: getattr(args, f"opt_{f}") for f in options_of(model.Params)
                 if getattr(args, f"opt_{f}") is not None}
        state, set_by = state_from_options(model, given)
        view = next(v for v in model.views if v.name == (args.view or _default_view(model)))
        state.update({k: _jsonable(v) for k, v in view.shows.items()})
        params = validated(model, state, set_by)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not view.available(params):
        raise CliError(f"--view must be one of {', '.join(model.view_names(params))}, "
                       f"got {view.name!r}")
    width = args.width
    if width is None and hasattr(hooks, "width"):
        width = hooks.width(args, view.name)
    if hasattr(hooks, "before"):
        hooks.before(args, params, view.name)
    response = run_export(out, spec.key, params, view.name, width,
                          size=getattr(hooks, "PANEL_SIZE", None),
                          prepare=(lambda panel: hooks.prepare(panel, args))
                          if hasattr(hooks, "prepare") else None)
    if hasattr(hooks, "after"):
        hooks.after(args, params, response)
    print(out)
    return 0


def run_export(out_path, panel_key: str, params, view: str | None = None,
               width: int | None = None, timeout_s: float = 1800.0, size=None, prepare=None):
    """Write ``view`` of panel ``panel_key`` for ``params`` (a model's ``Params``, or a
    session-style dict: missing keys keep the defaults) to ``out_path``; returns the
    response written.

    ``.csv``: the model's table of its request's response (no Qt); ``.png``, ``.svg``
    (``.gif``): the panel drawn offscreen at ``size`` (default: the headless panel size)
    and written at ``width`` pixels; ``prepare(panel)`` runs before. ``ValueError`` for
    a bad parameter, view, suffix or folder (one line naming it); nothing is written then.
    """
    from ntkviz import panels

    out = Path(out_path)
    check_width(width)
    if not out.parent.is_dir():
        raise ValueError(f"{out}: the folder {out.parent} does not exist")
    model = panels.model_class(panel_key)
    if isinstance(params, dict):
        params = model.parse(params)  # before any Qt import
    view = view or _default_view(model)
    if out.suffix.lower() == CSV_SUFFIX:
        from ntkviz._io import write_csv

        response = model.build_request(params)()
        write_csv(out, *model.csv_table(params, response, view))
        return response
    from ntkviz.gui.export import writer_for
    from ntkviz.gui.headless import render_panel

    writer_for(out)  # refuses an unknown suffix before anything is computed
    return render_panel(panels.view_class(panel_key), model(params).to_session(), view, out,
                        width, timeout_s=timeout_s, size=size, prepare=prepare)
