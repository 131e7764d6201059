"""Shared fixtures: the `slabclip` binary the bit-for-bit tests compare against, and inputs."""

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def slabclip_bin():
    """The command line built from the same library (`cargo build --release` at the root;
    `./scripts/test.sh` builds it first). SLABCLIP_BIN overrides the path."""
    path = Path(os.environ.get("SLABCLIP_BIN", REPO / "target" / "release" / "slabclip"))
    if not path.exists():
        pytest.fail(f"{path} is missing: run `cargo build --release` at the repository root")
    return path


def run_cli(binary, *args):
    r = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


def same_bits(a, b):
    """Equal shapes, dtypes and bytes (NaN payloads and signed zeros included)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def specials(dtype, n=4096, seed=7):
    """Random segments around the unit square with edge values, ±0, NaN, ±inf, huge and tiny
    coordinates mixed in."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    pool = np.array([0.0, -0.0, 1.0, 0.5, np.nextafter(1.0, 2.0), np.nextafter(0.0, -1.0),
                     np.nan, np.inf, -np.inf, 1e30, -1e30, 1e-30, np.finfo(dt).max,
                     np.finfo(dt).tiny], dtype=dt)
    a = rng.uniform(-0.5, 1.5, size=(n, 4)).astype(dt)
    grid = (rng.integers(-2, 7, size=(n, 4)) / 4).astype(dt)
    a[::3] = grid[::3]
    mask = rng.random((n, 4)) < 0.03
    a[mask] = rng.choice(pool, size=mask.sum())
    return a
