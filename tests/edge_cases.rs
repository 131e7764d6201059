//! Named edge cases from SPEC §1 and seed 001's case analysis (and its reader's comment), run
//! through every algorithm in both precisions. Each asserts the class and, bit for bit, every
//! value SPEC calls exact; all coordinates are dyadic so the exact parameters are representable
//! and must come back exactly. Every case also goes through the shared contract checker.

mod common;

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
