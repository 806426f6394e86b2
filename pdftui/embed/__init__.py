"""Sentence embeddings for semantic search, in three parts:

* :mod:`pdftui.embed.model`: which model runs and where its files come from (the bundled
  all-MiniLM-L6-v2, assembled offline into the cache; any other fastembed model by name),
  with :mod:`pdftui.embed.quantize` building its int8 copy;
* :mod:`pdftui.embed.units`: cutting a page into units that fit the model (pure, character
  spans; testable without a model);
* :mod:`pdftui.embed.embedder`: :class:`Embedder`, which loads the model on first use and
  turns units and queries into L2-normalised float32 vectors.

``import pdftui.embed`` is cheap: fastembed, onnxruntime and tokenizers are imported only when
first needed, and ``ORT_DISABLE_TELEMETRY=1`` is put in the environment (unless already set)
before onnxruntime can be imported. The names below are the package's public interface.
"""

from __future__ import annotations

from .embedder import Embedder
from .model import (
    DEFAULT_MODEL,
    DEFAULT_WEIGHTS_SHA256,
    EmbedderUnavailable,
    assemble_default_model,
    int8_enabled,
    known_int8_hash,
    resolve_model_name,
)
from .units import DEFAULT_PLAN, PLAN_1, PLAN_2, PLAN_3, UnitPlan, split_units

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_PLAN",
    "DEFAULT_WEIGHTS_SHA256",
    "PLAN_1",
    "PLAN_2",
    "PLAN_3",
    "Embedder",
    "EmbedderUnavailable",
    "UnitPlan",
    "assemble_default_model",
    "int8_enabled",
    "known_int8_hash",
    "resolve_model_name",
    "split_units",
]
