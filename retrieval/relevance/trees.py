"""Gradient-boosted trees as plain arrays: exported from scikit-learn's HistGradientBoostingClassifier at
training, evaluated with numpy at search time (no pickle, no library version tied to the model file)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TreeEnsemble:
    """Every tree's nodes in flat arrays (node ids global across trees); ``roots`` index each tree's first node."""

    feature: np.ndarray  # int32, the feature a node splits on (unused at leaves)
    threshold: np.ndarray  # float64, go left when x <= threshold
    left: np.ndarray  # int32, global id of the left child (the node itself at leaves)
    right: np.ndarray  # int32
    value: np.ndarray  # float64, a leaf's contribution (0 at split nodes)
    roots: np.ndarray  # int32
    baseline: float
    depth: int  # the deepest leaf: how many steps reach every leaf

    def __post_init__(self):  # children side by side, so one step is one lookup: node * 2 + (goes left)
        object.__setattr__(self, "children", np.stack([self.right, self.left], axis=1).ravel())

    def raw(self, x: np.ndarray) -> np.ndarray:
        """The ensemble's log-odds for each row of ``x`` (every tree walked at once, one level a step)."""
        x = np.asarray(x, np.float64)
        rows, width = x.shape
        flat = x.ravel()
        start = (np.arange(rows) * width)[:, None]
        node = np.broadcast_to(self.roots, (rows, len(self.roots))).copy()
        for _ in range(self.depth):
            goes_left = flat.take(start + self.feature.take(node)) <= self.threshold.take(node)
            node = self.children.take(node * 2 + goes_left)
        return self.value.take(node).sum(axis=1) + self.baseline

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.raw(x)))

    def as_dict(self) -> dict:
        return {"feature": self.feature.tolist(), "threshold": [float(t) for t in self.threshold],
                "left": self.left.tolist(), "right": self.right.tolist(),
                "value": [float(v) for v in self.value], "roots": self.roots.tolist(),
                "baseline": float(self.baseline), "depth": int(self.depth)}

    @classmethod
    def from_dict(cls, data: dict) -> TreeEnsemble:
        return cls(np.asarray(data["feature"], np.int32), np.asarray(data["threshold"], np.float64),
                   np.asarray(data["left"], np.int32), np.asarray(data["right"], np.int32),
                   np.asarray(data["value"], np.float64), np.asarray(data["roots"], np.int32),
                   float(data["baseline"]), int(data["depth"]))


def export(model) -> TreeEnsemble:
    """A fitted binary HistGradientBoostingClassifier (numeric features, no missing values) as arrays."""
    feature, threshold, left, right, value, roots = [], [], [], [], [], []
    depth = 0
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        offset = len(feature)
        roots.append(offset)
        leaf = nodes["is_leaf"].astype(bool)
        ids = np.arange(len(nodes)) + offset
        feature += np.where(leaf, 0, nodes["feature_idx"]).astype(np.int32).tolist()
        threshold += np.where(leaf, 0.0, nodes["num_threshold"]).tolist()
        left += np.where(leaf, ids, nodes["left"].astype(np.int64) + offset).tolist()
        right += np.where(leaf, ids, nodes["right"].astype(np.int64) + offset).tolist()
        value += np.where(leaf, nodes["value"], 0.0).tolist()
        depth = max(depth, int(nodes["depth"].max()))
    baseline = float(np.ravel(model._baseline_prediction)[0])
    return TreeEnsemble(np.array(feature, np.int32), np.array(threshold), np.array(left, np.int32),
                        np.array(right, np.int32), np.array(value), np.array(roots, np.int32), baseline, depth)
