"""`activation import FILE... --out cases.json`: case files in any format read by `--cases`,
written once in this tool's own format, for users who want to switch.

Duplicate prompts across the files (per-skill files that share their negatives) become one
case, the union of what the copies expect; a conflict between copies is an input error
naming the files. The output is written whole or not at all, and only when this tool
reads it back (a file named for its skill keeps that skill). Exit 0 once written, 2 for bad
input, 4 when the file cannot be written.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from activation._errors import ExitCode, InputError
from activation.commands.flags import IMPORT
from activation.commands.session import Session, check_writable
from activation.inputs.cases import check_cases, refuse_problems, unexplained_line


def main_import_cases(session: Session, argv: list[str]) -> int:
    args = IMPORT.parse(argv)
    session.debug = session.debug or args.debug
    from activation.inputs.formats.merge import merge
    from activation.inputs.formats.native import write
    from activation.inputs.repo_cases import expand, read_source, skill_sets_line

    out: Path = args.out
    files = expand(args.files, Path.cwd(), "")  # a folder: its case files, `.txt` prompts too
    if out.resolve() in {path.resolve() for path in files}:
        raise InputError(f"--out {out}: is one of the files read")
    check_writable(out, "--out")
    read = [(str(path), read_source(path, args.cases_format)) for path in files]
    merged = merge(read)
    checked = refuse_problems(merged.file, ", ".join(str(path) for path in args.files))
    names = ", ".join(path.name for path in files)
    about = f"Imported by `activation import` from {names}."
    payload = write(checked, about)
    refuse_problems(
        check_cases(orjson.loads(payload)), f"--out {out}: not written (it would not read back)"
    )
    if not session.write_file(out, payload, "cases file"):
        return ExitCode.INTERNAL
    formats = ", ".join(dict.fromkeys(found.format for _path, found in read))
    session.say(f"wrote {len(checked.cases)} case(s) from {len(read)} file(s) ({formats}) to {out}")
    for case_id, sources in merged.repeats:
        session.say(f"merged the copies of {case_id!r} from {', '.join(sources)}")
    line = unexplained_line(len(checked.unexplained))
    routes = any(case.expect is not None for case in checked.cases)
    unnamed = [case.id for case in checked.cases if routes and case.expect is None]
    said = f"{len(unnamed)} case(s) from files that name no skill stay about the skill a run "
    said += f"measures (--skill-path): {', '.join(unnamed)}"
    session.warn([*([line] if line else []), *([said] if unnamed else []), *skill_sets_line(files)])
    return ExitCode.OK
