//! The fuzz targets of mcp-wire, as a library: each target module has `run(data)` (one input,
//! panicking on a breach of the contract it checks) and `seeds(sources)` (its seed inputs,
//! derived from the shared corpus and the 2026-07-28 examples at run time).
//!
//! The binaries in `fuzz_targets/` are one line each ([`fuzz_main!`]); `cargo xtask fuzz`
//! builds them with cargo-fuzz and runs them.

pub mod emission;
pub mod generate;
pub mod seeds;
pub mod targets;

pub use libfuzzer_sys;

use mcp_wire::{ProtocolVersion, VersionLike};

/// The libFuzzer entry point of target `$target` (a module of [`targets`]): writes the target's
/// seeds first when `cargo xtask fuzz` asks for them (see [`seeds::write_if_asked`]).
#[macro_export]
macro_rules! fuzz_main {
    ($target:ident) => {
        $crate::libfuzzer_sys::fuzz_target!(
            init: {
                $crate::seeds::write_if_asked($crate::targets::$target::seeds);
            },
            |data: &[u8]| {
                $crate::targets::$target::run(data);
            }
        );
    };
}

/// A known revision chosen by one input byte.
pub fn revision(byte: u8) -> ProtocolVersion {
    ProtocolVersion::ALL[usize::from(byte) % ProtocolVersion::ALL.len()]
}

/// The byte that [`revision`] maps to `v`.
pub fn revision_byte(v: ProtocolVersion) -> u8 {
    ProtocolVersion::ALL
        .iter()
        .position(|k| *k == v)
        .unwrap_or(0) as u8
}

/// A version as a peer may send it, chosen by one input byte: a known revision, or (one value in
/// six) a string that names none, which parses without mandates.
pub fn version_like(byte: u8) -> VersionLike {
    match usize::from(byte) % (ProtocolVersion::ALL.len() + 1) {
        i if i < ProtocolVersion::ALL.len() => VersionLike::Known(ProtocolVersion::ALL[i]),
        _ => VersionLike::Unknown("2099-01-01".to_owned()),
    }
}
