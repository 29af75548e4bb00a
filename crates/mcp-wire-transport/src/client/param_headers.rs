//! `Mcp-Param-*` headers (2026-07-28, SEP-2243): a tool's input property annotated with
//! `x-mcp-header: NAME` is mirrored, on each `tools/call` of that tool over the stateless wire,
//! into the header `Mcp-Param-NAME`. A tool whose annotations break the rules (an empty name,
//! a name that is not an HTTP token, two names equal ignoring case, a property that is not a
//! string, integer or boolean) is invalid: a client excludes it ([`tool_param_headers`]
//! says why), and the transport mirrors nothing for it.

use mcp_wire::jsonrpc::codes;
use serde_json::Value;

use crate::TransportError;

/// One mirrored property: the argument's name and the header suffix it goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// The property of `arguments`.
    pub property: String,
    /// `NAME` of `Mcp-Param-NAME`, as the annotation spells it.
    pub header: String,
}

/// The property types a header can carry.
/// (`number` is not one: a float has no single text form both sides agree on.)
const PRIMITIVE_TYPES: &[&str] = &["string", "integer", "boolean"];

/// The `x-mcp-header` annotations of `tool` (a `tools/list` entry), in property order; an
/// error naming the rule and the property when one is invalid.
pub fn tool_param_headers(tool: &Value) -> Result<Vec<ParamHeader>, TransportError> {
    let name = tool["name"].as_str().unwrap_or_default();
    let invalid = |property: &str, what: String| {
        TransportError::protocol(
            codes::INVALID_PARAMS,
            format!("tool {name:?}: property {property:?}: {what}"),
        )
    };
    let mut out: Vec<ParamHeader> = Vec::new();
    let Some(properties) = tool["inputSchema"]["properties"].as_object() else {
        return Ok(out);
    };
    for (property, schema) in properties {
        let Some(annotation) = schema.get("x-mcp-header") else {
            continue;
        };
        let header = annotation
            .as_str()
            .ok_or_else(|| invalid(property, "x-mcp-header must be a string".into()))?;
        if header.is_empty() {
            return Err(invalid(property, "x-mcp-header is empty".into()));
        }
        if !header.bytes().all(is_token_byte) {
            return Err(invalid(
                property,
                format!("x-mcp-header {header:?} is not an HTTP header name"),
            ));
        }
        let primitive = schema["type"]
            .as_str()
            .is_some_and(|t| PRIMITIVE_TYPES.contains(&t));
        if !primitive {
            return Err(invalid(
                property,
                format!(
                    "x-mcp-header needs a string, integer or boolean, found type {}",
                    schema["type"]
                ),
            ));
        }
        if out.iter().any(|p| p.header.eq_ignore_ascii_case(header)) {
            return Err(invalid(
                property,
                format!("x-mcp-header {header:?} is used twice (names ignore case)"),
            ));
        }
        out.push(ParamHeader {
            property: property.clone(),
            header: header.to_owned(),
        });
    }
    Ok(out)
}

/// RFC 9110 `tchar`.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The text a header carries for argument `value`: strings as they are, numbers and booleans
/// in their JSON spelling; `None` (no header) for null and for objects or arrays.
pub(crate) fn param_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(properties: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn valid_annotations_are_listed_in_order() {
        let headers = tool_param_headers(&tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "plain": {"type": "string"},
            "n": {"type": "integer", "x-mcp-header": "Priority"},
        })))
        .unwrap();
        let names: Vec<_> = headers.iter().map(|h| h.header.as_str()).collect();
        assert_eq!(names, ["Region", "Priority"]);
        assert_eq!(headers[1].property, "n");
    }

    #[test]
    fn each_rule_refuses_its_tool() {
        for (schema, needle) in [
            (
                json!({"a": {"type": "string", "x-mcp-header": ""}}),
                "empty",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "A B"}}),
                "not an HTTP header name",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "A:B"}}),
                "not an HTTP header name",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "Rég"}}),
                "not an HTTP header name",
            ),
            (
                json!({"a": {"type": "object", "x-mcp-header": "A"}}),
                "found type",
            ),
            (
                json!({"a": {"type": "null", "x-mcp-header": "A"}}),
                "found type",
            ),
            (
                json!({"a": {"type": "number", "x-mcp-header": "A"}}),
                "found type",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "A"},
                       "b": {"type": "string", "x-mcp-header": "a"}}),
                "used twice",
            ),
        ] {
            let error = tool_param_headers(&tool(schema.clone())).unwrap_err();
            assert!(error.to_string().contains(needle), "{schema}: {error}");
            assert_eq!(error.jsonrpc_code(), Some(codes::INVALID_PARAMS));
        }
    }

    #[test]
    fn values_are_spelled_as_json_primitives() {
        assert_eq!(param_text(&json!(42)).as_deref(), Some("42"));
        assert_eq!(param_text(&json!(3.5)).as_deref(), Some("3.5"));
        assert_eq!(param_text(&json!(false)).as_deref(), Some("false"));
        assert_eq!(param_text(&json!("x y")).as_deref(), Some("x y"));
        assert_eq!(param_text(&Value::Null), None);
    }
}
