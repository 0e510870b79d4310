"""The recipe of a figure: what it shows and the command that draws it again.

Every PNG, SVG and PDF that ntkviz writes carries a :class:`Recipe`: the ntkviz
version, the panel (tab) and view, all of the panel's parameters (JSON, as in a
session file) and the exact ``ntkviz export`` command that writes the same figure
(:func:`command_for`). The command is generated from the panel's model — its
``option(...)`` declarations (:mod:`ntkviz.models._options`) — so it works for every
view of every declared panel, including panels added later:

* a parameter that differs from what ``ntkviz export`` would use is written with its
  option, as text that the option reads back as the same value (``Option.show``, or
  the value by its type: ``repr`` of floats, comma-separated lists, ``auto`` for
  None), verified by reading it back;
* a parameter no option can say (no option, an option that does not apply, a value
  that only comes from a file, an option whose implied values clash) goes into
  ``--params '{"name": value}'``;
* the words are quoted for a POSIX shell (:func:`shlex.join`), and parsing the
  command again (:func:`parse_command`, through the real command-line parser) gives
  parameters equal to the figure's, which :func:`command_for` checks before it returns.

Where it is written (:func:`read_recipe` reads all three back, without Qt):

* PNG: text chunks ``ntkviz-version``, ``ntkviz-tab``, ``ntkviz-view``,
  ``ntkviz-params`` (JSON) and ``ntkviz-command`` (``Software`` too);
* SVG: ``<metadata><ntkviz:recipe …>`` (namespace :data:`SVG_NAMESPACE`) with the same
  keys as elements, and the command as the document's ``<desc>``;
* PDF: the document information dictionary: ``Subject`` (the command), ``Keywords``,
  and the same keys as the PNG's (added as an incremental update of the file Qt
  wrote, :func:`add_pdf_info`).

This module imports neither Qt nor numba.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shlex
import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["Recipe", "Parsed", "recipe_for", "command_for", "parse_command", "read_recipe",
           "add_pdf_info", "KEYS", "SVG_NAMESPACE"]

#: the keys of a recipe in a file (PNG text chunks, SVG elements, PDF info entries)
KEYS = ("ntkviz-version", "ntkviz-tab", "ntkviz-view", "ntkviz-params", "ntkviz-command")
#: the XML namespace of the SVG ``<metadata>`` element
SVG_NAMESPACE = "https://ntkviz.github.io/ns/recipe/1"
#: the program name the command starts with
PROGRAM = "ntkviz"


@dataclass(frozen=True)
class Recipe:
    """What a figure shows and how to draw it again.

    ``tab``: the panel's key (``ntkviz export <tab>``), ``title`` its tab title,
    ``view`` the view exported, ``params`` the panel's parameters as JSON values (the
    session entry of the panel, with the view's display fields), ``command`` the
    ``ntkviz export`` command that writes the figure."""

    version: str
    tab: str
    title: str
    view: str
    params: dict
    command: str

    def text_items(self) -> dict[str, str]:
        """``{key: text}`` written into a file (:data:`KEYS`, params as compact JSON)."""
        return {"Software": f"ntkviz {self.version}", "ntkviz-version": self.version,
                "ntkviz-tab": self.tab, "ntkviz-view": self.view,
                "ntkviz-params": json.dumps(self.params, separators=(",", ":")),
                "ntkviz-command": self.command}

    def title_line(self) -> str:
        """``ntkviz — <tab title>: <view>`` (an SVG's title, a PDF's Title)."""
        return f"ntkviz — {self.title}: {self.view}"

    def svg_metadata(self) -> str:
        """The ``<metadata>`` element of an SVG document holding the recipe."""
        from xml.sax.saxutils import escape

        items = self.text_items()
        inner = "".join(f"\n    <ntkviz:{k.removeprefix('ntkviz-')}>{escape(items[k])}"
                        f"</ntkviz:{k.removeprefix('ntkviz-')}>" for k in KEYS)
        return (f'<metadata>\n  <ntkviz:recipe xmlns:ntkviz="{SVG_NAMESPACE}">{inner}\n'
                "  </ntkviz:recipe>\n</metadata>")

    @classmethod
    def from_items(cls, items: dict) -> "Recipe":
        """The recipe read back from a file's ``{key: text}`` (``ValueError`` naming a
        missing key)."""
        missing = [k for k in KEYS if k not in items]
        if missing:
            raise ValueError(f"the figure holds no ntkviz recipe ({missing[0]} is missing)")
        from ntkviz import panels

        tab = items["ntkviz-tab"]
        try:
            title = panels.spec(tab).title
        except ValueError:
            title = tab
        return cls(items["ntkviz-version"], tab, title, items["ntkviz-view"],
                   json.loads(items["ntkviz-params"]), items["ntkviz-command"])


@dataclass(frozen=True)
class Parsed:
    """An ``ntkviz export`` command read back: the panel key, the validated ``Params``,
    the view's name, ``--out`` and the size options (None where not given)."""

    panel: str
    params: object
    view: str
    out: str
    width: int | None
    height: int | None
    dpi: int | None


# --------------------------------------------------------------------- the command
def _model(panel_key: str):
    from ntkviz import panels

    return panels.model_class(panel_key)


def _as_params(model, params):
    return model.parse(params) if isinstance(params, dict) else params


def _drawn(model, params, view: str):
    """``params`` as an export of ``view`` draws them: with the display fields the view
    sets (``View.shows``) and the display-only fields that every export sets
    (``export_state``, e.g. no autoplay in a file)."""
    declared = next((v for v in model.views if v.name == view), None)
    if declared is None:
        raise ValueError(f"view must be one of {', '.join(model.view_names())}; got {view!r}")
    fixed = {f: v for f, v in model.export_state.items() if f in model.display_only}
    fixed.update(declared.shows)
    if not fixed:
        return params
    return model.parse({k: _session_value_json(v) for k, v in fixed.items()}, params)


def _session_value_json(value):
    if isinstance(value, (list, tuple)):
        return [_session_value_json(v) for v in value]
    return value


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return a is b


def _number_text(v) -> str:
    if isinstance(v, float):
        short = f"{v:g}"
        return short if float(short) == v else repr(v)
    return str(v)


def _candidates(value) -> list[str]:
    """Texts an option reader may read back as ``value`` (tried in this order)."""
    if value is None:
        return ["auto", "none", ""]
    if isinstance(value, bool):
        return ["true", "false"]
    if isinstance(value, tuple):
        if all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value):
            return [",".join(_number_text(v) for v in value)]
        return []
    if isinstance(value, (int, float)):
        return list(dict.fromkeys([_number_text(value), repr(value)]))
    if isinstance(value, str):
        return [value]
    return []


def _option_text(model, field: str, opt, params) -> str | None:
    """The text of ``opt`` (the option of ``field``) that reads back as ``params``' values
    of every field it sets, or None when there is none."""
    from ntkviz.cli._export import option_values

    texts = [opt.show(params)] if opt.show is not None else _candidates(getattr(params, field))
    for text in texts:
        try:
            values, _ = option_values(model, field, text)
        except (ValueError, TypeError):
            continue
        if all(_same(_session_value(v), _session_value(getattr(params, f)))
               for f, v in values.items()):
            return text
    return None


def _session_value(value):
    if isinstance(value, (list, tuple)):
        return tuple(_session_value(v) for v in value)
    return value


def _applies(opt, params) -> bool:
    req = opt.requires
    return req is None or req.holds(getattr(params, req.field))


def _produce(model, given: dict, base: dict, view) -> object | None:
    """The parameters ``ntkviz export`` makes of the options ``given`` over the
    ``--params`` object ``base`` (None when it refuses them)."""
    from ntkviz.cli._export import _jsonable, state_from_options, validated

    try:
        state, set_by = state_from_options(model, given, base)
        state.update({k: _jsonable(v) for k, v in view.shows.items()})
        return validated(model, state, set_by)
    except (ValueError, TypeError):
        return None


def _arguments(model, params, view) -> tuple[dict, dict]:
    """``(given, base)``: option texts by field and the ``--params`` object that make
    ``ntkviz export`` produce ``params`` for ``view``.

    Every field that comes out wrong is set — by its option, else by an option that
    implies its value, else in ``--params`` — all at once (fields that depend on each
    other, e.g. an architecture and its kernels, are valid only together), and the
    command is read again until every field is right; then each ``--params`` entry
    that the options already imply is left out."""
    from ntkviz.cli._export import _jsonable
    from ntkviz.models import options_of

    options = options_of(model.Params)
    fields = [f.name for f in dataclasses.fields(model.Params) if f.init]
    everything = ({}, {f: _jsonable(getattr(params, f)) for f in fields})
    given: dict = {}
    base: dict = {}
    produced = _produce(model, given, base, view)
    for _ in range(len(fields) + 1):
        if produced is None:
            return everything
        wrong = [f for f in fields if not _same(getattr(produced, f), getattr(params, f))
                 and f not in base]
        if not wrong:
            break
        for f in wrong:
            choice = None
            if f in options and f not in given and _applies(options[f], params):
                choice = _flag_or_text(model, f, options[f], params)
            if choice is not None:
                given[f] = choice
                continue
            implied = _implying_option(model, f, options, given, params)
            if implied is not None:
                given[implied[0]] = implied[1]
            else:
                base[f] = _jsonable(getattr(params, f))
        produced = _produce(model, given, base, view)
    else:
        return everything
    for f in list(base):
        fewer = {k: v for k, v in base.items() if k != f}
        if _exact(_produce(model, given, fewer, view), params, fields):
            base = fewer
    return given, base


def _exact(produced, params, fields) -> bool:
    return produced is not None and all(_same(getattr(produced, f), getattr(params, f))
                                        for f in fields)


def _flag_or_text(model, field: str, opt, params):
    """The value of ``given[field]``: True for a flag that sets ``params``' value, the
    text of an option that takes one, or None."""
    if not opt.takes_value:
        return True if _same(opt.value, getattr(params, field)) else None
    return _option_text(model, field, opt, params)


def _implying_option(model, field: str, options: dict, given: dict, params):
    """``(option field, text)`` of an option not yet given whose implied values
    (``Option.sets``) give ``field`` its value in ``params``, or None."""
    from ntkviz.cli._export import option_values

    for f, opt in options.items():
        if f in given or opt.sets is None or not _applies(opt, params):
            continue
        choice = _flag_or_text(model, f, opt, params)
        if choice is None:
            continue
        try:
            _, implied = option_values(model, f, choice)
        except (ValueError, TypeError):
            continue
        if field in implied and _same(_session_value(implied[field]),
                                      _session_value(getattr(params, field))):
            return f, choice
    return None


def command_for(panel_key: str, params, view: str, out: str, width: int | None = None,
                height: int | None = None, dpi: int | None = None) -> str:
    """The ``ntkviz export`` command that writes ``view`` of panel ``panel_key`` with
    ``params`` (its model's ``Params`` or a session dict) to ``out`` (``--width``,
    ``--height``, ``--dpi`` when given), quoted for a POSIX shell.

    Options in the model's field order, then ``--params`` for what no option says, then
    ``--view``, ``--out`` and the size. ``parse_command(command_for(...)).params`` equals
    ``params`` with the view's display fields (checked here: ``RuntimeError`` if not)."""
    from ntkviz import panels
    from ntkviz.limits import EXPORT_DPI
    from ntkviz.models import options_of

    spec = panels.spec(panel_key)
    model = _model(spec.key)
    params = _drawn(model, _as_params(model, params), view)
    declared = next(v for v in model.views if v.name == view)
    given, base = _arguments(model, params, declared)
    options = options_of(model.Params)
    words = [PROGRAM, "export", spec.key]
    for field in options:
        if field not in given:
            continue
        if given[field] is True:
            words.append(options[field].flag)
        else:
            words += _option_words(options[field].flag, given[field])
    if base:
        words += ["--params", json.dumps(base, separators=(",", ":"))]
    words += ["--view", view, "--out", str(out)]
    if dpi is not None and int(dpi) == EXPORT_DPI:
        dpi = None  # the default: said by leaving it out
    for flag, value in (("--width", width), ("--height", height), ("--dpi", dpi)):
        if value is not None:
            words += [flag, str(int(value))]
    command = shlex.join(words)
    back = parse_command(command)
    if not _same(back.params, params):
        raise RuntimeError(f"the command {command!r} does not give the figure's parameters back")
    return command


def _option_words(flag: str, text: str) -> list[str]:
    """``[flag, text]``, or ``[flag=text]`` for a text an option parser would take for an
    option (it starts with ``-``) or that is empty."""
    return [f"{flag}={text}"] if not text or text.startswith("-") else [flag, text]


def recipe_for(panel_key: str, params, view: str, out: str, width: int | None = None,
               height: int | None = None, dpi: int | None = None) -> Recipe:
    """The :class:`Recipe` of ``view`` of panel ``panel_key`` with ``params``, written to
    ``out`` at ``width`` × ``height`` pixels and ``dpi`` (:func:`command_for`)."""
    from ntkviz import __version__, panels

    spec = panels.spec(panel_key)
    model = _model(spec.key)
    drawn = _drawn(model, _as_params(model, params), view)
    command = command_for(spec.key, drawn, view, out, width, height, dpi)
    return Recipe(__version__, spec.key, spec.title, view, model(drawn).to_session(), command)


@lru_cache(maxsize=4)
def _parser(_panels: tuple):
    from ntkviz.cli import build_parser

    return build_parser()


def parse_command(command: str) -> Parsed:
    """Read an ``ntkviz export`` command (as :func:`command_for` writes it) back through
    the command-line parser: ``ValueError`` (one line) for anything else or a value the
    panel refuses."""
    from ntkviz import panels
    from ntkviz.cli._export import export_params

    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"command: {exc}") from None
    if len(words) < 3 or words[0] != PROGRAM or words[1] != "export":
        raise ValueError(f"command must start with '{PROGRAM} export <panel>', got {command[:40]!r}")
    parser = _parser(panels.specs())
    try:
        args = parser.parse_args(words[1:])
    except SystemExit:
        raise ValueError(f"command is refused by the command line: {command[:80]!r}") from None
    params, view = export_params(args)
    return Parsed(args.panel_key, params, view.name, args.out, args.width, args.height, args.dpi)


# ------------------------------------------------------------------ reading files
def read_recipe(path) -> Recipe:
    """The recipe written into a PNG, SVG or PDF by ntkviz (``ValueError`` naming the file
    when it holds none)."""
    path = Path(path)
    data = path.read_bytes()
    suffix = path.suffix.lower()
    try:
        if suffix == ".png":
            items = _png_text(data)
        elif suffix == ".svg":
            items = _svg_items(data)
        elif suffix == ".pdf":
            items = _pdf_items(data)
        else:
            raise ValueError("only .png, .svg and .pdf figures carry a recipe")
        return Recipe.from_items(items)
    except ValueError as exc:
        raise ValueError(f"{path.name}: {exc}") from None


def _png_text(data: bytes) -> dict:
    """The text chunks (``tEXt``, ``zTXt``, ``iTXt``) of a PNG file."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    out, pos = {}, 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"tEXt":
            key, _, text = body.partition(b"\0")
            out[key.decode("latin-1")] = text.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _lang, _, rest = rest.partition(b"\0")
            _translated, _, text = rest.partition(b"\0")
            out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        elif kind == b"IEND":
            break
    return out


def _svg_items(data: bytes) -> dict:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(data)
    node = root.find(f".//{{{SVG_NAMESPACE}}}recipe")
    if node is None:
        return {}
    return {f"ntkviz-{child.tag.rpartition('}')[2]}": child.text or "" for child in node}


# PDF: the entries ntkviz adds are hex strings of UTF-16BE text with a byte-order mark
_PDF_ENTRY = re.compile(rb"/(ntkviz-[a-z]+)\s*<([0-9A-Fa-f]*)>")


def _pdf_items(data: bytes) -> dict:
    items = {}
    for key, hexed in _PDF_ENTRY.findall(data):  # the last update wins
        raw = bytes.fromhex(hexed.decode("ascii"))
        items[key.decode("ascii")] = raw[2:].decode("utf-16-be") if raw[:2] == b"\xfe\xff" \
            else raw.decode("latin-1")
    return items


def _pdf_text(text: str) -> bytes:
    """A PDF text string: UTF-16BE with a byte-order mark, hex-encoded."""
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode("ascii") + b">"


_TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref\s*(\d+)\s*%%EOF\s*$", re.S)


def add_pdf_info(path, recipe: Recipe) -> None:
    """Give the PDF at ``path`` (as ``QPdfWriter`` writes it: a classic cross-reference
    table) a document information dictionary holding ``recipe``: Title, Subject (the
    command), Keywords, Creator, Producer, the dates, and the keys of :data:`KEYS`.

    Written as an incremental update (PDF 1.4, section 3.4.5): a new version of the
    information object, a cross-reference section for it and a trailer pointing to the
    previous one are appended; nothing Qt wrote changes."""
    path = Path(path)
    data = path.read_bytes()
    match = _TRAILER.search(data)
    if match is None:
        raise ValueError(f"{path.name}: no PDF trailer to update")
    trailer, previous = match.group(1), int(match.group(2))

    def entry(name: bytes) -> bytes | None:
        found = re.search(rb"/" + name + rb"\s+(\d+\s+\d+\s+R|\[[^\]]*\]|\d+)", trailer)
        return found.group(1) if found else None

    size, root, info, ident = entry(b"Size"), entry(b"Root"), entry(b"Info"), entry(b"ID")
    if size is None or root is None:
        raise ValueError(f"{path.name}: the PDF trailer has no /Size or /Root")
    old = _old_info(data, info)
    number = int(info.split()[0]) if info is not None else int(size)
    new_size = max(int(size), number + 1)
    fields = {"Title": recipe.title_line(), "Subject": recipe.command,
              "Keywords": f"ntkviz, {recipe.tab}, {recipe.view}",
              "Creator": f"ntkviz {recipe.version}", **recipe.text_items()}
    fields.pop("Software")
    body = b"<<\n" + b"".join(b"/" + k.encode("ascii") + b" " + _pdf_text(v) + b"\n"
                              for k, v in fields.items()) + old + b">>"
    start = len(data) + (0 if data.endswith(b"\n") else 1)
    update = b"" if data.endswith(b"\n") else b"\n"
    obj = b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = start + len(obj)
    xref = (b"xref\n0 1\n0000000000 65535 f \n%d 1\n%010d 00000 n \n" % (number, start))
    tail = (b"trailer\n<< /Size %d /Root %s /Info %d 0 R /Prev %d" % (new_size, root, number, previous)
            + (b" /ID " + ident if ident is not None else b"") + b" >>\nstartxref\n%d\n%%%%EOF\n"
            % xref_at)
    path.write_bytes(data + update + obj + xref + tail)


def _old_info(data: bytes, info: bytes | None) -> bytes:
    """The entries of the old information dictionary that ntkviz does not write
    (Producer, dates, …), as ``/Key value`` lines."""
    if info is None:
        return b""
    number = int(info.split()[0])
    found = re.search(rb"(?<!\d)%d 0 obj\s*<<(.*?)>>\s*endobj" % number, data, re.S)
    if found is None:
        return b""
    keep = []
    for key, value in re.findall(rb"/(\w+)\s*(\([^\n]*\)|/\w+|<[0-9A-Fa-f]*>)", found.group(1)):
        if key.decode("ascii") not in ("Title", "Subject", "Keywords", "Creator"):
            keep.append(b"/" + key + b" " + value + b"\n")
    return b"".join(keep)
