// The geojson-vt side of scripts/bench_tiles_geojson_vt.sh.
//
//   node tile.mjs prepare UNIT.geojson LONLAT.geojson WORLD.geojson Z
//     Places lines drawn around the unit square (slabclip gen --lines) on the map (unit square
//     -> a region of lon/lat), writes them as GeoJSON in lon/lat for geojson-vt, and writes the
//     very vertices geojson-vt tiles, after its own projection and quantisation at max zoom Z,
//     as GeoJSON in world coordinates ([0, 1]², y down) for slabclip.
//   node tile.mjs time LONLAT.geojson Z BUFFER REPEATS COUNTS.json
//     Times new GeoJSONVT(...) building every tile down to zoom Z (no simplification), and
//     writes the parts and vertices of each tile at zoom Z. Prints one JSON line.
//   node tile.mjs compare GVT_COUNTS.json SLABCLIP_COUNTS.json
//     Tile by tile: parts and vertices of both, and where they differ.

import fs from 'node:fs';
import GeoJSONVT from 'geojson-vt';

const [mode, ...args] = process.argv.slice(2);

// The same options everywhere: one zoom level Z, no simplification, every tile built.
function options(z, buffer) {
    return {
        maxZoom: z,
        indexMaxZoom: z,
        indexMaxPoints: 0,
        tolerance: 0,
        extent: 4096,
        buffer,
        lineMetrics: false,
        debug: 0,
    };
}

// The unit square's lines cover [-1, 2]²: put [-1, 2] on a region about 50 km across.
const LON0 = 8.4, LON_SPAN = 0.2;   // degrees per unit
const LAT0 = 47.2, LAT_SPAN = 0.14;

if (mode === 'prepare') {
    const [unit, lonlat, world, zText] = args;
    const z = Number(zText);
    const data = JSON.parse(fs.readFileSync(unit, 'utf8'));
    for (const f of data.features) {
        const g = f.geometry;
        const place = (p) => [LON0 + p[0] * LON_SPAN, LAT0 + p[1] * LAT_SPAN];
        g.coordinates = g.type === 'LineString' ? g.coordinates.map(place) : g.coordinates.map((l) => l.map(place));
    }
    fs.writeFileSync(lonlat, JSON.stringify(data));
    // geojson-vt's converted features, as its index holds them before any tile is cut: the
    // source features of tile 0/0/0 when the index stops at zoom 0.
    const index = new GeoJSONVT(data, {...options(z, 64), indexMaxZoom: 0});
    const o = index.options;
    const top = index.tiles[0];
    const S = o.worldScale, O = o.originShift;
    const features = top.source.map((f) => {
        const lines = [];
        const g = f.geometry;
        for (let i = 0; i < g.length;) {
            const n = g[i];
            const line = [];
            for (let k = i + 2; k < i + 2 + 3 * n; k += 3) line.push([g[k] / S + O, g[k + 1] / S + O]);
            lines.push(line);
            i += 2 + 3 * n;
        }
        return {type: 'Feature', properties: {}, geometry: {type: 'MultiLineString', coordinates: lines}};
    });
    fs.writeFileSync(world, JSON.stringify({type: 'FeatureCollection', features}));
    console.log(JSON.stringify({storage: o.useInt32 ? `Int32, ${S} quanta across the world` : 'Float64', features: features.length}));
} else if (mode === 'time') {
    const [lonlat, zText, bufferText, repeatsText, counts] = args;
    const [z, buffer, repeats] = [Number(zText), Number(bufferText), Number(repeatsText)];
    const data = JSON.parse(fs.readFileSync(lonlat, 'utf8'));
    let vertices = 0;
    for (const f of data.features) {
        const g = f.geometry;
        vertices += g.type === 'LineString' ? g.coordinates.length : g.coordinates.reduce((s, l) => s + l.length, 0);
    }
    const time = (opts) => {
        const t = process.hrtime.bigint();
        const index = new GeoJSONVT(data, opts);
        return [Number(process.hrtime.bigint() - t) / 1e9, index];
    };
    const median = (v) => v.sort((a, b) => a - b)[v.length >> 1];
    time(options(z, buffer)); // warm-up
    const full = [], prep = [];
    let index;
    for (let r = 0; r < repeats; r++) {
        let t;
        [t, index] = time(options(z, buffer));
        full.push(t);
        // Projection, quantisation and the zoom-0 tile alone: the part of the build that is not
        // cutting tiles.
        prep.push(time({...options(z, buffer), indexMaxZoom: 0})[0]);
    }
    const perTile = {};
    let parts = 0, partVertices = 0, tiles = 0;
    for (const {z: tz, x, y} of index.tileCoords) {
        if (tz !== z) continue;
        const tile = index.tiles[((1 << z) * y + x) * 32 + z];
        let p = 0, v = 0;
        for (const f of tile.features) {
            for (const ring of f.geometry) {
                p++;
                v += ring.length / 2;
            }
        }
        if (p === 0) continue;
        perTile[`${x}/${y}`] = [p, v];
        parts += p;
        partVertices += v;
        tiles++;
    }
    fs.writeFileSync(counts, JSON.stringify(perTile));
    console.log(JSON.stringify({
        vertices,
        seconds: median(full),
        prepare_seconds: median(prep),
        parts,
        part_vertices: partVertices,
        tiles,
        tiles_all_zooms: index.total,
    }));
} else if (mode === 'compare') {
    const [a, b] = args.map((p) => JSON.parse(fs.readFileSync(p, 'utf8')));
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    let sameParts = 0, diffParts = 0, onlyA = 0, onlyB = 0, partDelta = 0;
    const examples = [];
    for (const k of keys) {
        const [pa, va] = a[k] || [0, 0];
        const [pb, vb] = b[k] || [0, 0];
        if (!a[k]) onlyB++;
        if (!b[k]) onlyA++;
        if (pa === pb) sameParts++;
        else {
            diffParts++;
            partDelta += pa - pb;
            if (examples.length < 5) examples.push(`${k}: ${pa} vs ${pb} parts, ${va} vs ${vb} vertices`);
        }
    }
    console.log(JSON.stringify({tiles: keys.size, same_part_count: sameParts, different_part_count: diffParts, only_geojson_vt: onlyA, only_slabclip: onlyB, part_difference: partDelta, examples}));
} else {
    console.error('usage: node tile.mjs prepare|time|compare ...');
    process.exit(2);
}
