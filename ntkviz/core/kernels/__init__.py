"""Dot-product kernels ``κ(u)`` on the sphere, ``u`` the cosine of two unit inputs.

* :mod:`~ntkviz.core.kernels.arccos` -- the arc-cosine maps ``κ0``, ``κ1`` and the
  two-layer ReLU NTK in closed form;
* :mod:`~ntkviz.core.kernels.activations` -- dual kernels of other activations
  (Hermite/Mehler series, Gauss-Hermite quadrature);
* :mod:`~ntkviz.core.kernels.deep` -- the depth-``L`` NTK and NNGP recursions;
* :mod:`~ntkviz.core.kernels.dotkernel` -- ``KernelSpec`` and ``evaluate_kernel``,
  the front end every panel uses;
* :mod:`~ntkviz.core.kernels.empirical` -- finite-width Monte-Carlo kernels;
* ``_reference`` -- slow NumPy references for the tests.

Modules load on first import (this package imports none of them).
"""
