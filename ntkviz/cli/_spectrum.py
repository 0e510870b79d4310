"""``ntkviz spectrum``: Mercer eigenvalues μ_k of a dot-product kernel on S^{p-1} as CSV.

Example::

    ntkviz spectrum --name ntk --depth 3 --dim 10 --kmax 200 --out mu.csv

Columns ``k,multiplicity,mu,error_estimate,log10_mu,trustworthy,log10_trustworthy,log10_multiplicity``:
``mu`` is the eigenvalue of each of the ``multiplicity = N(p, k)`` (an exact integer,
beyond float64 at large p and k: read it as text, or use ``log10_multiplicity``) degree-k
spherical harmonics for the uniform probability measure on the sphere (so
Σ_k N(p,k) μ_k = κ(1)); ``error_estimate`` its estimated absolute error;
``log10_mu`` its base-10 logarithm, also where μ_k is below the float64 range
(``mu`` is then 0.0 or subnormal; blank for exact zeros); ``trustworthy`` whether
the float64 ``mu`` is vouched for, ``log10_trustworthy`` whether ``log10_mu`` is (also
where ``mu`` underflowed). Exact zeros (κ0 at even k >= 2, κ1 and the two-layer
NTK at odd k >= 3) are written as 0.0. Computed by
:class:`ntkviz.jobs.SpectrumTableRequest`; methods: ``ntkviz.core.spectra.mercer``.
"""
from __future__ import annotations

from ntkviz.cli._common import add_kernel_arguments, int_in, kernel_spec, output_path, write_csv
from ntkviz.limits import DIM_RANGE, KMAX_RANGE


def register(sub) -> None:
    p = sub.add_parser(
        "spectrum",
        help="write Mercer eigenvalues k,multiplicity,mu,error_estimate,log10_mu,trustworthy,"
             "log10_trustworthy,log10_multiplicity as CSV",
        description="Mercer decomposition of a dot-product kernel on the sphere S^{p-1}: "
        "the eigenvalue mu_k of each degree-k spherical harmonic (uniform probability "
        "measure), its multiplicity N(p,k), an estimated absolute error, log10 mu_k (also "
        "below the float64 range) and whether mu_k and log10 mu_k are trustworthy, for "
        "k = 0..kmax. "
        "Closed forms for arccos0/arccos1/two-layer ReLU NTK, a cancellation-free series "
        "for every ReLU kernel, Gauss-Legendre quadrature for other activations.",
    )
    add_kernel_arguments(p)
    p.add_argument("--dim", required=True, type=int_in(*DIM_RANGE), metavar="P",
                   help=f"input dimension p in [{DIM_RANGE[0]}, {DIM_RANGE[1]}] (sphere S^(p-1))")
    p.add_argument("--kmax", required=True, type=int_in(*KMAX_RANGE), metavar="K",
                   help=f"highest degree k in [{KMAX_RANGE[0]}, {KMAX_RANGE[1]}]")
    p.add_argument("--out", required=True, metavar="FILE.csv", help="output CSV file")
    p.set_defaults(func=run)


def run(args) -> int:
    from ntkviz.jobs import SpectrumTableRequest

    request = SpectrumTableRequest(kernel_spec(args), args.dim, args.kmax)
    path = output_path(args.out, (".csv",))
    write_csv(path, *request().csv_table())
    return 0
