"""ranklens engine: retrieval without a user interface.

Nothing here imports Textual, and scikit-learn is imported only inside the
functions that need it (LSA, k-means), so importing the engine stays cheap.
"""
from ranklens.engine.errors import RanklensError

__all__ = ["RanklensError"]
