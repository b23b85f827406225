"""Deprecated alias of ``bankism.trace`` under its first name, kept for users' scripts
(``bankism.traceio.load``). Nothing in bankism imports it; new code imports ``bankism.trace``."""

from bankism.trace import *  # noqa: F403
from bankism.trace import __all__  # noqa: F401
