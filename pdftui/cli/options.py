"""The options several commands share: the cache folder, the user data folder and the
embedding model (each also read from its environment variable)."""

from __future__ import annotations

import click


cache_opt = click.option(
    "--cache-dir", type=click.Path(), envvar="PDFTUI_CACHE_DIR",
    help="Cache folder (default: $PDFTUI_CACHE_DIR or the user cache dir).")


data_opt = click.option(
    "--data-dir", type=click.Path(), envvar="PDFTUI_DATA_DIR",
    help="User data folder: marks, notes, sessions (default: $PDFTUI_DATA_DIR or the "
         "user data dir).")


model_opt = click.option(
    "--model", default=None, envvar="PDFTUI_EMBED_MODEL",
    help="fastembed model name (default: offline all-MiniLM-L6-v2).")
