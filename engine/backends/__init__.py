"""External engines that hold a corpus' chunks and rank them (Qdrant), behind the retriever's scorer contract."""
