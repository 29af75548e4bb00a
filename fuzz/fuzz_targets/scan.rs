//! The `scan` fuzz target: see [`mcp_wire_fuzz::targets::scan`].
#![no_main]

mcp_wire_fuzz::fuzz_main!(scan);
