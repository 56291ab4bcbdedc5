"""`python -m mallard view | simulate | info MODEL`: the `mallard` command."""
import sys

from mallard.cli import main

if __name__ == "__main__":
    sys.exit(main())
