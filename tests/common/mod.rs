//! Shared test support: the exact rational reference, the contract checker every algorithm goes
//! through, and generators aimed at the hard places.
#![allow(dead_code)]

pub mod cases;
pub mod cast_cases;
pub mod cast_reference;
pub mod reference;
pub mod runner;
