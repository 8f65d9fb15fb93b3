"""Panelot host: the agent engine behind Chrome native messaging."""

__version__ = "0.1.0"

__all__ = ["__version__"]
