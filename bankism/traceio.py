"""Alias of ``bankism.trace`` under its first name, kept for users' scripts (``bankism.traceio.load``)."""

from bankism.trace import *  # noqa: F403
from bankism.trace import __all__  # noqa: F401
