//! Sets `cfg(any_revision)` when at least one revision feature (`vYYYY_MM_DD`) is on, so the
//! support code of the generated modules is built exactly when one of them is, without a list of
//! the revisions in the code.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(any_revision)");
    let any_revision = std::env::vars().any(|(key, _)| {
        key.strip_prefix("CARGO_FEATURE_V").is_some_and(|rest| {
            rest.len() == 10 && rest.bytes().all(|b| b.is_ascii_digit() || b == b'_')
        })
    });
    if any_revision {
        println!("cargo::rustc-cfg=any_revision");
    }
}
