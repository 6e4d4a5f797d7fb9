"""Every JSON document the tool writes, and its JSON Schema, generated from the document's own
types and shipped with the package (`activation schema KIND` prints it; docs/hooks.py lists
them all on the reference page; a test keeps each shipped file equal to what the types give
and validates a real document of each kind against it).

A document is a typed record, written and read by the one codec (`_documents.py`). A run's
report is one of two records (one cell's, or the matrix of several); a document that holds a
run (a gate's, the holdback's) holds it as the run's own JSON saves it. A command that stops
before it has a result writes only `schema`, `version`, `exit_code` and `error`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, cast, get_args, get_type_hints

import msgspec
import orjson

from activation._documents import document_of
from activation.report.agreement import AgreementRecord
from activation.report.calibration import BehaviorCalibrationRecord, CalibrationRecord
from activation.report.changed import ChangedReport, changed_data
from activation.report.codec import parse_saved, report_data
from activation.report.matrix import Matrix, SavedRun
from activation.report.model import Report
from activation.report.suggestion import Suggestion
from activation.report.visibility import VisibilityReport
from activation.state import Batches, Flagged
from activation.trials.agent.installed import SkillsRecord

DRAFT = "https://json-schema.org/draft/2020-12/schema"
REF = "#/$defs/{name}"
STOPPED = "A command that stopped before it had a result (exit 2 or 4)."
SAVED_RUN = {
    "description": "A run as its own JSON saves it: one cell's report, or the matrix of several.",
    "anyOf": [{"$ref": "#/$defs/Report"}, {"$ref": "#/$defs/Matrix"}],
}
SAVED = cast(type, SavedRun)
"""The saved run as msgspec meets it (a name it asks the hooks below about)."""


def read_run(data: object) -> Matrix:
    """A saved run as the matrix it is (one cell's report is a matrix of one)."""
    return parse_saved(data, "the run")


def run_data(run: Matrix) -> Any:
    return report_data(run, full=True)


def read_changed(data: Any) -> ChangedReport:
    """Each gate's run is read back as the run it saves."""
    gates = [{**gate, "run": msgspec.to_builtins(read_run(gate.get("run")))}
             for gate in data.get("gates", ())]  # fmt: skip
    return document_of({**data, "gates": gates}, ChangedReport)


def gate_runs(definitions: dict[str, Any]) -> None:
    """A gate's run is typed as the matrix and saved as a run's JSON saves it."""
    definitions["GateResult"]["properties"]["run"] = SAVED_RUN


@dataclass(frozen=True)
class Document:
    kind: str
    """Its name in `activation schema KIND`."""
    title: str
    writes: str
    """What writes it, in words (Markdown)."""
    shapes: tuple[type, ...]
    """Its record; a run's report is one of two."""
    stopped: bool = False
    """Its command writes the stop record when it stops before it has a result."""
    holds_runs: bool = False
    """It holds runs as their own JSON saves them (`SAVED_RUN`)."""
    refine: Callable[[dict[str, Any]], None] | None = None
    """What the types alone cannot say, set on the schema's definitions."""
    read: Callable[[Any], object] | None = None
    """A saved document as its record, when `document_of` alone cannot read it."""
    data: Callable[[Any], Any] = msgspec.to_builtins
    """A record as the plain data its file holds."""
    file: str = ""
    """The shipped schema's file name, beside this module (default: KIND.schema.json)."""

    @property
    def ids(self) -> tuple[str, ...]:
        """Each record's `schema` value."""
        return tuple(get_args(get_type_hints(shape)["schema"])[0] for shape in self.shapes)

    @property
    def filename(self) -> str:
        return self.file or f"{self.kind}.schema.json"


DOCUMENTS = {
    document.kind: document
    for document in (
        Document("run", "activation report",
                 "`activation run`, `behavior` and `merge` with `--json`",
                 (Report, Matrix), stopped=True, read=read_run, data=run_data,
                 file="report.schema.json"),
        Document("changed", "activation changed report", "`activation changed --json`",
                 (ChangedReport,), stopped=True, holds_runs=True, refine=gate_runs,
                 read=read_changed, data=changed_data),
        Document("calibration", "activation calibration",
                 "`activation calibrate --json`, and each `--record` entry",
                 (CalibrationRecord,), stopped=True),
        Document("agreement", "activation agreement",
                 "`activation calibrate --agreement --json`, and each `--record` entry",
                 (AgreementRecord,), stopped=True),
        Document("behavior-calibration", "activation behavior calibration",
                 "`activation calibrate --behavior --json`",
                 (BehaviorCalibrationRecord,), stopped=True),
        Document("visibility", "activation visibility", "`activation visibility --json`",
                 (VisibilityReport,)),
        Document("suggestion", "activation suggestion", "`activation suggest --json`",
                 (Suggestion,), stopped=True, holds_runs=True),
        Document("state", "activation Stage A flags",
                 "every Stage A run, in `.activation/stage-a/`: the cases it flagged, which a "
                 "Stage B run on the same pair of descriptions runs by default",
                 (Flagged,)),
        Document("batches", "activation batches",
                 "`--batch`, in `.activation/batches/`: the batches a run submitted and has not "
                 "seen to the end, for `--resume`",
                 (Batches,)),
        Document("skills", "activation skills record",
                 "every Stage B and Stage C run, beside its transcripts "
                 "(`skills-<variant>.json`): what `activation detect` needs of a variant's "
                 "skills (each one's id, listed name and nonce)",
                 (SkillsRecord,)),
    )
}  # fmt: skip
"""Every JSON document the tool writes, by kind."""


def _saved_run_schema(kind: type) -> dict[str, Any]:
    if kind is SAVED:
        return SAVED_RUN
    raise NotImplementedError(kind)


def _saved_run(kind: type, data: Any) -> object:
    if kind is SAVED:
        run = read_run(data)
        return run.single or run
    raise NotImplementedError(kind)


def schema_of(kind: str) -> dict[str, Any]:
    """The JSON Schema of a document, from its types."""
    found = DOCUMENTS[kind]
    held = (Report, Matrix) if found.holds_runs else ()
    shapes, definitions = msgspec.json.schema_components(
        (*found.shapes, *held), schema_hook=_saved_run_schema, ref_template=REF
    )
    if found.refine is not None:
        found.refine(definitions)
    stopped = [stopped_early(found.ids[0])] if found.stopped else []
    return {
        "$schema": DRAFT,
        "title": found.title,
        "anyOf": [*shapes[: len(found.shapes)], *stopped],
        "$defs": definitions,
    }


def stopped_early(schema: str) -> dict[str, Any]:
    """The schema of the record a command writes when it stops before it has a result."""
    return {
        "title": "StoppedEarly",
        "description": STOPPED,
        "type": "object",
        "properties": {
            "schema": {"const": schema},
            "version": {"type": "string"},
            "exit_code": {"type": "integer"},
            "error": {"type": "string"},
        },
        "required": ["schema", "version", "exit_code", "error"],
        "additionalProperties": False,
    }


def schema_json(kind: str) -> bytes:
    """A schema as the shipped files hold it: sorted keys, indented, one final newline."""
    return orjson.dumps(schema_of(kind), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def shipped_schema(kind: str) -> bytes:
    """The schema file the package carries."""
    return files("activation.report").joinpath(DOCUMENTS[kind].filename).read_bytes()


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a run's report, of one cell or a matrix."""
    return schema_of("run")


def read_document(kind: str, data: object) -> object:
    """A saved document of `kind` (JSON bytes or their plain data) as its record;
    ValueError when it is not one (InputError when a run in it is not a run's report)."""
    found = DOCUMENTS[kind]
    if found.read is not None:
        return found.read(orjson.loads(data) if isinstance(data, bytes) else data)
    return document_of(data, found.shapes[0], _saved_run)
