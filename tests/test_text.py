"""The one parser of typed lists (``ntkviz._text.parse_list``) and its users: the
classification CLI's --train-sizes and --deform, the models' integer lists and the
classification panel's text fields all read and refuse a list the same way."""
from __future__ import annotations

import pytest

from ntkviz._text import parse_list


def test_values_and_blank_text():
    assert parse_list("n", " 3, 5 ,10") == (3, 5, 10)
    assert parse_list("a", "0, 1.5, -2e-3", float) == (0.0, 1.5, -0.002)
    assert parse_list("a", "7", float) == (7.0,) and isinstance(parse_list("a", "7", float)[0], float)
    assert parse_list("n", "") == () and parse_list("n", "   ") == ()


@pytest.mark.parametrize("text", [",", "3,,5", "3,", " ,3"])
def test_empty_entries_are_refused(text):
    for kind, what in ((int, "integers"), (float, "numbers"), (str, "names")):
        with pytest.raises(ValueError) as err:
            parse_list("--train-sizes", text, kind)
        assert str(err.value) == (f"--train-sizes must be {what} separated by commas, got {text!r} (an entry "
                                  "is empty: use single commas)")


@pytest.mark.parametrize("text", ["3, x", "1.5", "1e3"])
def test_integer_lists_refuse_non_integers(text):
    with pytest.raises(ValueError) as err:
        parse_list("--train-sizes", text)
    assert str(err.value) == f"--train-sizes must be integers separated by commas, got {text!r}"


@pytest.mark.parametrize("text", ["0, x", "nan", "1, inf", "-inf"])
def test_number_lists_refuse_non_finite_values(text):
    with pytest.raises(ValueError) as err:
        parse_list("amplitudes", text, float)
    assert str(err.value) == f"amplitudes must be numbers separated by commas, got {text!r}"


def test_users_share_the_rule():
    from ntkviz.dataset.classify import parse_deform
    from ntkviz.models.kernel_curves import parse_int_list

    assert parse_deform("rotation: 0, 5,10") == ("rotation", (0.0, 5.0, 10.0))
    with pytest.raises(ValueError, match=r"--deform amplitudes must be numbers separated by commas, "
                                         r"got '0,,5' \(an entry is empty: use single commas\)"):
        parse_deform("rotation:0,,5")
    with pytest.raises(ValueError, match="--deform needs at least one amplitude"):
        parse_deform("rotation:")
    with pytest.raises(ValueError, match="depths must be integers separated by commas"):
        parse_int_list("depths", "2,,3")


def test_cli_train_sizes_message():
    from ntkviz.cli import CliError
    from ntkviz.cli._classify import _sizes

    assert _sizes("20, 40", 100) == (20, 40)
    with pytest.raises(CliError, match=r"^--train-sizes must be integers separated by commas, got '20,x'$"):
        _sizes("20,x", 100)


@pytest.mark.parametrize("text,kind,value", [("3,5,3", int, "3"), ("0.5,1,.5", float, "0.5"), ("a,b,a", str, "'a'")])
def test_repeated_values_are_refused(text, kind, value):
    with pytest.raises(ValueError) as err:
        parse_list("x", text, kind)
    assert str(err.value).startswith("x must not repeat a ") and f"got {value} twice" in str(err.value)


def test_names_among_choices():
    assert parse_list("k", "ntk, ckn", str, ("ckn", "ntk")) == ("ntk", "ckn")
    with pytest.raises(ValueError, match=r"^k must be among ckn, ntk, got 'rbf'$"):
        parse_list("k", "ntk,rbf", str, ("ckn", "ntk"))
    with pytest.raises(ValueError, match=r"^k needs at least one value$"):
        parse_list("k", " ", str, ("ckn", "ntk"), allow_blank=False)
