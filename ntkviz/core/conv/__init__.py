"""Exact infinite-width convolutional kernels of a ReLU CNN on images: CKN and NTK.

Modules: :mod:`~ntkviz.core.conv.architecture` (:class:`Layer`, :class:`Architecture`,
the presets M1..M4, JSON parsing, pooling filters and patch offsets), :mod:`~ntkviz.core.conv.gram`
(per-image norms, pair kernels, Gram matrices and tiles) and the private numba engine
``_kernels`` (the recursion itself); ``_reference`` is the slow NumPy/mpmath reference of the tests.

For an architecture (a list of :class:`Layer` s: patch size, subsampling,
pooling, patch kernel) this package computes, for two images ``x`` and ``y`` of
shape (H, W) or (H, W, C):

* ``K_CKN(x, y)``: the kernel of training only the last layer of the
  infinitely wide CNN (the CKN of Bietti & Mairal, the "NNGP" of a CNN);
* ``K_NTK(x, y)``: the convolutional neural tangent kernel, Bietti & Mairal
  (NeurIPS 2019), Prop. 2; the NTK recursion carries the CKN one, so both come
  out of a single pass.

Conventions (ntkviz's definition): those of the reference implementation albietz/ckn_kernel at its 2021 HEAD (``c59fe52``):

1. "same" zero padding; the patch kernel is the **plain sum**
   ``P(u, u') = sum_{v in S} G(u + v, u' + v)`` over ``S = V x V``, a term
   dropped when a shifted position falls off the grid. ``V`` is what the
   reference's code sums (:func:`patch_offsets`): ``{-1, 0, 1}`` for s = 3,
   ``{-2..2}`` for s = 5, and for even s ``{-s/2 .. s/2 - 1}`` (e.g. ``{-1, 0}``
   for s = 2, ``{-2..1}`` for s = 4): the window leans backwards. The other
   common convention, neural-tangents' 'SAME' padding, leans forwards
   (``{0, 1}`` for s = 2, ``{-1..2}`` for s = 4); choose it with
   ``Architecture(even_patch_offsets="same")``. Odd s are the same in both.
   ``patch_normalization="mean"`` multiplies every patch sum by the
   paper's ``1/|S| = 1/s^2`` instead (Prop. 2's ``|S_k|^{-1/2}`` patch
   operator): for the 1-homogeneous ``relu`` and ``exp`` kernels this
   multiplies every kernel value by ``prod_l s_l^-2`` and leaves cosines and
   relative distances unchanged -- absolute values then differ from the
   reference.
2. norms ``n(u) = sqrt(P_xx(u, u))`` from the CKN chain of ``(x, x)``
   (also in NTK mode); cosine ``c = (P * (1/max(n, 1e-6))) * (1/max(n', 1e-6))``
   in this operation order, then **clipped to [-1, 1]** (the reference clips
   only at 1 and returns NaN when rounding gives ``c < -1`` on signed inputs;
   wherever the reference is finite the values are identical). The floor is not
   scale-free, so Gram matrices (:func:`~ntkviz.core.conv.gram.gram_iter` and the tiles of
   :mod:`ntkviz.dataset`) first divide an image stack whose largest |pixel| is below 1 or
   above 2^64 by the power of two bringing it into [1, 2), then multiply by its square
   (exact; :func:`~ntkviz.core.conv.gram.homogeneous_rescale`): the floor then acts at
   1e-6 of the largest pixel, and values are the same bits as unscaled elsewhere.
3. ``relu``: ``C = n n' kappa1(c)``, ``kappa1(c) = (sqrt(1-c^2) + c(pi - arccos c))/pi``,
   with one deliberate difference from the reference: a cosine within 4 ulps of 1 is
   taken as exactly 1. Parallel patches (every position of a self-pair, identical patches
   of two images) have cosine 1, which the rounded ``(P / n) / n'`` misses by an ulp or
   two, and ``kappa0``'s infinite slope at 1 turns that ulp into a ~5e-9 error per term
   (NTK self-pairs came out 1.6-4e-9 too small). A true cosine that close to 1 but below
   it cannot be resolved from float64 inputs anyway; for 8-bit images it cannot occur
   (distinct patches have ``1 - c >= ~1e-13``).
   ``exp``: ``C = n n' exp((c - 1)/sigma^2)``.
4. NTK (``relu`` only): ``N = C + Q kappa0(c)``, ``kappa0(c) = (pi - arccos c)/pi``,
   ``Q_0 = P_0`` and ``Q_l`` the patch sum of the pooled NTK tensor ``N_{l-1}``.
5. separable pooling (the same 1-D filter on each axis): ``gaussian``
   ``2 pf + 1`` taps ``exp(-a^2/pf^2)`` normalised to 1, window from
   ``sub * i``, output size ``H // sub - 1``; ``average`` ``pf`` taps ``1/pf``
   from ``sub * i``, size ``H // sub``; ``strided`` ``in[sub (i + 1)]``, size
   ``H // sub - 1``; taps past the end are dropped without renormalisation.
6. output: the trace over the last pooled grid (the l2 inner product of the
   final feature maps).

Unlike the reference, images may be non-square and multi-channel.

Floating-point order: patch sums, cosines, kappa formulas (libm arccos,
division by pi) and the pooling order (axes j', i', j, i, each sum sequential)
follow the reference, so values agree with it to ~1e-16 and bit for bit where
its sums are sequential (average/strided pooling, model M3). This matters for
NTK self-pairs, where c = 1 - O(ulp) is amplified by kappa0's infinite slope.
"""
