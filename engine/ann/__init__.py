"""Approximate nearest-neighbour (ANN) indexes over unit vectors, behind one contract.

``base``      the contract: ``VectorIndex`` (build, search with a knob, stats), ``Found``
``exact``     brute force, the recall oracle
``ivf``       inverted file (k-means cells, n_probe), seed 004's index
``sweep``     one row per knob value: vectors compared, recall@k against exact, time
``vectors``   the vector sets to index: a corpus' LSA vectors, any encoder's, the synthetic set
``registry``  index kinds by name
``knobs``     each kind's settings, declared once (flags, ``--ann``'s choices and keys derive from them)
``ranking``   a scorer with vectors ranked through an index (``--ann``)
``synthetic`` seed 004's synthetic vectors, bit for bit
"""
