"""pdftui: search and read a folder of PDFs from the terminal."""

__version__ = "0.1.0"
