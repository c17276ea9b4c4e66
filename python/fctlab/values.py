"""Python values in a scenario: what reaches the core, and one clear error for everything else.

A scenario given as a dict, and every override, may hold any Python object; the core reads
JSON. `plain` turns the values JSON can carry into exactly that, and refuses the rest with a
`ScenarioError` naming the field (as a dotted path, `workload.0.load`), the value and what was
expected, instead of a TypeError deep inside `json.dumps` or a silent change of meaning:

- numpy scalars (`np.int64(3)`, `np.float32(0.5)`, `np.bool_(True)`) become int, float, bool;
- tuples become lists;
- `None` is refused: it is not "use the default" (leave the field out for that);
- integers outside the core's range (below -2^63, from 2^64 up) are refused, not saturated;
- sets (no order), Decimal, bytes and other objects are refused;
- nesting deeper than `MAX_DEPTH` is refused (a TOML file nested 500 deep included).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fctlab.errors import ScenarioError, field_error

#: Deepest nesting of tables and lists a scenario may have (the schema needs fewer than 10).
MAX_DEPTH = 64
#: The core's integers: u64 for counts and seeds, i64 where a sign is allowed.
INT_MIN = -(2**63)
INT_MAX = 2**64 - 1

_EXPECTED = "a string, number, boolean, list or table"


def plain(value: Any, field: str = "") -> Any:
    """`value` as plain JSON-able Python (dict, list, str, int, float, bool), or a ScenarioError."""
    return _plain(value, field, 0)


def _plain(v: Any, field: str, depth: int) -> Any:
    where = field or "the scenario"
    if depth > MAX_DEPTH:
        raise ScenarioError(f"field `{where}`: expected at most {MAX_DEPTH} levels of nested tables and lists")
    if v is None:
        raise ScenarioError(f"field `{where}`: expected {_EXPECTED}, got None (leave the field out to use its default)")
    if isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        if not INT_MIN <= v <= INT_MAX:
            raise field_error(where, "an integer in [-2^63, 2^64 - 1]", v)
        return int(v)
    if isinstance(v, float):
        return float(v)
    if _is_numpy_scalar(v):
        return _plain(v.item(), field, depth)
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise ScenarioError(f"field `{where}`: expected string keys, got {type(k).__name__} key {k!r}")
            out[k] = _plain(x, f"{field}.{k}" if field else k, depth + 1)
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{field}.{i}" if field else str(i), depth + 1) for i, x in enumerate(v)]
    if isinstance(v, (set, frozenset)):
        raise ScenarioError(f"field `{where}`: expected a list, got a set {v!r} (a set has no order)")
    raise ScenarioError(f"field `{where}`: expected {_EXPECTED}, got {type(v).__name__} {v!r}")


def _is_numpy_scalar(v: Any) -> bool:
    # Duck-typed, so numpy stays optional: its scalars are 0-d and convert with .item().
    return type(v).__module__ == "numpy" and getattr(v, "ndim", None) == 0 and hasattr(v, "item")
