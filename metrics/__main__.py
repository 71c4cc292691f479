"""Allow ``python -m metrics``."""

from .cli import exit_now, main, single_threaded_numpy

single_threaded_numpy()
exit_now(main())
