"""The benchmark script runs end to end on a small batch: every contender, the wrong-answer
counts against the exact reference, and both Rust figures (`slabclip compare` and the
`clip_calls` example), so that the README's command keeps working."""

import importlib.util
import json
import os

import pytest

from conftest import REPO


def _bench():
    spec = importlib.util.spec_from_file_location("bench_clip", REPO / "python" / "bench" / "bench_clip.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def clip_calls_bin():
    path = os.environ.get("SLABCLIP_CLIP_CALLS", REPO / "target" / "release" / "examples" / "clip_calls")
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: run `cargo build --release --example clip_calls`")
    return str(path)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bench_clip_runs_and_slabclip_has_no_wrong_answer(tmp_path, capsys, slabclip_bin, clip_calls_bin, dtype):
    out = tmp_path / "bench.json"
    code = _bench().main(["--n", "3000", "--repeat", "1", "--dtype", dtype, "--json", str(out),
                          "--rust", str(slabclip_bin), "--rust-calls", clip_calls_bin])
    assert code == 0
    got = json.loads(out.read_text())
    assert got["n"] == 3000 and got["dtype"] == dtype
    assert got["wrong"]["slabclip"] == 0
    # The textbook slab and shapely do get some of these wrong (ends, touching contacts).
    assert got["wrong"]["numpy slab"] > 0
    assert got["wrong"]["shapely (hit vs miss)"] > 0
    for name, fig in got["figures"].items():
        assert fig["mseg_per_s"] > 0, name
    for way in ("calls", "compare"):
        for algorithm in ("auto", "simd-slab"):
            assert got["rust"][f"{way} {algorithm} threads=1"] > 0
    assert "Rust library, the same calls" in capsys.readouterr().out
