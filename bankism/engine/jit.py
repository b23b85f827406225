"""The engine kernel's compiler: Numba's ``njit`` for ``bankism.engine.kernel``, and nothing for
``bankism.engine.kernel_python`` (the same source run as plain Python, for small batches in a
process that has not imported Numba: importing Numba costs about half a second, the plain
kernel about 0.1 ms per warp-instruction)."""

from __future__ import annotations

from collections.abc import Callable


def compiler(module: str) -> Callable:
    """The ``njit`` decorator the kernel module named ``module`` uses."""
    if module.endswith("_python_copy"):
        return _plain
    from numba import njit

    return njit


def _plain(*args, **kwargs) -> Callable:  # noqa: ANN002, ANN003
    """``@njit(...)``/``@njit`` that leaves the function as it is."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda function: function
