"""Arrays kept beside the index (caches of vectors and tables): written whole or not at all."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


def save_arrays(path: Path, what: str, **arrays: np.ndarray) -> bool:
    """Write ``arrays`` to ``path`` (.npz) through a temporary file; a failure is logged, naming ``what``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)
        return True
    except OSError as error:
        log.warning("não foi possível guardar %s em %s: %s", what, path, error)
        return False


AXES = 128  # principal axes kept beside each row: a search reads a quarter of a bank's bytes
WHOLE_BELOW = 512  # smaller banks are multiplied whole
SAMPLE = 4096  # rows the axes are fitted on (any axes give safe bounds; these only make them tight)
SLACK = 1e-4  # float32 rounding, added to every bound


class BoundedRows:
    """Rows beside their coordinates on the rows' first principal axes. A message's dot with every row lies within
    the coordinates' dot ± the rest's lengths (Cauchy–Schwarz), so a search reads a quarter of the bytes, and the
    exact dots only of the rows the bounds leave in doubt; the bounds of the last message are kept for the banks
    that share these rows."""

    def __init__(self, matrix: np.ndarray, axes: int = AXES, whole_below: int = WHOLE_BELOW):
        self.matrix = matrix
        self.axes = _principal_axes(matrix, axes) if len(matrix) >= whole_below and axes < matrix.shape[1] else None
        if self.axes is not None:
            self.head = np.ascontiguousarray(matrix @ self.axes.T)
            length = np.einsum("ij,ij->i", matrix, matrix) - np.einsum("ij,ij->i", self.head, self.head)
            self.rest = np.sqrt(np.maximum(length, 0.0))
        self._last: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # replaced whole: thread-safe

    @classmethod
    def whole(cls, matrix: np.ndarray) -> BoundedRows:
        """Rows always multiplied whole (exact, no slack): the product of the last message is still kept."""
        return cls(matrix, whole_below=len(matrix) + 1)

    def __len__(self) -> int:
        return len(self.matrix)

    def bounds(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(estimate, slack): every row's dot with ``vector`` lies within estimate ± slack (exact when whole)."""
        last = self._last
        if last is not None and np.array_equal(last[0], vector):
            return last[1], last[2]
        if self.axes is None:
            estimate, slack = self.matrix @ vector, np.zeros(len(self.matrix), np.float32)
        else:
            head = self.axes @ vector
            estimate = self.head @ head
            slack = self.rest * np.float32(np.sqrt(max(float(vector @ vector - head @ head), 0.0))) + SLACK
        estimate.flags.writeable = slack.flags.writeable = False
        self._last = (np.array(vector, copy=True), estimate, slack)
        return estimate, slack

    def exact(self, vector: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The dots of ``rows`` with ``vector`` (of every row when many are asked: no copy of most of the matrix)."""
        if len(rows) > len(self.matrix) // 8:
            return (self.matrix @ vector)[rows]
        return self.matrix[rows] @ vector

    def first(self, count: int, copy: bool) -> BoundedRows:
        """The first ``count`` rows, on the same axes (a copy when the rest is to be freed)."""
        return self._part(slice(0, count), copy)

    def after(self, count: int) -> BoundedRows:
        """The rows after the first ``count``, on the same axes (views)."""
        return self._part(slice(count, None), False)

    def _part(self, rows: slice, copy: bool) -> BoundedRows:
        part = object.__new__(BoundedRows)
        take = (lambda a: a[rows].copy()) if copy else (lambda a: a[rows])
        part.matrix, part.axes, part._last = take(self.matrix), self.axes, None
        if self.axes is not None:
            part.head, part.rest = take(self.head), take(self.rest)
        return part


def _principal_axes(matrix: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` directions that hold most of the rows' squared length (uncentred: a dot's bound), from evenly
    spread blocks of rows (summed block by block: no copy of the matrix)."""
    block = 256
    every = max(1, len(matrix) // SAMPLE) * block
    gram = np.zeros((matrix.shape[1], matrix.shape[1]))
    for start in range(0, len(matrix), every):
        rows = np.asarray(matrix[start:start + block], np.float32)
        gram += rows.T @ rows
    values, vectors = np.linalg.eigh(gram)
    return np.ascontiguousarray(vectors[:, np.argsort(-values, kind="stable")[:count]].T, dtype=np.float32)
