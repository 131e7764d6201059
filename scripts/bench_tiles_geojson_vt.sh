#!/usr/bin/env bash
# Tiles the same lines into the same tiles with geojson-vt (Node) and with slabclip (the library
# on one thread, and `slabclip lines --threads 1` end to end), and prints vertices per second for
# both, their ratio, and how many parts each gives.
#
#   scripts/bench_tiles_geojson_vt.sh [SEGMENTS] [ZOOM] [REPEATS]     (defaults 500000 14 5)
#
# The lines are `slabclip gen --lines roads` placed on a region of the map about 50 km across.
# geojson-vt gets them in lon/lat with options that make it cut one zoom level and nothing else:
# maxZoom = indexMaxZoom = ZOOM, indexMaxPoints 0 (every tile built), tolerance 0 (no
# simplification), extent 4096, buffer 64. It projects them to web mercator and quantises them to
# integers at ZOOM (4096 per tile); slabclip gets those very vertices, in world coordinates, and
# cuts them into the 2^ZOOM x 2^ZOOM grid over the world with the same buffer (64/4096 of a tile).
# Only the tiling is timed on both sides (geojson-vt: its constructor, which also projects; the
# projection alone is printed too). Needs node and npm; installs geojson-vt (bench/geojson-vt,
# version pinned in package.json) on first use.
set -euo pipefail

N=${1:-500000}
Z=${2:-14}
R=${3:-5}
BUFFER=64
EXTENT=4096

here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"

(cd bench/geojson-vt && [ -d node_modules/geojson-vt ] || npm install --no-audit --no-fund --silent)
cargo build --release --quiet
cargo build --release --quiet --example tiles_timing
slabclip=target/release/slabclip
timing=target/release/examples/tiles_timing
node="node bench/geojson-vt/tile.mjs"

echo "lines: slabclip gen --lines roads --n $N; zoom $Z ($((1 << Z)) x $((1 << Z)) tiles), buffer $BUFFER/$EXTENT"
$slabclip gen --lines roads --n "$N" --seed 7 --precision f64 -o "$work/unit.geojson"
echo "geojson-vt storage: $($node prepare "$work/unit.geojson" "$work/lonlat.geojson" "$work/world.geojson" "$Z")"

gvt=$($node time "$work/lonlat.geojson" "$Z" "$BUFFER" "$R" "$work/gvt.json")
ours=$($timing "$work/world.geojson" "$Z" "$BUFFER" "$EXTENT" "$R" "$work/slabclip.json")

b=$(python3 -c "print(repr($BUFFER / $EXTENT / 2**$Z))")
start=$(date +%s.%N)
$slabclip lines --threads 1 --grid 0,0,1,1 --cells $((1 << Z)),$((1 << Z)) --buffer "$b" \
  "$work/world.geojson" -o "$work/tiles.geojson"
cli=$(python3 -c "print($(date +%s.%N) - $start)")

python3 - "$gvt" "$ours" "$cli" <<'PY'
import json, sys
g, s, cli = json.loads(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
v = g["vertices"]
assert v == s["vertices"], (v, s["vertices"])
rate = lambda t: v / t / 1e6
print(f"input: {v} vertices")
print(f"geojson-vt  build, zooms 0..Z      {g['seconds']*1e3:9.1f} ms  {rate(g['seconds']):7.2f} M vertices/s"
      f"   (of which projection + zoom 0: {g['prepare_seconds']*1e3:.1f} ms)")
print(f"slabclip    tiles at zoom Z        {s['seconds']*1e3:9.1f} ms  {rate(s['seconds']):7.2f} M vertices/s"
      f"   ratio {g['seconds']/s['seconds']:.1f}x")
cut = g['seconds'] - g['prepare_seconds']
print(f"geojson-vt  cutting alone (build - projection)  {cut*1e3:9.1f} ms  {rate(cut):7.2f} M vertices/s"
      f"   ratio {cut/s['seconds']:.1f}x")
print(f"slabclip    tiles at zooms 0..Z    {s['pyramid_seconds']*1e3:9.1f} ms  {rate(s['pyramid_seconds']):7.2f} M vertices/s"
      f"   ratio {g['seconds']/s['pyramid_seconds']:.1f}x (like for like with geojson-vt's pyramid)")
print(f"slabclip lines --threads 1, GeoJSON in and out: {cli*1e3:.0f} ms  {rate(cli):.2f} M vertices/s")
print(f"parts at zoom Z: geojson-vt {g['parts']} in {g['tiles']} tiles ({g['part_vertices']} vertices); "
      f"slabclip {s['parts']} in {s['tiles']} tiles ({s['part_vertices']} vertices)")
PY
echo "tile by tile: $($node compare "$work/gvt.json" "$work/slabclip.json")"
