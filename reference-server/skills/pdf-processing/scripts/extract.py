"""Prints the text of each page of a PDF (an example script of the reference server's skills)."""
import sys

def main(path):
    print(f"would extract the text of {path}")

if __name__ == "__main__":
    main(sys.argv[1])
