"""The wheel carries the bundled suite and the HTML template, and the installed package
finds them from anywhere."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_wheel_carries_the_suite_and_the_installed_package_finds_it(
    wheel: Path, fresh_python: str, tmp_path: Path
) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        bundled_cases = archive.read("activation/suite/cases.json")
    assert bundled_cases == (REPO / "cases.json").read_bytes()
    assert {
        "activation/pricing.toml",
        "activation/mcp/invoices.mjs",
        "activation/report/templates/report.html.j2",
        "activation/suite/calibration/narrow/SKILL.md",
        "activation/suite/calibration/broad/SKILL.md",
        *(
            f"activation/suite/distractors/{p.relative_to(REPO / 'distractors').as_posix()}"
            for p in (REPO / "distractors").glob("*/*.md")
        ),
        *(
            f"activation/suite/examples/billing/{p.relative_to(REPO / 'examples/billing')}"
            for p in (REPO / "examples" / "billing").rglob("*")
            if p.is_file()
        ),
    } <= names
    assert len([name for name in names if "/examples/billing/" in name]) == 6
    assert Path(wheel.name).name.startswith("skill_activation-")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        f"import sys; sys.path.insert(0, {str(site)!r})\n"
        "import activation\n"
        "from activation.inputs.load import load_cases, load_distractors\n"
        "from activation.inputs.suite import BUNDLED_CASES, BUNDLED_CONTROLS, DISTRACTOR_SETS\n"
        "print(activation.__file__)\n"
        "print(len(load_cases(BUNDLED_CASES).cases), load_cases(BUNDLED_CASES).written_for)\n"
        "print(*(len(load_distractors(folder)) for folder in DISTRACTOR_SETS.values()))\n"
        "print((BUNDLED_CONTROLS / 'narrow' / 'SKILL.md').is_file())\n"
        "from activation.inputs.load import load_pricing\n"
        "print(load_pricing().for_model('claude-sonnet-5-5'))\n"
        "from activation.report.html import environment\n"
        "print(environment().get_template('report.html.j2').filename.startswith(sys.path[0]))\n"
    )
    completed = subprocess.run(
        [fresh_python, "-c", probe], cwd=elsewhere, capture_output=True, text=True, check=True
    )
    where, cases, distractors, narrow, prices, template = completed.stdout.splitlines()
    assert prices == "Prices(input=2.0, output=10.0, cache_write=2.5, cache_read=0.2)"
    assert Path(where).is_relative_to(site)
    assert cases == "95 auth0:auth0"
    assert distractors == "10 8"
    assert narrow == "True"
    assert template == "True"
