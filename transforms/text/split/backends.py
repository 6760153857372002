"""The sentence splitter's backends: kcorpus's rules (default), Kiwi and kss as optional ones.

The rules were tuned against kss's default backend, then Kiwi's `split_into_sents`, on real petitions, Korean
Wikipedia and NSMC comments; `bench/bench_split.py` measures agreement and speed.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from importlib.util import find_spec
from typing import Any

from kcorpus.transforms.text.split.rules import split_sentences

BACKENDS = ("kcorpus", "kiwi", "kss", "kss-fast", "none")


def _paragraphs(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


KIWI_MISSING = "split.backend kiwi needs kiwipiepy and kiwipiepy_model: pip install 'kcorpus[kiwi]'"


def backend_problem(backend: str) -> str | None:
    """Why `backend` cannot run here (its optional package is not installed), or None; imports nothing."""
    if backend == "kiwi" and (find_spec("kiwipiepy") is None or find_spec("kiwipiepy_model") is None):
        return KIWI_MISSING
    return None


class SentenceSplitter:
    """A sentence splitter for one backend, cheap to pickle; kss or Kiwi is loaded on first use.

    Backends: `kcorpus` (this module's rules), `kiwi` (kiwipiepy's `Kiwi.split_into_sents`, an optional
    dependency: the `kiwi` extra), `kss` (kss's default backend), `kss-fast` (kss's `fast` backend), `none`
    (one sentence per non-empty line).
    """

    def __init__(self, backend: str = "kcorpus") -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown sentence splitter backend {backend!r}; valid: {', '.join(BACKENDS)}")
        self.backend = backend
        self._kss_split: Callable[..., Any] | None = None
        self._kiwi: Any = None

    def load(self) -> SentenceSplitter:
        """Import kss (5-7 s) or load Kiwi's model (1-3 s) now for those backends; a no-op otherwise.

        Raises:
            ImportError: `kiwi` without kiwipiepy installed (the message says what to install).
        """
        if self.backend.startswith("kss") and self._kss_split is None:
            import kss  # heavy: imported once per worker, in DoFn.setup()

            self._kss_split = kss.split_sentences
        elif self.backend == "kiwi" and self._kiwi is None:
            problem = backend_problem("kiwi")
            if problem:
                raise ImportError(problem)
            from kiwipiepy import Kiwi  # heavy: the model loads once per worker, in DoFn.setup()

            # num_workers=0: one thread (Beam runs one worker per core); Kiwi warns that 0 meant all cores
            # before 0.21, which is not news here.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                self._kiwi = Kiwi(num_workers=0)
        return self

    def __call__(self, text: str) -> list[str]:
        if self.backend == "kcorpus":
            return split_sentences(text)
        if self.backend == "none":
            return _paragraphs(text)
        if self.backend == "kiwi":
            return self._split_with_kiwi(text)
        return self._split_with_kss(text)

    def _split_with_kiwi(self, text: str) -> list[str]:
        self.load()
        sentences = []
        for paragraph in _paragraphs(text):
            sentences.extend(s.text.strip() for s in self._kiwi.split_into_sents(paragraph))
        return [s for s in sentences if s]

    def _split_with_kss(self, text: str) -> list[str]:
        paragraphs = _paragraphs(text)
        if not paragraphs:
            return []
        self.load()
        kss_backend = "fast" if self.backend == "kss-fast" else "auto"
        # num_workers=1: kss's default starts a process pool per call.
        per_paragraph = self._kss_split(paragraphs, backend=kss_backend, num_workers=1)
        return [s.strip() for sentences in per_paragraph for s in sentences if s.strip()]

    def __getstate__(self) -> dict[str, Any]:
        return {"backend": self.backend, "_kss_split": None, "_kiwi": None}


def make_splitter(backend: str = "kcorpus") -> SentenceSplitter:
    """Create a ready splitter (kss imported, Kiwi's model loaded now for those backends); call it in
    `DoFn.setup()`."""
    return SentenceSplitter(backend).load()
