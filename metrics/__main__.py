"""Allow ``python -m metrics``."""

import sys

from .cli import main, single_threaded_numpy

single_threaded_numpy()
sys.exit(main())
