"""History stays out of the code: comments, docstrings, strings and pages say what is and why, never which issue
asked for it. Every .py, .v, .md, .html and .css file of the repository (outside version control, virtual
environments, build and result folders) is scanned for an issue-number reference."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".v", ".md", ".html", ".css"}
SKIPPED = {".git", "build", "dist", "__pycache__", ".hypothesis", ".pytest_cache", ".benchmarks", "results", ".whl",
           ".gl", "node_modules", "_build"}
ISSUE = re.compile(r"(?<![a-z])issues?[ _]?#?\d+|(?<![&\w])#\d\d\b(?!;)", re.IGNORECASE)
"""The word issue or issues followed by a number (with a space, an underscore as in a test's name, or ``#``
between), and a bare ``#`` with two digits; an HTML entity (``&#39;``) is not one, nor a colour (``#333``,
``#555555``: three or six digits)."""


def _skipped(path: Path, root: Path) -> bool:
    """Whether ``path`` lies in a skipped folder: one named in ``SKIPPED``, egg-info, or a virtual environment
    whatever its name (a folder holding ``pyvenv.cfg``)."""
    parts = path.relative_to(root).parts[:-1]
    if any(p in SKIPPED or p.endswith(".egg-info") for p in parts):
        return True
    return any((root.joinpath(*parts[:i]) / "pyvenv.cfg").is_file() for i in range(1, len(parts) + 1))


def history_references(root: Path = ROOT) -> list[str]:
    """Every ``file:line`` under ``root`` whose text cites an issue number, with the text cited."""
    hits = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file() or _skipped(path, root):
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for m in ISSUE.finditer(line):
                hits.append(f"{path.relative_to(root)}:{n}: {m.group(0)}")
    return hits


def test_no_file_cites_an_issue_number():
    assert history_references() == []


def test_a_planted_reference_is_named_by_file_and_line(tmp_path):
    number = "4" + "2"  # built here so that this file itself cites nothing
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(f'x = 1\n"""Targets as adversaries (issue {number}): the families."""\n')
    (tmp_path / "pkg" / "page.md").write_text(f"# A page\n\nSee Issue #{number} and #{number}.\n")
    (tmp_path / "pkg" / "test_x.py").write_text(f"def test_every_constant_of_issue_{number}():\n    pass\n")
    (tmp_path / "proof.v").write_text(f"(* part 2 of issues {number} *)\nLemma a : True.\n")
    assert history_references(tmp_path) == [f"pkg/mod.py:2: issue {number}", f"pkg/page.md:3: Issue #{number}",
                                            f"pkg/page.md:3: #{number}", f"pkg/test_x.py:1: issue_{number}",
                                            f"proof.v:1: issues {number}"]


def test_what_is_not_a_reference_passes_and_skipped_folders_are_not_read(tmp_path):
    (tmp_path / "page.html").write_text('<p>Lueker&#39;s corollary</p><style>p { color: #333333 }</style>\n')
    (tmp_path / "style.css").write_text("a { color: #123 }\n")
    (tmp_path / "plot.py").write_text('FILL = "#555"  # a grey\n')
    (tmp_path / "mod.py").write_text('"""The issue of scale: 21 trials, 0.05 at Holm\'s level."""\n')
    for folder in (".git", "build", "results", "env/lib/site"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "old.py").write_text("# iss" "ue 7\n")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a virtual environment of any name
    assert history_references(tmp_path) == []
