//! The MCP server-variants extension (SEP-2053): wire types and a transport-free router.
