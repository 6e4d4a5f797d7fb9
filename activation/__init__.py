"""activation: does a skill's description still make the agent load it where it should?

The public surface for use from Python; the command line is `activation.cli.main`.
"""

from activation.cases import Case, load_cases
from activation.detection import Reading, read_stream
from activation.frontmatter import read_description
from activation.report import RunOutcome, report_data
from activation.run import Inputs, Settings, execute, load_inputs
from activation.verdicts import CaseVerdict, Status, Tally, judge

__version__ = "0.1.0"

__all__ = [
    "Case",
    "CaseVerdict",
    "Inputs",
    "Reading",
    "RunOutcome",
    "Settings",
    "Status",
    "Tally",
    "execute",
    "judge",
    "load_cases",
    "load_inputs",
    "read_description",
    "read_stream",
    "report_data",
]
