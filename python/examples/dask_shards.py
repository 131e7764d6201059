"""Clip a segment set stored as many ``.npy`` shards on a Dask cluster, writing result shards.

    python python/examples/dask_shards.py IN_DIR OUT_DIR --rect 0,0,1,1 [--workers 4]
    python python/examples/dask_shards.py IN_DIR OUT_DIR --rect 0,0,1,1 --scheduler tcp://HOST:8786

``IN_DIR`` holds ``*.npy`` files of shape ``(n_i, 4)`` (rows ``x0, y0, x1, y1``, all float32 or
all float64), taken in name order. For every requested output ``NAME`` the result is written
to ``OUT_DIR/NAME/part-00000.npy``, ... one shard per input shard, in the same order: shard
``k`` of ``t_entry`` holds the entry parameters of the segments of input shard ``k``. Each
shard is written to a temporary name and renamed when complete.

Without ``--scheduler`` a ``distributed.LocalCluster`` of ``--workers`` processes is started on
this machine. With it, the same code runs on an existing cluster of any number of machines
(``dask scheduler`` on one, ``dask worker tcp://HOST:8786`` on each of the others, every one
with ``pip install ./python``): the shards are read and written by the workers, so ``IN_DIR``
and ``OUT_DIR`` must be paths every worker sees (a shared file system).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import dask
import dask.array as da
import numpy as np

import slabclip.dask


def _load(path: str) -> np.ndarray:
    return np.load(path)


def _save(block: np.ndarray, path: str) -> str:
    """Writes ``block`` to ``path`` whole or not at all (a temporary name, then a rename)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(block))
    os.replace(tmp, path)
    return path


def open_shards(in_dir: str) -> da.Array:
    """The shards of ``in_dir`` as one lazy ``(N, 4)`` dask array, one chunk per shard."""
    paths = sorted(Path(in_dir).glob("*.npy"))
    if not paths:
        raise ValueError(f"{in_dir}: no .npy shards")
    parts, dtypes = [], set()
    for p in paths:
        head = np.load(p, mmap_mode="r")  # reads the header only
        if head.ndim != 2 or head.shape[1] != 4:
            raise ValueError(f"{p}: shape must be (N, 4), got {head.shape}")
        dtypes.add(head.dtype)
        parts.append(da.from_delayed(dask.delayed(_load)(str(p)), head.shape, head.dtype))
    if len(dtypes) != 1:
        raise ValueError(f"{in_dir}: shards mix dtypes {sorted(map(str, dtypes))}")
    return da.concatenate(parts, axis=0)


def run(in_dir: str, out_dir: str, rect, *, outputs=("t_entry", "t_exit", "class"),
        algorithm: str = "auto") -> list:
    """Clips every shard of ``in_dir`` on the current Dask client and writes the result shards;
    returns the paths written."""
    segments = open_shards(in_dir)
    results = slabclip.dask.clip(segments, rect, algorithm=algorithm, outputs=outputs)
    saves = []
    for name, arr in results.items():
        blocks = arr.to_delayed().ravel()
        for k, block in enumerate(blocks):
            path = os.path.join(out_dir, name, f"part-{k:05d}.npy")
            saves.append(dask.delayed(_save)(block, path))
    return list(dask.compute(*saves))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("in_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--rect", required=True, help="XMIN,YMIN,XMAX,YMAX")
    ap.add_argument("--outputs", default="t_entry,t_exit,class")
    ap.add_argument("--algorithm", default="auto")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes")
    ap.add_argument("--scheduler", help="address of an existing scheduler (tcp://HOST:8786)")
    args = ap.parse_args(argv)
    from distributed import Client, LocalCluster

    rect = [float(v) for v in args.rect.split(",")]
    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True)
        client = Client(cluster)
    try:
        written = run(args.in_dir, args.out_dir, rect, outputs=args.outputs.split(","),
                      algorithm=args.algorithm)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    print(f"wrote {len(written)} shards to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
