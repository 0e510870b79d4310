"""The "sets" computation of the stability view (Bietti & Mairal 2019, Fig. 1), Qt-free.

:class:`StabilitySetsRequest` -> :class:`~ntkviz.core.deformations.sets.SetsResult` with
the figure's context filled in (reference digit, example images, data source;
``iterate()`` yields a :class:`~ntkviz.jobs.Progress` after every (sweep value, set),
the partial result included, and returns the complete one; stop iterating to cancel). One reference digit is compared with four sets (deformations
with α = 3; translations and deformations with α = 1; digits of the same label; digits of
any label), for the CKN and the NTK, along a sweep whose default x axis is the last
layer's pooling/subsampling factor (the reading of the paper's figure: an architecture
parameter swept along the curves, which drives the translation term ``||tau||_inf /
sigma_n`` of both stability theorems; :mod:`ntkviz.core.deformations.sets`).

Where the digits come from:

* with ``infimnist_data`` (the user's Infinite-MNIST data folder): the reference is a
  MNIST training digit, the deformation sets are Bottou's generator's deformations of it
  (indexes ``n_test + a + m n_train``, m = 1, 2, ...; byte-identical to the reference
  generator), the same-label and any-label sets are MNIST training digits;
* without: the reference and the label sets are bundled digits, and the deformation sets
  use ntkviz's own smooth fields (:func:`~ntkviz.core.deformations.sets.own_field_deformations`)
  -- the result says so (``own_fields``, ``note``).

The any-label set takes digit ``k // 10`` of label ``k mod 10`` for its ``k``-th member
(all labels equally, the reference's own included); the same-label set the first digits
of the reference's label. The reference digit itself is never in a set.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Generator

import numpy as np

from ntkviz import limits
from ntkviz._check import check_choice, check_int
from ntkviz.core.conv.architecture import PRESETS, Architecture, check_architecture
from ntkviz.core.deformations.sets import (DEFAULT_SETS, SWEEPS, SetSpec, SetsResult,
                                           own_field_deformations, parse_sets, sets_sweep, sweep_architecture)
from ntkviz.jobs._run import Progress, run_to_end

__all__ = ["StabilitySetsRequest", "SetsResult", "EXAMPLES_PER_SET"]

#: images of each set kept for the example strip under the plot (the paper's Fig. 2)
EXAMPLES_PER_SET = 8
_OWN_FIELDS_NOTE = "no Infinite-MNIST data: the deformation sets use ntkviz's own smooth fields, not Bottou's"


class _Digits:
    """The digits of one source: images uint8 (N, H, W), labels (N,), and the deformation sets."""

    def __init__(self, folder: str | None):
        self.folder = folder
        if folder is None:
            from ntkviz.core.deformations.digits import load_digits

            self.images, self.labels = load_digits()
            self.gen = None
            self.source = f"bundled digits ({len(self.labels)} MNIST digits shipped with ntkviz)"
        else:
            from ntkviz.dataset.infimnist import open_infimnist

            self.gen = open_infimnist(folder)
            rows = self.gen.n_test + np.arange(self.gen.n_train)
            self.images = self.gen.images(rows)
            self.labels = self.gen.labels(rows)
            self.source = f"Infinite-MNIST data in {folder} ({self.gen.n_train} training digits)"

    def of_label(self, label: int) -> np.ndarray:
        return np.flatnonzero(self.labels == label)

    def name(self, index: int) -> str:
        return f"bundled digit {index}" if self.gen is None else f"MNIST training digit {index}"

    def deformations(self, index: int, alpha: float, translate: bool, count: int) -> np.ndarray:
        if self.gen is None:
            return own_field_deformations(self.images[index] / 255.0, alpha, translate, count)
        idx = self.gen.training_indexes(index, count)
        return self.gen.images(idx, alpha, translate) / 255.0


@dataclass(frozen=True)
class StabilitySetsRequest:
    """One digit against four sets, CKN and NTK, along a sweep (the stability view's "sets").

    Parameters
    ----------
    reference_label : int
        Label of the reference digit (0..9; the paper's: 5).
    reference_index : int
        Which digit of that label (0: the first) in the source's order.
    sets : tuple of str or SetSpec
        The sets (:data:`ntkviz.core.deformations.sets.DEFAULT_SETS`: ``deform:3``,
        ``deform+translate:1``, ``same``, ``any``).
    set_size : int
        Digits per set.
    sweep, values : str, tuple
        The x axis (``last-pooling``, ``patch``, ``layers``, ``amplitude``) and its values.
    architecture : Architecture
        The base architecture each sweep value modifies (default M1).
    infimnist_data : str or None
        The user's Infinite-MNIST data folder; None uses the bundled digits and ntkviz's
        own fields (the response says so).
    """

    reference_label: int = 5
    reference_index: int = 0
    sets: tuple = DEFAULT_SETS
    set_size: int = 20
    sweep: str = "last-pooling"
    values: tuple = (1, 2, 3, 5)
    architecture: Architecture = PRESETS["M1"]
    infimnist_data: str | None = None

    heavy: ClassVar[bool] = True
    iterated: ClassVar[bool] = True

    def __post_init__(self):
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        set_("reference_label", check_int("reference_label", self.reference_label, limits.DIGIT_LABEL_RANGE))
        set_("reference_index", check_int("reference_index", self.reference_index,
                                            limits.STABILITY_REFERENCE_INDEX_RANGE))
        sets = self.sets if isinstance(self.sets, str) else tuple(
            s.token if isinstance(s, SetSpec) else s for s in self.sets)
        set_("sets", parse_sets(sets))
        set_("set_size", check_int("set_size", self.set_size, limits.STABILITY_SET_SIZE_RANGE))
        arch = check_architecture(self.architecture, "architecture")
        set_("architecture", arch)
        check_choice("sweep", self.sweep, SWEEPS)
        values = tuple(self.values)
        if not values or len(set(values)) < len(values):
            raise ValueError(f"{self.sweep} values must be a non-empty list without repeats, got {values}")
        for v in values:
            sweep_architecture(arch, self.sweep, v)  # every value's architecture fits 28 x 28 digits
        set_("values", values)
        if self.infimnist_data is not None:
            folder = Path(self.infimnist_data)
            if not folder.is_dir():
                raise ValueError(f"{folder}: {'is not a folder' if folder.exists() else 'no such folder'} "
                                 "(give the Infinite-MNIST data folder)")
            set_("infimnist_data", str(folder))

    def __call__(self) -> SetsResult:
        """Run to the end and return the result."""
        return run_to_end(self.iterate())

    def iterate(self) -> Generator[Progress, None, SetsResult]:
        """A :class:`~ntkviz.jobs.Progress` item after every (sweep value, set) but the last
        (``partial``: the result so far); returns the complete result."""
        digits = _Digits(self.infimnist_data)
        of_label = digits.of_label(self.reference_label)
        if self.reference_index >= len(of_label):
            raise ValueError(f"reference_index must be in [0, {len(of_label) - 1}] ({len(of_label)} digits "
                             f"of label {self.reference_label} in the {digits.source}), got {self.reference_index}")
        ref = int(of_label[self.reference_index])
        x = digits.images[ref] / 255.0
        n = self.set_size
        label_sets = {"same": self._same(digits, ref, n), "any": self._any(digits, ref, n)}

        def images_of(spec: SetSpec, alpha):
            if spec.deforms:
                return digits.deformations(ref, alpha, spec.translates, n)
            return digits.images[label_sets[spec.kind]] / 255.0

        largest = max(self.values) if self.sweep == "amplitude" else None
        examples = tuple(
            (digits.deformations(ref, largest if largest is not None else s.alpha, s.translates,
                                 min(n, EXAMPLES_PER_SET)) if s.deforms
             else digits.images[label_sets[s.kind][:EXAMPLES_PER_SET]] / 255.0)
            for s in self.sets)
        own = digits.gen is None and any(s.deforms for s in self.sets)

        context = dict(reference=x, reference_name=digits.name(ref), examples=examples, own_fields=own,
                       source=digits.source, note=_OWN_FIELDS_NOTE if own else "")
        result = None
        for item in sets_sweep(x, self.sets, images_of, self.architecture, self.sweep, self.values,
                               self.reference_label):
            result = dataclasses.replace(item.result, **context)
            if not result.complete:
                yield Progress(item.fraction, item.message, result)
        return result

    def _same(self, digits: _Digits, ref: int, n: int) -> np.ndarray:
        pool = digits.of_label(self.reference_label)
        pool = pool[pool != ref]
        if len(pool) < n:
            raise ValueError(f"set_size must be at most {len(pool)} for the same-label set ({len(pool)} "
                             f"other digits of label {self.reference_label} in the {digits.source}), got {n}")
        return pool[:n]

    def _any(self, digits: _Digits, ref: int, n: int) -> np.ndarray:
        pools = [np.setdiff1d(digits.of_label(k), [ref]) for k in range(10)]
        out = []
        for k in range(n):
            pool = pools[k % 10]
            if k // 10 >= len(pool):
                raise ValueError(f"set_size {n} is too large for the any-label set: label {k % 10} has "
                                 f"{len(pool)} digits in the {digits.source}")
            out.append(pool[k // 10])
        return np.asarray(out, np.int64)
