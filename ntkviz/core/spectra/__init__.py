"""Mercer spectra of dot-product kernels on the sphere ``S^{p-1}``.

``κ(<x, y>) = Σ_k μ_k Σ_j Y_kj(x) Y_kj(y)``: :func:`~ntkviz.core.spectra.mercer.mercer_spectrum`
gives the eigenvalues ``μ_k`` with error estimates and trust flags, by one of three routes:
``_closed_form`` (κ0, κ1, two-layer NTK), ``_power_series`` (positive sums with the end-point
singularities subtracted) and ``_quadrature``; ``harmonics`` the multiplicities ``N(p, k)``.
``_series`` holds the power-series and moment arithmetic; ``_reference`` the slow references
of the tests.

Modules load on first import (this package imports none of them).
"""
