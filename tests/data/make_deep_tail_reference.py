"""Independent reference for the Mercer eigenvalues of deep ReLU NTK/NNGP kernels far in the tail.

Writes ``deep_tail_p1000.npz`` beside this script: for the NTK and NNGP of depth L = 50 with bias
β ∈ {0, 1, 10} on S^{p-1}, p = 1000, k = 0..2000, each eigenvalue as ``mantissa · 10**exponent``
with a rigorous relative uncertainty.

Method (shares nothing with ntkviz's spectrum code):
1. Taylor coefficients b_n of κ(u) = Σ b_n u^n by a Cauchy integral on the circle |z| = ρ < 1:
   the deep recursion (Σ_0 = z + β, q_0 = 1 + β; Σ ← q κ1(Σ/q) + β, Θ ← Σ_new + Θ κ0(Σ/q),
   q ← q + β; κ0(s) = 1 - arccos(s)/π, κ1(s) = (√(1 - s²) + s(π - arccos s))/π) is evaluated
   at M points in complex ball arithmetic (python-flint, 512 bits) and transformed by a DFT in
   ball arithmetic. Aliasing adds Σ_{m≥1} b_{n+mM} ρ^{mM} <= κ(1) ρ^M / (1 - ρ^M) to b_n / ...
   (every b_n >= 0 and Σ b_n = κ(1)), which is added to each radius.
2. μ_k = Σ_{n ≥ k, n ≡ k (2)} b_n T(n, k), T(n, k) = n! Γ(p/2) / (2^n ((n-k)/2)! Γ((n+k+p)/2))
   (the eigenvalue of u^n for the uniform probability measure; every term >= 0), summed in ball
   arithmetic up to n = N; the rest is at most (κ(1) - Σ_{n<=N} b_n) · T(n', k), n' the first
   degree above N, valid once T(·, k) decreases there (checked).

Run: ``python tests/data/make_deep_tail_reference.py`` (needs python-flint; ~12 min on 2 cores).
``tests/core/spectra/test_deep_tail.py`` also checks this method itself against the 50-digit
oracle (two-layer kernels, p = 10) at a small size.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
from flint import acb, arb, ctx

DEPTH, DIM, KMAX = 50, 1000, 2000
BIASES = (0.0, 1.0, 10.0)
M, N, A, PREC = 2**16, 9000, 80, 512


def taylor_coefficients(depth: int, beta: float, points: int = M, n_max: int = N,
                        decay: int = A, prec: int = PREC):
    """(NTK, NNGP) Taylor coefficients b_0..b_{n_max} as arb balls, each with κ(1).

    ``points`` nodes on |z| = ρ = 1 - decay/points; aliasing adds at most
    κ(1) ρ^points / (1 - ρ^points) (every b_n >= 0, Σ b_n = κ(1)), put in the radius.
    """
    M, N, A = points, n_max, decay
    ctx.prec = prec
    rho = 1 - arb(A) / M
    pi = arb.pi()
    b = arb(beta)
    ntk_half, nngp_half = [], []
    for j in range(M // 2 + 1):
        z = rho * acb(arb(2 * j) / M).exp_pi_i()
        sig = z + b
        q = 1 + b
        theta = sig
        for _ in range(depth - 1):
            s = sig / q
            ac = s.acos()
            k0 = 1 - ac / pi
            k1 = ((1 - s * s).sqrt() + s * (pi - ac)) / pi
            new = q * k1 + b
            theta = new + theta * k0
            sig = new
            q = q + b
        ntk_half.append(theta)
        nngp_half.append(sig)
    at_one_ntk = depth + arb(beta) * depth * (depth + 1) / 2  # Σ_{l<L} q_l, q_l = 1 + (l+1)β
    at_one_nngp = 1 + arb(beta) * depth                        # q_{L-1}
    out = []
    for half, at_one in ((ntk_half, at_one_ntk), (nngp_half, at_one_nngp)):
        full = half + [half[j].conjugate() for j in range(M // 2 - 1, 0, -1)]
        coef = acb.dft(full)
        rho_m = rho ** M
        alias = at_one * rho_m / (1 - rho_m)
        bn = []
        rn = arb(1)
        for n in range(N + 1):
            c = coef[n].real / M / rn  # b_n + Σ_m b_{n+mM} ρ^{mM}, with 0 <= alias part <= alias
            bn.append(c - alias / 2 + arb(0, 1) * (alias / 2 + c.rad()))
            rn = rn * rho
        out.append((bn, at_one))
    return out


def eigenvalues(bn, at_one, p: int, kmax: int):
    """(mantissa, exponent, relative uncertainty) of μ_k, k = 0..kmax, from b_0..b_N."""
    N = len(bn) - 1
    ctx.prec = 192
    total = sum(bn[: N + 1], arb(0))
    tail_mass = at_one - total
    mant = np.zeros(kmax + 1)
    expo = np.zeros(kmax + 1, dtype=np.int64)
    unc = np.zeros(kmax + 1)
    half_p = arb(p) / 2
    for k in range(kmax + 1):
        t = (arb(k + 1).lgamma() + half_p.lgamma() - k * arb(2).log()
             - (arb(k) + half_p).lgamma()).exp()
        s = arb(0)
        n = k
        while n <= N:
            s += bn[n] * t
            t = t * ((n + 1) * (n + 2)) / ((n - k + 2) * (n + k + p))
            n += 2
        # t is now T(n', k), n' the first degree above N of k's parity
        if not n * (p - 1) > k * k + k * p - 2 * k - 2 * p + 2:
            raise RuntimeError(f"N = {N} is not past the peak of T(n, {k})")
        s = s + arb(0, 1) * (tail_mass.upper() * t)
        if not s > 0:  # an exact zero (by parity) or not resolved: 0 <= μ_k <= upper bound
            mant[k], expo[k], unc[k] = 0.0, 0, math.inf
            continue
        log10 = s.mid().log() / arb(10).log()
        e = int(math.floor(float(log10)))
        mant[k] = float(s.mid() / arb(10) ** e)
        expo[k] = e
        unc[k] = float((s.rad() / s.mid()).upper()) + 2.0**-52
    return mant, expo, unc


def main() -> None:
    out = {}
    for beta in BIASES:
        t0 = time.time()
        (ntk_b, ntk_one), (nngp_b, nngp_one) = taylor_coefficients(DEPTH, beta)
        for name, bn, at_one in (("ntk", ntk_b, ntk_one), ("nngp", nngp_b, nngp_one)):
            mant, expo, unc = eigenvalues(bn, at_one, DIM, KMAX)
            key = f"{name}_beta{beta:g}"
            out[f"{key}_mantissa"], out[f"{key}_exponent"], out[f"{key}_unc"] = mant, expo, unc
            print(f"{key}: max relative uncertainty {unc.max():.1e} [{time.time() - t0:.0f} s]",
                  flush=True)
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("deep_tail_p1000.npz")
    np.savez_compressed(target, depth=DEPTH, dim=DIM, kmax=KMAX, **out)
    print("wrote", target)


if __name__ == "__main__":
    main()
