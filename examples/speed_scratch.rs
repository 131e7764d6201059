// Scratch timing harness (not committed).
use slabclip::workload::Dist;
use slabclip::{Algorithm, ClipOutput, Lane, Real, SegmentsRef};
use std::time::Instant;

fn naive<F: Real>(r: &slabclip::Rect<F>, s: &SegmentsRef<'_, F>, te: &mut [F], tx: &mut [F]) {
    let (x0, y0, x1, y1) = s.columns();
    let w = F::LANES;
    let n = x0.len() / w * w;
    let (xmin, ymin, xmax, ymax) = (F::Simd::splat(r.xmin()), F::Simd::splat(r.ymin()), F::Simd::splat(r.xmax()), F::Simd::splat(r.ymax()));
    let one = F::Simd::splat(F::ONE); let zero = F::Simd::splat(F::ZERO); let nan = F::Simd::splat(F::NAN);
    for i in (0..n).step_by(w) {
        let (a, b, c, d) = (F::load(&x0[i..]), F::load(&y0[i..]), F::load(&x1[i..]), F::load(&y1[i..]));
        let rx = one / (c - a); let ry = one / (d - b);
        let (t0, t1) = ((xmin - a) * rx, (xmax - a) * rx);
        let (t2, t3) = ((ymin - b) * ry, (ymax - b) * ry);
        let near = t0.min_any(t1).max_any(t2.min_any(t3)).max_any(zero);
        let far = t0.max_any(t1).min_any(t2.max_any(t3)).min_any(one);
        let hit = near.le(far);
        F::Simd::select(hit, near, nan).write(&mut te[i..]);
        F::Simd::select(hit, far, nan).write(&mut tx[i..]);
    }
}

fn main() {
    let n: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(65536);
    let reps: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(31);
    let dist = std::env::args().nth(3).map(|s| Dist::from_name(&s).unwrap()).unwrap_or(Dist::Mixed);
    let w = dist.generate::<f32>(n, 7);
    let rect = w.rect;
    let segs = w.segments.as_ref();
    let (mut te, mut tx) = (vec![0f32; n], vec![0f32; n]);
    let mut class = vec![0u8; n];
    let passes = (1 << 20) / n.max(1) + 1;
    let time = |f: &mut dyn FnMut()| {
        let mut v = Vec::new();
        for _ in 0..reps {
            let t = Instant::now();
            for _ in 0..passes { f(); }
            v.push(t.elapsed().as_secs_f64() / passes as f64);
        }
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        n as f64 / v[0] / 1e6
    };
    let nv = time(&mut || naive(&rect, &segs, &mut te, &mut tx));
    let ss = time(&mut || { let mut o = ClipOutput { t_entry: Some(&mut te), t_exit: Some(&mut tx), ..Default::default() }; Algorithm::SimdSlab.clip(&rect, &segs, &mut o).unwrap(); });
    let sc = time(&mut || { let mut o = ClipOutput { class: Some(&mut class), ..Default::default() }; Algorithm::SimdSlab.clip(&rect, &segs, &mut o).unwrap(); });
    println!("n={n} naive {nv:.0} Mseg/s  simd-slab t {ss:.0} ({:.0}%)  class {sc:.0}", 100.0 * ss / nv);
}
