"""Neural models (the neural extra): bi-encoders for the dense scorer, cross-encoders for reranking, and
the models known by a short name."""
