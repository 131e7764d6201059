//! The exact rational reference lives in the library ([`slabclip::reference`]): one reference
//! for the tests and for `slabclip compare`.

pub use slabclip::reference::*;
