"""How messages word what they count: "1 problem", "2 problems" (never "1 problems" or "problem(s)")."""
from __future__ import annotations


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """`n` and the noun in the number it takes (`nouns`: an irregular plural).

    >>> plural(1, "problem"), plural(2, "problem"), plural(0, "data set"), plural(3, "entry", "entries")
    ('1 problem', '2 problems', '0 data sets', '3 entries')
    """
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"
