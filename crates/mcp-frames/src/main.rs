//! `mcp-frames`: translate, validate and explain real MCP traffic between protocol revisions.

fn main() {
    println!("mcp-frames: known revisions:");
    for v in mcp_types::ProtocolVersion::ALL {
        println!("  {v} ({:?})", v.era());
    }
}
