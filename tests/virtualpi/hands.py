"""A recorded game played on the virtual Pi's board, as players would (runs in the VM, as root):

    python3 -m tests.virtualpi.hands PLAN.json.gz     (a plan from tests/virtualpi/plan.py)

Each step waits for its screen on the panel before the next one starts, as a player looks at the
screen before the next tap or press: a tap places the card, waits for the table's answer, lifts the
card and waits until the driver has seen the field empty long enough to report the removal; a press
pulls the button's line down for the plan's `press_ms`, releases it and waits for the screen. So
inputs from the readers' thread and from the buttons' never overtake each other, and every
screen of the game is checked on the panel, through the real drivers. The panel must show the
plan's first screen before the first step and its last at the end.

Prints a line every 50 steps and a summary (JSON) at the end; exits 1 when a screen did not come,
naming the step, with the panel's RAM and the screens awaited in /run/virtualpi/mismatch.json.
"""

import gzip
import json
import socket
import sys
import time
from pathlib import Path

from .board import CONTROL, RUN

#: how long a step's screen may take to reach the panel (the VM may be emulated, and busy)
SCREEN_S = 60.0


class Control:
    """The board's control socket (a client)."""

    def __init__(self, path: Path = CONTROL):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.stream = self.sock.makefile("rw")

    def __call__(self, do: str, **request) -> dict:
        self.stream.write(json.dumps({"do": do, **request}) + "\n")
        self.stream.flush()
        answer = json.loads(self.stream.readline())
        if not answer.pop("ok"):
            raise RuntimeError(f"{do}: {answer['error']}")
        return answer


class Mismatch(AssertionError):
    pass


def play(plan: dict, board: Control) -> dict:
    frames = plan["frames"]

    def screen(want: list[int], where: str) -> float:
        answer = board("frame", want=[frames[i] for i in want], timeout=SCREEN_S)
        if answer["matched"] is None:
            (RUN / "mismatch.json").write_text(json.dumps({"where": where, "panel": answer["ram"],
                                                           "wanted": [frames[i] for i in want]}))
            raise Mismatch(f"{where}: the panel did not show the table's screen within {SCREEN_S:.0f} s "
                           f"({RUN / 'mismatch.json'} has its RAM and the screens awaited)")
        return answer["seconds"]

    start = time.monotonic()
    waits = [screen(plan["start"], "before the first step")]
    for number, step in enumerate(plan["steps"], start=1):
        where = f"step {number} ({plan['game']}.script line {step['line']})"
        if "tap" in step:
            reader, uid = step["tap"]
            board("place", reader=reader, uid=uid)
            waits.append(screen(step["want"], where))
            board("lift", reader=reader, gap=plan["gap"])
        else:
            board("press", gpio=step["press"], ms=plan["press_ms"])
            waits.append(screen(step["want"], where))
        if number % 50 == 0:
            print(f"hands: {number} of {len(plan['steps'])} steps, {time.monotonic() - start:.0f} s", flush=True)
    waits.append(screen(plan["end"], "the game's last screen"))
    return {"steps": len(plan["steps"]), "seconds": round(time.monotonic() - start, 1),
            "slowest_screen_s": max(waits), "chips": board("chips")}


def main(argv: list[str]) -> int:
    plan = json.loads(gzip.decompress(Path(argv[0]).read_bytes()))
    try:
        summary = play(plan, Control())
    except Mismatch as error:
        print(f"hands: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
