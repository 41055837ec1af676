"""``python -m attnlab.audit``: every claim with its computed verdict (see :func:`attnlab.audit.claims.main`)."""
import sys

from .claims import main

sys.exit(main())
