"""Access to the compiled simulator, ``dcnsim._core``, and the names it provides.

Loading scenarios and parsing ``--set`` overrides are pure Python and must work in a
source checkout where the extension has not been built yet (unit tests, editors, a
``dcnsim --version`` before ``make build``). So the import is attempted once here, and only
code that actually simulates asks for the module via :func:`core`, which explains how to
build it when it is missing.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Optional

_core: Optional[ModuleType]
_import_error: Optional[ImportError] = None
try:
    _core = importlib.import_module("dcnsim._core")
except ImportError as exc:
    _core = None
    _import_error = exc

if _core is not None:
    ScenarioError = _core.ScenarioError
    SimulationPanic = _core.SimulationPanic
    __version__: str = _core.__version__
else:

    class ScenarioError(ValueError):  # type: ignore[no-redef]
        """Invalid scenario input; the message starts with the field it is about.

        Stand-in with the same meaning as ``dcnsim._core.ScenarioError``, used only while
        the extension is not built, so that scenario loading can still report errors.
        """

    class SimulationPanic(RuntimeError):  # type: ignore[no-redef]
        """The simulator core panicked (a bug); stand-in for ``dcnsim._core.SimulationPanic``.

        Nothing raises it while the extension is not built; it exists so that
        ``except dcnsim.SimulationPanic`` is valid code in any checkout.
        """

    __version__ = "0+unbuilt"


def core() -> ModuleType:
    """Return ``dcnsim._core``, or raise an ImportError that says how to build it."""
    if _core is None:
        raise ImportError(
            "dcnsim._core, the compiled simulator, is not importable "
            f"({_import_error}); build it with `make build` "
            "(or `maturin develop --release` inside a virtualenv)"
        ) from _import_error
    return _core
