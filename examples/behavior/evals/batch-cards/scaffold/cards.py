"""Holiday cards: one line per customer."""

CUSTOMERS = ["Ada Lovelace", "Grace Hopper", "Alan Turing"]


def card_lines(names: list[str]) -> list[str]:
    """One formal greeting line per name, in the same order."""
    # TODO: use greetlib
    raise NotImplementedError


if __name__ == "__main__":
    for line in card_lines(CUSTOMERS):
        print(line)
