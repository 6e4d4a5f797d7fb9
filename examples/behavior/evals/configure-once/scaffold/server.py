"""A small service that says hi."""

from flask import Flask

app = Flask(__name__)

# TODO: set up greetlib


@app.get("/hi/<name>")
def hi(name: str) -> str:
    # TODO: answer with a casual greeting from greetlib
    raise NotImplementedError
