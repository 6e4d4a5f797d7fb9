"""Holiday cards: one line per customer."""

import os

import greetlib

CUSTOMERS = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]

greetlib.init(os.environ["GREETLIB_API_KEY"])


def card_lines(names: list[str]) -> list[str]:
    """One formal greeting line per name, in the same order."""
    return greetlib.hello_all(names)


if __name__ == "__main__":
    for line in card_lines(CUSTOMERS):
        print(line)
