"""A small service that says hi."""

import os

import greetlib
from flask import Flask

app = Flask(__name__)

greetlib.init(os.environ["GREETLIB_API_KEY"])


@app.get("/hi/<name>")
def hi(name: str) -> str:
    return greetlib.hello(name)
