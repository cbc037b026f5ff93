"""BM25 over passages with whole-KB statistics (rank-bm25's Okapi scoring, IDF from the index)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from rank_bm25 import BM25Okapi


class KbBM25(BM25Okapi):  # type: ignore[misc]
    """BM25Okapi whose IDF comes from the whole knowledge base instead of the few passages scored.

    Args:
        corpus: tokenized passages to score.
        df: document frequency of terms over all indexed chunks.
        n_docs: number of indexed chunks (0 = no index: fall back to the passages' own IDF).
    """

    def __init__(self, corpus: Sequence[Sequence[str]], df: Mapping[str, int], n_docs: int) -> None:
        self._kb_df = df
        self._kb_n = n_docs
        super().__init__([list(c) or ["\x00"] for c in corpus])

    def _calc_idf(self, nd: dict[str, int]) -> None:
        if self._kb_n <= 0:
            super()._calc_idf(nd)
            return
        n = max(self._kb_n, 1)
        # non-negative (Lucene) IDF; a term unseen in the index counts as appearing once
        self.idf = {t: math.log(1 + (n - self._kb_df.get(t, 1) + 0.5) / (self._kb_df.get(t, 1) + 0.5)) for t in nd}

    def score(self, query: Sequence[str]) -> list[float]:
        if not query:
            return [0.0] * self.corpus_size
        # rank-bm25 looks unknown terms up in self.idf; give them the KB idf as well
        for t in query:
            if t not in self.idf and self._kb_n > 0:
                d = self._kb_df.get(t, 1)
                self.idf[t] = math.log(1 + (self._kb_n - d + 0.5) / (d + 0.5))
        return [float(s) for s in self.get_scores(list(query))]
