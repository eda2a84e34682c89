"""Engine speed: apply() and preview() time per action (median, p99), complete random games per second.

Games are played by the random bots of tests/engines/bots; the bots' own time is excluded from the
apply figures and included in games per second (a full game as a table would produce it). Each
action is also previewed (what a hint costs). Targets on the 2-core dev machine: p99 apply below
200 µs, p99 preview below 1 ms.
"""

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engines  # noqa: E402
from tests.engines.bots import bot_module  # noqa: E402

GAMES_PER_SETUP = 20
NAMES = ["Ana", "Ben", "Cy", "Dee", "Eve"]


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(fraction * len(sorted_values)))]


def bench_engine(name: str) -> dict:
    game = engines.get(name)
    module = bot_module(name)
    apply_times: list[float] = []
    preview_times: list[float] = []
    games = 0
    started = time.perf_counter()
    for n_players, options in module.SETUPS:
        for seed in range(GAMES_PER_SETUP):
            bot = module.Bot(n_players, options, seed)
            state = game.start(NAMES[:n_players], options)
            while not game.is_over(state):
                action = bot.choose(state)
                t0 = time.perf_counter()
                game.preview(state, action)
                t1 = time.perf_counter()
                state = game.apply(state, action)
                apply_times.append(time.perf_counter() - t1)
                preview_times.append(t1 - t0)
            games += 1
    elapsed = time.perf_counter() - started - sum(preview_times)
    apply_times.sort()
    preview_times.sort()
    return {
        "actions": len(apply_times),
        "apply_median_us": round(statistics.median(apply_times) * 1e6, 1),
        "apply_p99_us": round(_percentile(apply_times, 0.99) * 1e6, 1),
        "preview_median_us": round(statistics.median(preview_times) * 1e6, 1),
        "preview_p99_us": round(_percentile(preview_times, 0.99) * 1e6, 1),
        "games_per_second": round(games / elapsed, 1),
    }


def run() -> dict:
    return {name: bench_engine(name) for name in engines.names()}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
