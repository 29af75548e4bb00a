//! The server-variants extension through the version boundary: the server's advertisement in an
//! `InitializeResult` and the client's payload in `initialize` survive `serialize_for` at every
//! handshake revision (the only era the extension exists in), and what is written is valid
//! against the revision's pinned schema and reads back as the same payload.

mod common;

use common::{Body, schema_violations};
use mcp_wire::ProtocolVersion;
use mcp_wire::model::{
    ClientRequest, Implementation, InitializeResult, ServerCapabilities, ServerResult,
    ToolsCapability,
};
use mcp_wire::wire::{EmitOptions, MethodResult, parse_as, serialize_for, serialize_for_report};
use mcp_wire_variants::wire::{EXTENSION_ID, read_client_extension, read_server_extension};
use mcp_wire_variants::{
    InitializeInput, ServerVariant, VariantCatalog, VariantRouter, VariantStatus,
};
use serde_json::{Value, json};

fn handshake_revisions() -> impl Iterator<Item = ProtocolVersion> {
    ProtocolVersion::ALL
        .into_iter()
        .filter(|v| *v <= ProtocolVersion::LATEST_HANDSHAKE)
}

fn client_capabilities() -> Value {
    json!({
        "roots": {"listChanged": true},
        "extensions": {EXTENSION_ID: {"variantHints": {"hints": {"contextSize": "verbose"}}}}
    })
}

#[test]
fn the_advertisement_survives_serialize_for_at_every_handshake_revision() {
    let catalog = VariantCatalog::builder()
        .variant(ServerVariant::new("compact", "Small."), 0, ())
        .variant(
            ServerVariant::new("preview", "New.").with_status(VariantStatus::Experimental),
            1,
            (),
        )
        .cursor_key(b"variants-boundary-test")
        .build()
        .expect("a catalog");
    let router = VariantRouter::new(catalog);
    let client = client_capabilities();
    for v in handshake_revisions() {
        let negotiated = router
            .initialize(InitializeInput::new(v, Some(&client)))
            .expect("negotiated");
        let ad = negotiated
            .advertisement
            .expect("a client with the payload is advertised to");
        let mut capabilities =
            ServerCapabilities::new().with_tools(ToolsCapability::new().with_list_changed(false));
        ad.apply_to_capabilities(&mut capabilities);
        let result = InitializeResult::new(v.as_str(), capabilities, Implementation::new("s", "1"));
        let out = serialize_for(&result, v).expect("emitted");
        let caps = &out["capabilities"];
        assert!(
            caps["extensions"][EXTENSION_ID].is_object(),
            "{v}: the advertisement was dropped: {out}"
        );
        let read = read_server_extension(caps)
            .expect("the payload is there")
            .expect("it parses");
        assert_eq!(read, ad.payload, "{v}");
        // Every output agrees, the report says the member is passed (the revision does not
        // declare it), and the pinned schema accepts the result.
        let (reported, report) = serialize_for_report(&result, v).unwrap();
        assert_eq!(reported, out, "{v}");
        assert_eq!(
            report.passed_pointers(),
            ["/capabilities/extensions"],
            "{v}"
        );
        let body = Body::Result(MethodResult::Server(ServerResult::Initialize(
            result.clone(),
        )));
        assert_eq!(
            schema_violations(&body, &out, v),
            Vec::<String>::new(),
            "{v}"
        );
        // A strict emission, for closed-world peers, leaves it out (and says so).
        let strict = serialize_for(&result, (v, EmitOptions::new().strict(true))).unwrap();
        assert!(strict["capabilities"].get("extensions").is_none(), "{v}");
    }
}

#[test]
fn the_client_payload_survives_serialize_for_at_every_handshake_revision() {
    for v in handshake_revisions() {
        let frame = json!({
            "method": "initialize",
            "params": {
                "protocolVersion": v.as_str(),
                "capabilities": client_capabilities(),
                "clientInfo": {"name": "c", "version": "1"}
            }
        });
        let request: ClientRequest = parse_as(&frame, v).expect("an initialize request");
        let out = serialize_for(&request, v).expect("emitted");
        let caps = &out["params"]["capabilities"];
        assert_eq!(
            caps["extensions"],
            client_capabilities()["extensions"],
            "{v}: {out}"
        );
        let (sent, _) = read_client_extension(caps).expect("the payload is there");
        let (original, _) =
            read_client_extension(&client_capabilities()).expect("the payload is there");
        assert_eq!(sent, original, "{v}");
        let body = Body::ClientRequest(request.clone());
        assert_eq!(
            schema_violations(&body, &out, v),
            Vec::<String>::new(),
            "{v}"
        );
    }
}
