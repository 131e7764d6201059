//! `include/slabclip.h` is what cbindgen writes from the sources today: regenerated in memory
//! and compared with the checked-in file.

use std::path::Path;

#[test]
fn header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let path = dir.join("include/slabclip.h");
    if std::env::var_os("SLABCLIP_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("write include/slabclip.h");
    }
    let current = std::fs::read(&path).unwrap_or_default();
    assert!(
        current == fresh,
        "capi/include/slabclip.h differs from what cbindgen generates from capi/src: regenerate \
         it with `SLABCLIP_BLESS=1 cargo test --manifest-path capi/Cargo.toml --test header` \
         and commit it"
    );
}
