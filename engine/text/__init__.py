"""Text analysis: text -> terms (tokens, case, accents, stop words, stems), a corpus' language, texts
analysed in batches, and the sparse chunk x term count matrix every lexical scorer shares."""
