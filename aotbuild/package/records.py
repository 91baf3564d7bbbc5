"""A graph's manifest record read: its records per declared signature and its entries.

The build writes every entry of a graph into its record (``entries``), so that the package's own
profile report, which runs with NumPy alone, totals a graph the way ``aotbuild inspect`` does;
``aotbuild inspect`` reads packages built before that field existed through the same function.
"""

from __future__ import annotations

from typing import Any


def signature_records(graph: dict[str, Any]) -> list[dict[str, Any]]:
    """A graph's manifest records, one per declared signature, each with its ``entry`` (and
    variants): a ufunc's or gufunc's loops, a name's overloads, or the graph's own record."""
    loops = graph.get("ufunc", graph.get("gufunc", {})).get("loops")
    return loops or graph.get("overloads") or [graph]


def entry_symbols(graph: dict[str, Any]) -> set[str]:
    """Every entry of a graph's manifest record: per signature, per variant, per ufunc loop."""
    entries = set()
    for record in [graph, *signature_records(graph)]:
        entries |= {record.get("entry"), record.get("contiguous_entry"), record.get("in_order_entry")}
        entries |= set(record.get("broadcast_entries", {}).values())
    return {entry for entry in entries if entry}
