"""Benchmarks of ranklens against peer libraries; run ``python benchmarks/run.py``."""
