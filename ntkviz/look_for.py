"""What to look for in each panel: a few observations, with the parameters that show them.

Help → What to look for (Shift+F1, or the link at the right of the tab bar) lists the
observations of the current tab; each has a *Show* link that sets its parameters (the
others at their defaults) as one undoable step. :data:`LOOK_FOR` holds them, keyed by
panel key: a panel added to :data:`ntkviz.panels.PANELS` adds its two to five
observations here (a test names every panel that has none, and checks every parameter
set through the panel's model).

Each observation is true at the parameters it gives (and the defaults of the others):
the numbers quoted were read from the panel's own jobs at those parameters. Maths is
written in Unicode (μₖ, k⁻ᵖ, Hölder-½), never in TeX. This module imports only the
standard library.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["Observation", "LOOK_FOR", "observations", "RAW_MATHS"]

#: maths a reader would see raw: TeX (``x^{…}``, ``x_{…}``, ``\\alpha``, ``$``), a caret power
#: (``k^2``), an underscore subscript on a one-letter symbol (``μ_k``, ``c_0``) or a one-letter
#: subscript on a capitalised name (``NTK_L``); help texts, tooltips, combo box items and
#: legends are checked against it (identifiers such as ``train_loss`` pass)
RAW_MATHS = re.compile(r"\^\{|_\{|\\[A-Za-z]{2,}|\$|(?<![\w])[A-Za-zα-ωΑ-Ω]_[A-Za-z0-9]|\w\^[\w({−-]"
                       r"|\b[A-Z]{2,}_[A-Za-z0-9]\b")


@dataclass(frozen=True)
class Observation:
    """One thing to see in a panel.

    Parameters
    ----------
    text : str
        What to look at and what it shows, with the values that matter.
    params : dict
        The panel's parameters that show it, as in a session (JSON values); the others
        keep their defaults. ``{}``: the defaults show it.
    """

    text: str
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def params_text(self) -> str:
        """``"depth 5, kernels ntk"``, or ``"the defaults"``."""
        if not self.params:
            return "the defaults"
        return ", ".join(f"{name.replace('_', ' ')} {_value(v)}" for name, v in self.params.items())


def _value(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(_value(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


LOOK_FOR: dict[str, tuple[Observation, ...]] = {
    "kernel": (
        Observation("The ReLU NTK of depth L (bias 0) is worth κ(1) = L at u = 1: at depth 5 its "
                    "curve ends at 5 (normalize divides every curve by κ(1), so they all end at 1).",
                    {"kernels": ["ntk"], "depth": 5}),
        Observation("Near u = 1 (the lower log–log view, ε = 1 − u): 2κ(1) − 2κ(1 − ε) of the "
                    "two-layer NTK lies on the (2√2/π)√ε guide, slope ½ — its feature map is only "
                    "Hölder-½ — while κ1's lies on the 2ε guide, slope 1 (Lipschitz)."),
        Observation("Deep ReLU kernels forget angles: normalised NNGPs of depth 2, 5 and 20 read "
                    "0.32, 0.68 and 0.94 at u = 0 (orthogonal inputs), and 0.94 even at u = −1 for "
                    "depth 20.",
                    {"kernels": ["nngp"], "depth": 2, "extra_depths": [5, 20], "normalize": True}),
        Observation("Finite width: 8 random networks of width 10 scatter around the NTK "
                    "(standard deviation ≈ 0.40); at width 1000 the band is about 8 times "
                    "narrower (≈ 0.05): fluctuations shrink like 1/√m.",
                    {"kernels": ["ntk"], "overlay": True, "width": 10, "n_samples": 8}),
        Observation("Derivative view: the NTK's κ′(u) grows without bound as u → 1 (6.4 at "
                    "u = 0.9975, the Hölder-½ point again), while κ1′ = κ0 never exceeds 1.",
                    {"derivative": True}),
    ),
    "spectrum": (
        Observation("Parity zeros: with bias 0 the two-layer ReLU NTK and κ1 have μₖ = 0 exactly "
                    "at every odd k ≥ 3, κ0 at every even k ≥ 2 — the triangles under the plot, "
                    "one row per kernel.",
                    {"kernels": ["arccos0", "arccos1", "ntk"]}),
        Observation("Set bias 0.1 (or depth 3): the NTK's zeros are gone, every degree carries "
                    "weight — such a kernel can learn odd targets of any degree.",
                    {"kernels": ["ntk"], "bias": 0.1}),
        Observation("Decay at p = 3: by k ≈ 100 the local slope (lower plot) settles at −3 for the "
                    "NTK (μₖ ~ C(p) k⁻ᵖ) and at −5 for κ1 (k⁻ᵖ⁻²); the guide lines, closed-form "
                    "constants not fitted, meet the curves there."),
        Observation("At p = 10 the NTK's slope is only −6.8 at k = 5 and −9.6 at k = 100; it "
                    "reaches −9.9 at k = 500: the k⁻ᵖ law holds only for k well above p.",
                    {"dim": 10, "kmax": 500}),
        Observation("Weighted by multiplicity, N(p, k) μₖ (each degree's share of κ(1)) falls like "
                    "k⁻² for the NTK whatever p (exponent −p + p − 2): slope −1.98 at p = 10, "
                    "k = 500.",
                    {"dim": 10, "kmax": 500, "weighted": True}),
    ),
    "deformation": (
        Observation("Translate the digit by 1 px: the pixel distance ‖L_τx − x‖/‖x‖ jumps to 0.61, "
                    "while the CKN (0.05) and the NTK (0.06) barely move: pooling makes the "
                    "kernels nearly blind to small shifts.",
                    {"translate_x": 1.0}),
        Observation("Shrink a rotation from 1° to 0.1°: the CKN distance falls with the angle "
                    "(0.010 → 0.0011, Lipschitz) but the NTK's only like its square root "
                    "(0.020 → 0.0052, Hölder-½), so their ratio grows from 1.9 to 4.5.",
                    {"rotation_deg": 0.1}),
        Observation("Rotate a 1 by 90°: the CKN distance (0.26) exceeds the mean distance to other "
                    "1s (0.21, context bars) but stays below the mean distance to other digits "
                    "(0.52); for pixels the rotated 1 is further than an average other digit "
                    "(1.32 > 1.29).",
                    {"label": 1, "rotation_deg": 90.0}),
    ),
    "stability": (
        Observation("Run sweep (smooth random fields, M1, ten digits): at small amplitudes the CKN "
                    "curve has slope ≈ 1 (0.98 in the legend, Lipschitz) and the NTK's ≈ ½ (0.55, "
                    "Hölder-½), beside guide lines of slope 1 and ½."),
        Observation("At the largest amplitude (3 px) the CKN (0.09) and the NTK (0.12) are still far "
                    "below their same-label levels (0.23 and 0.27): such a deformation moves a digit "
                    "less than swapping it for another digit of its class."),
        Observation("Translations: pixels move fastest (1.07 at 3 px) while the CKN and NTK stay "
                    "near 0.1; at small shifts the slopes are again ≈ 1 and ≈ ½ (0.97, 0.57).",
                    {"family": "translation"}),
        Observation("Rotations from 0.1° to 30°: slopes 0.96 (CKN) and 0.57 (NTK); at 0.1° the NTK "
                    "distance is five times the CKN's, at 30° less than twice.",
                    {"family": "rotation", "amplitude_min": 0.1, "amplitude_max": 30.0}),
    ),
    "training": (
        Observation("α = 0.01 (top row): the neurons travel to the teacher's directions (stars), "
                    "‖w − w₀‖/‖w₀‖ ends at 2.3 and a quarter of the ReLU patterns flip; α = 100 "
                    "(bottom row) is lazy: the weights move by 5·10⁻⁴ and no pattern flips."),
        Observation("In the lazy row the net, its linearisation and the kernel flow with K₀ are one "
                    "curve (gap 9·10⁻⁹, kernel drift 6·10⁻⁷) and its test loss is the kernel's, "
                    "1.0·10⁻³; the travelling row ends 13 times lower (7.7·10⁻⁵)."),
        Observation("α = 100 beside α = 1000 with init centered: the net–linearisation gap falls "
                    "10 times (like 1/α); with the symmetric initialisation it falls 100 times "
                    "(1/α², the second-order terms cancel in pairs).",
                    {"alpha": 100.0, "alpha2": 1000.0, "init": "centered"}),
        Observation("Step size 1: both runs diverge within four steps and stop with a message "
                    "giving the bound 2n/λmax(K₀) ≈ 0.29 for this kernel.",
                    {"lr": 1.0}),
    ),
    "classification": (
        Observation("Start with the defaults (M1, 20/40/80 training digits, 50 test digits): at "
                    "n = 80 the CKN (0.72) and the NTK (0.70) beat pixels (0.54); at n = 20 all "
                    "three are near 0.5, with two of the ten classes missing from so small a "
                    "training set (the CSV's train_classes column)."),
        Observation("50 test digits make every accuracy uncertain by about ±0.12 (95 %): the "
                    "CKN–NTK gap is noise. Seed 11 draws another split and every curve moves up "
                    "(at n = 80: CKN 0.84, NTK 0.82, pixels 0.66).",
                    {"seed": 11}),
        Observation("The deformation plot rotates the test digits: at 30° every method falls "
                    "(CKN 0.72 → 0.38, NTK 0.70 → 0.36, pixels 0.54 → 0.36): stability to small "
                    "deformations does not make a 30° rotation harmless."),
    ),
    "scattering": (
        Observation("Counterexample, largest dilation s = 0.05: the Fourier-modulus distance of the "
                    "Gabor probe grows with its frequency (0.24, 0.46, 0.85 for ω₀ = π/4, π/2, π; "
                    "fitted exponent 0.90), while the scattering distance stays between 0.11 and 0.14 (exponent "
                    "0.00): a dilation moves ω₀ by ω₀s, which the wavelets absorb and |x̂| does not."),
        Observation("Against s both distances are straight lines of slope ≈ 1 (0.98 to 1.03 in the "
                    "legend): each is Lipschitz in ‖∇τ‖∞, but only the scattering constant does not "
                    "grow with the frequency."),
        Observation("The frequency view's Littlewood-Paley sum |φ̂|² + Σ|ψ̂|² stays between 0.12 and "
                    "1 (the two labelled lines): the filter bank loses no frequency and amplifies "
                    "none, so the transform is non-expansive."),
        Observation("J = 3: 217 coefficients per position (1 + JL + L²J(J − 1)/2 with L = 8) on a "
                    "3×3 grid of 8-pixel blocks, against 81 on 7×7 at J = 2: a larger scale 2ᴶ trades "
                    "positions for paths.",
                    {"J": 3}),
    ),
    "learning": (
        Observation("At n = 200 the learnabilities Lₖ are ≈ 1 for degrees 1, 2 and 4 and exactly 0 "
                    "for degree 7: an odd degree where μₖ = 0 for κ1 and the two-layer NTK, so the "
                    "target's degree-7 part is never learned (spectral bias and parity)."),
        Observation("Target 3:1 (degree 3 alone): κ1 and the two-layer NTK never learn it, L₃ = 0 "
                    "and the test MSE stays above its power 1/7 ≈ 0.143 at every n; an NTK of "
                    "depth 3 (no parity zeros) drives it to 0 by n ≈ 400.",
                    {"target": "3:1"}),
        Observation("Label noise σ = 0.5: the test MSE (against a fresh noisy label) never falls "
                    "below σ² plus the unlearnable degree 7: for κ1 it reaches 0.319 ≈ 0.25 + 1/15 "
                    "at n = 10⁵.",
                    {"noise": 0.5}),
        Observation("Ridge δ = 10⁶: nothing is learned at n = 200 (every Lₖ < 10⁻⁴) and the test "
                    "MSE is the target's whole power Σ c²/N(p, k) = 1/3 + 1/5 + 1/9 + 1/15 ≈ 0.711; "
                    "even n = 10⁵ lowers it by less than 4 %.",
                    {"ridge": 1e6}),
        Observation("Run Monte-Carlo at δ = 0.01 (5 seeds): every theory line passes through the "
                    "95 % intervals of the Monte-Carlo points, for both kernels at every n.",
                    {"ridge": 0.01}),
    ),
}


def observations(key: str) -> tuple[Observation, ...]:
    """The observations of panel ``key``; ``KeyError`` naming where to add them."""
    try:
        return LOOK_FOR[key]
    except KeyError:
        raise KeyError(f"panel {key!r} has no 'What to look for': add its observations to "
                       "ntkviz/look_for.py (LOOK_FOR)") from None
