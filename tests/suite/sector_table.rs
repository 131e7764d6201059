//! The sector lookup table checked by brute force: every segment between points of a 1/4 grid
//! around the unit square, clipped in exact arithmetic, must enter only through edges the table
//! lists for its pair of sectors and leave only through listed edges; every listed edge must be
//! used by some segment; and "reject" pairs must never meet the rect while others sometimes do.

use crate::common;

use common::reference::{slab, Q};
use slabclip::kernels::SECTOR_TABLE;
use std::collections::HashSet;

const LEFT: u8 = 1;
const RIGHT: u8 = 2;
const BOTTOM: u8 = 4;
const TOP: u8 = 8;
const REJECT: u8 = 0x80;

/// The sector of an exact point around `[0, 1]²`, computed here independently of the crate.
fn sector(x: &Q, y: &Q) -> usize {
    let (zero, one) = (Q::from_integer(0.into()), Q::from_integer(1.into()));
    let col = if x < &zero {
        0
    } else if x > &one {
        2
    } else {
        1
    };
    let row = if y < &zero {
        0
    } else if y > &one {
        2
    } else {
        1
    };
    3 * row + col
}

#[test]
fn table_matches_brute_force() {
    let grid: Vec<Q> = (-4..=8).map(|k| Q::new(k.into(), 4.into())).collect();
    let points: Vec<(Q, Q)> = grid
        .iter()
        .flat_map(|x| grid.iter().map(move |y| (x.clone(), y.clone())))
        .collect();
    let (zero, one) = (Q::from_integer(0.into()), Q::from_integer(1.into()));
    let mut seen_entry = [0u8; 81];
    let mut seen_exit = [0u8; 81];
    let mut seen_hit = [false; 81];
    for (x0, y0) in &points {
        for (x1, y1) in &points {
            let key = sector(x0, y0) * 9 + sector(x1, y1);
            let sx = slab(&zero, &one, x0, x1);
            let sy = slab(&zero, &one, y0, y1);
            if sx.empty || sy.empty {
                continue;
            }
            // Boundary parameters with the edge each belongs to.
            let planes = |s: &common::reference::Slab, lo: u8, hi: u8, rising: bool| {
                let (near_edge, far_edge) = if rising { (lo, hi) } else { (hi, lo) };
                [(s.near.clone(), near_edge), (s.far.clone(), far_edge)]
            };
            let [nx, fx] = planes(&sx, LEFT, RIGHT, x0 < x1);
            let [ny, fy] = planes(&sy, BOTTOM, TOP, y0 < y1);
            let entry = [&nx, &ny]
                .iter()
                .filter_map(|(t, _)| t.clone())
                .chain([zero.clone()])
                .max()
                .unwrap();
            let exit = [&fx, &fy]
                .iter()
                .filter_map(|(t, _)| t.clone())
                .chain([one.clone()])
                .min()
                .unwrap();
            if entry > exit {
                continue;
            }
            seen_hit[key] = true;
            for (t, edge) in [&nx, &ny] {
                if entry > zero && t.as_ref() == Some(&entry) {
                    seen_entry[key] |= edge;
                }
            }
            for (t, edge) in [&fx, &fy] {
                if exit < one && t.as_ref() == Some(&exit) {
                    seen_exit[key] |= edge;
                }
            }
        }
    }
    let mut distinct = HashSet::new();
    for key in 0..81 {
        let [enter, leave] = SECTOR_TABLE[key];
        let (s0, s1) = (key / 9, key % 9);
        distinct.insert([enter, leave]);
        if enter & REJECT != 0 {
            assert!(
                !seen_hit[key],
                "sectors {s0}→{s1} are listed as a reject but a segment hits"
            );
            continue;
        }
        assert!(
            seen_hit[key],
            "sectors {s0}→{s1}: no segment hits, yet not a reject"
        );
        assert_eq!(
            seen_entry[key] & !enter,
            0,
            "sectors {s0}→{s1}: enters through an unlisted edge"
        );
        assert_eq!(
            seen_exit[key] & !leave,
            0,
            "sectors {s0}→{s1}: leaves through an unlisted edge"
        );
        assert_eq!(
            seen_entry[key], enter,
            "sectors {s0}→{s1}: a listed entry edge is never used"
        );
        assert_eq!(
            seen_exit[key], leave,
            "sectors {s0}→{s1}: a listed exit edge is never used"
        );
    }
    assert!(distinct.len() > 10, "the table is not trivially uniform");
}
