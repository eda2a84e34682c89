"""Closing a Thurn und Taxis route at the table: every placement the engine accepts can be recorded."""

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engines
from firmware.adapters import adapter_for
from firmware.flows import STEPWISE, Choose
from firmware.tagmap import TagEntry
from tests.engines.bots.thurn_und_taxis import closing_states, random_placement

game = engines.get("thurn_und_taxis")


def record_close(adapter, state, houses: list[str], rng: random.Random) -> dict:
    """Press ok and answer as a player wanting `houses`: their choice when listed, else house by house,
    each city tapped (a route card) or picked at random; no coachman."""
    flow = adapter.press(state, "ok", None)
    request, picked = next(flow), 0
    while True:
        assert isinstance(request, Choose)
        values = [option.value for option in request.options]
        if request.field == "houses":
            answer = next((v for v in values if v is not STEPWISE and sorted(v) == sorted(houses)), STEPWISE)
        elif request.field == "houses[]":
            city = houses[picked] if picked < len(houses) else None
            picked += 1
            if city is not None and rng.random() < 0.5:
                answer = request.tap(TagEntry(game.name, "card", {"id": f"{city}-3", "city": city}, city))
            else:
                answer = city
        else:
            assert request.field == "coachman"
            answer = False
        assert answer in values, (request.question, answer, values)
        try:
            request = flow.send(answer)
        except StopIteration as done:
            return done.value


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_players=st.integers(2, 4), placed=st.sampled_from([0, 15, 18]), hints=st.booleans())
def test_every_close_the_engine_accepts_is_reachable_at_the_table(seed, n_players, placed, hints):
    rng = random.Random(seed)
    adapter = adapter_for("thurn_und_taxis", hints)
    for state in closing_states(n_players, seed, placed):
        houses = random_placement(rng, state)
        if not game.preview(state, {"type": "close", "player": state.turn, "houses": houses}).legal:
            continue
        action = record_close(adapter, state, houses, rng)
        assert sorted(action["houses"]) == sorted(houses) and action["player"] == state.turn
        game.apply(state, action)
