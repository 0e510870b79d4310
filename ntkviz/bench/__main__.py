"""Run the benchmarks and print median timings per target."""
from __future__ import annotations

import argparse
import importlib
import sys

from ntkviz.bench import AREAS, machine


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m ntkviz.bench", description=__doc__)
    p.add_argument("areas", nargs="*", choices=[*AREAS, []], metavar="AREA",
                   help=f"subset of {', '.join(AREAS)} (default: all)")
    p.add_argument("--repeats", type=int, default=7, help="repeats per timing (median reported)")
    args = p.parse_args(argv)
    print(f"machine: {machine()}")
    for area in args.areas or AREAS:
        try:
            mod = importlib.import_module(f"ntkviz.bench._{area}")
        except ModuleNotFoundError as exc:
            if exc.name == f"ntkviz.bench._{area}":
                print(f"[{area}] not available yet")
                continue
            raise
        print(f"[{area}]")
        for result in mod.run(args.repeats):
            print("  " + result.line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
