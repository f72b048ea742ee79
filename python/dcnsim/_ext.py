"""Access to the compiled simulator, ``dcnsim._core``, and the names it provides.

Loading scenarios and parsing ``--set`` overrides are pure Python and must work in a
source checkout where the extension has not been built yet (unit tests, editors, a
``dcnsim --version`` before ``make build``). So the import is attempted once here, and only
code that actually simulates asks for the module via :func:`core`, which explains how to
build it when it is missing.

The core names fields with indices in brackets (``workload[0].size``); :func:`core` hands out
the module with ``Simulation`` wrapped so that its ScenarioError messages spell paths as
``--set`` takes them (``workload.0.size``), see :func:`dotted_paths`.
"""

from __future__ import annotations

import importlib
import re
from types import ModuleType
from typing import Any, Optional

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


def dotted_paths(message: str) -> str:
    """``message`` with every indexed path spelt as ``--set`` takes it: the core writes
    ``workload[0].size`` and ``faults.link[2]``, a user types ``workload.0.size`` and
    ``faults.link.2``. Double-quoted text (a value the user gave) is left as it is.

    >>> dotted_paths('workload[0].size: "a[1]" is not a size')
    'workload.0.size: "a[1]" is not a size'
    """
    return _INDEXED.sub(lambda m: m.group(0) if m.group(1) is None else f".{m.group(1)}", message)


# A double-quoted string (kept whole), or "[N]" right after a name or another index.
_INDEXED = re.compile(r'"(?:[^"\\]|\\.)*"|(?<=[\w\]])\[(\d+)\]')


class _Core(ModuleType):
    """``dcnsim._core`` as :func:`core` hands it out: every name is the module's own, but
    building a ``Simulation`` re-raises a ScenarioError with :func:`dotted_paths` applied."""

    def __init__(self, module: ModuleType) -> None:
        super().__init__(module.__name__, module.__doc__)
        self.__dict__.update(module.__dict__)
        self.Simulation = self._checked(module.Simulation)

    @staticmethod
    def _checked(simulation: Any) -> Any:
        def build(scenario_json: str, base_dir: str) -> Any:
            try:
                return simulation(scenario_json, base_dir)
            except ScenarioError as exc:
                raise ScenarioError(dotted_paths(str(exc))) from None

        build.__doc__ = simulation.__doc__
        return build


_wrapped: Optional[_Core] = None


def core() -> ModuleType:
    """Return ``dcnsim._core`` (its ``Simulation`` wrapped, see :class:`_Core`), or raise an
    ImportError that says how to build it."""
    global _wrapped
    if _core is None:
        raise ImportError(
            "dcnsim._core, the compiled simulator, is not importable "
            f"({_import_error}); build it with `make build` "
            "(or `maturin develop --release` inside a virtualenv)"
        ) from _import_error
    if _wrapped is None:
        _wrapped = _Core(_core)
    return _wrapped
