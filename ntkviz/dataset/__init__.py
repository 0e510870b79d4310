"""Dataset-scale convolutional kernels: data loading, tiled resumable Gram stores,
local or Dask execution, and kernel-ridge classification (Qt-free).

Public API
----------
* :func:`load_dataset` / :func:`read_idx` / :class:`Dataset` -- ``.npy``, ``.npz``
  and MNIST IDX input (uint8 scaled by 1/255).
* :func:`compute_gram` -- a CKN/NTK Gram or cross matrix over tiles, into Zarr
  stores (resumable) or memory, in-process or on a Dask cluster.
* :mod:`ntkviz.dataset.classify` -- one-vs-rest kernel ridge regression.
"""
from ntkviz.dataset._load import Dataset, images_hash, load_dataset, read_idx
from ntkviz.dataset._gram import GramRun, compute_gram, dask_client, gram_meta
from ntkviz.dataset._store import GramStore, MemoryTarget, StoreMeta, TileGrid, open_store

__all__ = ["Dataset", "load_dataset", "read_idx", "images_hash", "GramRun", "compute_gram",
           "dask_client", "gram_meta", "GramStore", "MemoryTarget", "StoreMeta", "TileGrid", "open_store"]
