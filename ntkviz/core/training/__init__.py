"""Lazy-training dynamics of a two-layer network and its linearisation.

:mod:`~ntkviz.core.training.dynamics` trains the network by gradient descent and compares it
with its tangent (linearised) model and the infinite-width NTK flow; ``_train_config``
holds ``TrainConfig`` and ``_reference`` the slow references of the tests.

Modules load on first import (this package imports none of them).
"""
