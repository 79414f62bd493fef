"""Benchmarks of ranklens against peer libraries; run ``python -m benchmarks.run``."""
