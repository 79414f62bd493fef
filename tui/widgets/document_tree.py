"""The Search tab's documents: a tree of the corpus' documents, each opening onto its chunks.

The first TREE_DOCUMENTS documents are listed (a bigger corpus is reached by
searching), and a document's chunks are added only when it is opened. The
document or chunk under the cursor is posted (``Highlighted``) as a heading
and a window of the document's text, the chunk marked, for the detail pane.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from rich.text import Text
from textual.message import Message
from textual.widgets import Tree

from ranklens.tui.safe import clean, one_line, safe_text
from ranklens.tui.search_work import Documents
from ranklens.tui.widgets.highlight import highlighted
from ranklens.tui.widgets.lists import KeyTree

TREE_DOCUMENTS = 1_000  # documents listed in the tree; a bigger corpus is reached by searching
DOCUMENT_WINDOW = 20_000  # characters of a document the detail pane draws around a chunk


@dataclass(frozen=True)
class DocumentEntry:
    """A document of the tree: where its chunks are in the retriever's chunk list."""

    positions: Sequence[int]


@dataclass(frozen=True)
class ChunkEntry:
    position: int


class DocumentTree(KeyTree):
    class Highlighted(Message):
        """The cursor is on a document or a chunk: what the detail pane shows of it."""

        def __init__(self, heading: Text, text: Text) -> None:
            super().__init__()
            self.heading = heading
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("documents", id=id)
        self.show_root = False
        self.documents: Documents | None = None  # what the tree lists

    def show(self, documents: Documents) -> None:
        """List ``documents``' documents (a new scorer on the same chunks changes nothing)."""
        previous, self.documents = self.documents, documents
        if previous is not None and previous.chunks is documents.chunks:
            return
        self.clear()
        corpus = documents.context.corpus
        for doc_id, positions in islice(documents.by_document.items(), TREE_DOCUMENTS):  # not all of a big corpus
            document = corpus.document(doc_id)
            label = safe_text(one_line(document.title or doc_id, 60), keep_newlines=False)
            label.append(f" ({len(positions)})", style="dim")
            # Chunks are added when the document is opened: a big corpus must not build them all.
            self.root.add(label, data=DocumentEntry(positions))
        hidden = len(documents.by_document) - TREE_DOCUMENTS
        if hidden > 0:
            self.root.add_leaf(Text(f"… {hidden:,} more documents: search to reach them", style="dim"))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[DocumentEntry | ChunkEntry]) -> None:
        node, entry = event.node, event.node.data
        if not isinstance(entry, DocumentEntry) or node.children or self.documents is None:
            return
        for position in entry.positions:
            chunk = self.documents.chunks[position]
            node.add_leaf(safe_text(one_line(f"{chunk.index}: {chunk.id}", 60), keep_newlines=False),
                          data=ChunkEntry(position))

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[DocumentEntry | ChunkEntry]) -> None:
        entry = event.node.data
        if entry is None or self.documents is None:
            return
        position = entry.position if isinstance(entry, ChunkEntry) else entry.positions[0]
        chunk = self.documents.chunks[position]
        document = self.documents.context.corpus.document(chunk.doc_id)
        heading = safe_text(document.title or document.id, style="bold", keep_newlines=False)
        # Drawn on every cursor move: a long document shows a window around the chunk, never all of it.
        centre = (chunk.start + chunk.end) // 2 if isinstance(entry, ChunkEntry) else 0
        lo = max(0, min(centre - DOCUMENT_WINDOW // 2, len(document.text) - DOCUMENT_WINDOW))
        hi = min(len(document.text), lo + DOCUMENT_WINDOW)
        piece = document.text[lo:hi]
        if isinstance(entry, ChunkEntry):
            heading.append(f"  chunk {chunk.index} ({clean(chunk.id, keep_newlines=False)}) highlighted", style="dim")
            text = highlighted(piece, [(max(chunk.start - lo, 0), min(chunk.end, hi) - lo)], style="reverse")
        else:
            text = safe_text(piece)
        if hi - lo < len(document.text):
            heading.append(f"  characters {lo:,}–{hi:,} of {len(document.text):,}", style="dim")
        self.post_message(self.Highlighted(heading, text))
