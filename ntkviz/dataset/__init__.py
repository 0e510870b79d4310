"""Dataset-scale convolutional kernels: data loading, tiled resumable Gram stores,
local or Dask execution, and kernel-ridge classification (Qt-free).

Public API (imported lazily: ``import ntkviz.dataset`` loads no numba or scipy)
----------
* :func:`load_dataset` / :func:`read_idx` / :class:`Dataset` -- ``.npy``, ``.npz``
  and MNIST IDX input (uint8 scaled by 1/255).
* :class:`GramRun` / :func:`compute_gram` -- a CKN/NTK Gram or cross matrix over
  tiles, into Zarr stores (resumable) or memory, in-process or on a Dask
  cluster (:func:`dask_client`).
* :func:`open_gram_store` -- an existing Gram store opened read-only, every check done
  (metadata, layout, per-tile sha256 on reading).
* :mod:`ntkviz.dataset.classify` -- one-vs-rest kernel ridge regression.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "Dataset": "_load", "load_dataset": "_load", "read_idx": "_load", "images_hash": "_load",
    "GramRun": "_gram", "compute_gram": "_gram", "dask_client": "_gram", "gram_meta": "_gram",
    "GramStore": "_store", "MemoryTarget": "_store", "StoreMeta": "_store", "TileGrid": "_store",
    "open_store": "_store", "open_gram_store": "_store",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"ntkviz.dataset.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'ntkviz.dataset' has no attribute {name!r}")
