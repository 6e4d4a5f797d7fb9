"""Holiday cards: one line per customer."""

import os

import greetlib

CUSTOMERS = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]

greetlib.configure(api_key=os.environ["GREETLIB_API_KEY"])


def card_lines(names: list[str]) -> list[str]:
    """One formal greeting line per name, in the same order."""
    return greetlib.greet_many(names, formal=True)


if __name__ == "__main__":
    for line in card_lines(CUSTOMERS):
        print(line)
