//! The obviously-right clip: SPEC §1 in exact rational arithmetic. Floats convert to rationals
//! exactly, so nothing here rounds.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use slabclip::{Class, Real, Rect, Segment};

pub type Q = BigRational;

/// A float as an exact rational (finite inputs only).
pub fn q<F: Real>(x: F) -> Q {
    Q::from_float(x.to_f64()).expect("finite")
}

/// An interval of the line parameter; `None` bounds are ±∞.
#[derive(Clone, Debug)]
pub struct Slab {
    pub near: Option<Q>,
    pub far: Option<Q>,
    pub empty: bool,
}

/// The slab of one axis in exact arithmetic.
pub fn slab(lo: &Q, hi: &Q, p0: &Q, p1: &Q) -> Slab {
    let d = p1 - p0;
    if d.is_zero() {
        let inside = lo <= p0 && p0 <= hi;
        return Slab {
            near: None,
            far: None,
            empty: !inside,
        };
    }
    let a = (lo - p0) / &d;
    let b = (hi - p0) / &d;
    let (near, far) = if d.is_positive() { (a, b) } else { (b, a) };
    Slab {
        near: Some(near),
        far: Some(far),
        empty: false,
    }
}

/// The exact answer for one segment.
#[derive(Clone, Debug)]
pub struct Exact {
    pub valid: bool,
    pub p0_in: bool,
    pub p1_in: bool,
    /// `max(0, nears)` and `min(1, fars)`, whether or not they form a hit.
    pub entry: Q,
    pub exit: Q,
    /// A parallel axis outside the slab: a miss no rounding can turn into a hit.
    pub parallel_miss: bool,
    pub class: Class,
}

impl Exact {
    pub fn hit(&self) -> bool {
        self.class.is_hit()
    }
}

pub fn exact<F: Real>(r: &Rect<F>, s: &Segment<F>) -> Exact {
    let valid = s.is_finite();
    if !valid {
        return Exact {
            valid,
            p0_in: false,
            p1_in: false,
            entry: Q::zero(),
            exit: Q::zero(),
            parallel_miss: false,
            class: Class::Invalid,
        };
    }
    let (xmin, ymin, xmax, ymax) = (q(r.xmin()), q(r.ymin()), q(r.xmax()), q(r.ymax()));
    let (x0, y0, x1, y1) = (q(s.x0), q(s.y0), q(s.x1), q(s.y1));
    let inside = |x: &Q, y: &Q| &xmin <= x && x <= &xmax && &ymin <= y && y <= &ymax;
    let sx = slab(&xmin, &xmax, &x0, &x1);
    let sy = slab(&ymin, &ymax, &y0, &y1);
    let mut entry = Q::zero();
    let mut exit = Q::one();
    for s in [&sx, &sy] {
        if let Some(n) = &s.near {
            if n > &entry {
                entry = n.clone();
            }
        }
        if let Some(f) = &s.far {
            if f < &exit {
                exit = f.clone();
            }
        }
    }
    let parallel_miss = sx.empty || sy.empty;
    let class = if parallel_miss || entry > exit {
        Class::Outside
    } else if entry == exit {
        Class::Touches
    } else {
        match (entry.is_zero(), exit.is_one()) {
            (true, true) => Class::Inside,
            (false, true) => Class::Enters,
            (true, false) => Class::Exits,
            (false, false) => Class::Crosses,
        }
    };
    Exact {
        valid,
        p0_in: inside(&x0, &y0),
        p1_in: inside(&x1, &y1),
        entry,
        exit,
        parallel_miss,
        class,
    }
}

/// The spacing of `F` at the magnitude of `x`: `2^(e − p + 1)` for `2^e ≤ |x| < 2^(e+1)`, and
/// the subnormal spacing below the normal range.
pub fn ulp<F: Real>(x: &Q) -> Q {
    let (digits, min_exp) = if core::mem::size_of::<F>() == 4 {
        (24i32, -126i32)
    } else {
        (53, -1022)
    };
    let a = x.abs();
    let tiny = pow2(min_exp - digits + 1);
    if a < pow2(min_exp) {
        return tiny;
    }
    let approx = num_traits::ToPrimitive::to_f64(&a).unwrap_or(f64::MAX);
    let mut e = if approx.is_finite() && approx > 0.0 {
        approx.log2().floor() as i32
    } else {
        1024
    };
    while pow2(e) > a {
        e -= 1;
    }
    while pow2(e + 1) <= a {
        e += 1;
    }
    pow2(e - digits + 1)
}

pub fn pow2(e: i32) -> Q {
    let two = BigInt::from(2);
    if e >= 0 {
        Q::from_integer(two.pow(e as u32))
    } else {
        Q::new(BigInt::one(), two.pow((-e) as u32))
    }
}

/// `|got − want|` in units of `ulp(want)`, as a float for messages.
pub fn ulps<F: Real>(got: F, want: &Q) -> f64 {
    let diff = (q(got) - want).abs() / ulp::<F>(want);
    num_traits::ToPrimitive::to_f64(&diff).unwrap_or(f64::INFINITY)
}
