//! A fan of rays from one point (a lidar pose's beams) walks the tree together.
//!
//! ```text
//! each beam:  Search::begin (the walls outside the tree, the nearly parallel walls, margins)
//! the fan:    the beams still walking, sorted by the pseudo-angle of their direction
//! walk:       a stack of (node, the beams that may reach it, its distance from O), nearest
//!             child first; per child, once for the whole fan:
//!               its box widened by twice the one-ray walk's margin (and the roundings here)
//!               dist = its distance from O;  O within twice the backward extension: every beam
//!               else its cone of directions from O (the pseudo-angles of its corners) → the
//!               beams in it, by binary search, less those whose reach is short of dist
//! leaf:       each beam of its range whose reach is not short of dist: Search::offer_leaf
//! ```
//!
//! Why no hit is missed: the one-ray walk (`mod.rs`, "Why the tree misses no hit") needs a
//! leaf whenever the leaf's box, widened by `pad = pad_r·(r + ℓ) + pad_0`, meets the ray's
//! part `{O + τD : −ext ≤ τ ≤ reach}` with `ext ≤ ext_r·(3r + 2ℓ)` (real arithmetic, the
//! constants the walk uses, which carry a quarter to spare over the proof's). A point of that
//! part is within `ext·|D|` of `O` (`τ ≤ 0`) or lies in the direction of `D` from `O` at most
//! `reach·|D|` away (`τ ≥ 0`). So the fan offers the leaf to a beam when the box widened by
//! twice `pad` comes within twice the largest `ext·|D|` of `O`, or when the beam's direction
//! lies in the box's cone seen from `O` and the box is not farther than its reach. Every
//! quantity here is computed in `f64` from the exact coordinates, with margins (relative
//! `2⁻⁴⁰`, pseudo-angles `10⁻¹²`) thousands of times their roundings. Boxes contain their
//! children's, and each test passes for a box whenever it passes for a box inside it (in real
//! arithmetic), so a leaf that the one-ray walk needs has every ancestor passed. A leaf offered
//! to a beam that did not need it only adds candidates. Each beam keeps its own `Search`, so
//! its answer is the one-ray walk's, the brute force's bit for bit.

use super::bvh::{as_leaf, EMPTY, WIDTH};
use super::{Next, Search};
use crate::cast::{Ray, RayLanes, SegmentHit};
use crate::real::Real;

/// What one fan reuses from the last: its beams, their order, the walk's stack.
pub(super) struct FanScratch {
    /// The walking beams' pseudo-angles, ascending.
    psi: Vec<f64>,
    /// The search (its place in the searches) of each entry of `psi`.
    beam: Vec<u32>,
    /// The beam (its place in the pose's list) of each search.
    which: Vec<u32>,
    /// `|D|` of each beam, rounded up, in `psi`'s order.
    norm: Vec<f64>,
    /// How far from O each beam may still find a hit, in `psi`'s order.
    reach: Reach,
    /// `(node or leaf reference, first beam, end beam, distance)`: beams `a..b` of the sorted
    /// order, modulo their count (a range may wrap around through angle 0).
    stack: Vec<(u32, u32, u32, f64)>,
    /// Sorting keys.
    keys: Vec<(f64, u32)>,
}

impl FanScratch {
    pub(super) fn new() -> Self {
        FanScratch {
            psi: Vec::new(),
            beam: Vec::new(),
            which: Vec::new(),
            norm: Vec::new(),
            reach: Reach::default(),
            stack: Vec::new(),
            keys: Vec::new(),
        }
    }
}

/// The pseudo-angle of the direction `(x, y)` over the whole circle, in `[0, 4]`: `0` along
/// `+x`, `1` along `+y`, `2` along `−x`, `3` along `−y`, monotone in the angle (`4` only where
/// rounding meets the wrap-around). NaN for `(0, 0)`.
#[inline(always)]
fn pseudo_angle(x: f64, y: f64) -> f64 {
    let q = x / (x.abs() + y.abs());
    if y >= 0.0 {
        1.0 - q
    } else {
        3.0 + q
    }
}

/// The margin on pseudo-angles: each is computed within a few units of `2⁻⁵²`.
const PSI_MARGIN: f64 = 1e-12;
/// A relative margin on distances and pads computed in `f64`.
const REL: f64 = 1.0 / (1u64 << 40) as f64;

/// The fan's constants: the origin and the one-ray walk's margins, the same for every beam
/// but the backward extension's, which is taken at its largest.
struct Fan {
    o: (f64, f64),
    pad_r: f64,
    pad_0: f64,
    ell: f64,
    /// `ext_r·|D|` at its largest over the beams.
    ext_r: f64,
}

/// One child's test: its distance from `O` and the pseudo-angle interval of its cone, or
/// `None` for the whole circle.
struct Cone {
    dist: f64,
    psi: Option<(f64, f64)>,
}

impl Fan {
    /// The cone of box `[lx, hx] × [ly, hy]` widened as the module docs say.
    #[inline(always)]
    fn cone(&self, [lx, ly, hx, hy]: [f64; 4]) -> Cone {
        let (ox, oy) = self.o;
        let r = ((lx - ox).abs().max((hx - ox).abs()) + (ly - oy).abs().max((hy - oy).abs()))
            * (1.0 + REL);
        // Twice the walk's pad, and the roundings of the differences below.
        let pad =
            2.0 * (self.pad_r * (r + self.ell) + self.pad_0) + REL * (ox.abs() + oy.abs() + r);
        let (x0, x1) = (lx - pad - ox, hx + pad - ox);
        let (y0, y1) = (ly - pad - oy, hy + pad - oy);
        let gx = x0.max(-x1).max(0.0);
        let gy = y0.max(-y1).max(0.0);
        let dist = (gx * gx + gy * gy).sqrt() * (1.0 - REL);
        let back = 2.0 * self.ext_r * (3.0 * r + 2.0 * self.ell) * (1.0 + REL);
        // Every beam where either is NaN too.
        if dist.partial_cmp(&back) != Some(core::cmp::Ordering::Greater) {
            return Cone {
                dist: 0.0,
                psi: None,
            };
        }
        let p = [
            pseudo_angle(x0, y0),
            pseudo_angle(x1, y0),
            pseudo_angle(x0, y1),
            pseudo_angle(x1, y1),
        ];
        let span = |p: &[f64; 4]| {
            let lo = p.iter().fold(f64::INFINITY, |a, &b| a.min(b));
            let hi = p.iter().fold(-f64::INFINITY, |a, &b| a.max(b));
            (lo, hi)
        };
        // The cone is narrower than a half turn (O is outside the box): 2 in pseudo-angle.
        // Through angle 0 its corners' pseudo-angles sit near 0 and near 4.
        let (mut lo, mut hi) = span(&p);
        if hi - lo > 2.0 {
            (lo, hi) = span(&p.map(|a| if a < 2.0 { a + 4.0 } else { a }));
        }
        if (hi - lo).partial_cmp(&(2.0 - 1e-9)) != Some(core::cmp::Ordering::Less) {
            return Cone { dist, psi: None };
        }
        Cone {
            dist,
            psi: Some((lo - PSI_MARGIN, hi + PSI_MARGIN)),
        }
    }
}

/// The closest hit of each of `dirs` (beams from `o`), through `hit(beam, answer)`; the same
/// answers as [`Scene::closest`](super::Scene) on each beam alone.
#[inline(always)]
pub(super) fn cast<'s, F: Real>(
    scene: &'s super::Scene<F>,
    (ox, oy): (F, F),
    dirs: &[(F, F)],
    t_max: F,
    s: &mut FanScratch,
    searches: &mut Vec<Search<'s, F>>,
    mut hit: impl FnMut(usize, SegmentHit<F>),
) {
    searches.clear();
    s.which.clear();
    s.keys.clear();
    for (k, &(dx, dy)) in dirs.iter().enumerate() {
        let lanes = RayLanes::from(Ray::new(ox, oy, dx, dy));
        if !lanes.valid() {
            hit(k, SegmentHit::MISS);
            continue;
        }
        searches.push(Search::new(scene, lanes, t_max, false));
        let search = searches.last_mut().expect("just pushed");
        if search.begin() == Next::Done {
            hit(k, search.hit());
            searches.pop();
            continue;
        }
        s.keys
            .push((pseudo_angle(dx.to_f64(), dy.to_f64()), s.which.len() as u32));
        s.which.push(k as u32);
    }
    if searches.is_empty() {
        return;
    }
    // Beams in the order of their angles. A scan's angles usually come in order, and turned
    // by the heading they are in order from one place on: then no sort.
    let keys = &mut s.keys;
    let descents = keys.windows(2).filter(|w| w[0].0 > w[1].0).count();
    let first_last = keys[keys.len() - 1].0 <= keys[0].0;
    if descents == 1 && first_last {
        let at = keys.windows(2).position(|w| w[0].0 > w[1].0).expect("one") + 1;
        keys.rotate_left(at);
    } else if descents > 0 {
        keys.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    }
    s.psi.clear();
    s.beam.clear();
    s.norm.clear();
    s.reach.clear();
    // The walk's margins are the same for every beam (`Search::begin`) but `ext_r`.
    let first = &searches[0].slab;
    let mut fan = Fan {
        o: (ox.to_f64(), oy.to_f64()),
        pad_r: first.pad_r.to_f64(),
        pad_0: first.pad_0.to_f64(),
        ell: first.ell.to_f64(),
        ext_r: 0.0,
    };
    for &(p, i) in &s.keys {
        let search = &searches[i as usize];
        let (x, y) = (search.ray.dx.to_f64(), search.ray.dy.to_f64());
        let norm = (x * x + y * y).sqrt() * (1.0 + REL);
        s.psi.push(p);
        s.beam.push(i);
        s.norm.push(norm);
        s.reach
            .push(search.slab.reach().to_f64() * norm * (1.0 + REL));
        fan.ext_r = fan.ext_r.max(search.slab.ext_r.to_f64() * norm);
    }
    walk(scene, &fan, s, searches);
    for (search, &k) in searches.iter().zip(&s.which) {
        hit(k as usize, search.hit());
    }
}

/// The beams (of the sorted order, `a..b` modulo their count) whose pseudo-angle lies in
/// `[lo, hi]`, an interval shorter than 2 within `[−1, 5]`.
fn beams_in(psi: &[f64], (mut lo, mut hi): (f64, f64)) -> (u32, u32) {
    if lo < 0.0 {
        (lo, hi) = (lo + 4.0, hi + 4.0);
    } else if lo >= 4.0 {
        (lo, hi) = (lo - 4.0, hi - 4.0);
    }
    let a = psi.partition_point(|&p| p < lo);
    let b = if hi < 4.0 {
        psi.partition_point(|&p| p <= hi)
    } else {
        psi.len() + psi.partition_point(|&p| p <= hi - 4.0)
    };
    (a as u32, b.max(a) as u32)
}

/// How far from O each beam (in the sorted order) may still find a hit: its [`Slab::reach`]
/// times `|D|`, rounded up; and the largest of each block of [`BLOCK`] beams, so that the
/// beams that reach a box are found without looking at the others.
///
/// [`Slab::reach`]: super::Slab
#[derive(Default)]
struct Reach {
    d: Vec<f64>,
    block: Vec<f64>,
}

/// Beams a block of [`Reach`].
const BLOCK: usize = 32;

impl Reach {
    fn clear(&mut self) {
        self.d.clear();
        self.block.clear();
    }

    fn push(&mut self, d: f64) {
        if self.d.len().is_multiple_of(BLOCK) {
            self.block.push(d);
        }
        let b = self.block.last_mut().expect("pushed");
        *b = b.max(d);
        self.d.push(d);
    }

    /// Beam `i`'s reach is now `d` (no longer than it was).
    #[inline(always)]
    fn set(&mut self, i: usize, d: f64) {
        let (old, b) = (self.d[i], i / BLOCK);
        if d < old {
            self.d[i] = d;
            // The block's largest changes only when this beam held it.
            if old >= self.block[b] {
                let end = ((b + 1) * BLOCK).min(self.d.len());
                self.block[b] =
                    self.d[b * BLOCK..end]
                        .iter()
                        .fold(-f64::INFINITY, |a, &x| if x > a { x } else { a });
            }
        }
    }

    /// The first beam of `a..b` (`b ≤` the count) that reaches `dist`.
    fn first(&self, a: usize, b: usize, dist: f64) -> Option<usize> {
        let mut q = a;
        while q < b {
            let end = ((q / BLOCK + 1) * BLOCK).min(b);
            if self.block[q / BLOCK] >= dist {
                if let Some(i) = (q..end).find(|&i| self.d[i] >= dist) {
                    return Some(i);
                }
            }
            q = end;
        }
        None
    }

    /// The last beam of `a..b` (`b ≤` the count) that reaches `dist`.
    fn last(&self, a: usize, b: usize, dist: f64) -> Option<usize> {
        let mut q = b;
        while q > a {
            let start = ((q - 1) / BLOCK * BLOCK).max(a);
            if self.block[(q - 1) / BLOCK] >= dist {
                if let Some(i) = (start..q).rev().find(|&i| self.d[i] >= dist) {
                    return Some(i);
                }
            }
            q = start;
        }
        None
    }

    /// The beams of `a..b` modulo the count (`b ≤ 2·count`) that reach `dist`, narrowed to the
    /// first and last of them (`None` when there is none).
    fn trim(&self, a: usize, b: usize, dist: f64) -> Option<(usize, usize)> {
        let n = self.d.len();
        let first = if b <= n {
            self.first(a, b, dist)
        } else {
            (self.first(a, n, dist)).or_else(|| self.first(0, b - n, dist).map(|i| i + n))
        }?;
        let last = if b <= n {
            self.last(a, b, dist)
        } else {
            (self.last(0, b - n, dist).map(|i| i + n)).or_else(|| self.last(a, n, dist))
        }?;
        Some((first, last + 1))
    }
}

/// The fan's walk down the tree (module docs), offering leaves to the beams' searches.
#[inline(always)]
fn walk<F: Real>(
    scene: &super::Scene<F>,
    fan: &Fan,
    s: &mut FanScratch,
    searches: &mut [Search<'_, F>],
) {
    let bvh = &scene.bvh;
    if bvh.root == EMPTY {
        return;
    }
    let n = s.psi.len();
    let FanScratch {
        psi,
        beam,
        norm,
        reach,
        stack,
        ..
    } = s;
    stack.clear();
    stack.push((bvh.root, 0, n as u32, 0.0));
    while let Some((id, a, b, dist)) = stack.pop() {
        let Some((a, b)) = reach.trim(a as usize, b as usize, dist) else {
            continue;
        };
        if let Some(k) = as_leaf(id) {
            for q in a..b {
                let i = if q >= n { q - n } else { q };
                if reach.d[i] >= dist {
                    let search = &mut searches[beam[i] as usize];
                    search.offer_leaf(k.start, k.len());
                    reach.set(i, search.slab.reach().to_f64() * norm[i] * (1.0 + REL));
                }
            }
            continue;
        }
        let node = &bvh.nodes[id as usize];
        let mut kids = [(0u32, 0u32, 0u32, 0f64); WIDTH];
        let mut m = 0;
        for c in 0..WIDTH {
            if node.child[c] == EMPTY {
                continue;
            }
            let cone = fan.cone([
                node.lo_x[c].to_f64(),
                node.lo_y[c].to_f64(),
                node.hi_x[c].to_f64(),
                node.hi_y[c].to_f64(),
            ]);
            // A child's beams are among its parent's (its widened box is inside the parent's).
            let (ca, cb) = match cone.psi {
                None => (a as u32, b as u32),
                Some(interval) => beams_in(psi, interval),
            };
            if ca < cb {
                kids[m] = (node.child[c], ca, cb, cone.dist);
                m += 1;
            }
        }
        // Farthest pushed first: the nearest is walked first.
        kids[..m].sort_unstable_by(|x, y| y.3.total_cmp(&x.3));
        stack.extend_from_slice(&kids[..m]);
    }
}
