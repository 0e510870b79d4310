"""Slow, obvious NumPy/SciPy versions of the pool computations, used only by the tests."""
from __future__ import annotations

import numpy as np
from scipy.optimize import brentq


def gram_spectrum_reference(gram: np.ndarray, labels=None):
    """``(λ/N descending, cumulative alignment or None, kernel-target alignment or None)`` by
    ``numpy.linalg.eigh`` and the alignment's definition ``⟨K, YYᵀ⟩_F / (‖K‖_F ‖YYᵀ‖_F)``."""
    n = gram.shape[0]
    w, v = np.linalg.eigh(gram)
    w, v = w[::-1], v[:, ::-1]
    if labels is None:
        return w / n, None, None
    classes = np.unique(labels)
    y = np.array([[1.0 if lab == c else 0.0 for c in classes] for lab in labels])
    y -= y.mean(axis=0)
    energy = np.array([sum(float(v[:, i] @ y[:, c]) ** 2 for c in range(y.shape[1])) for i in range(n)])
    yy = y @ y.T
    kta = float(np.sum(gram * yy) / (np.linalg.norm(gram) * np.linalg.norm(yy)))
    return w / n, np.cumsum(energy) / np.sum(y * y), kta


def finite_theory_reference(mu: np.ndarray, power: np.ndarray, n: float, ridge: float) -> dict:
    """Eigenlearning on a finite spectrum: κ by ``brentq`` on ``Σ μ/(μ+κ) + δ/κ = n``, then the
    sums term by term."""
    def excess(kap):
        return np.sum(mu / (mu + kap)) + ridge / kap - n

    lo, hi = 1e-300, 1e300
    kap = brentq(excess, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=2000)
    learn = mu / (mu + kap)
    e0 = n / (n - np.sum(learn ** 2))
    test = e0 * np.sum((1 - learn) ** 2 * power)
    return {"kappa": kap, "e0": e0, "test": test, "train": (ridge / (n * kap)) ** 2 * test}


def subset_fit_reference(gram: np.ndarray, train: np.ndarray, ridge: float, y: np.ndarray,
                         cls: np.ndarray) -> dict:
    """Certificate, λ_min, held-out MSE and accuracy by ``numpy.linalg.solve``."""
    n_pool, n = gram.shape[0], train.shape[0]
    rest = np.array([i for i in range(n_pool) if i not in set(train.tolist())])
    h = gram[np.ix_(train, train)] + ridge * np.eye(n)
    alpha = np.linalg.solve(h, y[train])
    quad = float(np.sum(y[train] * alpha))
    pred = gram[np.ix_(rest, train)] @ alpha
    offset = np.array([np.mean(cls == c) for c in range(y.shape[1])])
    return {"certificate": np.sqrt(2.0 * quad / n * 2.0), "lambda_min": np.linalg.eigvalsh(h)[0] / 2.0,
            "test_mse": float(np.mean(np.sum((pred - y[rest]) ** 2, axis=1))),
            "accuracy": float(np.mean(np.argmax(pred + offset, axis=1) == cls[rest]))}
