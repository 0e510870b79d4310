"""Deformations of images and the stability of convolutional kernels under them.

* :mod:`~ntkviz.core.deformations.deform` -- ``Deformation`` (smooth field, affine,
  translation, infiMNIST), warping and the sizes ``||τ||∞``, ``||∇τ||∞``;
* :mod:`~ntkviz.core.deformations.digits` -- the bundled MNIST digits and user images;
* :mod:`~ntkviz.core.deformations.stability` -- sweeps of relative kernel distances
  against the deformation amplitude, with log-log slopes.

Modules load on first import (this package imports none of them).
"""
