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
