"""kb: a command-line knowledge-base agent over local markdown files."""

__version__ = "0.1.0"
