"""Additive noise of fixed relative size: the smoothness counterpart of the deformations.

``x' = x + a ||x|| u`` with ``u`` a uniformly random unit direction (a standard normal
image of the seed, divided by its norm), so ``||x' - x|| / ||x|| = a`` for every seed:
the distance in pixel space is fixed, only its direction is random. (For an all-zero
``x`` the noise has norm ``a``.) The feature maps' smoothness results predict, for small
``a``, ``||Phi(x') - Phi(x)|| / ||Phi(x)||`` proportional to ``a`` for the CKN
(Lipschitz: log-log slope 1) and to ``sqrt(a)`` for the NTK (Hölder-1/2: slope 1/2;
Bietti & Mairal 2019, smoothness of the ReLU NTK).
"""
from __future__ import annotations

import numpy as np

__all__ = ["additive_noise"]


def additive_noise(image: np.ndarray, amplitude: float, seed: int) -> np.ndarray:
    """``x + a ||x|| u`` for a float image ``x`` of any shape (see the module docstring);
    ``seed`` (>= 0) draws the direction ``u`` with ``np.random.default_rng``."""
    x = np.asarray(image, dtype=np.float64)
    g = np.random.default_rng(seed).standard_normal(x.shape)
    scale = float(np.linalg.norm(x)) or 1.0
    return x + (amplitude * scale / float(np.linalg.norm(g))) * g
