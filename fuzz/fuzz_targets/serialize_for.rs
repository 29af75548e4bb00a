//! The `serialize_for` fuzz target: see [`mcp_wire_fuzz::targets::serialize_for`].
#![no_main]

mcp_wire_fuzz::fuzz_main!(serialize_for);
