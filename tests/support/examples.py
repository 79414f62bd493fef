"""How many examples a property test draws: the count it names in `make test`, a third of it in `make test-fast`.

`make test-fast` is the edit-run loop: it loads Hypothesis' "fast" profile (``--hypothesis-profile fast``), a
third of Hypothesis' default 100 examples, and ``examples(n)`` gives a test that names its own count the same
share of it. `make test` and CI draw every example. Under either, an example that failed is kept in Hypothesis'
database (``.hypothesis/``) and tried first on the next run.
"""
from __future__ import annotations

from hypothesis import settings

DEFAULT = 100  # Hypothesis' own max_examples: a test's count is scaled as the profile scales it
settings.register_profile("fast", max_examples=DEFAULT // 3)


def examples(count: int) -> int:
    """``count`` examples under the default profile, the loaded profile's share of it under another."""
    return max(1, count * settings.default.max_examples // DEFAULT)
