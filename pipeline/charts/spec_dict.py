"""The Vega-Lite spec of an Altair chart, the dict `chart.to_dict(validate=False)` gives, made without
the cost of Altair's generic conversion (a tenth of a second per report chart: it asks every plain
value of the tree, through `isinstance` on a runtime protocol, whether it is a schema object).

Nodes whose conversion is Altair's plain rule (the object's properties, Undefined ones left out, a
mark name as {"type": ...}) are converted here, with plain values (text, numbers, None) returned as
they are; every node with a rule of its own (a channel's shorthand, a condition to parse, a
selection, a data set, data other than `theme.Dataset`) is converted by Altair itself. The result
is held equal to Altair's by tests/test_charts_specs.py, for every chart kind of the report.
"""
from __future__ import annotations

import functools
import sys

import altair as alt
from altair.utils import SchemaBase, Undefined, parse_shorthand, update_nested
from altair.utils.schemapi import _todict
from altair.vegalite.v6.schema.channels import DatumChannelMixin, FieldChannelMixin, ValueChannelMixin

from .theme import Dataset

_PLAIN = frozenset({str, int, float, bool, type(None)})
_OWN_RULE = (FieldChannelMixin.to_dict, ValueChannelMixin.to_dict, DatumChannelMixin.to_dict)
_TOP = alt.TopLevelMixin.to_dict
_CHART = alt.Chart.to_dict


def _convert(obj, context: dict):
    """A value of the tree as spec data (Altair's `_todict`, plain values first)."""
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is dict:
        return {k: _convert(v, context) for k, v in obj.items() if v is not Undefined}
    if kind is list or kind is tuple:
        return [_convert(v, context) for v in obj]
    if isinstance(obj, SchemaBase):
        return _schema(obj, context)
    return _todict(obj, context, sys.modules.get("numpy"), sys.modules.get("pandas"))  # numpy numbers, dates, ...


@functools.cache
def _parsed(shorthand: str) -> dict:
    """Altair's reading of a channel's shorthand ("x:Q") where no data frame can tell its type."""
    return parse_shorthand(shorthand, None)


def _plain_rule(obj: SchemaBase, context: dict, parsed: dict | None = None) -> dict:
    """`SchemaBase.to_dict`: the object's properties but Undefined ones (and its shorthand, read as
    `parsed` by the channel's rule: properties it does not set)."""
    if obj._args and not obj._kwds:
        return _convert(obj._args[0], context)
    if obj._args:
        return obj.to_dict(validate=False, context=context)  # Altair's error
    context.pop("parsed_shorthand", None)  # set by a channel for itself only
    kwds = obj._kwds
    if parsed:
        kwds = kwds.copy()
        if "sort" in parsed and ("sort" not in kwds or kwds["type"] not in {"ordinal", Undefined}):
            parsed.pop("sort")
        kwds.update((k, v) for k, v in parsed.items() if kwds.get(k, Undefined) is Undefined)
    kwds = {k: v for k, v in kwds.items() if k not in ("shorthand", "_cached_hash")}
    if isinstance(kwds.get("mark"), str):
        kwds["mark"] = {"type": kwds["mark"]}
    return _convert(kwds, context)


def _schema(obj: SchemaBase, context: dict):
    """One schema object: by the plain rule where Altair applies it, else by Altair."""
    rule = type(obj).to_dict
    if rule is SchemaBase.to_dict or rule is DatumChannelMixin.to_dict:
        return _plain_rule(obj, context)
    if rule is FieldChannelMixin.to_dict:
        shorthand = obj._get("shorthand")
        if shorthand is Undefined:
            return _plain_rule(obj, context)
        if isinstance(shorthand, str) and (context.get("data") is None or type(context["data"]) is Dataset):
            parsed = dict(_parsed(shorthand))  # the channel's rule (FieldChannelMixin.to_dict)
            if "type" not in obj._kwds:
                parsed.pop("type", None)
            elif "type" not in parsed and obj._get("type") is Undefined:
                return obj.to_dict(validate=False, context=context)  # Altair's error
            return _plain_rule(obj, context, parsed)
    if rule is ValueChannelMixin.to_dict and (obj._get("condition") is Undefined
                                              or isinstance(obj._get("condition"), SchemaBase)):
        return _plain_rule(obj, context)
    if rule is _TOP or rule is _CHART:
        return _chart(obj, context)
    return obj.to_dict(validate=False, context=context)


def _chart(obj: alt.TopLevelMixin, context: dict):
    """A chart inside a layer or concatenation (`TopLevelMixin.to_dict` below the top level): its
    data, a `theme.Dataset` or none, become the data its channels see; others go to Altair."""
    data = obj._get("data")
    if (data is not Undefined and not isinstance(data, Dataset)) or context.get("top_level", True) or (
            type(obj).to_dict is _CHART and data is Undefined and "data" not in context):
        return obj.to_dict(validate=False, context=context)
    inner = dict(context)
    inner.setdefault("datasets", {})
    if data is not Undefined:
        inner["data"] = data
    inner["top_level"], inner["pre_transform"] = False, False
    return _plain_rule(obj, inner)


def spec_dict(chart: alt.TopLevelMixin) -> dict:
    """`chart.to_dict(validate=False)`: the same dict, made faster (see the module's text)."""
    data = chart._get("data")
    if (data is not Undefined and not isinstance(data, Dataset)) or (
            type(chart).to_dict is _CHART and data is Undefined) or type(chart).to_dict not in (_TOP, _CHART):
        return chart.to_dict(validate=False)
    datasets: dict = {}
    context = {"datasets": datasets, "top_level": False, "pre_transform": False}
    if data is not Undefined:
        context["data"] = data
    spec = _plain_rule(chart, context)
    if "$schema" not in spec:
        spec["$schema"] = alt.SCHEMA_URL
    spec = update_nested(alt.theme.get()(), spec, copy=True)
    if datasets:
        spec.setdefault("datasets", {}).update(datasets)
    return spec
