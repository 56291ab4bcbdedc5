"""mallard: a pure-Python, Drake-style simulator.

The repository root is this package. `mallard.all` re-exports the public API, as `pydrake.all` does.
"""
__version__ = "0.1.0"
