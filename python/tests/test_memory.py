"""Zero copy: a 256 MiB input does not raise peak memory by another 256 MiB."""

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import resource, sys
    import numpy as np
    import slabclip
    n = (1 << 28) // 16                      # 256 MiB of float32 rows
    layout = sys.argv[1]
    if layout == "float16-copy":
        # 128 MiB that must be converted (to float64: another 512 MiB).
        segs = np.full((n, 4), 0.5, np.float16)
    else:
        # Pages touched, so resident; Fortran order for contiguous columns. Made in place, so
        # the peak so far is this array: a copy of it would raise the peak by another 256 MiB.
        order = "F" if layout == "columns" else "C"
        segs = np.full((n, 4), 0.5, np.float32, order=order)
        segs[::2, 2] = 3.0
    if layout == "columns":
        segs = {k: segs[:, i] for i, k in enumerate(("x0", "y0", "x1", "y1"))}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    r = slabclip.clip(segs, (0, 0, 1, 1), outputs=("class",))
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) * 1024)
""")


def peak_rise(layout):
    r = subprocess.run([sys.executable, "-c", CHILD, layout], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return int(r.stdout.strip())


def test_rows_and_columns_are_read_in_place():
    # The only new memory is the 16 MiB class output.
    for layout in ("rows", "columns"):
        rise = peak_rise(layout)
        assert rise < 128 << 20, (layout, rise)


def test_the_measure_sees_a_copy():
    # A float16 input is converted once (to float64): the same measure shows the copy.
    assert peak_rise("float16-copy") > 1 << 28
