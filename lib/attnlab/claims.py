"""``python -m attnlab.claims``: the command-line name the book has always used for ``python -m attnlab.audit``.

The registry itself lives in :mod:`attnlab.audit.claims`; this module only forwards the command (it is the one
module outside :mod:`attnlab.audit` that imports it, and nothing in the library imports this module).
"""
import sys

if __name__ == "__main__":
    from attnlab.audit.claims import main

    sys.exit(main(prog="python -m attnlab.claims"))
