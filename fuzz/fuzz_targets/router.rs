//! The `router` fuzz target: see [`mcp_wire_fuzz::targets::router`].
#![no_main]

mcp_wire_fuzz::fuzz_main!(router);
