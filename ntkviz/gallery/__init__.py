"""The figure gallery: every view of every declared panel, rendered to look at.

``python -m ntkviz.gallery OUTDIR [--reduced] [--panels kernel,spectrum]``
renders, for each panel of :data:`ntkviz.panels.PANELS` and each case of
its model's ``gallery_cases()`` (the default and the extreme parameters; just
the defaults for a model without that method), every view of
``panel.plot_items()`` as PNG and SVG at 640×400, at the on-screen size and at
2400×1500, plus the view's CSV. Files: ``OUTDIR/<panel>/<case>/<view>_<size>.<ext>``
and ``OUTDIR/index.html`` (all images on one page).

Every image is checked (:mod:`ntkviz.gallery._checks`): no axis scale factor,
PNG size as asked, no text outside the figure, at least three labelled ticks
per axis, SVG grid lines before the curves, and what the figure says against
what it draws (the declared quantity in the title, guides at its levels, no
zero bars for values that do not exist, tick mantissas in [1, 10) and no
overlapping tick labels, legends at most half the plot area, an empty plot that
says why). The problems are printed and
written to ``OUTDIR/problems.txt``; the exit code is 1 if there are any.
``--reduced`` (the tests): the default case only, at 640×400 and 2400×1500.
"""
from __future__ import annotations

import html
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

__all__ = ["render_gallery", "GalleryReport", "SIZES", "REDUCED_SIZES", "cases_of"]

#: size name -> (width, height) in pixels; None: the on-screen size
SIZES: dict[str, tuple[int | None, int | None]] = {
    "640x400": (640, 400), "default": (None, None), "2400x1500": (2400, 1500)}
REDUCED_SIZES = ("640x400", "2400x1500")


@dataclass
class GalleryReport:
    """What was written and what the checks found (``problems``: ``(file, text)``)."""

    files: list[Path] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, path: Path, problems: list[str]) -> None:
        self.files.append(path)
        self.problems.extend((str(path), p) for p in problems)


def cases_of(key: str, reduced: bool = False) -> dict[str, dict]:
    """Panel ``key``'s gallery cases: name -> session state (``{"default": {}}`` when
    its model has no ``gallery_cases``); ``reduced``: the default case only."""
    from ntkviz.panels import model_class

    model = model_class(key)
    cases = getattr(model, "gallery_cases", None)
    cases = dict(cases()) if cases is not None else {"default": {}}
    cases.setdefault("default", {})
    return {"default": cases["default"]} if reduced else cases


def render_gallery(outdir, reduced: bool = False, panels: list[str] | None = None,
                   cases: list[str] | None = None, log: Callable[[str], None] = print,
                   timeout_s: float = 600.0) -> GalleryReport:
    """Render the gallery into ``outdir`` (created if needed); see the module notes.
    ``panels``/``cases`` restrict it to these panel keys / case names (``cases``
    given: those cases even when ``reduced``, which then only limits the sizes)."""
    from ntkviz.gui.headless import build_panel, ensure_app, rendering
    from ntkviz.panels import keys, view_class

    ensure_app()
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    report = GalleryReport()
    sizes = {k: SIZES[k] for k in (REDUCED_SIZES if reduced else SIZES)}
    for key in panels or keys():
        try:
            panel_cases = cases_of(key, reduced and cases is None)
        except Exception as exc:  # noqa: BLE001 - one broken panel must not stop the gallery
            report.problems.append((key, f"cannot load: {type(exc).__name__}: {exc}"))
            log(f"{key}: CANNOT LOAD: {exc}")
            continue
        for case, state in panel_cases.items():
            if cases is not None and case not in cases:
                continue
            t0 = time.perf_counter()
            folder = outdir / key / case
            folder.mkdir(parents=True, exist_ok=True)
            with rendering():
                try:
                    panel = build_panel(view_class(key), state, timeout_s=timeout_s)
                except Exception as exc:  # noqa: BLE001 - reported, the gallery goes on
                    report.problems.append((f"{key}/{case}", f"not computed: {exc}"))
                    log(f"{key}/{case}: NOT COMPUTED: {exc}")
                    continue
                try:
                    _render_case(panel, folder, sizes, report)
                finally:
                    panel.dispatcher.shutdown()
                    panel.close()
                    del panel
            report.seconds[f"{key}/{case}"] = time.perf_counter() - t0
            log(f"{key}/{case}: {time.perf_counter() - t0:.1f} s")
    _write_index(outdir, report)
    return report


def _render_case(panel, folder: Path, sizes: dict, report: GalleryReport) -> None:
    from ntkviz.gallery._checks import layout_problems, png_problems, svg_problems
    from ntkviz.gui.export import export_view

    for view, item in panel.plot_items().items():
        for size_name, (w, h) in sizes.items():
            exporting = getattr(panel, "exporting", None)
            with exporting(view, w, h) if exporting is not None else nullcontext():
                layout = layout_problems(item, w, h)  # laid out as the export is
            png = export_view(panel, view, folder / f"{view}_{size_name}.png", w, h)
            if w is None:
                from ntkviz.gui.export import export_geometry

                w, h, _ = export_geometry(item)
            report.add(png, layout + png_problems(png, w, h))
            svg = export_view(panel, view, folder / f"{view}_{size_name}.svg", w, h)
            report.add(svg, svg_problems(svg.read_text(encoding="utf-8")))
        try:
            report.add(export_view(panel, view, folder / f"{view}.csv"), [])
        except (ValueError, KeyError, NotImplementedError) as exc:
            report.problems.append((str(folder / f"{view}.csv"), f"no CSV: {exc}"))


def _write_index(outdir: Path, report: GalleryReport) -> None:
    from ntkviz._io import write_text_atomic

    rows = []
    for path in report.files:
        if path.suffix == ".png":
            rel = html.escape(str(path.relative_to(outdir)))
            rows.append(f'<figure><img src="{rel}" style="max-width:100%"><figcaption>{rel}'
                        f"</figcaption></figure>")
    problems = "".join(f"<li>{html.escape(f)}: {html.escape(p)}</li>" for f, p in report.problems)
    write_text_atomic(outdir / "index.html",
                      "<!doctype html><meta charset='utf-8'><title>ntkviz gallery</title>"
                      f"<h1>ntkviz gallery</h1><ul>{problems or '<li>no problems found</li>'}</ul>"
                      + "".join(rows))
    write_text_atomic(outdir / "problems.txt",
                      "".join(f"{f}: {p}\n" for f, p in report.problems))
