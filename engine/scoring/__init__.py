"""The scorers: TF-IDF, BM25 (and its variants), LSA, fusion and dense, one module each behind the Scorer
protocol of ``base``, found by name in ``registry``."""
