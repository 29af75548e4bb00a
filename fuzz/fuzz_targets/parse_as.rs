//! The `parse_as` fuzz target: see [`mcp_wire_fuzz::targets::parse_as`].
#![no_main]

mcp_wire_fuzz::fuzz_main!(parse_as);
