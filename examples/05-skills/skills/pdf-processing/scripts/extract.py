"""Prints the text of every page of a PDF file."""
import sys

from pypdf import PdfReader


def main(path: str) -> None:
    for number, page in enumerate(PdfReader(path).pages, start=1):
        print(f"--- page {number} ---")
        print(page.extract_text() or "")


if __name__ == "__main__":
    main(sys.argv[1])
