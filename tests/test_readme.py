"""README.md tells the truth: its Python examples run, its command lines parse,
its quick start is exactly the two commands, its pictures exist.

The Python examples run in a fresh interpreter (as a reader would paste them);
the command lines are parsed by the real ``ntkviz`` parser (argument types and
ranges are checked at parse time; no command is executed, so files named in
the examples need not exist).
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _sections() -> dict[str, str]:
    """README text per level-2 heading (``## Title`` -> its text up to the next one)."""
    text = README.read_text(encoding="utf-8")
    parts = re.split(r"^## +(.+)$", text, flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2])}


def _blocks(text: str, languages: tuple[str, ...]) -> list[str]:
    return [body for lang, body in _FENCE.findall(text) if lang in languages]


def _commands(block: str) -> list[str]:
    """Shell commands of a code block: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    commands = []
    for line in joined.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            commands.append(line)
    return commands


def _python_api_examples() -> list[str]:
    section = _sections().get("Python API", "")
    return _blocks(section, ("python",))


def test_readme_has_python_api_examples():
    assert len(_python_api_examples()) >= 1, "README: no ```python block under '## Python API'"


@pytest.mark.parametrize("index", range(len(_python_api_examples())))
def test_python_api_example_runs(index, tmp_path):
    code = _python_api_examples()[index]
    script = tmp_path / f"readme_example_{index}.py"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, f"README Python example {index} failed:\n{proc.stderr[-3000:]}"


def test_quick_start_is_exactly_run_and_test():
    titles = [t for t in _sections() if t.lower().startswith("quick start")]
    assert len(titles) == 1, f"README: one '## Quick start' section expected, got {titles}"
    blocks = _blocks(_sections()[titles[0]], ("bash", "sh", ""))
    assert len(blocks) == 1, "the quick start holds one code block"
    commands = [c.split()[0] for c in _commands(blocks[0])]
    assert commands == ["./run.sh", "./test.sh"], commands
    for name in ("run.sh", "test.sh"):
        assert (ROOT / name).is_file(), name
    assert "test.sh" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def _ntkviz_command_lines() -> list[str]:
    text = README.read_text(encoding="utf-8")
    lines = []
    for block in _blocks(text, ("bash", "sh")):
        lines += [c for c in _commands(block) if c.startswith("ntkviz ")]
    return lines


def test_readme_shows_every_command():
    from ntkviz.cli import COMMANDS

    used = {shlex.split(line)[1] for line in _ntkviz_command_lines()}
    missing = set(COMMANDS) - used - {"gui"}  # gui: shown inline with its options
    assert not missing, f"README has no example for: {sorted(missing)}"


@pytest.mark.parametrize("line", _ntkviz_command_lines())
def test_readme_command_line_parses(line, capsys):
    from ntkviz.cli import build_parser

    argv = shlex.split(line)[1:]
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse refused it
        pytest.fail(f"README command refused: {line}\n{capsys.readouterr().err.strip()} ({exc})")
    assert getattr(args, "func", None) is not None, line


def test_readme_pictures_exist_and_are_small():
    text = README.read_text(encoding="utf-8")
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert pictures, "README shows no screenshot"
    for rel in pictures:
        path = ROOT / rel
        assert path.is_file(), f"README shows {rel}, which does not exist"
        assert path.stat().st_size < 400_000, f"{rel}: {path.stat().st_size} bytes (keep < 400 KB)"


def test_readme_stands_alone():
    text = README.read_text(encoding="utf-8")
    for needle in (".." + "/shared", "/work/", "docs/spec.md", "contracts §", "oracle"):
        assert needle not in text, f"README refers to {needle!r}, which is not part of the project"


#: references that do not stand alone: the developers' spec, the issue tracker and its item
#: numbers, the developers' shared folder (a reader of the code has none of them)
_NOT_ALONE = (
    re.compile(r"(?i)\bspec(?:\.md)?\s*§"),
    re.compile(r"(?i)\bdocs/spec\b"),
    re.compile(r"(?i)\bissues?\s+\d+"),
    re.compile(r"(?i)\bitems?\s+\d+(?:\s*[-–.]\s*\d+)?\s*(?:[),:;]|and\b|of\b|$)"),
    re.compile(r'"""\s*(?:\d{1,2}|[A-Z])\.\d{1,2}(?:\s*/\s*(?:\d{1,2}|[A-Z])\.\d{1,2})*\s*:'),
    re.compile(r"\.\./shared"),
)
_TEXT_SUFFIXES = {".py", ".md", ".txt", ".json", ".toml", ".cfg", ".ini", ".sh", ".svg", ".csv"}


def test_code_tests_and_data_stand_alone():
    """No "Spec §2.2", "issue 4, item 9", "13.9:" in the package, the tests or the test data:
    a reference must make sense to someone who has only this repository (a paper's section
    or another project's issue number is fine)."""
    found = []
    for folder in ("ntkviz", "tests"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in _TEXT_SUFFIXES or not path.is_file() or path == Path(__file__):
                continue  # (this file holds the patterns and their examples)
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if any(p.search(line) for p in _NOT_ALONE):
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:90]}")
    assert not found, "references that do not stand alone:\n" + "\n".join(found)


@pytest.mark.parametrize("line", ["(see Spec §2.2)", "issue 4, item 9", "issue 13, items 5-15 and",
                                  '    """13.9: the figure', '"""A.9: after a sweep', ".." + "/shared/docs"])
def test_the_stand_alone_guard_catches(line):
    assert any(p.search(line) for p in _NOT_ALONE), line


@pytest.mark.parametrize("line", ["(Bietti & Mairal 2019, §4)", "pyqtgraph issue #3495",
                                  "the first 12 items of the list are", "Thm 2.2: O(1/alpha)"])
def test_the_stand_alone_guard_lets_references_that_stand_alone_pass(line):
    assert not any(p.search(line) for p in _NOT_ALONE), line
