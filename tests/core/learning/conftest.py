"""Shared helpers of the learning tests."""
import numpy as np
import pytest


def _fibonacci_sphere(count: int) -> np.ndarray:
    """``count`` quasi-uniform points on S² (spherical Fibonacci lattice): their empirical
    measure converges to the uniform one much faster than i.i.d. draws."""
    i = np.arange(count) + 0.5
    z = 1.0 - 2.0 * i / count
    phi = np.pi * (1.0 + np.sqrt(5.0)) * i
    r = np.sqrt(1.0 - z * z)
    return np.stack([r * np.cos(phi), r * np.sin(phi), z], axis=1)


@pytest.fixture
def fibonacci_sphere():
    return _fibonacci_sphere
