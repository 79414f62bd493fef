"""Engines outside ranklens that rank a corpus' chunks, behind the retriever's scorer contract: Qdrant, and your
own retriever (a Python function or an HTTP endpoint)."""
