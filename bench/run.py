"""Run every benchmark module in bench/ (each with a run()) and print one JSON object with all their
figures (`make bench`)."""

import importlib
import json
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    figures = {}
    for module in sorted(pkgutil.iter_modules([str(ROOT / "bench")]), key=lambda m: m.name):
        bench = importlib.import_module(f"bench.{module.name}")
        if module.name != "run" and hasattr(bench, "run"):
            figures[module.name] = bench.run()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
