"""User errors: the one exception type for anything a user must fix.

The compiled core defines `ScenarioError` (a `ValueError`); the Python layer raises the same
class for what it checks itself (missing files, TOML syntax, overrides, topohub names, sweep
files), so callers catch one type. Without a built core (tests, docs) a stand-in with the same
name and base class is used.
"""

from __future__ import annotations

try:
    from fctlab._core import PluginError, ScenarioError
except ImportError:  # the compiled module is not built: keep the package importable

    class ScenarioError(ValueError):  # type: ignore[no-redef]
        """A scenario, override, sweep file or results directory the user must fix."""

    class PluginError(RuntimeError):  # type: ignore[no-redef]
        """A plug-in failed during a run (the message names it, the hook, the flow, the time)."""


def field_error(field: str, expected: str, got: object) -> ScenarioError:
    """Builds the house-style message: "field `a.b`: expected ..., got ..."."""
    return ScenarioError(f"field `{field}`: expected {expected}, got {_show(got)}")


def _show(value: object) -> str:
    """Shows a value as the user wrote it: strings quoted, the rest as TOML would print."""
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)
