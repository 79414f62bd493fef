"""Tiny neural models made inside the tests and saved to a folder, loaded back through ranklens' own loaders.

No network: a WordPiece vocabulary written here, a random BERT of one layer, a
model2vec static model of random vectors. Their numbers mean nothing; what the
tests check is that ranklens computes with them exactly what the libraries do.
Importing this module needs the neural extra (torch among it): test modules
call ``pytest.importorskip`` first, so the default suite runs without it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

# Words of the lesson corpora (studio-alfa in Italian, battery in English), so queries meet known tokens.
WORDS = sorted(set([
    "il", "la", "le", "lo", "i", "gli", "di", "da", "del", "della", "dei", "delle", "che", "per", "un", "una",
    "con", "non", "si", "è", "e", "a", "in", "al", "alla", "ai", "file", "fattura", "fatture", "nota",
    "credito", "rimborso", "automobile", "permesso", "dentista", "ferie", "copie", "copia", "dati",
    "ripristino", "cancellato", "sbaglio", "giorni", "notifica", "scarto", "entro", "cinque", "hotel", "wifi",
    "password", "posta", "rete", "servizio", "informatico", "segnalazione", "richiede", "richiedo", "approva",
    "chi", "come", "quando", "dove", "quanto", "the", "battery", "warranty", "how", "long", "is", "a", "of",
    "to", "and", "cycles", "years", "charge", "query", "passage"
]))
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LETTERS = "abcdefghijklmnopqrstuvwxyzàèéìòù"


def wordpiece_vocab() -> list[str]:
    """Special tokens, the words, single letters and their ## continuations: every word tokenises."""
    return [*SPECIAL, *WORDS, *LETTERS, *(f"##{c}" for c in LETTERS), ":", "'", ".", ",", "?"]


def _tokenizer(folder: Path):
    from transformers import BertTokenizerFast

    vocab = {token: i for i, token in enumerate(wordpiece_vocab())}
    # accents kept: the vocabulary has à, è, é...; lowercasing alone, as the Italian words are written
    return BertTokenizerFast(vocab=vocab, do_lower_case=True, strip_accents=False)


def _bert_config(**extra):
    from transformers import BertConfig

    # a wide initialisation spreads the random model's outputs, so orders are not decided by rounding
    return BertConfig(vocab_size=len(wordpiece_vocab()), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                      intermediate_size=37, max_position_embeddings=256, initializer_range=0.5, **extra)


def bi_encoder(folder: Path, prompts: dict[str, str] | None = None, seed: int = 0) -> Path:
    """A sentence-transformers bi-encoder (random BERT + mean pooling) saved to ``folder``."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertModel

    try:  # sentence-transformers 6 moved the modules; 5 has them under .models
        from sentence_transformers.sentence_transformer.modules import Pooling, Transformer
    except ImportError:
        from sentence_transformers.models import Pooling, Transformer

    torch.manual_seed(seed)
    base = folder.parent / f".{folder.name}-bert"
    BertModel(_bert_config()).save_pretrained(base)
    _tokenizer(base).save_pretrained(base)
    word = Transformer(str(base), max_seq_length=128)
    dims = getattr(word, "get_embedding_dimension", None) or word.get_word_embedding_dimension
    pooling = Pooling(dims(), "mean")
    model = SentenceTransformer(modules=[word, pooling], prompts=prompts or {}, device="cpu")
    model.save(str(folder))
    return folder


def cross_encoder(folder: Path, seed: int = 1) -> Path:
    """A CrossEncoder (random BERT with a one-logit head) saved to ``folder``."""
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(seed)
    BertForSequenceClassification(_bert_config(num_labels=1)).save_pretrained(folder)
    _tokenizer(folder).save_pretrained(folder)
    return folder


def static_model(folder: Path, dims: int = 16, seed: int = 2) -> Path:
    """A model2vec static model: a word-level vocabulary and random vectors, saved with model2vec itself."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    vocab = {token: i for i, token in enumerate(["[UNK]", "[PAD]", *WORDS])}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase()])
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(seed).normal(size=(len(vocab), dims)).astype(np.float32)
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(folder)
    return folder
