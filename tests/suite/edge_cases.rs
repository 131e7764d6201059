//! Named edge cases from SPEC §1 and seed 001's case analysis (and its reader's comment), run
//! through every algorithm in both precisions. Each asserts the class and, bit for bit, every
//! value SPEC calls exact; all coordinates are dyadic so the exact parameters are representable
//! and must come back exactly. Every case also goes through the shared contract checker.

use crate::common;

use common::cases::TestFloat;
use common::runner::{check, is_nan};
use slabclip::{Algorithm, Class, Real, Rect, Segment};

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;
/// The rect most cases use: `[0, 4] × [0, 2]`.
const R: [f64; 4] = [0.0, 0.0, 4.0, 2.0];

struct Case {
    name: &'static str,
    rect: [f64; 4],
    seg: [f64; 4],
    class: Class,
    /// `(t_entry, t_exit)`, exact; `None` for a miss or an invalid segment (NaN expected).
    t: Option<(f64, f64)>,
    /// The clipped segment, exact; `None` for a miss (NaN row expected).
    clipped: Option<[f64; 4]>,
}

const fn hit(
    name: &'static str,
    rect: [f64; 4],
    seg: [f64; 4],
    class: Class,
    t: (f64, f64),
    clipped: [f64; 4],
) -> Case {
    Case {
        name,
        rect,
        seg,
        class,
        t: Some(t),
        clipped: Some(clipped),
    }
}
const fn miss(name: &'static str, rect: [f64; 4], seg: [f64; 4], class: Class) -> Case {
    Case {
        name,
        rect,
        seg,
        class,
        t: None,
        clipped: None,
    }
}

use Class::*;

const CASES: &[Case] = &[
    // Seed 001's four cases.
    hit(
        "inside, strictly",
        R,
        [1.0, 1.0, 3.0, 1.5],
        Inside,
        (0.0, 1.0),
        [1.0, 1.0, 3.0, 1.5],
    ),
    miss("outside, strictly left", R, [-2.0, 1.0, -1.0, 1.5], Outside),
    miss("outside, above", R, [1.0, 3.0, 3.0, 5.0], Outside),
    hit(
        "enters through the left edge",
        R,
        [-2.0, 1.0, 2.0, 1.0],
        Enters,
        (0.5, 1.0),
        [0.0, 1.0, 2.0, 1.0],
    ),
    hit(
        "exits through the right edge",
        R,
        [2.0, 1.0, 6.0, 1.0],
        Exits,
        (0.0, 0.5),
        [2.0, 1.0, 4.0, 1.0],
    ),
    hit(
        "crosses horizontally",
        R,
        [-4.0, 1.0, 12.0, 1.0],
        Crosses,
        (0.25, 0.5),
        [0.0, 1.0, 4.0, 1.0],
    ),
    hit(
        "crosses vertically",
        R,
        [2.0, -2.0, 2.0, 6.0],
        Crosses,
        (0.25, 0.5),
        [2.0, 0.0, 2.0, 2.0],
    ),
    hit(
        "crosses, cutting a corner region",
        R,
        [-1.0, 1.0, 3.0, 3.0],
        Crosses,
        (0.25, 0.5),
        [0.0, 1.5, 1.0, 2.0],
    ),
    hit(
        "enters exactly through a corner",
        R,
        [-2.0, -1.0, 2.0, 1.0],
        Enters,
        (0.5, 1.0),
        [0.0, 0.0, 2.0, 1.0],
    ),
    hit(
        "crosses, entering at one corner and leaving at the opposite",
        [0.0, 0.0, 2.0, 2.0],
        [-1.0, -1.0, 3.0, 3.0],
        Crosses,
        (0.25, 0.75),
        [0.0, 0.0, 2.0, 2.0],
    ),
    // The comment's case [B](0): entry = exit, a corner.
    hit(
        "touches a corner in passing",
        R,
        [2.0, 4.0, 6.0, 0.0],
        Touches,
        (0.5, 0.5),
        [4.0, 2.0, 4.0, 2.0],
    ),
    hit(
        "starts at a corner, pointing away",
        R,
        [4.0, 2.0, 6.0, 4.0],
        Touches,
        (0.0, 0.0),
        [4.0, 2.0, 4.0, 2.0],
    ),
    hit(
        "ends at a corner, coming from outside",
        R,
        [6.0, 4.0, 4.0, 2.0],
        Touches,
        (1.0, 1.0),
        [4.0, 2.0, 4.0, 2.0],
    ),
    hit(
        "starts on an edge, pointing away",
        R,
        [4.0, 1.0, 6.0, 1.0],
        Touches,
        (0.0, 0.0),
        [4.0, 1.0, 4.0, 1.0],
    ),
    hit(
        "ends on an edge, coming from outside",
        R,
        [6.0, 1.0, 4.0, 1.0],
        Touches,
        (1.0, 1.0),
        [4.0, 1.0, 4.0, 1.0],
    ),
    hit(
        "starts on the bottom edge, pointing down and away",
        R,
        [1.0, 0.0, 3.0, -2.0],
        Touches,
        (0.0, 0.0),
        [1.0, 0.0, 1.0, 0.0],
    ),
    // The comment's case [A]: points on edges are inside, corners included.
    hit(
        "lies along the bottom edge",
        R,
        [1.0, 0.0, 3.0, 0.0],
        Inside,
        (0.0, 1.0),
        [1.0, 0.0, 3.0, 0.0],
    ),
    hit(
        "lies along the bottom edge, corner to corner",
        R,
        [0.0, 0.0, 4.0, 0.0],
        Inside,
        (0.0, 1.0),
        [0.0, 0.0, 4.0, 0.0],
    ),
    hit(
        "lies along the left edge, corner to corner",
        R,
        [0.0, 2.0, 0.0, 0.0],
        Inside,
        (0.0, 1.0),
        [0.0, 2.0, 0.0, 0.0],
    ),
    hit(
        "along the top edge, beyond both corners",
        R,
        [-2.0, 2.0, 6.0, 2.0],
        Crosses,
        (0.25, 0.75),
        [0.0, 2.0, 4.0, 2.0],
    ),
    hit(
        "along the bottom edge, entering",
        R,
        [-2.0, 0.0, 2.0, 0.0],
        Enters,
        (0.5, 1.0),
        [0.0, 0.0, 2.0, 0.0],
    ),
    hit(
        "along the bottom edge, exiting",
        R,
        [2.0, 0.0, 6.0, 0.0],
        Exits,
        (0.0, 0.5),
        [2.0, 0.0, 4.0, 0.0],
    ),
    hit(
        "along the left edge, crossing",
        R,
        [0.0, -2.0, 0.0, 6.0],
        Crosses,
        (0.25, 0.5),
        [0.0, 0.0, 0.0, 2.0],
    ),
    hit(
        "diagonal of the rect exactly",
        R,
        [0.0, 0.0, 4.0, 2.0],
        Inside,
        (0.0, 1.0),
        [0.0, 0.0, 4.0, 2.0],
    ),
    // The comment's case (5): the line meets the rect, the segment does not.
    miss(
        "short of the rect, heading towards it",
        R,
        [-4.0, 1.0, -2.0, 1.0],
        Outside,
    ),
    miss(
        "beyond the rect, heading away",
        R,
        [6.0, 1.0, 8.0, 1.0],
        Outside,
    ),
    miss(
        "diagonal that stops short of a corner",
        R,
        [-2.0, -2.0, -1.0, -1.0],
        Outside,
    ),
    miss(
        "passes a corner on the outside",
        R,
        [3.0, 4.0, 6.0, 1.0],
        Outside,
    ),
    // Parallel to an axis, with 0.0 and -0.0 differences.
    miss("horizontal, just below", R, [1.0, -0.5, 3.0, -0.5], Outside),
    miss(
        "vertical, left of the rect",
        R,
        [-1.0, -2.0, -1.0, 6.0],
        Outside,
    ),
    hit(
        "dx is -0.0 on the left edge",
        R,
        [0.0, 1.0, -0.0, 1.5],
        Inside,
        (0.0, 1.0),
        [0.0, 1.0, -0.0, 1.5],
    ),
    hit(
        "dy is -0.0 on the bottom edge",
        R,
        [1.0, 0.0, 3.0, -0.0],
        Inside,
        (0.0, 1.0),
        [1.0, 0.0, 3.0, -0.0],
    ),
    hit(
        "-0.0 bounds, leaving from the edge",
        [-0.0, -0.0, 4.0, 2.0],
        [0.0, 1.0, -1.0, 1.0],
        Touches,
        (0.0, 0.0),
        [0.0, 1.0, 0.0, 1.0],
    ),
    hit(
        "-0.0 start against a 0.0 bound",
        R,
        [-0.0, 1.0, 2.0, 1.0],
        Inside,
        (0.0, 1.0),
        [-0.0, 1.0, 2.0, 1.0],
    ),
    // Zero length.
    hit(
        "zero length, inside",
        R,
        [1.0, 1.0, 1.0, 1.0],
        Inside,
        (0.0, 1.0),
        [1.0, 1.0, 1.0, 1.0],
    ),
    hit(
        "zero length, on a corner",
        R,
        [4.0, 2.0, 4.0, 2.0],
        Inside,
        (0.0, 1.0),
        [4.0, 2.0, 4.0, 2.0],
    ),
    hit(
        "zero length, on an edge",
        R,
        [0.0, 1.0, 0.0, 1.0],
        Inside,
        (0.0, 1.0),
        [0.0, 1.0, 0.0, 1.0],
    ),
    miss("zero length, outside", R, [5.0, 1.0, 5.0, 1.0], Outside),
    // Zero-width and zero-height rects are still closed.
    hit(
        "zero-width rect, crossed",
        [2.0, 0.0, 2.0, 2.0],
        [0.0, 1.0, 4.0, 1.0],
        Touches,
        (0.5, 0.5),
        [2.0, 1.0, 2.0, 1.0],
    ),
    hit(
        "zero-width rect, run along",
        [2.0, 0.0, 2.0, 2.0],
        [2.0, -2.0, 2.0, 6.0],
        Crosses,
        (0.25, 0.5),
        [2.0, 0.0, 2.0, 2.0],
    ),
    hit(
        "zero-height rect, run along from inside",
        [0.0, 1.0, 4.0, 1.0],
        [2.0, 1.0, 10.0, 1.0],
        Exits,
        (0.0, 0.25),
        [2.0, 1.0, 4.0, 1.0],
    ),
    hit(
        "point rect, hit",
        [1.0, 1.0, 1.0, 1.0],
        [0.0, 0.0, 2.0, 2.0],
        Touches,
        (0.5, 0.5),
        [1.0, 1.0, 1.0, 1.0],
    ),
    miss(
        "point rect, missed",
        [1.0, 1.0, 1.0, 1.0],
        [0.0, 0.0, 2.0, 2.5],
        Outside,
    ),
    hit(
        "-0.0 point on a point rect at 0",
        [0.0, 0.0, 0.0, 0.0],
        [-0.0, -0.0, -0.0, -0.0],
        Inside,
        (0.0, 1.0),
        [-0.0, -0.0, -0.0, -0.0],
    ),
    // NaN and infinities.
    miss("NaN in x0", R, [NAN, 1.0, 2.0, 1.0], Invalid),
    miss("NaN in y1", R, [1.0, 1.0, 2.0, NAN], Invalid),
    miss("+inf in x1", R, [1.0, 1.0, INF, 1.0], Invalid),
    miss("-inf in y0", R, [1.0, -INF, 2.0, 1.0], Invalid),
    miss(
        "inf on both ends of a horizontal line",
        R,
        [-INF, 1.0, INF, 1.0],
        Invalid,
    ),
    miss("all NaN", R, [NAN, NAN, NAN, NAN], Invalid),
];

fn bits<F: Real>(x: F) -> u64 {
    x.to_bits_u64()
}

fn run_table<F: TestFloat>() {
    assert!(CASES.len() >= 40, "the table has {} cases", CASES.len());
    for case in CASES {
        let f = |v: [f64; 4]| v.map(F::from_f64);
        let [a, b, c, d] = f(case.rect);
        let r = Rect::new(a, b, c, d).unwrap();
        let [x0, y0, x1, y1] = f(case.seg);
        let s = Segment::new(x0, y0, x1, y1);
        for alg in Algorithm::ALL {
            let what = format!("{} ({alg}, {})", case.name, F::DTYPE);
            let got = alg.clip_one(&r, &s);
            let cs = got.segment(&r, &s);
            assert_eq!(got.class, case.class, "{what}");
            match case.t {
                Some((te, tx)) => {
                    assert_eq!(
                        bits(got.t_entry),
                        bits(F::from_f64(te)),
                        "{what}: t_entry {}",
                        got.t_entry
                    );
                    assert_eq!(
                        bits(got.t_exit),
                        bits(F::from_f64(tx)),
                        "{what}: t_exit {}",
                        got.t_exit
                    );
                }
                None => assert!(
                    is_nan(got.t_entry) && is_nan(got.t_exit),
                    "{what}: NaN parameters"
                ),
            }
            let got_row = [cs.x0, cs.y0, cs.x1, cs.y1].map(bits);
            match case.clipped {
                Some(want) => assert_eq!(got_row, f(want).map(bits), "{what}: clipped {cs:?}"),
                None => assert!(
                    [cs.x0, cs.y0, cs.x1, cs.y1].iter().all(|v| is_nan(*v)),
                    "{what}: NaN row"
                ),
            }
            check(alg, &r, &s, &got, &cs).unwrap_or_else(|m| panic!("{what}: {m}"));
        }
    }
}

#[test]
fn edge_case_table_f32() {
    run_table::<f32>();
}

#[test]
fn edge_case_table_f64() {
    run_table::<f64>();
}

/// Cases that depend on the precision: one ulp either side of a bound, subnormals, and
/// coordinates near the end of the float range.
fn precision_cases<F: TestFloat>() {
    let r = Rect::new(F::ZERO, F::ZERO, F::from_f64(4.0), F::from_f64(2.0)).unwrap();
    let (two, four, one) = (F::from_f64(2.0), F::from_f64(4.0), F::ONE);
    let run = |s: Segment<F>| {
        let mut out = Vec::new();
        for alg in Algorithm::ALL {
            let c = alg.clip_one(&r, &s);
            check(alg, &r, &s, &c, &c.segment(&r, &s)).unwrap_or_else(|m| panic!("{m}"));
            out.push(c);
        }
        out
    };
    // End one ulp outside the right edge: never t_exit == 1.
    for c in run(Segment::new(two, one, four.up(), one)) {
        assert_eq!((c.class, bits(c.t_entry)), (Class::Exits, bits(F::ZERO)));
        assert!(
            c.t_exit < F::ONE && c.t_exit > F::from_f64(0.99999),
            "{c:?}"
        );
    }
    // End one ulp inside: exactly 1.
    for c in run(Segment::new(F::from_f64(6.0), one, four.down(), one)) {
        assert_eq!(c.class, Class::Enters);
        assert_eq!(bits(c.t_exit), bits(F::ONE));
    }
    // Start one subnormal left of the left edge: entering, with t_entry > 0 though it underflows.
    for c in run(Segment::new(-F::TINY, one, F::MAX, one)) {
        assert_eq!(c.class, Class::Crosses);
        assert!(c.t_entry > F::ZERO && c.t_entry <= F::TINY, "{c:?}");
    }
    // Start one subnormal right of the right edge, heading away: both ends beyond one edge.
    // (Found by the proptest: an exit of -1e-324 once underflowed to -0.0 and made a hit.)
    for c in run(Segment::new(
        four.up(),
        F::from_f64(-0.5),
        F::from_f64(7.1),
        F::from_f64(3.0).up(),
    )) {
        assert_eq!(c.class, Class::Outside);
    }
    // A parameter that underflows to -0 must not lose its sign in the slab's min/max against a
    // +0 (a proptest case; the fast path sends chunks with tiny coordinates to the careful
    // path, which makes an underflow ±TINY). Exit: `P0` a subnormal left of the rect and on the line `y = ymax`,
    // heading away up and left: outside, though `t(xmin)` underflows and `t(ymax)` is +0.
    // (`2^50`: within the fast path's range of differences.)
    let far = F::from_f64(-(2f64.powi(50)));
    let away = Segment::new(-F::TINY, two, far, F::from_f64(3.0));
    // Entry side: `P0` on `x = xmin` of a rect four subnormals wide, heading left: it leaves
    // there, a touch at `t = 0`, though `t(xmax)` is -0 and `t(xmin)` +0.
    let thin = Rect::new(F::ZERO, F::ZERO, F::TINY * four, two).unwrap();
    let leaving = Segment::new(F::ZERO, one, far, F::from_f64(1.5));
    for c in run(away) {
        assert_eq!(c.class, Class::Outside, "{c:?}");
    }
    for alg in Algorithm::ALL {
        let c = alg.clip_one(&thin, &leaving);
        check(alg, &thin, &leaving, &c, &c.segment(&thin, &leaving)).unwrap();
        assert_eq!(
            (c.class, bits(c.t_entry), bits(c.t_exit)),
            (Class::Touches, bits(F::ZERO), bits(F::ZERO)),
            "{alg}"
        );
    }
    // The same through the vector kernels, in every lane of a chunk and in the tail.
    for (rect, s, class) in [(r, away, Class::Outside), (thin, leaving, Class::Touches)] {
        let batch = slabclip::Segments::from_rows(&[s; 37]);
        for alg in [Algorithm::SimdSlab, Algorithm::Hybrid, Algorithm::Auto] {
            let got = alg.clip_to_vec(&rect, &batch.as_ref(), false);
            assert!(
                got.class.iter().all(|&k| k == class as u8),
                "{alg}: {:?}",
                got.class
            );
        }
    }
    // A rect and segment made of subnormals: exact, like any other dyadic case.
    let t = F::TINY;
    let tr = Rect::new(F::ZERO, F::ZERO, t * four, t * four).unwrap();
    let s = Segment::new(-t * four, t * two, t * F::from_f64(12.0), t * two);
    for alg in Algorithm::ALL {
        let c = alg.clip_one(&tr, &s);
        assert_eq!(
            (c.class, c.t_entry, c.t_exit),
            (Class::Crosses, F::from_f64(0.25), F::from_f64(0.5)),
            "{alg}"
        );
        let cs = c.segment(&tr, &s);
        assert_eq!(
            [cs.x0, cs.y0, cs.x1, cs.y1],
            [F::ZERO, t * two, t * four, t * two],
            "{alg}"
        );
    }
    // From -MAX to MAX: the differences overflow, the parameters must not.
    for c in run(Segment::new(-F::MAX, one, F::MAX, one)) {
        assert!(c.class.is_hit(), "{c:?}");
        assert_eq!(c.t_entry, F::HALF);
    }
    for c in run(Segment::new(F::MAX, -F::MAX, -F::MAX, F::MAX)) {
        assert!(c.class.is_hit(), "{c:?}");
    }
    // A difference that is finite while TwoSum's steps overflow: with `p0 = ±MAX`, `p1 − p0`
    // can round so that `(p1 − p0) − p1` passes ∓MAX (its error term was NaN, the y slab was
    // lost, and a segment far above the rect "crossed" it; found by the proptest, f32, seed
    // 0x65f8db56fed381dd). Such a `p1` near 0.48·MAX, both ways and mirrored: far outside.
    let mut y1 = F::MAX * F::from_f64(0.48);
    for _ in 0..64 {
        if !((y1 - F::MAX) - y1).to_f64().is_finite() {
            break;
        }
        y1 = y1.up();
    }
    assert!(
        !((y1 - F::MAX) - y1).to_f64().is_finite(),
        "no such p1 near {y1:?}"
    );
    for (s, what) in [
        (
            Segment::new(two, F::MAX, F::from_f64(3.0), y1),
            "down from MAX",
        ),
        (Segment::new(F::from_f64(3.0), y1, two, F::MAX), "up to MAX"),
        (
            Segment::new(two, -F::MAX, F::from_f64(3.0), -y1),
            "up from -MAX",
        ),
        (Segment::new(F::MAX, one, y1, F::HALF), "along x from MAX"),
    ] {
        for (alg, c) in Algorithm::ALL.into_iter().zip(run(s)) {
            assert_eq!(c.class, Class::Outside, "{alg} {what}: {c:?}");
        }
    }
    // Huge bounds, huge segment, everything finite.
    let big = Rect::new(-F::MAX, -F::MAX, F::MAX, F::MAX).unwrap();
    for alg in Algorithm::ALL {
        let s = Segment::new(-F::MAX, -F::MAX, F::MAX, F::MAX);
        let c = alg.clip_one(&big, &s);
        assert_eq!(
            (c.class, c.t_entry, c.t_exit),
            (Class::Inside, F::ZERO, F::ONE),
            "{alg}"
        );
    }
}

#[test]
fn precision_dependent_cases_f32() {
    precision_cases::<f32>();
}

#[test]
fn precision_dependent_cases_f64() {
    precision_cases::<f64>();
}

/// An expected parameter in the far-end table: exact bits, or cut by an edge (strictly between 0
/// and 1, its value left to the contract checker's 6 ulps).
#[derive(Clone, Copy, Debug)]
enum T {
    Is(f64),
    Cut,
}

/// A named case of SPEC §1's far-end rule, built per precision (its coordinates are bounds
/// stepped by that precision's ulps).
struct FarCase<F> {
    name: &'static str,
    rect: [F; 4],
    seg: [F; 4],
    class: Class,
    t: (T, T),
    /// The clipped segment where SPEC makes it exact (`None`: left to the checker, which still
    /// asks for a point exactly on an edge, in the rect, near the exact point).
    clipped: [Option<F>; 4],
}

/// The far-end table. Hand derivations, with `u` the spacing of `F` at 0.25 (`2^-25` in f32,
/// `2^-54` in f64), `v` the spacing just below 0.75 (`2^-24`, `2^-53`), `w` just below 4
/// (`2^-22`, `2^-51`); "trap" marks a `d` with `d · fl(1/d) ≠ 1` in both precisions (107, 214),
/// where a reciprocal-times-difference kernel must still give exactly 1.
fn far_cases<F: TestFloat>() -> Vec<FarCase<F>> {
    let f = F::from_f64;
    let (q, h3) = (f(0.25), f(0.75));
    let r1 = [q, q, h3, h3];
    let r = [F::ZERO, F::ZERO, f(4.0), f(2.0)];
    let (one, two, four) = (F::ONE, f(2.0), f(4.0));
    let big = f(1e30);
    let some = |v: [F; 4]| v.map(Some);
    vec![
        FarCase {
            // x-slab near 4/(4 + u) = 1 − u/4 + …, rounds to 1; y-slab near 0/(−v) = 0.
            name: "from far left into a point one ulp right of the left edge",
            rect: r1,
            seg: [f(-3.75), h3, q.up(), h3.down()],
            class: Class::Enters,
            t: (T::Cut, T::Is(1.0)),
            clipped: [Some(q), None, Some(q.up()), Some(h3.down())],
        },
        FarCase {
            // The mirror: x-slab far u/(4 + u) ≈ u/4, small but normal.
            name: "mirror: from one ulp right of the left edge out to the far left",
            rect: r1,
            seg: [q.up(), h3.down(), f(-3.75), h3],
            class: Class::Exits,
            t: (T::Is(0.0), T::Cut),
            clipped: [Some(q.up()), Some(h3.down()), Some(q), None],
        },
        FarCase {
            // Both nears 4/(4 + u): through the corner, into a point one ulp inside it.
            name: "from far down-left into a point one ulp inside the corner",
            rect: r1,
            seg: [f(-3.75), f(-3.75), q.up(), q.up()],
            class: Class::Enters,
            t: (T::Cut, T::Is(1.0)),
            clipped: [None, None, Some(q.up()), Some(q.up())],
        },
        FarCase {
            // x-slab near 4/(4 + u) < 1; y-slab far v/v = 1: P1 is on the top edge, but the
            // segment enters through the left one.
            name: "into a point on the top edge one ulp right of the left edge",
            rect: r1,
            seg: [f(-3.75), h3.down(), q.up(), h3],
            class: Class::Enters,
            t: (T::Cut, T::Is(1.0)),
            clipped: [Some(q), None, Some(q.up()), Some(h3)],
        },
        FarCase {
            // x-slab near (0 + 1e30)/(TINY + 1e30): a subnormal offset, entry 1 − 1e-30·TINY.
            name: "from 1e30 to the left into a point one subnormal right of x = 0",
            rect: r,
            seg: [-big, one, F::TINY, one],
            class: Class::Enters,
            t: (T::Cut, T::Is(1.0)),
            clipped: [Some(F::ZERO), Some(one), Some(F::TINY), Some(one)],
        },
        FarCase {
            // x-slab far w/(1e30 − 4 + w): tiny, still normal.
            name: "from one ulp left of the right edge out to 1e30",
            rect: r,
            seg: [four.down(), one, big, one],
            class: Class::Exits,
            t: (T::Is(0.0), T::Cut),
            clipped: [Some(four.down()), Some(one), Some(four), Some(one)],
        },
        FarCase {
            // x-slab far w/(MAX − 4 + w) ≈ 2^-150 (f32), 2^-1075 (f64): half the smallest
            // subnormal, so it must round up to a subnormal, not underflow to 0.
            name: "from one ulp left of the right edge out to MAX: an underflowing exit",
            rect: r,
            seg: [four.down(), one, F::MAX, one],
            class: Class::Exits,
            t: (T::Is(0.0), T::Cut),
            clipped: [Some(four.down()), Some(one), Some(four), Some(one)],
        },
        FarCase {
            // x-slab near (4 − 111)/(−107) = 1 (trap); y-slab near 0.5/(−0.5) = −1, far 3.
            name: "from the right onto the right edge at P1: a real touch (d = -107)",
            rect: r,
            seg: [f(111.0), f(1.5), four, one],
            class: Class::Touches,
            t: (T::Is(1.0), T::Is(1.0)),
            clipped: some([four, one, four, one]),
        },
        FarCase {
            // Both nears 1 (traps 107 and 214): arrives at the corner from the outer quadrant.
            name: "from up-right onto the top-right corner at P1 (d = -107, -214)",
            rect: r,
            seg: [f(111.0), f(216.0), four, two],
            class: Class::Touches,
            t: (T::Is(1.0), T::Is(1.0)),
            clipped: some([four, two, four, two]),
        },
        FarCase {
            // x-slab near 1 (trap); y-slab near (0 − 1)/1 = −1, far (2 − 1)/1 = 1 as well.
            name: "from the right, rising onto the top-right corner at P1",
            rect: r,
            seg: [f(111.0), one, four, two],
            class: Class::Touches,
            t: (T::Is(1.0), T::Is(1.0)),
            clipped: some([four, two, four, two]),
        },
        FarCase {
            // x-slab far (4 − 4)/(MAX − 4) = 0: leaves exactly at P0, whatever the distance.
            name: "from the right edge out to MAX: a real touch at P0",
            rect: r,
            seg: [four, one, F::MAX, one],
            class: Class::Touches,
            t: (T::Is(0.0), T::Is(0.0)),
            clipped: some([four, one, four, one]),
        },
        FarCase {
            // x-slab far (0 − 0)/(−1e30) = −0 → must be +0.0.
            name: "from the left edge out to -1e30: a real touch at P0",
            rect: r,
            seg: [F::ZERO, one, -big, f(1.5)],
            class: Class::Touches,
            t: (T::Is(0.0), T::Is(0.0)),
            clipped: some([F::ZERO, one, F::ZERO, one]),
        },
        FarCase {
            // Zero-width rect x ∈ [2, 2]: both x-slab bounds give (2 − x0)/(2 − x0) = 1.
            name: "zero-width rect reached at P1 from 1e30 away",
            rect: [two, F::ZERO, two, two],
            seg: [big, f(1.5), two, one],
            class: Class::Touches,
            t: (T::Is(1.0), T::Is(1.0)),
            clipped: some([two, one, two, one]),
        },
        FarCase {
            // x-slab near 2/4; y-slab near −1, far (2 − 1)/1 = 1: P1 on the top edge, entered
            // through the left one.
            name: "into the middle of the top edge through the left edge",
            rect: r,
            seg: [-two, one, two, two],
            class: Class::Enters,
            t: (T::Is(0.5), T::Is(1.0)),
            clipped: some([F::ZERO, f(1.5), two, two]),
        },
        FarCase {
            // x-slab near −0.5, far (0 − 2)/(−4) = 0.5; y-slab near 0/(−1) = −0, far 2.
            name: "from the middle of the top edge out through the left edge",
            rect: r,
            seg: [two, two, -two, one],
            class: Class::Exits,
            t: (T::Is(0.0), T::Is(0.5)),
            clipped: some([two, two, F::ZERO, f(1.5)]),
        },
    ]
}

fn run_far_cases<F: TestFloat>() -> Vec<String> {
    let mut failures = Vec::new();
    for case in far_cases::<F>() {
        let [a, b, c, d] = case.rect;
        let r = Rect::new(a, b, c, d).unwrap();
        let [x0, y0, x1, y1] = case.seg;
        let s = Segment::new(x0, y0, x1, y1);
        for alg in Algorithm::ALL {
            let got = alg.clip_one(&r, &s);
            let cs = got.segment(&r, &s);
            let what = format!("{} ({alg}, {})", case.name, F::DTYPE);
            let t_ok = |t: T, v: F| match t {
                T::Is(w) => bits(v) == bits(F::from_f64(w)),
                T::Cut => F::ZERO < v && v < F::ONE,
            };
            let row = [cs.x0, cs.y0, cs.x1, cs.y1];
            let clipped_ok = case
                .clipped
                .iter()
                .zip(row)
                .all(|(want, v)| want.is_none_or(|w| bits(w) == bits(v)));
            let verdict = if got.class != case.class {
                Err(format!("class {:?}, want {:?}", got.class, case.class))
            } else if !t_ok(case.t.0, got.t_entry) || !t_ok(case.t.1, got.t_exit) {
                Err(format!(
                    "t ({}, {}), want {:?}",
                    got.t_entry, got.t_exit, case.t
                ))
            } else if !clipped_ok {
                Err(format!("clipped {row:?}, want {:?}", case.clipped))
            } else {
                check(alg, &r, &s, &got, &cs)
            };
            if let Err(m) = verdict {
                failures.push(format!("{what}: {m}"));
            }
        }
    }
    failures
}

/// SPEC §1's far ends: every algorithm, every case; the message lists every failure at once.
fn far_end_table<F: TestFloat>() {
    let failures = run_far_cases::<F>();
    assert!(
        failures.is_empty(),
        "{} far-end failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn far_end_table_f32() {
    far_end_table::<f32>();
}

#[test]
fn far_end_table_f64() {
    far_end_table::<f64>();
}

#[test]
fn invalid_rects_are_errors_naming_the_bound() {
    let e = |r: Result<Rect<f32>, slabclip::Error>| r.unwrap_err().to_string();
    assert_eq!(
        e(Rect::new(f32::NAN, 0.0, 1.0, 1.0)),
        "invalid rect: xmin = NaN is not finite"
    );
    assert_eq!(
        e(Rect::new(0.0, 0.0, f32::INFINITY, 1.0)),
        "invalid rect: xmax = inf is not finite"
    );
    assert_eq!(
        e(Rect::new(2.0, 0.0, 1.0, 1.0)),
        "invalid rect: xmin = 2 is greater than xmax = 1"
    );
    assert_eq!(
        e(Rect::new(0.0, 3.0, 1.0, 1.0)),
        "invalid rect: ymin = 3 is greater than ymax = 1"
    );
    assert!(Rect::new(0.0f32, -0.0, -0.0, 0.0).is_ok());
}
