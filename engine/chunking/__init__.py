"""Cutting documents into chunks: ``cutting`` (windows of words or sentences, every chunker by name, answer
spans), the chunkers' table (``chunkers``), LangChain's splitters as offsets (``recursive_split``,
``markdown_split``), windows of a model's tokens (``model_tokens``) and chunks longer than a model reads
(``model_window``). Importing the package is cheap: numpy comes with ``cutting``."""
