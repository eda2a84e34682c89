"""Benchmarks: each module has `run() -> dict` of figures and prints them as JSON when run alone."""
