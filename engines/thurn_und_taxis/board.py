"""The Thurn und Taxis map and tables, read once from map.json (transcribed with its sources).

The file keeps the shared data file's content and sources; this module turns it into look-up tables
and refuses a file that contradicts itself (a road to an unknown city, a city in two regions...).
"""

from dataclasses import dataclass
from functools import lru_cache

from engines.core import load_data

#: Route-length bonus stacks, longest first: (cards needed, stack id).
ROUTE_STACKS = ((7, "route_7"), (6, "route_6"), (5, "route_5"))
GAME_END = "game_end"


@dataclass(frozen=True)
class RegionBonus:
    """A region bonus stack and what it asks: a house in every listed city, or in each listed region."""

    id: str
    label: str
    cities: frozenset[str]
    regions: frozenset[str]

    def qualifies(self, houses: set[str], region_of: dict[str, str]) -> bool:
        if self.regions:
            return self.regions <= {region_of[city] for city in houses}
        return self.cities <= houses


@dataclass(frozen=True)
class Board:
    city_name: dict[str, str]
    region_of: dict[str, str]
    region_name: dict[str, str]
    neighbours: dict[str, frozenset[str]]
    stacks: dict[str, tuple[int, ...]]
    stack_label: dict[str, str]
    region_bonuses: tuple[RegionBonus, ...]
    carriage_points: dict[int, int]
    houses_per_player: int
    #: city cards of each city in the box
    copies_per_city: int

    @property
    def cities(self) -> tuple[str, ...]:
        return tuple(self.city_name)


@lru_cache(maxsize=1)
def board() -> Board:
    data = load_data(__package__, "map.json")
    region_of: dict[str, str] = {}
    for region in data["regions"]:
        for city in region["cities"]:
            if city in region_of:
                raise ValueError(f"map.json: city {city!r} is in regions {region_of[city]!r} and {region['id']!r}")
            region_of[city] = region["id"]
    city_name = {city["id"]: city["name"] for city in data["cities"]}
    if set(city_name) != set(region_of):
        raise ValueError(f"map.json: cities and region lists differ: {sorted(set(city_name) ^ set(region_of))}")
    neighbours: dict[str, set[str]] = {city: set() for city in city_name}
    for a, b in data["edges"]:
        if a not in city_name or b not in city_name or a == b:
            raise ValueError(f"map.json: bad road {a!r}-{b!r}")
        neighbours[a].add(b)
        neighbours[b].add(a)
    stacks = {stack["id"]: tuple(stack["values"]) for stack in data["bonus_stacks"]}
    route_ids = {stack_id for _, stack_id in ROUTE_STACKS} | {GAME_END}
    bonuses = tuple(
        RegionBonus(
            stack["id"],
            stack["label"],
            frozenset(stack.get("cities_required", ())),
            frozenset(stack.get("regions_required", ())),
        )
        for stack in data["bonus_stacks"]
        if stack["id"] not in route_ids
    )
    for bonus in bonuses:
        unknown = (bonus.cities - set(city_name)) | (bonus.regions - set(region_of.values()))
        if unknown or not (bonus.cities or bonus.regions):
            raise ValueError(f"map.json: bonus stack {bonus.id!r} names unknown places {sorted(unknown)}")
    return Board(
        city_name=city_name,
        region_of=region_of,
        region_name={region["id"]: region["name"] for region in data["regions"]},
        neighbours={city: frozenset(near) for city, near in neighbours.items()},
        stacks=stacks,
        stack_label={stack["id"]: stack["label"].split(" (")[0] for stack in data["bonus_stacks"]},
        region_bonuses=bonuses,
        carriage_points={c["route_length"]: c["victory_points"] for c in data["carriages"]},
        houses_per_player=data["components"]["houses_per_player"],
        copies_per_city=data["components"]["copies_per_city"],
    )
