"""Mallat's stable representations of images: the scattering transform and the Fourier modulus.

* :mod:`~ntkviz.core.scattering.filters` -- the Morlet filter bank (``J`` scales, ``L``
  orientations; kymatio's design in float64), cached per grid;
* :mod:`~ntkviz.core.scattering.transform` -- ``scattering_transform`` (``S_J``, orders 0-2, FFT-based,
  averaged by ``phi_J`` and sampled every ``2^J`` px) with ``ScatteringParams``, and
  ``fourier_modulus`` (``|x_hat|``, unitary DFT).

``_reference`` holds the slow, obvious versions the tests compare with (direct spatial
convolutions, filters from their closed-form Fourier transforms). Modules load on first
import (this package imports none of them).
"""
