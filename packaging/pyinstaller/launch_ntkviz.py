"""PyInstaller entry script for the ntkviz bundle (same as ``python -m ntkviz``)."""
import sys

from ntkviz.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
