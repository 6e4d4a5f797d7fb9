"""Check a cards file: every line is `To <name>: <greeting>!`; prints `ok` or each bad line."""

import re
import sys
from pathlib import Path

CARD = re.compile(r"^To [^:]+: [A-Z].*!$")


def main(path: str) -> int:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    bad = [line for line in lines if not CARD.match(line)]
    for line in bad:
        print(f"not a card: {line!r}")
    print("ok" if not bad else f"{len(bad)} bad line(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
