"""Unit vectors held as int8 codes with one float32 scale per vector, and their product
with a query vector.

A unit-length vector ``v`` (dim,) is held as ``codes = round(v / s)`` (int8), ``s =
max|v| / 127`` (symmetric, one scale per vector): a quarter of float32's bytes, each
component within ``s / 2`` of its value. The cache keeps the float32 vectors; only the
search process's in-memory copy is quantized (:class:`pdftui.search.semantic.VectorMatrix`).

The product with a query ``q`` runs in onnxruntime's ``MatMulInteger`` (uint8 x int8 with
int32 accumulation: MLAS's AVX-512 VNNI / AMX kernels where the CPU has them; numpy has
no integer or float16 BLAS, and converting the codes back to float32 in blocks costs ~15x
the float32 product). The query is split into two int8 columns, ``q ~ s1 h + s2 l`` (``h
= round(q / s1)``, ``l = round((q - s1 h) / s2)``), so its own rounding (~2^-14 of its
largest component) is far below the units'; the cosine of a unit is then ``s (s1 <c, h> +
s2 <c, l>)``, the integer products exact. The units are the kernel's left operand, row
major ``(n, dim)``, as uint8 offset by 128 (``c ^ 0x80``: the kernel's zero point takes
the 128 off again): the layout it streams fastest (measured against the transposed one
and numpy's float32 product, one run: 106,000 units 10.6 / 26.8 / 16.3 ms, 1,000,000
units 98 / 128 / 132 ms).
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


#: The ONNX model of :func:`_session`, serialised (121 bytes): the graph
#: ``MatMulInteger(A uint8 (n, dim), B int8 (dim, 2), a_zero_point za = 128) -> C int32
#: (n, 2)``, opset 13, IR version 7, as ``onnx.helper`` builds it (tests/test_cli_imports.py
#: builds it again and compares). Held as bytes because importing ``onnx`` takes a second
#: or more, longer than the rest of a query.
PRODUCT_MODEL = (
    b'\x08\x07:o\n\x1c\n\x01A\n\x01B\n\x02za\x12\x01C"\rMatMulInteger\x12\x0cunit_product*\n'
    b'\x10\x02*\x02\x80\x01B\x02zaZ\x0f\n\x01A\x12\n\n\x08\x08\x02\x12\x04\n\x00\n\x00Z\x11\n\x01B'
    b'\x12\x0c\n\n\x08\x03\x12\x06\n\x00\n\x02\x08\x02b\x11\n\x01C\x12\x0c\n\n\x08\x06\x12\x06\n\x00'
    b'\n\x02\x08\x02B\x04\n\x00\x10\r')


def _session():
    """One onnxruntime session computing ``MatMulInteger(A uint8 (n, dim), B int8 (dim,
    2), a_zero_point = 128) -> int32 (n, 2)`` (:data:`PRODUCT_MODEL`), built in memory
    once per process."""
    global _SESSION
    if _SESSION is None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        opts.inter_op_num_threads = 1
        # no busy-waiting threads between queries (a shared 2-core machine)
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        _SESSION = ort.InferenceSession(PRODUCT_MODEL, opts,
                                        providers=["CPUExecutionProvider"])
    return _SESSION


def _split_query(q: np.ndarray) -> tuple[np.ndarray, float, float]:
    """``(B (dim, 2) int8 = [h, l], s1, s2)`` with ``q ~ s1 h + s2 l``."""
    q = np.asarray(q, dtype=np.float64)
    s1 = float(np.abs(q).max()) / 127.0 if len(q) else 0.0
    if s1 == 0.0:
        return np.zeros((len(q), 2), dtype=np.int8), 0.0, 0.0
    h = np.clip(np.rint(q / s1), -127, 127)
    r = q - s1 * h
    s2 = float(np.abs(r).max()) / 127.0
    lo = np.clip(np.rint(r / s2), -127, 127) if s2 > 0 else np.zeros_like(r)
    return np.stack([h, lo], axis=1).astype(np.int8), s1, s2


def offset(codes: np.ndarray) -> np.ndarray:
    """int8 codes as uint8 offset by 128 (the same bits with the top one flipped)."""
    return codes.view(np.uint8) ^ np.uint8(0x80)


class Int8Matrix:
    """``n`` vectors of ``dim`` components as int8 codes (held offset by 128 as uint8,
    ``codes`` (n, dim): :func:`offset`) and float32 scales ``(n,)`` (:func:`quantize`);
    ``m @ q`` is their approximate cosine with a unit-length float query ``q`` (dim,):
    ``(n,)`` float32.

    Behaves like the float32 ``(n, dim)`` matrix it replaces where the search reads it:
    ``len(m)``, ``m.shape``, ``m @ q`` and ``m[i]`` (row ``i`` dequantized, float32)."""

    def __init__(self, codes: np.ndarray, scales: np.ndarray):
        if codes.dtype != np.uint8 or codes.ndim != 2 or scales.shape != (codes.shape[0],):
            raise ValueError("Int8Matrix: codes must be uint8 (n, dim) and scales (n,)")
        self.codes = codes
        self.scales = scales.astype(np.float32, copy=False)

    @classmethod
    def empty(cls, dim: int = 0) -> "Int8Matrix":
        """No vectors, ``dim`` components."""
        return cls(np.zeros((0, dim), dtype=np.uint8), np.zeros(0, dtype=np.float32))

    @classmethod
    def from_float(cls, vectors: np.ndarray) -> "Int8Matrix":
        """Quantize float ``vectors`` (n, dim)."""
        codes, scales = quantize(vectors)
        return cls(offset(codes), scales)

    @property
    def shape(self) -> tuple[int, int]:
        """``(n, dim)``, as the float matrix's."""
        return self.codes.shape

    @property
    def nbytes(self) -> int:
        """Bytes held by the codes and scales."""
        return self.codes.nbytes + self.scales.nbytes

    def __len__(self) -> int:
        return self.codes.shape[0]

    def __getitem__(self, i: int) -> np.ndarray:
        return (self.codes[i].astype(np.float32) - 128.0) * self.scales[i]

    def dot(self, q: np.ndarray) -> np.ndarray:
        """Approximate cosine of ``q`` (dim,) with every vector: ``(n,)`` float32 (exact
        integer products, one float32 scaling); raises ValueError on a ``dim`` mismatch."""
        n, dim = self.shape
        if q.shape != (dim,):
            raise ValueError(f"Int8Matrix.dot: query of shape {q.shape}, vectors of {dim}")
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        b, s1, s2 = _split_query(q)
        out = _session().run(None, {"A": self.codes, "B": b})[0]
        sims = out[:, 0].astype(np.float32)
        sims *= np.float32(s1)
        sims += out[:, 1].astype(np.float32) * np.float32(s2)
        sims *= self.scales
        return sims

    __matmul__ = dot
