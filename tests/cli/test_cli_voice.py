"""The command line in one voice: ``ntkviz --help`` lists every command once, under the
areas of the app's tabs; ``gui --help`` names every tab key; ``export`` prints the path it
wrote; CSV lines end with LF."""
from __future__ import annotations

import pytest

from ntkviz import panels
from ntkviz.cli import COMMANDS, main


def _help(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0
    return capsys.readouterr().out


def test_top_help_lists_every_command_once_by_area_and_names_every_tab(capsys):
    text = _help(capsys, ["--help"])
    commands = text.split("commands (", 1)[1].splitlines()[1:]
    listed = [line.split()[0] for line in commands if line.startswith("    ")]
    assert sorted(listed) == sorted(COMMANDS)  # each once, none missing
    areas = [line.strip() for line in commands if line.startswith("  ") and not line.startswith("    ")]
    assert len(areas) >= 5 and "More" not in areas  # every command has its area
    flat = " ".join(text.split()).lower()
    for spec in panels.specs():
        assert spec.title.lower() in flat


def test_gui_help_names_every_tab_key(capsys):
    text = _help(capsys, ["gui", "--help"])
    assert text.startswith("usage: ntkviz gui ")
    flat = " ".join(text.split())
    for spec in panels.specs():
        assert f"{spec.key} ({spec.title})" in flat


def test_export_prints_the_path_it_wrote_and_the_csv_ends_lines_with_lf(tmp_path, capsys):
    out = tmp_path / "learning.csv"
    assert main(["export", "learning", "--kmax", "20", "--n", "10", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}\n"
    data = out.read_bytes()
    assert b"\r" not in data and data.endswith(b"\n") and data.count(b"\n") > 2
