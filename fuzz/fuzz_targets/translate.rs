//! The `translate` fuzz target: see [`mcp_wire_fuzz::targets::translate`].
#![no_main]

mcp_wire_fuzz::fuzz_main!(translate);
