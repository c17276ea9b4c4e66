"""Scenario input: read TOML (or JSON, or a dict), apply dotted overrides, expand topohub.

A scenario goes through three steps before the core sees it as JSON:

1. `read_scenario`: the file as written, plus the directory its relative paths start from;
2. `with_overrides`: `{"seed": 3, "workload.0.load": 0.5}` set on a copy (sweeps, `--set`);
3. `resolve_scenario`: Python-only sugar turned into core schema (a `kind = "topohub"`
   topology becomes an inline `kind = "graph"`).

Overrides come before expansion so that a sweep can vary `topology.mean_rtt`.
The schema itself belongs to the core; this module checks only what it has to touch.
"""

from __future__ import annotations

import copy
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fctlab.errors import ScenarioError

ScenarioLike = str | os.PathLike | Mapping[str, Any]


def read_scenario(x: ScenarioLike, base_dir: str | os.PathLike | None = None) -> tuple[dict, Path]:
    """Reads a scenario from a TOML/JSON path or copies a dict; returns (spec, base_dir).

    Relative paths inside a file's scenario are relative to the file; a dict's are relative
    to `base_dir` (default: the working directory).
    """
    if isinstance(x, Mapping):
        return copy.deepcopy(dict(x)), Path(base_dir or Path.cwd()).resolve()
    if not isinstance(x, (str, os.PathLike)):
        raise ScenarioError(f"scenario: expected a path to a .toml/.json file or a dict, got {type(x).__name__}")
    path = Path(x)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError(f"scenario file not found: {path}") from None
    except IsADirectoryError:
        raise ScenarioError(f"scenario {path} is a directory, expected a .toml file") from None
    except OSError as e:
        raise ScenarioError(f"cannot read scenario {path}: {e.strerror}") from None
    spec = _parse_text(raw, path)
    return spec, (Path(base_dir) if base_dir else path.parent).resolve()


def _parse_text(raw: bytes, path: Path) -> dict:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"scenario {path}: not UTF-8 text (byte {e.start})") from None
    if path.suffix.lower() == ".json":
        try:
            spec = json.loads(text)
        except RecursionError:
            raise ScenarioError(f"scenario {path}: nested too deeply") from None
        except json.JSONDecodeError as e:
            raise ScenarioError(
                f"scenario {path}: JSON syntax error at line {e.lineno}, column {e.colno}: {e.msg}"
            ) from None
        if not isinstance(spec, dict):
            raise ScenarioError(f"scenario {path}: expected a JSON object at the top")
        return spec
    try:
        # tomllib's message already ends with "(at line L, column C)".
        return tomllib.loads(text)
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ScenarioError(f"scenario {path}: nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"scenario {path}: TOML syntax error: {e}") from None


def resolve_scenario(spec: Mapping[str, Any]) -> dict:
    """Turns Python-side sugar into the core's schema; a resolved spec passes unchanged."""
    out = copy.deepcopy(dict(spec))
    topo = out.get("topology")
    if isinstance(topo, Mapping) and topo.get("kind") == "topohub":
        from fctlab.topology import expand_topohub  # topohub is an optional dependency

        out["topology"] = expand_topohub(topo, field="topology")
    return out


def load_scenario(x: ScenarioLike, base_dir: str | os.PathLike | None = None) -> tuple[dict, Path]:
    """Reads and resolves a scenario: (spec ready for the core, base_dir)."""
    spec, base = read_scenario(x, base_dir)
    return resolve_scenario(spec), base


def with_overrides(spec: Mapping[str, Any], overrides: Mapping[str, Any] | None) -> dict:
    """A copy of `spec` with each dotted path set, e.g. `{"workload.0.load": 0.5}`.

    Integer components index lists (0-based, must exist); missing tables are created (the
    core rejects unknown fields, so a typo still surfaces as an error naming the field).
    """
    if overrides is not None and not isinstance(overrides, Mapping):
        raise ScenarioError(
            f"overrides: expected a mapping of dotted paths to values, e.g. {{'workload.0.load': 0.5}}, "
            f"got {type(overrides).__name__}"
        )
    out = copy.deepcopy(dict(spec))
    for key, value in (overrides or {}).items():
        _set_path(out, key, copy.deepcopy(value))
    return out


def _set_path(root: dict, key: str, value: Any) -> None:
    if not isinstance(key, str) or not key:
        raise ScenarioError(f"override key {key!r}: expected a dotted path like workload.0.load")
    parts = key.split(".")
    if any(p == "" for p in parts):
        raise ScenarioError(f"override `{key}`: empty component; expected a dotted path like workload.0.load")
    node: Any = root
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = ".".join(parts[:depth]) or "the scenario"
        if isinstance(node, dict):
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, {})
        elif isinstance(node, list):
            if not part.isdigit():
                raise ScenarioError(f"override `{key}`: `{where}` is a list; expected an index, got `{part}`")
            i = int(part)
            if i >= len(node):
                raise ScenarioError(f"override `{key}`: `{where}` has {len(node)} entries; index {i} is out of range")
            if last:
                node[i] = value
            else:
                node = node[i]
        else:
            raise ScenarioError(f"override `{key}`: `{where}` is {node!r}, not a table or list")


def parse_assignment(text: str) -> tuple[str, Any]:
    """Parses a command-line `key=value`; the value is read as TOML, else taken as a string.

    So `--set seed=3` gives 3, `--set protocol=tcp` gives "tcp" without shell quoting,
    `--set 'workload.0.sizes=[1460, 2920]'` gives a list.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ScenarioError(f"bad override `{text}`: expected key=value, e.g. workload.0.load=0.5")
    parts = key.split(".")
    if any(p == "" or p != p.strip() for p in parts):
        raise ScenarioError(f"bad override `{text}`: expected a dotted key like workload.0.load")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value
