//! Writes `data/sample.npy`: 20,000 `float32` segments meant for the rect `0,0,1,1`, the default
//! dataset of the README and the command-line tests.
//!
//! Deterministic: a fixed seed through a hand-written splitmix64, so the file is the same bytes
//! on every machine. The mix, one category per segment drawn at random:
//!
//! | category | what |
//! | --- | --- |
//! | anywhere | both ends uniform in `[-0.5, 1.5]²`: every class |
//! | inside | both ends in `[0, 1]²` |
//! | outside | both ends beyond one side of the rect |
//! | crossing | from left of the rect to right of it, or from below to above |
//! | on an edge | one end exactly on an edge, the other anywhere |
//! | at a corner | one end exactly on a corner, or a diagonal through a corner that only grazes it |
//! | axis-parallel | horizontal or vertical, often exactly along an edge line |
//! | zero-length | `P0 == P1`, inside, on the boundary or outside |
//!
//! Run: `cargo run --example make_sample` (from the crate root).

use slabclip::io::write_columns;

const SEED: u64 = 0x51AB_C11B_5EED_0001;
const COUNT: usize = 20_000;
const OUTPUT: &str = "data/sample.npy";

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and good enough for test data.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` on a grid of 2⁻²⁴: exact in `f32`.
    fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// An index below `n`.
    fn below(&mut self, n: u64) -> usize {
        (self.next_u64() % n) as usize
    }

    /// A point on the boundary of the unit square: an edge coordinate is exactly 0 or 1.
    fn on_edge(&mut self) -> [f32; 2] {
        let t = self.unit();
        match self.below(4) {
            0 => [0.0, t],
            1 => [1.0, t],
            2 => [t, 0.0],
            _ => [t, 1.0],
        }
    }

    /// A point strictly outside the unit square, beyond side `side` (0 left, 1 right, 2 below, 3 above).
    fn beyond(&mut self, side: usize) -> [f32; 2] {
        let (near, far) = (self.range(-2.0, -0.001), self.range(1.001, 3.0));
        let any = self.range(-2.0, 3.0);
        match side {
            0 => [near, any],
            1 => [far, any],
            2 => [any, near],
            _ => [any, far],
        }
    }
}

const CORNERS: [[f32; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];

fn segment(rng: &mut SplitMix64) -> [f32; 4] {
    let (p, q) = match rng.below(8) {
        0 => (
            [rng.range(-0.5, 1.5), rng.range(-0.5, 1.5)],
            [rng.range(-0.5, 1.5), rng.range(-0.5, 1.5)],
        ),
        1 => ([rng.unit(), rng.unit()], [rng.unit(), rng.unit()]),
        2 => {
            let side = rng.below(4);
            (rng.beyond(side), rng.beyond(side))
        }
        3 => {
            let (a, b) = (rng.range(0.0, 1.0), rng.range(0.0, 1.0));
            let (lo, hi) = (rng.range(-2.0, -0.001), rng.range(1.001, 3.0));
            if rng.below(2) == 0 {
                ([lo, a], [hi, b])
            } else {
                ([a, lo], [b, hi])
            }
        }
        4 => (rng.on_edge(), [rng.range(-1.0, 2.0), rng.range(-1.0, 2.0)]),
        5 => {
            let c = CORNERS[rng.below(4)];
            if rng.below(2) == 0 {
                (c, [rng.range(-1.0, 2.0), rng.range(-1.0, 2.0)])
            } else {
                // A diagonal through the corner from outside to outside: it touches the rect
                // in that single point. Offsets are multiples of 1/16, exact in f32.
                let d = (1 + rng.below(16)) as f32 / 16.0;
                let (sx, sy) = (
                    if c[0] == 0.0 { -1.0 } else { 1.0 },
                    if c[1] == 0.0 { -1.0 } else { 1.0 },
                );
                (
                    [c[0] + sx * d, c[1] - sy * d],
                    [c[0] - sx * d, c[1] + sy * d],
                )
            }
        }
        6 => {
            // On the edge lines x = 0, x = 1, y = 0, y = 1 half the time, else anywhere.
            let level = if rng.below(2) == 0 {
                [0.0, 1.0][rng.below(2)]
            } else {
                rng.range(-0.5, 1.5)
            };
            let (a, b) = (rng.range(-1.0, 2.0), rng.range(-1.0, 2.0));
            if rng.below(2) == 0 {
                ([a, level], [b, level])
            } else {
                ([level, a], [level, b])
            }
        }
        _ => {
            let p = match rng.below(3) {
                0 => [rng.unit(), rng.unit()],
                1 => rng.on_edge(),
                _ => {
                    let side = rng.below(4);
                    rng.beyond(side)
                }
            };
            (p, p)
        }
    };
    if rng.below(2) == 0 {
        [p[0], p[1], q[0], q[1]]
    } else {
        [q[0], q[1], p[0], p[1]]
    }
}

fn main() -> Result<(), slabclip::Error> {
    let mut rng = SplitMix64(SEED);
    let rows: Vec<[f32; 4]> = (0..COUNT).map(|_| segment(&mut rng)).collect();
    let column = |k: usize| rows.iter().map(|r| r[k]).collect::<Vec<f32>>();
    let (x0, y0, x1, y1) = (column(0), column(1), column(2), column(3));
    write_columns(OUTPUT, &[&x0, &y0, &x1, &y1])?;
    println!("wrote {COUNT} float32 segments to {OUTPUT} (rect 0,0,1,1)");
    Ok(())
}
