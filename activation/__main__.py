"""`python -m activation`."""

from activation.commands.main import console

console()
