"""Typed results to and from JSON.

Results are dataclasses. A field whose JSON name is not a Python name (`pass`) says so
with `json_name`. `from_json` rebuilds a result from a saved report (`--save`), so the
text and Markdown renderers can run again on an old run without measuring anything.
"""

import dataclasses
import types
import typing
from dataclasses import field

from .common import BadInput


def json_name(name):
    """A required field stored under `name` in JSON."""
    return field(metadata={"json": name})


def _key(f):
    return f.metadata.get("json", f.name)


def to_json(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_key(f): to_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def from_json(cls, data, path="report"):
    """Builds a `cls` from parsed JSON; raises BadInput naming the path of a bad value."""
    origin = typing.get_origin(cls)
    args = typing.get_args(cls)
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        if len(inner) == 1:
            return from_json(inner[0], data, path)
        raise BadInput(f"{path}: unsupported union {cls}")
    if origin is list:
        if not isinstance(data, list):
            raise BadInput(f"{path}: expected a list, got {_describe(data)}")
        return [from_json(args[0], v, f"{path}[{i}]") for i, v in enumerate(data)]
    if origin is dict:
        if not isinstance(data, dict):
            raise BadInput(f"{path}: expected an object, got {_describe(data)}")
        return {k: from_json(args[1], v, f"{path}.{k}") for k, v in data.items()}
    if dataclasses.is_dataclass(cls):
        if not isinstance(data, dict):
            raise BadInput(f"{path}: expected an object, got {_describe(data)}")
        hints = typing.get_type_hints(cls)
        values = {}
        for f in dataclasses.fields(cls):
            key = _key(f)
            if key in data:
                values[f.name] = from_json(hints[f.name], data[key], f"{path}.{key}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise BadInput(f"{path}: no '{key}'")
        return cls(**values)
    if cls is float:
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return float(data)
        raise BadInput(f"{path}: expected a number, got {_describe(data)}")
    if cls in (int, str, bool):
        if isinstance(data, cls) and not (cls is int and isinstance(data, bool)):
            return data
        raise BadInput(f"{path}: expected {cls.__name__}, got {_describe(data)}")
    if cls is typing.Any:
        return data
    raise BadInput(f"{path}: unsupported type {cls}")


def _describe(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
