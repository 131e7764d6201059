"""slabclip.dask and the shard example on a 2-worker LocalCluster, bit for bit against the
in-memory call."""

import importlib.util
from pathlib import Path

import dask
import dask.array as da
import numpy as np
import pytest

import slabclip
import slabclip.dask
from conftest import same_bits, specials

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "dask_shards.py"
OUTPUTS = ("t_entry", "t_exit", "class", "segments")


def load_example():
    spec = importlib.util.spec_from_file_location("dask_shards", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_map_blocks_is_lazy_and_exact(dtype):
    segs = np.concatenate([specials(dtype, 5000), slabclip.workload("road-like", 20000, dtype=dtype)])
    want = slabclip.clip(segs, (0, 0, 1, 1), outputs=OUTPUTS)
    arr = da.from_array(segs, chunks=((3000, 7000, 15000), (2, 2)))  # columns chunked too
    got = slabclip.dask.clip(arr, (0, 0, 1, 1), outputs=OUTPUTS)
    assert all(isinstance(v, da.Array) for v in got.values())
    assert got["segments"].shape == (25000, 4) and got["class"].dtype == np.uint8
    with dask.config.set(scheduler="threads"):
        computed = dask.compute(got)[0]
    for k in OUTPUTS:
        assert same_bits(np.ascontiguousarray(computed[k]), np.ascontiguousarray(want[k])), k


SEGS = da.zeros((10, 4), chunks=(5, 4))
# Every dask entry checks its arguments when called, before anything runs: (call, exception,
# words in the message).
BAD = {
    "(N, 3) segments": (lambda: slabclip.dask.clip(da.zeros((10, 3)), (0, 0, 1, 1)), ValueError, "shape"),
    "unknown output": (lambda: slabclip.dask.clip(SEGS, (0, 0, 1, 1), outputs=("t",)), ValueError, "unknown output"),
    "reversed rect": (lambda: slabclip.dask.clip(SEGS, (2, 0, 1, 1)), ValueError, "invalid rect"),
    "NaN rect": (lambda: slabclip.dask.clip(SEGS, (0, 0, np.nan, 1)), ValueError, "invalid rect"),
    "rect of 3": (lambda: slabclip.dask.clip(SEGS, (0, 0, 1)), ValueError, "rect must be"),
    "rect too big for float32": (lambda: slabclip.dask.clip(SEGS.astype(np.float32), (0, 0, 1e300, 1)), ValueError, "invalid rect"),
    "unknown algorithm": (lambda: slabclip.dask.clip(SEGS, (0, 0, 1, 1), algorithm="fast"), ValueError, "unknown algorithm"),
    "clip threads=0": (lambda: slabclip.dask.clip(SEGS, (0, 0, 1, 1), threads=0), ValueError, "threads must be an integer from 1 to"),
    "grid cells 0": (lambda: slabclip.dask.grid_pieces(SEGS, (0, 0, 1, 1), (0, 4)), ValueError, "cells"),
    "grid reversed bounds": (lambda: slabclip.dask.grid_pieces(SEGS, (1, 0, 0, 1), (4, 4)), ValueError, "invalid rect"),
    "grid threads=10**9": (lambda: slabclip.dask.grid_pieces(SEGS, (0, 0, 1, 1), (4, 4), threads=10**9), ValueError, "threads must be an integer from 1 to"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_dask_bad_input_raises_at_the_call(name):
    call, exc, words = BAD[name]
    with dask.config.set(scheduler="sync"):
        with pytest.raises(exc) as e:
            call()  # not .compute(): the error comes before any task exists
    assert words in str(e.value), str(e.value)


def test_shards_on_a_two_worker_local_cluster(tmp_path):
    from distributed import Client, LocalCluster

    ex = load_example()
    rng = np.random.default_rng(11)
    in_dir, out_dir = tmp_path / "in", tmp_path / "out"
    in_dir.mkdir()
    shards = [np.concatenate([specials(np.float32, int(n), seed=int(n)),
                              rng.uniform(-1, 2, (int(n), 4)).astype(np.float32)])
              for n in (100, 2500, 1, 4000, 777)]
    for k, s in enumerate(shards):
        np.save(in_dir / f"shard-{k:03d}.npy", s)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        written = ex.run(str(in_dir), str(out_dir), (0.0, 0.0, 1.0, 1.0), outputs=OUTPUTS)
    assert len(written) == len(shards) * len(OUTPUTS)
    whole = np.concatenate(shards)
    want = slabclip.clip(whole, (0, 0, 1, 1), outputs=OUTPUTS)
    for name in OUTPUTS:
        parts = [np.load(out_dir / name / f"part-{k:05d}.npy") for k in range(len(shards))]
        assert [len(p) for p in parts] == [len(s) for s in shards]
        assert same_bits(np.concatenate(parts), np.ascontiguousarray(want[name])), name
    assert not list(out_dir.rglob("*.tmp-*"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_pieces_by_blocks_are_the_whole_arrays_pieces(dtype):
    segs = np.concatenate([specials(dtype, 3000), 2 * slabclip.workload("tracks", 9000, dtype=dtype)])
    bounds, cells = (0.0, 0.0, 2.0, 1.0), (8, 4)
    want = slabclip.grid_pieces(segs, bounds, cells, half_open=True)
    arr = da.from_array(segs, chunks=((1000, 4000, 7000), (4,)))
    got = slabclip.dask.grid_pieces(arr, bounds, cells, half_open=True)
    assert all(isinstance(v, da.Array) for v in got.values())
    assert np.isnan(got["segment"].shape[0])  # not known before the blocks run
    with dask.config.set(scheduler="threads"):
        computed = dask.compute(got)[0]
    assert list(computed) == list(want)
    for k in want:
        assert same_bits(computed[k], want[k]), k
    with pytest.raises(ValueError, match="cells"):
        slabclip.dask.grid_pieces(arr, bounds, (0, 4))
