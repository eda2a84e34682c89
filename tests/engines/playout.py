"""The contract every engine must pass: random legal games to the end, with the invariants checked.

Each game's test module supplies a bot: an object with `choose(state) -> action` that keeps the
table's hidden information (deck, hands, dice) and proposes a legal action. The harness applies it
and checks at every step that:
- the action is one `prompt()` announced, for the seat it announced;
- `apply` never mutates the state it was given;
- junk (malformed copies of the legal action) raises IllegalAction with a screen-sized `short`, and
  changes nothing;
- every score's total is the sum of its breakdown;
- `preview` of the action says what `apply` then does (score changes, events) and changes nothing.
At the end: `is_over`, no prompt, winners among the seats, and replaying the JSON log gives an equal state.
"""

import json
import random
from typing import Any, Protocol

from hypothesis import strategies as st

import engines
from engines import IllegalAction
from engines.core import SHORT_MAX, Game, State

#: Values of each JSON type, for swapping a field to a type it never has.
_OTHER_TYPE = {int: "7", str: 7, bool: "yes", list: 7, dict: [1], float: "x"}


#: Any JSON value, small: what a corrupt journal, a bad file or a bug could hand an engine.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def json_actions(game: Game, fields: tuple[str, ...]) -> st.SearchStrategy:
    """Random JSON, and objects with a real action type whose `fields` hold random JSON."""
    return st.one_of(
        json_values,
        st.fixed_dictionaries({"type": st.sampled_from(game.action_types)}, optional={k: json_values for k in fields}),
    )


class Bot(Protocol):
    def choose(self, state: State) -> dict: ...


def junk_variants(action: dict, n_players: int, rng: random.Random, count: int = 3) -> list[Any]:
    """Malformed copies of a legal action; each must be refused whatever the state."""
    candidates: list[Any] = [
        None,
        [action],
        "play",
        {k: v for k, v in action.items() if k != "type"},
        {**action, "type": "no_such_action"},
        {**action, "type": 3},
        {**action, "bogus_field": 1},
    ]
    if "player" in action:
        candidates += [
            {k: v for k, v in action.items() if k != "player"},
            {**action, "player": n_players},
            {**action, "player": -1},
            {**action, "player": str(action["player"])},
            {**action, "player": True},
            {**action, "player": 0.5},
        ]
    for key, value in action.items():
        if key != "type" and value is not None:
            candidates.append({**action, key: _OTHER_TYPE[type(value)]})
            if isinstance(value, dict):
                for inner, inner_value in value.items():
                    if inner_value is not None and type(inner_value) in (int, str, list):
                        candidates.append({**action, key: {**value, inner: _OTHER_TYPE[type(inner_value)]}})
    return rng.sample(candidates, min(count, len(candidates)))


def assert_refused(game: Game, state: State, action: Any) -> IllegalAction:
    before = state.copy()
    try:
        game.apply(state, action)
    except IllegalAction as refused:
        assert refused.short and len(refused.short) <= SHORT_MAX, refused.short
        assert str(refused)
        assert state == before, "a refused action changed the state"
        return refused
    raise AssertionError(f"{game.name} accepted junk: {action!r}")


def apply_junk(game: Game, state: State, junk: Any) -> None:
    """Random JSON is refused with a screen-sized message (or, when it happens to be a legal action,
    accepted); any other exception fails the test, and `state` never changes."""
    before = state.copy()
    try:
        game.apply(state, junk)
    except IllegalAction as refused:
        assert refused.short and len(refused.short) <= SHORT_MAX and str(refused)
    assert state == before


def check_scores(game: Game, state: State) -> None:
    scores = game.scores(state)
    assert [s.player for s in scores] == list(state.players)
    for score in scores:
        assert score.total == sum(score.breakdown.values()), score


def play_random_game(name: str, players: list[str], options: dict, bot: Bot, seed: int, max_steps: int = 20000) -> State:
    """Play one game with `bot` to the end, checking the contract at every step; the final state."""
    game = engines.get(name)
    rng = random.Random(seed)
    state = game.start(players, options)
    for _ in range(max_steps):
        if game.is_over(state):
            break
        prompt = game.prompt(state)
        assert prompt is not None, "no prompt while the game is not over"
        action = bot.choose(state)
        assert action["type"] in prompt.expects, (action, prompt)
        if "player" in action and prompt.player is not None:
            assert action["player"] == prompt.player, (action, prompt)
        for junk in junk_variants(action, len(players), rng):
            assert_refused(game, state, junk)
        before = state.copy()
        preview = game.preview(state, action)
        try:
            new = game.apply(state, action)
        except IllegalAction as refused:
            raise AssertionError(f"legal action refused: {action!r}: {refused}") from refused
        assert state == before, f"apply or preview mutated its input on {action!r}"
        assert preview.legal and preview.events == new.events
        assert preview.totals == tuple(a.total - b.total for a, b in zip(game.scores(new), game.scores(state)))
        assert len(new.actions) == len(state.actions) + 1
        state = new
        check_scores(game, state)
        assert isinstance(game.phase(state), str)
    else:
        raise AssertionError(f"game not over after {max_steps} steps")
    assert game.prompt(state) is None
    winners = game.winners(state)
    assert winners and set(winners) <= set(range(len(players)))
    log = json.loads(json.dumps(list(state.actions)))
    assert engines.replay(name, players, options, log) == state
    return state
