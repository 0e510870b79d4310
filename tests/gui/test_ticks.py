"""Tick text in one style: true values, no scale factor spread over the ticks, angles in π."""
from __future__ import annotations

import math

from ntkviz.gui.ticks import angle_ticks, linear_tick_strings, log_tick_strings


def test_log_tick_strings_are_true_values_in_one_style():
    assert log_tick_strings([-5, 0, 1, 13, -117]) == ["10⁻⁵", "10⁰", "10¹", "10¹³", "10⁻¹¹⁷"]
    two, five = math.log10(2), math.log10(5)
    assert log_tick_strings([-3 + two, 2 + five]) == ["2·10⁻³", "5·10²"]


def _value(label: str) -> float:
    """The number a tick label reads as (thin spaces between digit groups, m·10ⁿ)."""
    sup = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
    label = label.replace("\u2009", "")
    if "·10" in label:
        mantissa, exponent = label.split("·10")
        return float(mantissa) * 10.0 ** int(exponent.translate(sup))
    return float(label)


def test_linear_tick_strings_never_mix_styles():
    assert linear_tick_strings([0.0, 0.5, 1.0], 0.5) == ["0.0", "0.5", "1.0"]
    assert linear_tick_strings([-1, 0, 1], 1) == ["-1", "0", "1"]
    small = linear_tick_strings([0.0, 2e-5, 4e-5, 1e-4], 2e-5)
    assert small == ["0", "2·10⁻⁵", "4·10⁻⁵", "1·10⁻⁴"]
    huge = linear_tick_strings([0, 5e6, 1e7, 1.5e7], 5e6)
    assert huge == ["0", "5·10⁶", "1·10⁷", "1.5·10⁷"]
    for labels in (small, huge):  # one style: never "0.0001" beside "10⁻⁵"
        assert all("·10" in t for t in labels if t != "0")


def test_large_linear_ticks_have_no_spread_scale_factor():
    """Ticks 0 … 12 000 read as plain grouped numbers, never "0.1·10⁴ … 1.3·10⁴"; every
    m·10ⁿ label has 1 ≤ m < 10; every label reads back as its tick's value."""
    values = [float(v) for v in range(0, 14_000, 2000)]
    labels = linear_tick_strings(values, 2000.0)
    assert labels[-1] == "12\u2009000" and labels[1] == "2000"
    cases = [(values, 2000.0), ([1e3 * v for v in range(1, 14)], 1e3),
             ([0, 2.5e-4, 5e-4, 7.5e-4, 1e-3, 1.25e-3], 2.5e-4), ([2e6, 4e6, 6e6], 2e6),
             ([-3e-5, 0.0, 3e-5], 3e-5), ([9.5e6, 9.75e6, 1e7], 2.5e5)]
    for ticks, spacing in cases:
        got = linear_tick_strings(ticks, spacing)
        for value, label in zip(ticks, got):
            assert math.isclose(_value(label), value, rel_tol=1e-9, abs_tol=1e-300), (label, value)
            if "·10" in label:
                assert 1 <= abs(float(label.split("·10")[0])) < 10, label


def test_linear_ticks_over_a_tiny_range_are_distinct_and_offset_free():
    """Ticks 1.6420388 … 1.6420392 read as plain decimals (no "·10⁰"), each distinct
    and each within half a spacing of the value it labels."""
    values = [1.6420388 + i * 1e-7 for i in range(5)]
    labels = linear_tick_strings(values, 1e-7)
    assert not any("·10" in t for t in labels)
    assert len(set(labels)) == len(labels)
    assert all(abs(float(t) - v) <= 0.5e-7 for t, v in zip(labels, values))


def test_angle_ticks_are_multiples_of_pi():
    major, minor = angle_ticks(-math.pi, math.pi)
    assert [t for _, t in major] == ["−π", "0", "π"]
    assert [t for _, t in minor] == ["−π/2", "π/2"]
    major, minor = angle_ticks(0.0, 2 * math.pi)
    assert [t for _, t in major] == ["0", "π", "2π"]
    assert [t for _, t in minor] == ["π/2", "3π/2"]
    for v, text in major + minor:  # each label reads as its value: coefficient·π/denominator
        num, _, den = text.replace("−", "-").replace("π", "").partition("/")
        coef = 0.0 if text == "0" else float(num + "1" if num in ("", "-") else num)
        assert math.isclose(coef * math.pi / float(den or 1), v, abs_tol=1e-12), text
