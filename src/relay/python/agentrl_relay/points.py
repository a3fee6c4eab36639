"""Batches of what sources read: points grouped by tag (as the binary points frame carries
them: each tag's points in the order the source wrote them, tags in order of first appearance)
and experience rows."""

from __future__ import annotations

from array import array
from typing import Any, List, Tuple, Union

Series = Tuple[str, array, array, array]
# A column of float64 values as the decoders hand it to a sink: an array('d'), or the list of
# floats a float32 column widened to.
Floats = Union[array, List[float]]


class PointsBatch:
    __slots__ = ("cursor", "series")

    def __init__(self, series: list[Series], cursor: dict[str, Any]):
        self.series = series
        self.cursor = cursor

    @property
    def size(self) -> int:
        return sum(len(s[1]) for s in self.series)


class ExperiencesBatch:
    __slots__ = ("cursor", "rows")

    def __init__(self, rows: list[dict[str, Any]], cursor: dict[str, Any]):
        self.rows = rows
        self.cursor = cursor


class PointCollector:
    """Collects points tag by tag in float64 columns (a sink for the decoders); `series()` hands
    them out, in the order the tags first came."""

    def __init__(self) -> None:
        self._cols: dict[str, tuple[array, array, array]] = {}
        self.size = 0

    def add(self, tag: str, step: float, wall: float, value: float) -> None:
        c = self._cols.get(tag)
        if c is None:
            c = self._cols[tag] = (array("d"), array("d"), array("d"))
        c[0].append(step)
        c[1].append(wall)
        c[2].append(value)
        self.size += 1

    def extend(self, tag: str, steps: array, walls: array, values: Floats) -> None:
        """A column run of one tag at once (float64 columns, from the vectorised decoder)."""
        c = self._cols.get(tag)
        if c is None:
            c = self._cols[tag] = (array("d"), array("d"), array("d"))
        c[0].extend(steps)
        c[1].extend(walls)
        c[2].extend(values)
        self.size += len(values)

    def series(self) -> list[Series]:
        return [(tag, s, w, v) for tag, (s, w, v) in self._cols.items()]

    def clear(self) -> None:
        self._cols = {}
        self.size = 0


def points_batch(collector: PointCollector, cursor: dict[str, Any]) -> PointsBatch | None:
    return PointsBatch(collector.series(), cursor) if collector.size else None
