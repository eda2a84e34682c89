"""Club mode: many tables, one club server (docs/club.md).

Entry points:
- `Uplink(source_url, table, club_config, report).start()`: copy this table's games to the club's
  Redis from a thread of the appliance (`[club]` in the profile); `stop()` ends it.
"""

from .uplink import ClubTrouble, Uplink

__all__ = ["ClubTrouble", "Uplink"]
