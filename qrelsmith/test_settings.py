"""Settings for the test suite: the ordinary settings in explicit development mode.

The suite needs a secret key and DEBUG's plain static files; production needs neither to be
a default. Setting them here (and in the environment, so subprocesses the tests start inherit
them) keeps ``qrelsmith.settings`` safe by default.
"""
import os

os.environ.setdefault("QRELSMITH_DEV", "1")

from qrelsmith.settings import *  # noqa: E402,F403
