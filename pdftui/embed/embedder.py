"""The embedder: one model's L2-normalised float32 vectors for passages and queries.

:class:`Embedder` puts the three parts of embedding together: the model's files and loading
(:mod:`pdftui.embed.model`), the cutting of a page into units (:mod:`pdftui.embed.units`)
and inference through fastembed / onnxruntime, here. Construction is cheap and imports
nothing heavy; the tokenizer and the model are loaded on first use, under a lock, so a worker
thread's ``embed`` and the UI thread's ``embed_query`` may race safely.
"""

from __future__ import annotations

import pathlib
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .model import (
    DEFAULT_DIM,
    DEFAULT_MAX_TOKENS,
    DEFAULT_MODEL,
    DEFAULT_WEIGHTS_SHA256,
    EmbedderUnavailable,
    default_tokenizer,
    int8_enabled,
    int8_model,
    known_int8_hash,
    load_text_embedding,
    model_prefixes,
    resolve_model_name,
    text_embedding_class,
    unsupported_message,
    weights_sha256,
)
from .pairs import pair_spans
from .units import PLAN_1, UnitPlan, replace_surrogates, split_units, tile_spans

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from tokenizers import Tokenizer

__all__ = ["Embedder", "length_runs"]


def length_runs(counts: np.ndarray, batch_size: int, window: int) -> list[np.ndarray]:
    """Runs of indexes sorted by ``counts``, each at most ``batch_size`` x ``window`` padded
    tokens (a run's padded size is its length times its longest count)."""
    import numpy as np

    order = np.argsort(counts, kind="stable")
    budget = max(1, int(batch_size)) * window
    runs: list[np.ndarray] = []
    start = 0
    for k in range(1, len(order) + 1):
        if k - start > 1 and (k - start) * int(counts[order[k - 1]]) > budget:
            runs.append(order[start:k - 1])
            start = k - 1
    if start < len(order):
        runs.append(order[start:])
    return runs


def _normalize_rows(x: np.ndarray) -> np.ndarray:
    import numpy as np

    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


class Embedder:
    """One embedding model: lazy loading, page chunking and L2-normalised float32 vectors.

    Construction is cheap (no import of fastembed, no file access). The model is loaded on the
    first call that needs it (``embed``, ``embed_query``, and for non-default models also
    ``units``, ``weights_hash``, ``max_tokens``); loading is guarded by a lock, so ``embed`` in a
    worker thread and ``embed_query`` in the UI thread may race safely. Inference itself is not
    serialised (an onnxruntime session may be run from several threads at once).

    Attributes:
        model_id: the model name (``DEFAULT_MODEL`` or any fastembed text model name).
        cache_dir: pdftui's cache directory; the model folder lives in ``cache_dir/models`` and
            fastembed's downloads in ``cache_dir/fastembed``.
    """

    def __init__(
        self, model_name: str | None, cache_dir: pathlib.Path, *, threads: int | None = None,
        int8: bool | None = None, streams: int = 1,
    ) -> None:
        """``model_name`` None means env ``PDFTUI_EMBED_MODEL`` or the default model.

        ``threads`` is onnxruntime's intra-op thread count (None: onnxruntime's default, the
        number of physical cores). ``streams``: how many single-text runs
        (``embed(single=True)``) go at once, each from its own thread into the one
        onnxruntime session (whose ``run`` is thread-safe); with ``threads=1`` each run
        keeps one core busy without the intra-op threads' hand-offs and spin-waits, which
        cost most when other processes share the cores. ``int8``: run the default model as its int8 copy
        (:mod:`pdftui.quantize`; None: env ``PDFTUI_EMBED_INT8``, else
        :data:`INT8_DEFAULT`); other models
        run as they are.
        """
        self.model_id: str = resolve_model_name(model_name)
        self.cache_dir = pathlib.Path(cache_dir)
        self.threads = threads
        self.streams = max(1, int(streams))
        self.int8 = self.model_id == DEFAULT_MODEL and (int8_enabled() if int8 is None else int8)
        self._lock = threading.RLock()
        self._model: Any = None  # fastembed.TextEmbedding
        self._tokenizer: Tokenizer | None = None  # for units(): no truncation, no padding
        self._max_tokens: int | None = DEFAULT_MAX_TOKENS if self.is_default else None
        self._weights_hash: str | None = (
            DEFAULT_WEIGHTS_SHA256 if self.is_default and not self.int8 else None)
        self._dim: int | None = DEFAULT_DIM if self.is_default else None
        self._n_special: int | None = None
        #: tokens (special tokens included) / padded tokens run through the model so far
        self.tokens_embedded = 0
        self.tokens_padded = 0
        self._passage_prefix_tokens: int | None = None
        self.query_prefix, self.passage_prefix = model_prefixes(self.model_id)

    def __repr__(self) -> str:
        state = "loaded" if self._model is not None else "not loaded"
        return f"Embedder({self.model_id!r}, {state})"

    # ---------------------------------------------------------------- properties

    @property
    def is_default(self) -> bool:
        """True for the bundled offline model."""
        return self.model_id == DEFAULT_MODEL

    @property
    def loaded(self) -> bool:
        """Whether the ONNX model is loaded (no load is triggered)."""
        return self._model is not None

    def known_weights_hash(self) -> str | None:
        """:attr:`weights_hash` when it is known without building or loading anything
        (the default model, or its int8 copy already built in this cache), else None."""
        if self._weights_hash is None and self.int8:
            return known_int8_hash(self.cache_dir)
        return self._weights_hash

    @property
    def weights_hash(self) -> str:
        """Hex sha256 of the model's weights file(s), for the index to detect a model change.

        Default model: the known constant (no I/O); its int8 copy: the copy's sha256 (built
        on first use, then read from its marker). Others: the hash of the ONNX (or
        safetensors) file fastembed loaded, followed by its additional files (external data) if
        any, computed once and cached in ``cache_dir/embed-weights-sha256.json`` keyed on path
        and stat. Loads the model if needed.
        """
        if self._weights_hash is None and self.int8:
            with self._lock:
                if self._weights_hash is None:
                    self._weights_hash = int8_model(self.cache_dir)[1]
        if self._weights_hash is None:
            self._ensure_model()
            with self._lock:
                if self._weights_hash is None:
                    self._weights_hash = self._hash_loaded_weights()
        return self._weights_hash

    @property
    def dim(self) -> int:
        """Vector length (384 for the default model). Does not load the model."""
        if self._dim is None:
            if self._model is not None:
                self._dim = int(self._model.embedding_size)
            else:
                te = text_embedding_class()
                try:
                    self._dim = int(te.get_embedding_size(self.model_id))
                except ValueError as exc:
                    raise EmbedderUnavailable(unsupported_message(self.model_id)) from exc
        return self._dim

    @property
    def max_tokens(self) -> int:
        """The model's input limit in tokens, special tokens included (256 for the default).

        Longer inputs are truncated by the model; :meth:`units` keeps every unit within it.
        """
        if self._max_tokens is None:
            self._units_tokenizer()
        assert self._max_tokens is not None
        return self._max_tokens

    # ---------------------------------------------------------------- chunking

    def unit_spans(self, text: str, plan: UnitPlan = PLAN_1, max_tokens: int | None = None,
                   cuts: Iterable[int] = ()) -> list[tuple[int, int]]:
        """Character spans ``[(start, end)]`` of one page's embedding units
        (:func:`pdftui.embed.units.split_units`), each fitting the model.

        A unit holds at most :attr:`max_tokens` tokens including the special tokens and a
        passage prefix (for models that need one); ``max_tokens`` lowers the limit (a
        section head unit); ``plan.overlap`` picks overlapping windows or equal tiles,
        ``plan.paragraphs`` units that follow the paragraphs, each starting at the character
        offsets ``cuts`` if any; ``plan.tiles`` the pairs of :meth:`tile_spans`'s
        neighbouring tiles (:func:`pdftui.embed.pairs.pair_spans`; ``max_tokens`` unused).
        Tokenizer only: for the default model this does not load the ONNX model.
        """
        if plan.tiles:
            return [(s, e) for s, e, _k in pair_spans(self.tile_spans(text, plan, cuts))]
        if not text or not text.strip():
            return []
        tok = self._units_tokenizer()
        return split_units(text, tok, self._budget(max_tokens), overlap=plan.overlap,
                           shared=plan.shared, plan=plan, cuts=cuts)

    def tile_spans(self, text: str, plan: UnitPlan, cuts: Iterable[int] = ()
                   ) -> list[tuple[int, int]]:
        """Character spans of one page's tiles under a plan with ``tiles``
        (:func:`pdftui.embed.units.tile_spans`): no overlap, each of at most ``plan.tiles``
        tokens including the special tokens and a passage prefix, one starting at each
        offset of ``cuts``. Tokenizer only."""
        if not text or not text.strip():
            return []
        tok = self._units_tokenizer()
        return tile_spans(text, tok, self._budget(plan.tiles), cuts)

    def _budget(self, max_tokens: int | None) -> int:
        """Text tokens a unit of at most ``max_tokens`` model tokens (None: the model's
        limit) may hold: special tokens and a passage prefix taken off."""
        self._units_tokenizer()
        assert self._n_special is not None and self._passage_prefix_tokens is not None
        cap = min(self.max_tokens, max_tokens or self.max_tokens)
        return max(8, cap - self._n_special - self._passage_prefix_tokens)

    def units(self, text: str, plan: UnitPlan = PLAN_1, max_tokens: int | None = None
              ) -> list[str]:
        """The texts of :meth:`unit_spans`: ``[]`` for blank text, ``[text]`` unchanged when
        it fits, else substrings of ``text`` of at most :attr:`max_tokens` tokens."""
        return [text[s:e] for s, e in self.unit_spans(text, plan, max_tokens)]

    # ---------------------------------------------------------------- embedding

    def embed(self, texts: list[str], batch_size: int = 16, *, sort: bool = True,
              single: bool = False) -> np.ndarray:
        """Embed passages (units from :meth:`units`).

        Args:
            texts: n strings; longer ones than :attr:`max_tokens` tokens are truncated.
            batch_size: full-length texts per onnxruntime run; 16 peaks at ~0.9 GB RSS for
                the default model at 256 tokens, 32 at ~1.5 GB.
            sort: run texts of similar token length together (:meth:`length_batches`); False
                runs them in the given order, ``batch_size`` at a time (the earlier way).
            single: each text its own onnxruntime run (``batch_size`` and ``sort`` unused),
                :attr:`streams` of them at once: a text's vector then depends on that text
                alone. The int8 copy quantizes
                activations per run (one scale over every text and pad token of the run),
                so in a shared run a vector depends on its run-mates (cosine .995 mean,
                .989 min between the two ways on 96 corpus units).

        Returns:
            float32 array of shape (n, dim), each row L2-normalised (unit length); cosine
            similarity is the dot product. ``n == 0`` gives shape (0, dim).
        """
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._ensure_model()
        prepared = [self.passage_prefix + replace_surrogates(t) for t in texts]
        out = np.zeros((len(prepared), self.dim), dtype=np.float32)
        counts = self._padded_counts(prepared)
        if single:
            runs = [np.array([i]) for i in range(len(prepared))]
        elif sort:
            runs = length_runs(counts, batch_size, min(self.max_tokens, DEFAULT_MAX_TOKENS))
        else:
            step = max(1, int(batch_size))
            runs = [np.arange(i, min(i + step, len(prepared)))
                    for i in range(0, len(prepared), step)]
        self.tokens_embedded += int(counts.sum())
        self.tokens_padded += sum(len(r) * int(counts[r].max()) for r in runs)
        try:
            self._run(model, prepared, runs, out)
        except EmbedderUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001
            raise EmbedderUnavailable(f"embedding with {self.model_id} failed: {exc}") from exc
        return _normalize_rows(out)

    def _run(self, model: Any, prepared: list[str], runs: list[np.ndarray],
             out: np.ndarray) -> None:
        """Embed each run of ``prepared`` into its rows of ``out``, :attr:`streams` runs at
        once when there are several runs."""
        import numpy as np

        def one(idx: np.ndarray) -> None:
            vectors = list(model.passage_embed([prepared[i] for i in idx], batch_size=len(idx)))
            out[idx] = np.vstack(vectors)

        if self.streams == 1 or len(runs) == 1:
            for idx in runs:
                one(idx)
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(min(self.streams, len(runs)),
                                thread_name_prefix="pdftui-embed") as pool:
            for _ in pool.map(one, runs):   # re-raises a run's error
                pass

    def token_counts(self, texts: list[str]) -> list[int]:
        """Tokens of each text without special tokens (tokenizer only; no model load for
        the default model)."""
        tok = self._units_tokenizer()
        try:
            return [len(e.ids) for e in tok.encode_batch([replace_surrogates(t) for t in texts],
                                                         add_special_tokens=False)]
        except Exception:  # noqa: BLE001 - odd text: fall back to a character estimate
            return [len(t) // 4 for t in texts]

    def model_tokens(self, texts: list[str]) -> list[int]:
        """Tokens the model sees for each text (special tokens and a passage prefix
        included, at most :attr:`max_tokens`): the cost of embedding it. Tokenizer only."""
        return [int(n) for n in self._padded_counts(
            [self.passage_prefix + t for t in texts])] if texts else []

    def _padded_counts(self, texts: list[str]) -> np.ndarray:
        """Tokens the model sees for each text: special tokens included, cut at the limit."""
        import numpy as np

        counts = np.asarray(self.token_counts(texts), dtype=np.int64)
        n_special = self._n_special if self._n_special is not None else 2
        return np.minimum(counts + n_special, self.max_tokens)

    def length_batches(self, texts: list[str], batch_size: int = 16) -> list[np.ndarray]:
        """Index arrays cutting ``texts`` into onnxruntime runs of similar token length.

        fastembed pads each run to its longest text, so the texts are sorted by token count
        and cut into runs of at most ``batch_size`` x 256 padded tokens (``batch_size`` full
        windows; more texts when they are shorter): short texts (a page's last lines, a
        heading) share runs with each other, not with full windows. Returns the runs' index
        arrays, shortest texts first; together they hold every index once.
        """
        return length_runs(self._padded_counts(texts), batch_size,
                            min(self.max_tokens, DEFAULT_MAX_TOKENS))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query (with the model's query prefix, via fastembed's query_embed).

        Returns:
            float32 array of shape (dim,), L2-normalised.
        """
        import numpy as np

        model = self._ensure_model()
        try:
            vector = next(iter(model.query_embed(self.query_prefix + replace_surrogates(text))))
        except Exception as exc:  # noqa: BLE001
            raise EmbedderUnavailable(f"embedding with {self.model_id} failed: {exc}") from exc
        return _normalize_rows(np.asarray(vector).reshape(-1))

    def load(self) -> None:
        """Load the model now (otherwise the first ``embed``/``embed_query`` does it).

        Raises:
            EmbedderUnavailable: the model cannot be assembled, found or downloaded.
        """
        self._ensure_model()

    # ---------------------------------------------------------------- loading

    def _ensure_model(self) -> Any:
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def _load_model(self) -> Any:
        model, sha = load_text_embedding(self.model_id, self.cache_dir, threads=self.threads,
                                         int8=self.int8)
        if sha is not None:
            self._weights_hash = sha
        return model

    def _units_tokenizer(self) -> Tokenizer:
        tok = self._tokenizer
        if tok is not None:
            return tok
        with self._lock:
            if self._tokenizer is not None:
                return self._tokenizer
            from tokenizers import Tokenizer

            if self.is_default:
                tok = default_tokenizer()
                max_tokens = DEFAULT_MAX_TOKENS
            else:
                inner = self._ensure_model().model
                fe_tok = getattr(inner, "tokenizer", None)
                if fe_tok is None and hasattr(inner, "_ensure_tokenizer"):
                    inner._ensure_tokenizer()
                    fe_tok = getattr(inner, "tokenizer", None)
                if fe_tok is None:
                    raise EmbedderUnavailable(f"model {self.model_id} exposes no tokenizer")
                trunc = fe_tok.truncation or {}
                max_tokens = int(trunc.get("max_length") or 512)
                tok = Tokenizer.from_str(fe_tok.to_str())
            tok.no_truncation()
            tok.no_padding()
            self._n_special = int(tok.num_special_tokens_to_add(False))
            prefix = self.passage_prefix
            self._passage_prefix_tokens = (
                len(tok.encode(prefix, add_special_tokens=False)) if prefix else 0
            )
            self._max_tokens = max_tokens
            self._tokenizer = tok
            return tok

    def _hash_loaded_weights(self) -> str:
        inner = self._model.model
        model_dir = pathlib.Path(getattr(inner, "_model_dir"))
        desc = inner.model_description
        files = [model_dir / desc.model_file]
        files += [model_dir / f for f in (getattr(desc, "additional_files", None) or [])]
        files = [f for f in files if f.is_file()]
        if not files:
            raise EmbedderUnavailable(f"model {self.model_id}: weights not found in {model_dir}")
        return weights_sha256(files, self.cache_dir, self.model_id)
