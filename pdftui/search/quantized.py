"""Unit vectors held as int8 codes with one float32 scale per vector, and their product
with a query vector.

A unit-length vector ``v`` (dim,) is held as ``codes = round(v / s)`` (int8), ``s =
max|v| / 127`` (symmetric, one scale per vector): a quarter of float32's bytes, each
component within ``s / 2`` of its value. The cache keeps the float32 vectors; only the
search process's in-memory copy is quantized (:class:`pdftui.search.semantic.VectorMatrix`).

The product with a query ``q`` runs in onnxruntime's ``MatMulInteger`` (uint8 x int8 with
int32 accumulation: MLAS's AVX-512 VNNI / AMX kernels where the CPU has them; numpy has
no integer or float16 BLAS, and converting the codes back to float32 in blocks costs ~15x
the float32 product). The query is split into two int8 rows, ``q ~ s1 h + s2 l`` (``h =
round(q / s1)``, ``l = round((q - s1 h) / s2)``), so its own rounding (~2^-14 of its
largest component) is far below the units'; the cosine of a unit is then
``s (s1 <h, c> + s2 <l, c>)``, the integer products exact. The codes are stored
transposed, ``(dim, n)``, the layout in which that kernel reads a single query fastest.
"""

from __future__ import annotations

import numpy as np

_SESSION = None


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (n, dim) int8, scales (n,) float32)`` of float ``vectors`` (n, dim); a zero
    vector gets scale 0 and zero codes (its cosine with anything is 0)."""
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2:
        raise ValueError(f"quantize: expected (n, dim) vectors, got shape {v.shape}")
    peak = np.abs(v).max(axis=1) if v.shape[1] else np.zeros(len(v), dtype=np.float32)
    scales = (peak / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
    codes = np.clip(np.rint(v / safe[:, None]), -127, 127).astype(np.int8)
    return codes, scales


def _session():
    """One onnxruntime session computing ``MatMulInteger(A uint8 (2, dim), B int8 (dim,
    n), a_zero_point = 128) -> int32 (2, n)``, built in memory once per process."""
    global _SESSION
    if _SESSION is None:
        import onnxruntime as ort
        from onnx import TensorProto, helper

        node = helper.make_node("MatMulInteger", ["A", "B", "za"], ["C"])
        graph = helper.make_graph(
            [node], "unit_product",
            [helper.make_tensor_value_info("A", TensorProto.UINT8, [2, None]),
             helper.make_tensor_value_info("B", TensorProto.INT8, [None, None])],
            [helper.make_tensor_value_info("C", TensorProto.INT32, [2, None])],
            initializer=[helper.make_tensor("za", TensorProto.UINT8, [], [128])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        model.ir_version = 7
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        opts.inter_op_num_threads = 1
        _SESSION = ort.InferenceSession(model.SerializeToString(), opts,
                                        providers=["CPUExecutionProvider"])
    return _SESSION


def _split_query(q: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(A (2, dim) uint8 offset by 128, s1, s2)`` with ``q ~ s1 h + s2 l``."""
    q = np.asarray(q, dtype=np.float64)
    s1 = float(np.abs(q).max()) / 127.0 if len(q) else 0.0
    if s1 == 0.0:
        return np.full((2, len(q)), 128, dtype=np.uint8), 0.0, 0.0
    h = np.clip(np.rint(q / s1), -127, 127)
    r = q - s1 * h
    s2 = float(np.abs(r).max()) / 127.0
    lo = np.clip(np.rint(r / s2), -127, 127) if s2 > 0 else np.zeros_like(r)
    a = (np.vstack([h, lo]) + 128).astype(np.uint8)
    return a, s1, s2


class Int8Matrix:
    """``n`` vectors of ``dim`` components as transposed int8 codes ``(dim, n)`` and float32
    scales ``(n,)`` (:func:`quantize`); ``m @ q`` is their approximate cosine with a
    unit-length float query ``q`` (dim,): ``(n,)`` float32.

    Behaves like the float32 ``(n, dim)`` matrix it replaces where the search reads it:
    ``len(m)``, ``m.shape``, ``m @ q`` and ``m[i]`` (row ``i`` dequantized, float32)."""

    def __init__(self, codes_t: np.ndarray, scales: np.ndarray):
        if codes_t.dtype != np.int8 or codes_t.ndim != 2 or scales.shape != (codes_t.shape[1],):
            raise ValueError("Int8Matrix: codes must be int8 (dim, n) and scales (n,)")
        self.codes_t = codes_t
        self.scales = scales.astype(np.float32, copy=False)

    @classmethod
    def empty(cls, dim: int = 0) -> "Int8Matrix":
        """No vectors, ``dim`` components."""
        return cls(np.zeros((dim, 0), dtype=np.int8), np.zeros(0, dtype=np.float32))

    @classmethod
    def from_float(cls, vectors: np.ndarray) -> "Int8Matrix":
        """Quantize float ``vectors`` (n, dim)."""
        codes, scales = quantize(vectors)
        return cls(np.ascontiguousarray(codes.T), scales)

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, dim)``, as the float matrix's."""
        return self.codes_t.shape[1], self.codes_t.shape[0]

    @property
    def nbytes(self) -> int:
        """Bytes held by the codes and scales."""
        return self.codes_t.nbytes + self.scales.nbytes

    def __len__(self) -> int:
        return self.codes_t.shape[1]

    def __getitem__(self, i: int) -> np.ndarray:
        return self.codes_t[:, i].astype(np.float32) * self.scales[i]

    def dot(self, q: np.ndarray) -> np.ndarray:
        """Approximate cosine of ``q`` (dim,) with every vector: ``(n,)`` float32 (exact
        integer products, one float32 scaling); raises ValueError on a ``dim`` mismatch."""
        n, dim = self.shape
        if q.shape != (dim,):
            raise ValueError(f"Int8Matrix.dot: query of shape {q.shape}, vectors of {dim}")
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        a, s1, s2 = _split_query(q)
        out = _session().run(None, {"A": a, "B": self.codes_t})[0]
        sims = out[0].astype(np.float32)
        sims *= np.float32(s1)
        sims += out[1].astype(np.float32) * np.float32(s2)
        sims *= self.scales
        return sims

    __matmul__ = dot
