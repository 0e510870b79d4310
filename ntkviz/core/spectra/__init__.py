"""Mercer spectra of dot-product kernels on the sphere ``S^{p-1}``.

``κ(<x, y>) = Σ_k μ_k Σ_j Y_kj(x) Y_kj(y)``: :func:`~ntkviz.core.spectra.mercer.mercer_spectrum`
gives the eigenvalues ``μ_k`` (closed forms, series about ``u = 1`` or quadrature) with
error estimates and trust flags, and the multiplicities ``N(p, k)``. ``_series`` holds the
power-series and moment arithmetic; ``_reference`` the slow references of the tests.

Modules load on first import (this package imports none of them).
"""
