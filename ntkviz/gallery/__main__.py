"""``python -m ntkviz.gallery OUTDIR [--reduced] [--panels LIST] [--cases LIST]``."""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ntkviz.gallery",
        description="Render every view of every panel (PNG and SVG at 640×400, on-screen "
                    "size and 2400×1500, plus CSV) for the default and extreme parameters, "
                    "and check each image.")
    parser.add_argument("outdir", help="folder for the images (created if needed)")
    parser.add_argument("--reduced", action="store_true",
                        help="default parameters only, at 640×400 and 2400×1500")
    parser.add_argument("--panels", default="", metavar="LIST",
                        help="comma-separated panel names (default: all)")
    parser.add_argument("--cases", default="", metavar="LIST",
                        help="comma-separated case names (default: all)")
    args = parser.parse_args(argv)

    from ntkviz import panels as specs
    from ntkviz.gallery import render_gallery

    panels = [p.strip() for p in args.panels.split(",") if p.strip()] or None
    try:
        panels = None if panels is None else [specs.spec(p).key for p in panels]
    except ValueError:
        unknown = next(p for p in panels if p not in {n for s in specs.specs() for n in s.names})
        parser.error(f"--panels: unknown panel {unknown!r} (known: {', '.join(specs.keys())})")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()] or None
    report = render_gallery(args.outdir, reduced=args.reduced, panels=panels, cases=cases)
    for where, text in report.problems:
        print(f"{where}: {text}", file=sys.stderr)
    print(f"{len(report.files)} files in {args.outdir}, {len(report.problems)} problems "
          f"(see {args.outdir}/index.html)")
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
