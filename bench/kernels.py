"""The int8 embedding model's speed against this CPU's int8 peak, and what closes the gap.

    python bench/kernels.py --cache-dir CACHE [--units 240] [--rounds 3] [--json PATH]

CACHE is an indexed cache (its int8 model, its units' text). A fixed sample of its units
(every k-th, their page text cut at the stored character spans) is embedded by each way
below, interleaved round by round (the order shuffled each round, fixed seed), one
intra-op thread each, so CPU seconds (``time.process_time``) are those of one core; per
way: median CPU seconds and tokens per CPU-second (tokens as the model sees them, special
tokens included), wall seconds, and the cosine of its vectors to today's (``product``):
mean and minimum. Ways:

- ``product``: today's path, fastembed's session, one unit per run (the index's
  ``single`` runs);
- ``ort``: the same model in an onnxruntime session of our own (ORT_ENABLE_ALL, one
  thread), token ids from the tokenizer, mean pooling here: fastembed's overhead;
- ``ort-basic`` / ``ort-extended``: the same at a lower graph optimisation level;
- ``ort-noarena``: without the CPU memory arena;
- ``ort-bucket``: one unit per run padded to the next of 32/64/128/256 tokens (static
  shapes; the mask keeps the pads out of the mean);
- ``ort-batch16``: runs of up to 16 units of about the same length (sorted: little
  padding; the int8 activations are quantized per run, so vectors depend on run-mates);
- ``ort-fused``: a model built with onnxruntime's transformer fusions (Attention,
  SkipLayerNormalization, BiasGelu) before the same per-channel dynamic quantization.

The peak: MiniLM-L6 does 6 layers x (4 x 384 x 384 + 2 x 384 x 1536) = 10.6 M int8
multiply-adds per token in its linear layers (plus 6 x 2 x L x 384 fp32 in attention, L the
sequence length); an AVX-512 VNNI core (``vpdpbusd`` on 512 bits: 64 u8 x s8 products a
cycle) at the TSC clock read from /proc/cpuinfo does 64 x f multiply-adds a second.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import sqlite3
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

LAYERS, HIDDEN, FFN, HEADS = 6, 384, 1536, 12
LINEAR_MACS = LAYERS * (4 * HIDDEN * HIDDEN + 2 * HIDDEN * FFN)
VNNI_MACS_PER_CYCLE = 64


def attention_macs(length: int) -> int:
    """fp32 multiply-adds per token of the attention products (Q K^T and A V)."""
    return LAYERS * 2 * length * HIDDEN


def clock_hz() -> float:
    """The TSC clock from /proc/cpuinfo's BogoMIPS (2 x MHz on x86), else 2.5 GHz."""
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.lower().startswith("bogomips"):
                return float(line.split(":")[1]) / 2 * 1e6
    except OSError:
        pass
    return 2.5e9


def sample_units(cache: pathlib.Path, n: int) -> list[str]:
    """Every k-th stored page unit's text, ``n`` of them."""
    db = sqlite3.connect(f"file:{cache / 'index.sqlite3'}?mode=ro", uri=True)
    rows = db.execute("SELECT p.text, u.char_start, u.char_end FROM units u JOIN pages p ON"
                      " p.content_id = u.content_id AND p.number = u.page WHERE u.page > 0"
                      " ORDER BY u.id").fetchall()
    db.close()
    step = max(1, len(rows) // n)
    return [t[a:b] for t, a, b in rows[::step][:n]]


def session(path: pathlib.Path, level: str = "all", arena: bool = True):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = {
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}[level]
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.enable_cpu_mem_arena = arena
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def run_ort(sess, encs, runs, pad_to=None):
    """Mean-pooled, L2-normalised vectors of ``encs`` (tokenizer encodings), one
    onnxruntime run per index list of ``runs``; ``pad_to(L)`` pads a run to a length."""
    import numpy as np

    names = {i.name for i in sess.get_inputs()}
    out = np.zeros((len(encs), HIDDEN), dtype=np.float32)
    for idx in runs:
        length = max(len(encs[i].ids) for i in idx)
        if pad_to:
            length = pad_to(length)
        ids = np.zeros((len(idx), length), dtype=np.int64)
        mask = np.zeros_like(ids)
        for r, i in enumerate(idx):
            e = encs[i].ids
            ids[r, :len(e)] = e
            mask[r, :len(e)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in names:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = sess.run(None, feed)[0]
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        out[idx] = pooled
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def fused_model(src: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    """The recipe of :mod:`pdftui.embed.quantize` with onnxruntime's BERT fusions first."""
    import onnx
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers import optimizer

    from pdftui.embed.quantize import strip_softmax_nan_guard

    folded = work / "folded.onnx"
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    so.optimized_model_filepath = str(folded)
    ort.InferenceSession(str(src), so, providers=["CPUExecutionProvider"])
    model = onnx.load(str(folded))
    strip_softmax_nan_guard(model)
    onnx.save(model, str(work / "unguarded.onnx"))
    opt = optimizer.optimize_model(str(work / "unguarded.onnx"), model_type="bert",
                                   num_heads=HEADS, hidden_size=HIDDEN, opt_level=0)
    print("fusions:", opt.get_fused_operator_statistics(), file=sys.stderr)
    opt.save_model_to_file(str(work / "fused.onnx"))
    out = work / "fused-int8.onnx"
    quantize_dynamic(str(work / "fused.onnx"), str(out), per_channel=True,
                     weight_type=QuantType.QInt8)
    return out


def main() -> None:
    import numpy as np

    from pdftui.embed import DEFAULT_MODEL
    from pdftui.embed.model import default_tokenizer, text_embedding_class

    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--units", type=int, default=240)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ways", default=None, help="only these ways (comma-separated)")
    ap.add_argument("--json", dest="json_path", default=None)
    args = ap.parse_args()
    cache = pathlib.Path(args.cache_dir)
    int8 = cache / "models" / "all-MiniLM-L6-v2-int8"
    texts = sample_units(cache, args.units)
    tok = default_tokenizer()
    tok.enable_truncation(256)
    encs = tok.encode_batch(texts)
    tokens = sum(len(e.ids) for e in encs)
    singles = [[i] for i in range(len(encs))]
    order = np.argsort([len(e.ids) for e in encs], kind="stable")
    batches = [list(order[i:i + 16]) for i in range(0, len(order), 16)]
    buckets = (32, 64, 128, 256)

    fe = text_embedding_class()(DEFAULT_MODEL, threads=1, specific_model_path=str(int8),
                                cache_dir=tempfile.mkdtemp(), local_files_only=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="pdftui-kernels-"))
    ways = {
        "product": lambda: np.vstack([np.vstack(list(fe.passage_embed([t], batch_size=1)))
                                      for t in texts]),
        "ort": (lambda s: lambda: run_ort(s, encs, singles))(session(int8 / "model.onnx")),
        "ort-basic": (lambda s: lambda: run_ort(s, encs, singles))(
            session(int8 / "model.onnx", "basic")),
        "ort-extended": (lambda s: lambda: run_ort(s, encs, singles))(
            session(int8 / "model.onnx", "extended")),
        "ort-noarena": (lambda s: lambda: run_ort(s, encs, singles))(
            session(int8 / "model.onnx", arena=False)),
        "ort-bucket": (lambda s: lambda: run_ort(
            s, encs, singles, pad_to=lambda n: next(b for b in buckets if b >= n)))(
            session(int8 / "model.onnx")),
        "ort-batch16": (lambda s: lambda: run_ort(s, encs, batches))(
            session(int8 / "model.onnx")),
    }
    try:
        src = cache / "models" / "all-MiniLM-L6-v2" / "model.onnx"
        fused = fused_model(src, work)
        ways["ort-fused"] = (lambda s: lambda: run_ort(s, encs, singles))(session(fused))
    except Exception as exc:  # noqa: BLE001 - a fusion the installed version lacks
        print(f"ort-fused skipped: {exc}", file=sys.stderr)
    if args.ways:
        keep = set(args.ways.split(",")) | {"product"}
        ways = {k: v for k, v in ways.items() if k in keep}
    for fn in ways.values():   # warm-up: first runs allocate
        fn()
    cpu: dict[str, list[float]] = {k: [] for k in ways}
    wall: dict[str, list[float]] = {k: [] for k in ways}
    vecs: dict[str, np.ndarray] = {}
    rng = random.Random(35)
    for _ in range(args.rounds):
        names = list(ways)
        rng.shuffle(names)
        for name in names:
            c0, w0 = time.process_time(), time.perf_counter()
            vecs[name] = ways[name]()
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - w0)
    mean_len = tokens / len(encs)
    hz = clock_hz()
    peak = VNNI_MACS_PER_CYCLE * hz / LINEAR_MACS
    rows = {}
    base = vecs["product"]
    for name in ways:
        c = statistics.median(cpu[name])
        cos = (vecs[name] * base).sum(1)
        rows[name] = {"cpu_s": round(c, 3), "wall_s": round(statistics.median(wall[name]), 3),
                      "tokens_per_cpu_s": round(tokens / c), "vs_product_cpu": round(
                          c / statistics.median(cpu["product"]), 3),
                      "cos_mean": round(float(cos.mean()), 4),
                      "cos_min": round(float(cos.min()), 4),
                      "share_of_peak": round(tokens / c / peak, 3)}
    out = {"units": len(encs), "tokens": tokens, "mean_tokens": round(mean_len, 1),
           "linear_int8_macs_per_token": LINEAR_MACS,
           "attention_fp32_macs_per_token": attention_macs(round(mean_len)),
           "clock_hz": hz, "vnni_macs_per_cycle": VNNI_MACS_PER_CYCLE,
           "peak_tokens_per_cpu_s": round(peak), "rounds": args.rounds, "ways": rows}
    print(f"{'way':<14}{'CPU s':>8}{'wall s':>8}{'tok/CPU-s':>11}{'x product':>10}"
          f"{'cos mean':>10}{'cos min':>9}{'of peak':>9}")
    for name, r in rows.items():
        print(f"{name:<14}{r['cpu_s']:>8.2f}{r['wall_s']:>8.2f}{r['tokens_per_cpu_s']:>11}"
              f"{r['vs_product_cpu']:>10.3f}{r['cos_mean']:>10.4f}{r['cos_min']:>9.4f}"
              f"{r['share_of_peak']:>9.3f}")
    print(f"{len(encs)} units, {tokens} tokens (mean {mean_len:.0f}); peak "
          f"{VNNI_MACS_PER_CYCLE} MAC/cycle x {hz / 1e9:.2f} GHz / {LINEAR_MACS / 1e6:.1f} M "
          f"MAC/token = {peak:.0f} tokens per core-second")
    if args.json_path:
        pathlib.Path(args.json_path).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
