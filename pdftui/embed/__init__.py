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

import importlib
import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")   # before onnxruntime can be imported

#: Where each public name lives: resolved on first access (PEP 562), so reading one
#: name (the TUI's document list needs :func:`resolve_model_name` only) does not import
#: the embedder and the unit splitter too.
_HOME = {
    "Embedder": "embedder",
    "DEFAULT_MODEL": "model", "DEFAULT_WEIGHTS_SHA256": "model", "EmbedderUnavailable": "model",
    "assemble_default_model": "model", "int8_enabled": "model", "known_int8_hash": "model",
    "resolve_model_name": "model",
    "DEFAULT_PLAN": "units", "PLAN_1": "units", "PLAN_2": "units", "PLAN_3": "units",
    "PLAN_4": "units", "PLAN_5": "units", "PLAN_6": "units", "PLAN_7": "units",
    "PLAN_8": "units", "PLAN_9": "units", "PLAN_10": "units", "PLAN_11": "units", "PLAN_12": "units",
    "UnitPlan": "units", "split_units": "units",
}


def __getattr__(name: str):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_PLAN",
    "DEFAULT_WEIGHTS_SHA256",
    "PLAN_1",
    "PLAN_2",
    "PLAN_3",
    "PLAN_4",
    "PLAN_5",
    "PLAN_6",
    "PLAN_7",
    "PLAN_8",
    "PLAN_9",
    "PLAN_10",
    "PLAN_11",
    "PLAN_12",
    "Embedder",
    "EmbedderUnavailable",
    "UnitPlan",
    "assemble_default_model",
    "int8_enabled",
    "known_int8_hash",
    "resolve_model_name",
    "split_units",
]
