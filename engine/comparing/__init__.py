"""Comparing runs: two runs measure by measure with paired tests, more than two against a baseline,
significance tests and corrections, how much of what they rank is judged, and measures per stratum."""
