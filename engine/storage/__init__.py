"""What is kept on disk between runs: the cache's entries and their staging folders, chunk embeddings, and
the one JSON reader of every file ranklens writes."""
