"""The owner's platform, Debian 13 "trixie" (Raspberry Pi OS's base), for the checks that need it."""
