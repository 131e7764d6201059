//! Named edge cases of SPEC §2, in both precisions, each asserted exactly (all coordinates are
//! small dyadic numbers, so every expected value is representable and must come back exactly):
//! corners, vertices shared by two edges or two segments, rays along an edge, collinear and
//! parallel segments, origins on an edge or a vertex, zero-length segments, `t_max`, invalid rays.

use crate::common;

use common::cases::TestFloat;
use common::cast_reference::check_ray_rect;
use slabclip::cast::{
    cast_polygon_one, cast_rect_one, cast_segments, cast_segments_one, clip_polygon,
    clip_polygon_one, SegmentHit, SegmentsCastOutput,
};
use slabclip::{
    Class, ClipOutput, ConvexPolygon, InsideMode, Ray, Rays, Real, Rect, Segment, Segments, NO_HIT,
};

use std::f64::consts::FRAC_1_SQRT_2;

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

fn f<F: Real>(x: f64) -> F {
    F::from_f64(x)
}
fn ray<F: Real>(r: [f64; 4]) -> Ray<F> {
    Ray::new(f(r[0]), f(r[1]), f(r[2]), f(r[3]))
}
fn same<F: Real>(got: F, want: f64) -> bool {
    let w: F = f(want);
    got.to_bits_u64() == w.to_bits_u64() || (want.is_nan() && got.to_f64().is_nan())
}

/// Ray × rect `[0, 4] × [0, 2]`: (name, ray, t_max, class, t_entry, t_exit).
#[allow(clippy::type_complexity)]
const RECT: &[(&str, [f64; 4], f64, Class, f64, f64)] = &[
    (
        "origin inside, leaves right",
        [1.0, 1.0, 1.0, 0.0],
        INF,
        Class::Exits,
        0.0,
        3.0,
    ),
    (
        "origin on a corner, pointing away",
        [4.0, 2.0, 1.0, 1.0],
        INF,
        Class::Touches,
        0.0,
        0.0,
    ),
    (
        "in through the corner (0,0)",
        [-1.0, -1.0, 1.0, 1.0],
        INF,
        Class::Crosses,
        1.0,
        3.0,
    ),
    (
        "grazes the corner (0,2)",
        [-1.0, 1.0, 1.0, 1.0],
        INF,
        Class::Touches,
        1.0,
        1.0,
    ),
    (
        "along the bottom edge",
        [-1.0, 0.0, 1.0, 0.0],
        INF,
        Class::Crosses,
        1.0,
        5.0,
    ),
    (
        "parallel, just outside",
        [-1.0, -0.5, 1.0, 0.0],
        INF,
        Class::Outside,
        NAN,
        NAN,
    ),
    (
        "t_max before the rect",
        [-1.0, 1.0, 1.0, 0.0],
        0.5,
        Class::Outside,
        NAN,
        NAN,
    ),
    (
        "t_max on the boundary",
        [-1.0, 1.0, 1.0, 0.0],
        1.0,
        Class::Touches,
        1.0,
        1.0,
    ),
    (
        "t_max inside the rect",
        [-1.0, 1.0, 1.0, 0.0],
        3.0,
        Class::Enters,
        1.0,
        3.0,
    ),
    (
        "t_max 0, origin inside",
        [1.0, 1.0, 1.0, 0.0],
        0.0,
        Class::Touches,
        0.0,
        0.0,
    ),
    (
        "-0.0 direction component",
        [1.0, 1.0, -0.0, 1.0],
        INF,
        Class::Exits,
        0.0,
        1.0,
    ),
    (
        "pointing away from the rect",
        [5.0, 1.0, 1.0, 0.0],
        INF,
        Class::Outside,
        NAN,
        NAN,
    ),
    (
        "zero direction",
        [1.0, 1.0, 0.0, 0.0],
        INF,
        Class::Invalid,
        NAN,
        NAN,
    ),
    (
        "NaN origin",
        [NAN, 1.0, 1.0, 0.0],
        INF,
        Class::Invalid,
        NAN,
        NAN,
    ),
    (
        "infinite direction",
        [1.0, 1.0, INF, 0.0],
        INF,
        Class::Invalid,
        NAN,
        NAN,
    ),
];

fn rect_cases<F: TestFloat>() {
    let r = Rect::new(f::<F>(0.0), f(0.0), f(4.0), f(2.0)).unwrap();
    for &(name, rr, t_max, class, te, tx) in RECT {
        let c = cast_rect_one(&r, &ray::<F>(rr), f(t_max)).unwrap();
        assert!(
            c.class == class && same(c.t_entry, te) && same(c.t_exit, tx),
            "{name}: {c:?}"
        );
        check_ray_rect(&r, &ray::<F>(rr), f(t_max), &c).unwrap_or_else(|m| panic!("{name}: {m}"));
    }
}

/// An expected ray parameter: exact bits, or strictly positive and left to the contract
/// checker's 6 ulps.
#[derive(Clone, Copy, Debug)]
enum T {
    Is(f64),
    Positive,
}

/// SPEC §2's far end for ray × rect `[0, 4] × [0, 2]`: the origin plays `P0`, so `t_exit == 0`
/// only when the ray leaves exactly at `O` (a tiny exit must not underflow to 0), and an origin
/// outside never gets `t_entry == 0`. Built per precision (`O` a few ulps from an edge), each
/// also through the shared checker.
fn rect_far_end_cases<F: TestFloat>() {
    let r = Rect::new(f::<F>(0.0), f(0.0), f(4.0), f(2.0)).unwrap();
    let (one, four, big) = (F::ONE, f::<F>(4.0), f::<F>(1e30));
    let inf = F::INFINITY;
    // Hand derivations: x-slab (bound − ox)/dx, with w the spacing just below 4.
    #[allow(clippy::type_complexity)]
    let cases: [(&str, [F; 4], F, Class, T, T); 7] = [
        // far w/MAX ≈ 2^-150 (f32), 2^-1075 (f64): below the smallest subnormal.
        (
            "O one ulp left of the right edge, D = (MAX, 0): an underflowing exit",
            [four.down(), one, F::MAX, F::ZERO],
            inf,
            Class::Exits,
            T::Is(0.0),
            T::Positive,
        ),
        // far w/1e30: tiny, normal in f64, near the bottom of f32's normals.
        (
            "O one ulp left of the right edge, D = (1e30, 0)",
            [four.down(), one, big, F::ZERO],
            inf,
            Class::Exits,
            T::Is(0.0),
            T::Positive,
        ),
        // far (0 − TINY)/(−1e30): a subnormal over 1e30.
        (
            "O one subnormal right of the left edge, D = (-1e30, 0)",
            [F::TINY, one, -big, F::ZERO],
            inf,
            Class::Exits,
            T::Is(0.0),
            T::Positive,
        ),
        // far (4 − 4)/MAX = 0: leaves exactly at O.
        (
            "O on the right edge, D = (MAX, 0): a real touch at O",
            [four, one, F::MAX, F::ZERO],
            inf,
            Class::Touches,
            T::Is(0.0),
            T::Is(0.0),
        ),
        // far (0 − 0)/(−1) = −0, which must come back +0.0.
        (
            "O on the left edge, pointing left and up: a real touch at O",
            [F::ZERO, one, -one, f(0.5)],
            inf,
            Class::Touches,
            T::Is(0.0),
            T::Is(0.0),
        ),
        // near (4 − ox)/(−MAX) ≈ 2^-150 or 2^-1075 > 0, far 4/MAX: never t_entry == 0.
        (
            "O one ulp right of the right edge, D = (-MAX, 0): an underflowing entry",
            [four.up(), one, -F::MAX, F::ZERO],
            inf,
            Class::Crosses,
            T::Positive,
            T::Positive,
        ),
        // O inside, t_max 0: the ray is the point O; exit min(t_max, …) = 0 exactly.
        (
            "O one ulp inside the corner, t_max 0",
            [four.down(), f::<F>(2.0).down(), F::MAX, F::MAX],
            F::ZERO,
            Class::Touches,
            T::Is(0.0),
            T::Is(0.0),
        ),
    ];
    for (name, [ox, oy, dx, dy], t_max, class, te, tx) in cases {
        let ray = Ray::new(ox, oy, dx, dy);
        let c = cast_rect_one(&r, &ray, t_max).unwrap();
        let ok = |t: T, v: F| match t {
            T::Is(w) => same(v, w),
            T::Positive => v > F::ZERO,
        };
        assert!(
            c.class == class && ok(te, c.t_entry) && ok(tx, c.t_exit),
            "{name} ({}): {c:?}, want {class:?} {te:?} {tx:?}",
            F::DTYPE
        );
        check_ray_rect(&r, &ray, t_max, &c).unwrap_or_else(|m| panic!("{name}: {m}"));
    }
    // Parameters that underflow to ±0 must keep their sign through the slab's min/max (the
    // fast path sends chunks with tiny coordinates to the careful one, which makes them
    // ±TINY; a proptest case for segments). `D` of 2^50 is in its range.
    let far = f::<F>(-(2f64.powi(50)));
    let thin = Rect::new(F::ZERO, F::ZERO, F::TINY * four, f(2.0)).unwrap();
    for (name, rect, ray, class, t) in [
        (
            "O a subnormal left of the rect on y = ymax, heading up and away",
            r,
            Ray::new(-F::TINY, f(2.0), far, one),
            Class::Outside,
            None,
        ),
        (
            "O on x = xmin of a rect 4 subnormals wide, heading left: leaves at O",
            thin,
            Ray::new(F::ZERO, one, far, f(0.5)),
            Class::Touches,
            Some(0.0),
        ),
    ] {
        let c = cast_rect_one(&rect, &ray, inf).unwrap();
        let t_ok = t.map_or(c.t_entry.to_f64().is_nan(), |w| {
            same(c.t_entry, w) && same(c.t_exit, w)
        });
        assert!(c.class == class && t_ok, "{name} ({}): {c:?}", F::DTYPE);
        check_ray_rect(&rect, &ray, inf, &c).unwrap_or_else(|m| panic!("{name}: {m}"));
        // And in every lane of a vector chunk.
        let rays = slabclip::Rays::from_rows(&[ray; 37]);
        let mut class_out = vec![0u8; 37];
        let mut out = slabclip::cast::RectCastOutput {
            class: Some(&mut class_out),
            ..Default::default()
        };
        slabclip::cast::cast_rect(&rect, &rays.as_ref(), inf, &mut out).unwrap();
        assert!(
            class_out.iter().all(|&k| k == class as u8),
            "{name}: {class_out:?}"
        );
    }
}

/// Rays × segments from the ray `(0,0) → (1,0)`: (name, segments, t_max, t, s, index, normal).
#[allow(clippy::type_complexity)]
const SEGS: &[(&str, &[[f64; 4]], f64, f64, f64, u32, (f64, f64))] = &[
    (
        "crossing",
        &[[2.0, -1.0, 2.0, 1.0]],
        INF,
        2.0,
        0.5,
        0,
        (-1.0, 0.0),
    ),
    (
        "reversed segment, normal still faces the ray",
        &[[2.0, 1.0, 2.0, -1.0]],
        INF,
        2.0,
        0.5,
        0,
        (-1.0, 0.0),
    ),
    (
        "through a shared vertex: the lower index",
        &[[3.0, 1.0, 2.0, 0.0], [2.0, 0.0, 3.0, -1.0]],
        INF,
        2.0,
        1.0,
        0,
        (-FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    ),
    (
        "duplicates: the lower index",
        &[
            [9.0, 9.0, 9.0, 8.0],
            [2.0, -1.0, 2.0, 1.0],
            [2.0, -1.0, 2.0, 1.0],
        ],
        INF,
        2.0,
        0.5,
        1,
        (-1.0, 0.0),
    ),
    (
        "collinear ahead: the first point of overlap",
        &[[5.0, 0.0, 3.0, 0.0]],
        INF,
        3.0,
        1.0,
        0,
        (0.0, -1.0),
    ),
    (
        "collinear around the origin",
        &[[-1.0, 0.0, 3.0, 0.0]],
        INF,
        0.0,
        0.25,
        0,
        (0.0, 1.0),
    ),
    (
        "collinear behind",
        &[[-3.0, 0.0, -1.0, 0.0]],
        INF,
        NAN,
        NAN,
        NO_HIT,
        (NAN, NAN),
    ),
    (
        "parallel, offset",
        &[[1.0, 1.0, 3.0, 1.0]],
        INF,
        NAN,
        NAN,
        NO_HIT,
        (NAN, NAN),
    ),
    (
        "behind the origin",
        &[[-2.0, -1.0, -2.0, 1.0]],
        INF,
        NAN,
        NAN,
        NO_HIT,
        (NAN, NAN),
    ),
    (
        "zero length on the ray",
        &[[2.0, 0.0, 2.0, 0.0]],
        INF,
        2.0,
        0.0,
        0,
        (-1.0, 0.0),
    ),
    (
        "zero length off the ray",
        &[[2.0, 0.5, 2.0, 0.5]],
        INF,
        NAN,
        NAN,
        NO_HIT,
        (NAN, NAN),
    ),
    (
        "t_max short of the hit",
        &[[2.0, -1.0, 2.0, 1.0]],
        1.5,
        NAN,
        NAN,
        NO_HIT,
        (NAN, NAN),
    ),
    (
        "t_max on the hit",
        &[[2.0, -1.0, 2.0, 1.0]],
        2.0,
        2.0,
        0.5,
        0,
        (-1.0, 0.0),
    ),
    (
        "origin on an endpoint",
        &[[0.0, 0.0, 0.0, 1.0]],
        INF,
        0.0,
        0.0,
        0,
        (-1.0, 0.0),
    ),
    (
        "a closer hit after a farther one",
        &[[5.0, -1.0, 5.0, 1.0], [2.0, -2.0, 2.0, 2.0]],
        INF,
        2.0,
        0.5,
        1,
        (-1.0, 0.0),
    ),
    (
        "a non-finite segment is never hit",
        &[[2.0, -1.0, INF, 1.0], [4.0, -1.0, 4.0, 1.0]],
        INF,
        4.0,
        0.5,
        1,
        (-1.0, 0.0),
    ),
];

fn segment_cases<F: Real>() {
    for &(name, segs, t_max, t, s, index, n) in SEGS {
        let rows: Vec<Segment<F>> = segs
            .iter()
            .map(|g| Segment::new(f(g[0]), f(g[1]), f(g[2]), f(g[3])))
            .collect();
        let soa = Segments::from_rows(&rows);
        let h =
            cast_segments_one(&ray::<F>([0.0, 0.0, 1.0, 0.0]), &soa.as_ref(), f(t_max)).unwrap();
        // Axis normals exactly; a diagonal one within two roundings.
        let tol = if core::mem::size_of::<F>() == 4 {
            1e-6
        } else {
            1e-15
        };
        let close = |g: F, w: f64| (g.to_f64() - w).abs() <= tol || same(g, w);
        let n_ok = close(h.normal.0, n.0) && close(h.normal.1, n.1);
        assert!(
            same(h.t, t) && same(h.s, s) && h.index == index && n_ok,
            "{name}: {h:?}"
        );
    }
    let invalid = cast_segments_one(
        &ray::<F>([0.0, 0.0, 0.0, 0.0]),
        &Segments::from_rows(&[Segment::new(f::<F>(0.0), f(0.0), f(1.0), f(0.0))]).as_ref(),
        f(INF),
    )
    .unwrap();
    assert!(
        invalid.index == NO_HIT && invalid.t.to_f64().is_nan(),
        "a zero direction hits nothing"
    );
    // `D = (1, ∞)` "crosses" a horizontal segment at `t = 2/∞ = 0` with `s = ∞/∞` in the loop;
    // the ray is invalid, so every answer is a miss (once, a carried normal survived).
    let soa = Segments::from_rows(&[Segment::new(f::<F>(1.0), f(1.0), f(-1.0), f(1.0))]);
    let rows = [
        ray::<F>([0.0, 0.0, 1.0, INF]),
        ray::<F>([0.0, 0.0, 0.0, 1.0]),
    ];
    let one = rows.map(|r| cast_segments_one(&r, &soa.as_ref(), f(INF)).unwrap());
    let (mut t, mut s, mut idx) = ([F::ZERO; 2], [F::ZERO; 2], [0u32; 2]);
    let (mut nx, mut ny) = ([F::ZERO; 2], [F::ZERO; 2]);
    let out = SegmentsCastOutput {
        t: Some(&mut t),
        s: Some(&mut s),
        index: Some(&mut idx),
        nx: Some(&mut nx),
        ny: Some(&mut ny),
    };
    cast_segments(&Rays::from_rows(&rows).as_ref(), &soa.as_ref(), f(INF), out).unwrap();
    let batch = [0, 1].map(|i| SegmentHit {
        t: t[i],
        s: s[i],
        index: idx[i],
        normal: (nx[i], ny[i]),
    });
    for (name, h) in [("one ray", &one[0]), ("batch", &batch[0])] {
        let nan = [h.t, h.s, h.normal.0, h.normal.1]
            .iter()
            .all(|v| v.to_f64().is_nan());
        assert!(
            h.index == NO_HIT && nan,
            "{name}: an infinite direction hits nothing: {h:?}"
        );
    }
    // The valid ray beside it hits at (0, 1), facing down (`±0.0` alike for the normal).
    for h in [&one[1], &batch[1]] {
        assert!(same(h.t, 1.0) && same(h.s, 0.5) && h.index == 0, "{h:?}");
        assert!(
            h.normal.0.to_f64() == 0.0 && same(h.normal.1, -1.0),
            "{h:?}"
        );
    }
}

/// The rect `[0, 4] × [0, 2]` as a polygon, counter-clockwise: edges 0 bottom, 1 right, 2 top,
/// 3 left. Clockwise, starting at (0,2): edges 0 top, 1 right, 2 bottom, 3 left.
const CCW: [(f64, f64); 4] = [(0.0, 0.0), (4.0, 0.0), (4.0, 2.0), (0.0, 2.0)];
const CW: [(f64, f64); 4] = [(0.0, 2.0), (4.0, 2.0), (4.0, 0.0), (0.0, 0.0)];

/// (name, vertices, ray, t_max, mode, t, point, edge, normal, inside).
#[allow(clippy::type_complexity)]
const POLY: &[(
    &str,
    &[(f64, f64)],
    [f64; 4],
    f64,
    InsideMode,
    f64,
    (f64, f64),
    u32,
    (f64, f64),
    bool,
)] = &[
    (
        "in from the left",
        &CCW,
        [-1.0, 1.0, 1.0, 0.0],
        INF,
        InsideMode::Origin,
        1.0,
        (0.0, 1.0),
        3,
        (-1.0, 0.0),
        false,
    ),
    (
        "through the corner (0,0): the lower edge, its own normal",
        &CCW,
        [-1.0, -1.0, 1.0, 1.0],
        INF,
        InsideMode::Origin,
        1.0,
        (0.0, 0.0),
        0,
        (0.0, -1.0),
        false,
    ),
    (
        "clockwise: the same corner, its lower edge",
        &CW,
        [-1.0, -1.0, 1.0, 1.0],
        INF,
        InsideMode::Origin,
        1.0,
        (0.0, 0.0),
        2,
        (0.0, -1.0),
        false,
    ),
    (
        "clockwise: in from the left",
        &CW,
        [-1.0, 1.0, 1.0, 0.0],
        INF,
        InsideMode::Origin,
        1.0,
        (0.0, 1.0),
        3,
        (-1.0, 0.0),
        false,
    ),
    (
        "along the bottom edge",
        &CCW,
        [-1.0, 0.0, 1.0, 0.0],
        INF,
        InsideMode::Origin,
        1.0,
        (0.0, 0.0),
        3,
        (-1.0, 0.0),
        false,
    ),
    (
        "origin inside",
        &CCW,
        [1.0, 1.0, 1.0, 0.0],
        INF,
        InsideMode::Origin,
        0.0,
        (1.0, 1.0),
        NO_HIT,
        (NAN, NAN),
        true,
    ),
    (
        "origin inside, exit",
        &CCW,
        [1.0, 1.0, 1.0, 0.0],
        INF,
        InsideMode::Exit,
        3.0,
        (4.0, 1.0),
        1,
        (1.0, 0.0),
        true,
    ),
    (
        "origin inside, exit beyond t_max",
        &CCW,
        [1.0, 1.0, 1.0, 0.0],
        2.0,
        InsideMode::Exit,
        NAN,
        (NAN, NAN),
        NO_HIT,
        (NAN, NAN),
        true,
    ),
    (
        "origin on an edge, leaving through it",
        &CCW,
        [2.0, 0.0, 0.0, -1.0],
        INF,
        InsideMode::Exit,
        0.0,
        (2.0, 0.0),
        0,
        (0.0, -1.0),
        true,
    ),
    (
        "origin on a vertex, leaving right",
        &CCW,
        [4.0, 2.0, 1.0, 0.0],
        INF,
        InsideMode::Exit,
        0.0,
        (4.0, 2.0),
        1,
        (1.0, 0.0),
        true,
    ),
    (
        "origin on a vertex",
        &CCW,
        [4.0, 2.0, 1.0, 0.0],
        INF,
        InsideMode::Origin,
        0.0,
        (4.0, 2.0),
        NO_HIT,
        (NAN, NAN),
        true,
    ),
    (
        "passes above",
        &CCW,
        [-1.0, 3.0, 1.0, 0.0],
        INF,
        InsideMode::Origin,
        NAN,
        (NAN, NAN),
        NO_HIT,
        (NAN, NAN),
        false,
    ),
    (
        "grazes the corner (0,2)",
        &CCW,
        [-1.0, 1.0, 1.0, 1.0],
        INF,
        InsideMode::Origin,
        1.0,
        (0.0, 2.0),
        3,
        (-1.0, 0.0),
        false,
    ),
    (
        "t_max short",
        &CCW,
        [-1.0, 1.0, 1.0, 0.0],
        0.5,
        InsideMode::Origin,
        NAN,
        (NAN, NAN),
        NO_HIT,
        (NAN, NAN),
        false,
    ),
    (
        "a repeated vertex keeps the input's edge indices",
        &[(0.0, 0.0), (0.0, 0.0), (4.0, 0.0), (4.0, 2.0), (0.0, 2.0)],
        [2.0, -1.0, 0.0, 1.0],
        INF,
        InsideMode::Origin,
        1.0,
        (2.0, 0.0),
        1,
        (0.0, -1.0),
        false,
    ),
];

fn polygon_cases<F: Real>() {
    for &(name, v, r, t_max, mode, t, p, edge, n, inside) in POLY {
        let v: Vec<(F, F)> = v.iter().map(|&(x, y)| (f(x), f(y))).collect();
        let poly = ConvexPolygon::new(&v).unwrap();
        let h = cast_polygon_one(&poly, &ray::<F>(r), f(t_max), mode).unwrap();
        let ok = same(h.t, t)
            && same(h.point.0, p.0)
            && same(h.point.1, p.1)
            && h.edge == edge
            && same(h.normal.0, n.0)
            && same(h.normal.1, n.1)
            && h.inside == inside;
        assert!(ok, "{name}: {h:?}");
    }
    // An entering `t` below the float range: from just left of the left edge, with a huge `D`
    // (`t = 2^-(2e+1)` underflows to 0): reported as the smallest subnormal, never `t = 0`
    // (which would say "origin inside"), and against the left edge.
    let e = if core::mem::size_of::<F>() == 4 {
        100
    } else {
        600
    };
    let (small, huge) = (
        F::from_f64((-e as f64).exp2()),
        F::from_f64((e as f64).exp2()),
    );
    let v: Vec<(F, F)> = CCW.iter().map(|&(x, y)| (f(x), f(y))).collect();
    let poly = ConvexPolygon::new(&v).unwrap();
    let r = Ray::new(-small, f(1.0), huge, f(0.0));
    let h = cast_polygon_one(&poly, &r, f(INF), InsideMode::Origin).unwrap();
    assert!(
        h.t == F::TINY && h.edge == 3 && same(h.normal.0, -1.0) && !h.inside,
        "underflowing entry: {h:?}"
    );
}

/// Cyrus–Beck against the CCW rect polygon: (name, segment, class, t_entry, t_exit, clipped).
#[allow(clippy::type_complexity)]
const CLIP: &[(&str, [f64; 4], Class, f64, f64, [f64; 4])] = &[
    (
        "crosses",
        [-1.0, 1.0, 7.0, 1.0],
        Class::Crosses,
        0.125,
        0.625,
        [0.0, 1.0, 4.0, 1.0],
    ),
    (
        "inside",
        [1.0, 1.0, 3.0, 1.5],
        Class::Inside,
        0.0,
        1.0,
        [1.0, 1.0, 3.0, 1.5],
    ),
    (
        "along the bottom edge",
        [-1.0, 0.0, 7.0, 0.0],
        Class::Crosses,
        0.125,
        0.625,
        [0.0, 0.0, 4.0, 0.0],
    ),
    (
        "touches the corner (0,0)",
        [-1.0, 1.0, 1.0, -1.0],
        Class::Touches,
        0.5,
        0.5,
        [0.0, 0.0, 0.0, 0.0],
    ),
    (
        "exits",
        [2.0, 1.0, 6.0, 1.0],
        Class::Exits,
        0.0,
        0.5,
        [2.0, 1.0, 4.0, 1.0],
    ),
    (
        "enters",
        [6.0, 1.0, 2.0, 1.0],
        Class::Enters,
        0.5,
        1.0,
        [4.0, 1.0, 2.0, 1.0],
    ),
    (
        "ends on the boundary from outside",
        [-2.0, 1.0, 0.0, 1.0],
        Class::Touches,
        1.0,
        1.0,
        [0.0, 1.0, 0.0, 1.0],
    ),
    (
        "zero length on a vertex",
        [4.0, 2.0, 4.0, 2.0],
        Class::Inside,
        0.0,
        1.0,
        [4.0, 2.0, 4.0, 2.0],
    ),
    (
        "zero length outside",
        [5.0, 2.0, 5.0, 2.0],
        Class::Outside,
        NAN,
        NAN,
        [NAN; 4],
    ),
    (
        "parallel outside",
        [-1.0, 3.0, 5.0, 3.0],
        Class::Outside,
        NAN,
        NAN,
        [NAN; 4],
    ),
    (
        "NaN",
        [NAN, 1.0, 2.0, 1.0],
        Class::Invalid,
        NAN,
        NAN,
        [NAN; 4],
    ),
];

fn clip_cases<F: Real>() {
    let v: Vec<(F, F)> = CCW.iter().map(|&(x, y)| (f(x), f(y))).collect();
    let poly = ConvexPolygon::new(&v).unwrap();
    for &(name, s, class, te, tx, cs) in CLIP {
        let seg = Segment::new(f::<F>(s[0]), f(s[1]), f(s[2]), f(s[3]));
        let c = clip_polygon_one(&poly, &seg);
        let mut out = Segments::nan(1);
        clip_polygon(
            &poly,
            &[seg][..],
            &mut ClipOutput {
                segments: Some(out.as_mut()),
                ..Default::default()
            },
        )
        .unwrap();
        let (x0, y0, x1, y1) = out.as_ref().columns();
        let ok = c.class == class
            && same(c.t_entry, te)
            && same(c.t_exit, tx)
            && [x0[0], y0[0], x1[0], y1[0]]
                .iter()
                .zip(cs)
                .all(|(&g, w)| same(g, w));
        assert!(
            ok,
            "{name}: {c:?} clipped {:?}",
            [x0[0], y0[0], x1[0], y1[0]]
        );
    }
}

#[test]
fn ray_rect_table() {
    rect_cases::<f32>();
    rect_cases::<f64>();
}

#[test]
fn ray_rect_far_end_table() {
    rect_far_end_cases::<f32>();
    rect_far_end_cases::<f64>();
}

#[test]
fn ray_segments_table() {
    segment_cases::<f32>();
    segment_cases::<f64>();
}

#[test]
fn ray_polygon_table() {
    polygon_cases::<f32>();
    polygon_cases::<f64>();
}

#[test]
fn segment_polygon_table() {
    clip_cases::<f32>();
    clip_cases::<f64>();
}
