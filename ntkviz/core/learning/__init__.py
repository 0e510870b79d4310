"""What a kernel learns: kernel ridge regression on the sphere ``S^{p-1}`` (Qt-free).

``Target`` (degree components ``k:c`` and named zonal targets, with exact Funk–Hecke
powers), ``learning_theory`` (eigenlearning prediction of the test MSE, effective ridge κ,
learnabilities), ``krr_trial`` (one Monte-Carlo KRR run), ``rkhs_norm``,
``approximation_error``, ``gp_samples_on_circle`` and ``funk_hecke_partial_sums``.
On a finite pool of data (kernel PCA): ``gram_spectrum`` (eigenvalues of a Gram matrix
divided by N, trust flags, label alignment), ``sphere_reference`` (the same kernel family's
Mercer spectrum for comparison), ``finite_learning_theory`` (eigenlearning on a finite
spectrum, with the held-out error of a pool) and ``subset_fit`` (KRR on a subset of the
pool and the Arora et al. certificate).
Convention throughout: ``f̂ = K(x, X)(K(X, X) + δ I)⁻¹ y`` with δ not multiplied by n.

The entry points (``Target``, ``learning_theory``, ``krr_trial``, ``rkhs_norm``,
``gp_samples_on_circle``, ``funk_hecke_partial_sums``) are also on the one face of the core,
``ntkviz.core``; the result types and helpers are reached here. The functions trust their
arguments (values of the core, spectra it computed): the requests of ``ntkviz.jobs`` check
the user's parameters once.
"""
from ntkviz.core.learning._gegenbauer import gegenbauer, log_gegenbauer
from ntkviz.core.learning._krr import CircleFit, KrrTrial, krr_fit_on_circle, krr_trial, uniform_sphere
from ntkviz.core.learning._rkhs import (RkhsNorm, approximation_error, funk_hecke_partial_sums,
                                        gp_samples_on_circle, rkhs_norm)
from ntkviz.core.learning._targets import TARGET_KINDS, Target, TargetProjection
from ntkviz.core.learning._theory import LearningTheory, learning_theory, spectrum_weights
from ntkviz.core.learning._finite import FiniteTheory, finite_learning_theory
from ntkviz.core.learning._pool import SubsetFit, subset_fit
from ntkviz.core.learning.gram_spectrum import (MAX_GRAM_SIZE, GramSpectrum, SphereReference,
                                                centred_one_hot, gram_spectrum, sphere_reference)

__all__ = ["Target", "TargetProjection", "TARGET_KINDS", "learning_theory", "LearningTheory",
           "spectrum_weights", "krr_trial", "KrrTrial", "krr_fit_on_circle", "CircleFit", "uniform_sphere", "rkhs_norm", "RkhsNorm",
           "approximation_error", "gp_samples_on_circle", "funk_hecke_partial_sums",
           "gegenbauer", "log_gegenbauer", "GramSpectrum", "gram_spectrum", "centred_one_hot",
           "SphereReference", "sphere_reference", "MAX_GRAM_SIZE", "FiniteTheory",
           "finite_learning_theory", "SubsetFit", "subset_fit"]
