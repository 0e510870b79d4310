"""``ntkviz export <panel> [options] --out FILE.{png,svg,pdf,csv}``: any panel's figure headless.

One sub-command per panel of :data:`ntkviz.panels.PANELS`, generated from its model:

* every ``Params`` field that declares an option (:func:`ntkviz.models.options_of`)
  is one option; values are read by the option's ``text`` or by the field's type,
  and the options not given keep the model's defaults (``export_state`` first);
* ``--params JSON``: any of the panel's parameters as a JSON object (as in a session
  file), for what no option says; the options given override it;
* ``--view`` chooses among the model's ``views`` (an export of a view sets the
  display fields it ``shows``; a view that ``needs`` fields is refused without them);
* ``--width PX``, ``--height PX`` (default: the view's ``size``; one given, the other
  keeps its aspect ratio), ``--dpi N`` and ``--out FILE``.

The state is then validated by the model (``Model.parse``) before anything is
computed, and a refused value is reported under the option that set its field (the
options say which fields they set), one line, exit code 2. Then:

1. ``.csv``: the model's table of the request's response (``Model.csv_table``),
   written by :func:`ntkviz._io.write_csv` — no Qt at all;
2. ``.png``/``.svg``/``.pdf`` (``.gif`` for animated panels): the panel the app shows
   draws the figure offscreen (:func:`ntkviz.gui.headless.render_panel`) and the
   exporter registry of :mod:`ntkviz.gui.export` writes it, atomically, with the
   command that makes it again written into the file (:mod:`ntkviz.recipe`).

The path written is printed on stdout.

A panel whose export needs more than its model's options (an image file to read, the
frames of a GIF) names a hook module in its spec (``PanelSpec.export``), which may
define ``SUFFIXES`` (the accepted ``--out`` suffixes), ``add_arguments(parser)``,
``check(args)``, ``before(args, params, view)``, ``PANEL_SIZE``, ``prepare(panel,
args)`` (before the figure is written) and ``after(args, params, response)`` (warnings).
"""
from __future__ import annotations

import importlib
import json
import math
import types
import typing
from pathlib import Path

from ntkviz import limits
from ntkviz.cli import CliError, OneLineParser

__all__ = ["register", "run_export", "add_size_options", "check_size", "export_params",
           "state_from_options", "validated", "default_view", "CSV_SUFFIX", "SUFFIXES",
           "PARAMS_FLAG"]

#: the one format written without Qt; the others are listed by ntkviz.gui.export.WRITERS
CSV_SUFFIX = ".csv"
#: what an export writes unless its hooks say otherwise
SUFFIXES = (".png", ".svg", ".pdf", ".csv")
#: the option that sets any parameter from JSON
PARAMS_FLAG = "--params"


def register(sub) -> None:
    from ntkviz import panels

    p = sub.add_parser("export", help="any tab's figure headless: PNG, SVG, PDF (with the command "
                                      "that makes it again) or CSV of the plotted numbers",
                       description="Draw a tab of the app headless, from the same model: "
                                   "PNG/SVG/PDF as in the app, CSV the plotted numbers. Every "
                                   "figure carries the command that writes it again.")
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
                                   "model: PNG/SVG/PDF as in the app, CSV the plotted numbers. "
                                   "Options not given keep the app's defaults.")
    hints = typing.get_type_hints(model.Params)
    for field, opt in options_of(model.Params).items():
        kwargs = {"dest": f"opt_{field}", "default": None, "help": _literal(opt.help)}
        if opt.takes_value:
            kwargs["metavar"] = opt.metavar or _METAVARS.get(hints[field], "TEXT")
        else:
            kwargs.update(action="store_const", const=True)
        if opt.choices:
            kwargs["help"] = _literal(f"{opt.help} ({', '.join(map(str, opt.choices))})")
        p.add_argument(opt.flag, **kwargs)
    p.add_argument(PARAMS_FLAG, default=None, metavar="JSON", dest="params_json",
                   help="parameters as a JSON object, as in a session file ({\"name\": value, "
                        "...}); the options given override them")
    p.add_argument("--view", default=None, choices=model.view_names(),
                   help=_literal("; ".join(f"{v.name}: {v.help}" if v.help else v.name for v in model.views)
                                 + f" (default {default_view(model)})"))
    suffixes = getattr(hooks, "SUFFIXES", SUFFIXES)
    add_size_options(p, "/".join(s[1:].upper() for s in suffixes if s != CSV_SUFFIX))
    p.add_argument("--out", required=True, metavar="FILE",
                   help=f"output file: {', '.join(suffixes)} (figure as in the app; .csv: the "
                        "plotted numbers)")
    if hasattr(hooks, "add_arguments"):
        hooks.add_arguments(p)
    p.set_defaults(func=run, panel_key=spec.key)


_METAVARS = {int: "N", float: "X"}


def _literal(text: str) -> str:
    """A model's help text as argparse shows it verbatim (argparse %-formats help: "95 %")."""
    return text.replace("%", "%%")


def default_view(model) -> str:
    """The view ``ntkviz export`` writes without ``--view``."""
    return model.default_view or model.views[0].name


def add_size_options(parser, formats: str = "PNG/SVG/PDF") -> None:
    """``--width PX``, ``--height PX`` and ``--dpi N`` (ranges:
    ``limits.EXPORT_WIDTH_RANGE``, ``limits.EXPORT_DPI_RANGE``; checked by
    :func:`check_size`)."""
    lo, hi = limits.EXPORT_WIDTH_RANGE
    parser.add_argument("--width", type=int, default=None, metavar="PX",
                        help=f"{formats} width in pixels, in [{lo}, {hi}] (default: the view's "
                             "size; with --height alone, the view's aspect ratio)")
    parser.add_argument("--height", type=int, default=None, metavar="PX",
                        help=f"{formats} height in pixels, in [{lo}, {hi}] (default: the view's "
                             "size; with --width alone, the view's aspect ratio)")
    dlo, dhi = limits.EXPORT_DPI_RANGE
    parser.add_argument("--dpi", type=int, default=None, metavar="N",
                        help=f"dots per inch, in [{dlo}, {dhi}] (default {limits.EXPORT_DPI}): the "
                             "PNG's resolution tag and the PDF's page size (pixels / dpi inches)")


def check_size(width: int | None = None, height: int | None = None,
               dpi: int | None = None) -> None:
    """Refuse a ``--width``/``--height`` outside ``limits.EXPORT_WIDTH_RANGE`` or a
    ``--dpi`` outside ``limits.EXPORT_DPI_RANGE`` (``ValueError`` naming the option,
    before anything is computed)."""
    lo, hi = limits.EXPORT_WIDTH_RANGE
    for flag, value in (("--width", width), ("--height", height)):
        if value is not None and not lo <= value <= hi:
            raise ValueError(f"{flag} must be in [{lo}, {hi}] pixels, got {value}")
    dlo, dhi = limits.EXPORT_DPI_RANGE
    if dpi is not None and not dlo <= dpi <= dhi:
        raise ValueError(f"--dpi must be in [{dlo}, {dhi}], got {dpi}")


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


def option_values(model, field: str, raw) -> tuple[dict, dict]:
    """``(values, implied)`` of option ``field`` given ``raw`` (its typed text, or True
    for a flag): the fields it sets and the other fields' values that come with it
    (``Option.sets``). ``ValueError`` naming the option when the text cannot be read."""
    from ntkviz.models import options_of

    opt = options_of(model.Params)[field]
    if not opt.takes_value:
        value = opt.value
    elif opt.text is not None:
        value = opt.text(opt.flag, raw)
    else:
        value = _typed(opt.flag, typing.get_type_hints(model.Params)[field], raw)
    values = value if isinstance(value, dict) else {field: value}
    return values, opt.extra(value)


def read_params_json(text: str) -> dict:
    """``--params`` text -> a JSON object (``ValueError`` naming the option otherwise)."""
    try:
        state = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{PARAMS_FLAG} must be a JSON object, got {text[:40]!r} ({exc})") from None
    if not isinstance(state, dict):
        raise ValueError(f"{PARAMS_FLAG} must be a JSON object of name: value pairs, got "
                         f"{type(state).__name__}")
    return state


def state_from_options(model, given: dict, base: dict | None = None) -> tuple[dict, dict]:
    """``(state, set_by)`` for the options ``given`` (``{field: typed text, or True for a
    flag}``) over ``base`` (the ``--params`` object): the model's session state
    (``export_state``, then ``base``, then what the options set) and, per field set, the
    option that set it. The values an option implies (``Option.sets``) fill only fields
    neither ``base`` nor an option sets. ``ValueError`` naming an option whose text
    cannot be read or that does not apply."""
    from ntkviz.models import options_of

    options = options_of(model.Params)
    state = dict(model.export_state)
    set_by = {}
    for f, v in (base or {}).items():
        state[f], set_by[f] = v, PARAMS_FLAG
    extra = {}
    for field, raw in given.items():
        values, implied = option_values(model, field, raw)
        for f, v in values.items():
            state[f], set_by[f] = _jsonable(v), options[field].flag
        for f, v in implied.items():
            extra.setdefault(f, (v, options[field].flag))
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


def export_params(args):
    """``(params, view)`` of a parsed ``ntkviz export <panel>`` command line: the model's
    validated ``Params`` and the :class:`~ntkviz.models.View` it exports. ``ValueError``
    (one line naming the option) for a value the panel refuses."""
    from ntkviz import panels
    from ntkviz.models import options_of

    model = panels.model_class(args.panel_key)
    given = {f: getattr(args, f"opt_{f}") for f in options_of(model.Params)
             if getattr(args, f"opt_{f}") is not None}
    base = None if args.params_json is None else read_params_json(args.params_json)
    state, set_by = state_from_options(model, given, base)
    view = next(v for v in model.views if v.name == (args.view or default_view(model)))
    state.update({k: _jsonable(v) for k, v in view.shows.items()})
    params = validated(model, state, set_by)
    if not view.available(params):
        raise ValueError(f"--view must be one of {', '.join(model.view_names(params))}, "
                         f"got {view.name!r}")
    return params, view


# ------------------------------------------------------------------------- the run
def run(args) -> int:
    from ntkviz import panels
    from ntkviz.cli._common import output_path

    spec = panels.spec(args.panel_key)
    hooks = _hooks(spec)
    out = output_path(args.out, getattr(hooks, "SUFFIXES", SUFFIXES))
    try:
        check_size(args.width, args.height, args.dpi)
        if hasattr(hooks, "check"):
            hooks.check(args)
        params, view = export_params(args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if hasattr(hooks, "before"):
        hooks.before(args, params, view.name)
    response = run_export(out, spec.key, params, view.name, args.width, height=args.height,
                          dpi=args.dpi, size=getattr(hooks, "PANEL_SIZE", None),
                          prepare=(lambda panel: hooks.prepare(panel, args))
                          if hasattr(hooks, "prepare") else None)
    if hasattr(hooks, "after"):
        hooks.after(args, params, response)
    print(out)
    return 0


def run_export(out_path, panel_key: str, params, view: str | None = None,
               width: int | None = None, timeout_s: float = 1800.0, size=None, prepare=None,
               height: int | None = None, dpi: int | None = None):
    """Write ``view`` of panel ``panel_key`` for ``params`` (a model's ``Params``, or a
    session-style dict: missing keys keep the defaults) to ``out_path``; returns the
    response written.

    ``.csv``: the model's table of its request's response (no Qt); ``.png``, ``.svg``,
    ``.pdf`` (``.gif``): the panel drawn offscreen at ``size`` (default: the headless
    panel size) and written at ``width`` × ``height`` pixels (default: the view's
    :meth:`~ntkviz.models.View.export_size`) with ``dpi``; ``prepare(panel)`` runs
    before. ``ValueError`` for a bad parameter, view, size, suffix or folder (one line
    naming it); nothing is written then.
    """
    from ntkviz import panels

    out = Path(out_path)
    check_size(width, height, dpi)
    if not out.parent.is_dir():
        raise ValueError(f"{out}: the folder {out.parent} does not exist")
    model = panels.model_class(panel_key)
    if isinstance(params, dict):
        params = model.parse(params)  # before any Qt import
    view = view or default_view(model)
    if out.suffix.lower() == CSV_SUFFIX:
        from ntkviz._io import write_csv

        response = model.build_request(params)()
        write_csv(out, *model.csv_table(params, response, view))
        return response
    from ntkviz.gui.export import writer_for
    from ntkviz.gui.headless import render_panel

    writer_for(out)  # refuses an unknown suffix before anything is computed
    declared = next((v for v in model.views if v.name == view), None)
    if declared is not None:
        width, height = declared.export_size(width, height)
        check_size(width, height)
    return render_panel(panels.view_class(panel_key), model(params).to_session(), view, out,
                        width, timeout_s=timeout_s, height=height, size=size, prepare=prepare,
                        dpi=dpi)
