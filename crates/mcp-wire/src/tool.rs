//! Typed tools (feature `schemars`): a tool's `inputSchema` and `outputSchema` from Rust types
//! ([`schemars`] 1, JSON Schema 2020-12) and its arguments read as a Rust type; with feature
//! `output-check`, structured output from a `Serialize` type checked against the output schema
//! (`OutputCheck`).
//!
//! Every revision that has tools requires a tool schema whose root is `"type": "object"`, so a
//! type whose schema is anything else (an enum, an `Option`, a scalar, `serde_json::Value`) is a
//! [`ToolSchemaError`] of kind [`ToolSchemaErrorKind::NotAnObject`] when the tool is built, never
//! a frame the peer rejects later.
//!
//! ```
//! use mcp_wire::model::{CallToolRequestParams, CallToolResult, Tool};
//! use mcp_wire::tool::{ToolSchemaErrorKind, object_schema};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct AddArgs { a: i64, b: i64 }
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! let tool = Tool::typed::<AddArgs>("add")?.with_output_type::<Sum>()?;
//! assert_eq!(tool.input_schema["type"], "object");
//!
//! // A call's arguments as the Rust type (a bad one is a -32602 with its pointer).
//! let params: CallToolRequestParams =
//!     serde_json::from_value(serde_json::json!({"name": "add", "arguments": {"a": 2, "b": 3}}))?;
//! let args: AddArgs = params.arguments_as()?;
//!
//! // Structured output of the type the outputSchema was derived from.
//! let result = CallToolResult::structured(serde_json::to_value(Sum { sum: args.a + args.b })?);
//! assert_eq!(result.structured_content, Some(serde_json::json!({"sum": 5})));
//!
//! // A type whose schema is not an object cannot be a tool's schema.
//! let e = object_schema::<Option<i64>>().unwrap_err();
//! assert_eq!(e.kind, ToolSchemaErrorKind::NotAnObject);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Both features are off by default: proxies, validators and the CLI never build schemas, and
//! `schemars` (with its derive) would be compile cost for all of them. Server authors opt in
//! with `features = ["schemars"]`; [`schemars`] is re-exported so the derive's version matches.
//! `output-check` adds the `jsonschema` validator, a large dependency (regex engines included):
//! a result built from the type whose schema the tool declares fits that schema unless the
//! type's `Serialize` and `JsonSchema` disagree, which is what the check is for.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
#[cfg(feature = "output-check")]
use serde::Serialize;
use serde_json::{Map, Value};

use crate::jsonrpc::{ErrorData, codes};
#[cfg(feature = "output-check")]
use crate::model::CallToolResult;
use crate::model::Tool;
use crate::path::JsonPath;

/// Why a typed tool could not be built, or its output not accepted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
#[error("{message} (at {path})")]
pub struct ToolSchemaError {
    /// What went wrong.
    pub kind: ToolSchemaErrorKind,
    /// Where: in the schema for [`ToolSchemaErrorKind::NotAnObject`], in the output value for
    /// [`ToolSchemaErrorKind::DoesNotMatch`].
    pub path: JsonPath,
    /// What was expected and what was found, in words.
    pub message: String,
}

/// The kinds of [`ToolSchemaError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolSchemaErrorKind {
    /// The type's schema does not have the root `"type": "object"` every revision requires.
    NotAnObject,
    /// The tool has no `outputSchema`, or one that is not a valid JSON Schema.
    NoUsableSchema,
    /// The output value did not serialize to JSON.
    Serialization,
    /// The output value does not satisfy the tool's `outputSchema`.
    DoesNotMatch,
}

impl ToolSchemaError {
    fn new(kind: ToolSchemaErrorKind, path: JsonPath, message: impl Into<String>) -> Self {
        ToolSchemaError {
            kind,
            path,
            message: message.into(),
        }
    }

    /// The JSON-RPC code: always `-32603`. A schema or an output that does not fit is the
    /// server's own failure, never the caller's.
    pub fn code(&self) -> i64 {
        codes::INTERNAL_ERROR
    }
}

/// The error a peer is answered with: `-32603`, the message, and `data.pointer`.
impl From<&ToolSchemaError> for ErrorData {
    fn from(e: &ToolSchemaError) -> Self {
        ErrorData::new(e.code(), e.message.clone())
            .with_data(serde_json::json!({ "pointer": e.path.pointer() }))
    }
}

impl From<ToolSchemaError> for ErrorData {
    fn from(e: ToolSchemaError) -> Self {
        ErrorData::from(&e)
    }
}

/// The JSON Schema (2020-12) of `T` as a tool schema object, checked to have the root
/// `"type": "object"` every revision requires. The root carries no `title` naming the Rust type
/// (a title set with `#[schemars(title = …)]` stays).
pub fn object_schema<T: JsonSchema>() -> Result<Map<String, Value>, ToolSchemaError> {
    let schema = SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let found = match &schema {
        Value::Object(map) => match map.get("type") {
            Some(Value::String(t)) if t == "object" => None,
            Some(t) => Some(format!("\"type\": {t}")),
            None => Some(
                ["anyOf", "oneOf", "allOf", "enum", "const", "$ref"]
                    .iter()
                    .find(|k| map.contains_key(**k))
                    .map_or_else(|| "no \"type\"".to_owned(), |k| format!("\"{k}\"")),
            ),
        },
        other => Some(format!("the schema {other}")),
    };
    match (schema, found) {
        (Value::Object(mut map), None) => {
            // schemars titles a root schema with the Rust type's name (`"title": "AddArgs"`),
            // which says nothing to a peer and leaks the server's code; a title the type sets
            // itself (`#[schemars(title = …)]`) differs from the name and stays.
            if map.get("title").and_then(Value::as_str) == Some(T::schema_name().as_ref()) {
                map.remove("title");
            }
            Ok(map)
        }
        (_, Some(found)) => Err(ToolSchemaError::new(
            ToolSchemaErrorKind::NotAnObject,
            JsonPath::root().key("type"),
            format!(
                "a tool schema must have the root \"type\": \"object\"; the schema of {} has {found}",
                T::schema_name()
            ),
        )),
        (_, None) => unreachable!("a schema without a finding is an object"),
    }
}

impl Tool {
    /// A tool whose `inputSchema` is the schema of `I` ([`object_schema`]).
    pub fn typed<I: JsonSchema>(name: impl Into<String>) -> Result<Tool, ToolSchemaError> {
        Ok(Tool::new(name, object_schema::<I>()?))
    }

    /// Sets `outputSchema` to the schema of `O` ([`object_schema`]).
    pub fn with_output_type<O: JsonSchema>(self) -> Result<Tool, ToolSchemaError> {
        Ok(self.with_output_schema(object_schema::<O>()?))
    }
}

/// A tool's `outputSchema`, compiled once: builds structured results that satisfy it (feature
/// `output-check`).
///
/// ```
/// use mcp_wire::model::Tool;
/// use mcp_wire::tool::OutputCheck;
/// use schemars::JsonSchema;
/// use serde::Serialize;
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: i64 }
///
/// let tool = Tool::new("add", Tool::empty_input_schema()).with_output_type::<Sum>()?;
/// let check = OutputCheck::for_tool(&tool)?;
/// let result = check.result(&Sum { sum: 5 })?;
/// assert_eq!(result.structured_content, Some(serde_json::json!({"sum": 5})));
/// // A value that does not satisfy the schema is refused, located.
/// let e = check.check(&serde_json::json!({"sum": "five"})).unwrap_err();
/// assert_eq!(e.path.pointer(), "/sum");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "output-check")]
#[derive(Debug)]
pub struct OutputCheck {
    validator: jsonschema::Validator,
}

#[cfg(feature = "output-check")]
impl OutputCheck {
    /// Compiles `tool`'s `outputSchema` ([`ToolSchemaErrorKind::NoUsableSchema`] when it has
    /// none or it is not a valid schema).
    pub fn for_tool(tool: &Tool) -> Result<OutputCheck, ToolSchemaError> {
        let no_schema = |message: String| {
            ToolSchemaError::new(
                ToolSchemaErrorKind::NoUsableSchema,
                JsonPath::root().key("outputSchema"),
                message,
            )
        };
        let schema = tool
            .output_schema
            .as_ref()
            .ok_or_else(|| no_schema(format!("tool {:?} has no outputSchema", tool.name)))?;
        let validator = jsonschema::validator_for(&Value::Object(schema.clone()))
            .map_err(|e| no_schema(format!("the outputSchema of {:?}: {e}", tool.name)))?;
        Ok(OutputCheck { validator })
    }

    /// The JSON of `output` when it satisfies the schema (the first failure otherwise, located
    /// in the output).
    pub fn check(&self, output: &impl Serialize) -> Result<Value, ToolSchemaError> {
        let value = serde_json::to_value(output).map_err(|e| {
            ToolSchemaError::new(
                ToolSchemaErrorKind::Serialization,
                JsonPath::root(),
                e.to_string(),
            )
        })?;
        if let Some(e) = self.validator.iter_errors(&value).next() {
            let path = path_in(&value, &e.instance_path().to_string());
            return Err(ToolSchemaError::new(
                ToolSchemaErrorKind::DoesNotMatch,
                path,
                format!("the output does not satisfy the tool's outputSchema: {e}"),
            ));
        }
        Ok(value)
    }

    /// A result carrying `output` as `structuredContent` (and, as the revisions advise for
    /// clients that read only `content`, its JSON text as one text block), after [`check`].
    ///
    /// [`check`]: OutputCheck::check
    pub fn result(&self, output: &impl Serialize) -> Result<CallToolResult, ToolSchemaError> {
        self.check(output).map(CallToolResult::structured)
    }
}

/// The JSON Pointer `pointer` into `value` as a [`JsonPath`] (array steps as indices).
#[cfg(feature = "output-check")]
fn path_in(value: &Value, pointer: &str) -> JsonPath {
    let mut path = JsonPath::root();
    let mut at = Some(value);
    for key in crate::path::pointer_tokens(pointer).unwrap_or_default() {
        match (at, key.parse::<usize>()) {
            (Some(Value::Array(items)), Ok(i)) => {
                at = items.get(i);
                path = path.index(i);
            }
            (node, _) => {
                at = node.and_then(|n| n.get(&key));
                path = path.key(key);
            }
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        city: String,
        days: Option<u8>,
    }

    #[derive(Serialize, JsonSchema)]
    struct Forecast {
        days: Vec<Day>,
    }

    #[derive(Serialize, JsonSchema)]
    struct Day {
        high: i32,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        A { a: i32 },
        B(String),
    }

    #[test]
    fn a_struct_is_an_object_schema() {
        let s = object_schema::<Args>().unwrap();
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], serde_json::json!(["city"]));
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    }

    /// A tool whose schema sets its own title.
    #[derive(Deserialize, JsonSchema)]
    #[schemars(title = "Weather query")]
    #[allow(dead_code)]
    struct Titled {
        city: String,
    }

    #[test]
    fn the_rust_type_name_is_not_the_schema_title() {
        let s = object_schema::<Args>().unwrap();
        assert_eq!(s.get("title"), None, "{s:?}");
        let tool = Tool::typed::<Args>("weather")
            .unwrap()
            .with_output_type::<Forecast>()
            .unwrap();
        assert_eq!(tool.input_schema.get("title"), None);
        let output = tool.output_schema.unwrap();
        assert_eq!(output.get("title"), None, "{output:?}");
        // Nested types keep their definitions, untitled.
        let defs = serde_json::to_string(&output["$defs"]).unwrap();
        assert!(!defs.contains("\"title\""), "{defs}");
        // A title the type gives itself stays.
        let s = object_schema::<Titled>().unwrap();
        assert_eq!(s["title"], "Weather query");
    }

    #[test]
    fn anything_but_an_object_is_refused_with_what_it_is() {
        let e = object_schema::<Either>().unwrap_err();
        assert_eq!(e.kind, ToolSchemaErrorKind::NotAnObject);
        assert_eq!(e.path.pointer(), "/type");
        assert!(e.message.contains("\"anyOf\""), "{}", e.message);
        let e = object_schema::<i64>().unwrap_err();
        assert!(e.message.contains("\"type\": \"integer\""), "{}", e.message);
        let e = object_schema::<Value>().unwrap_err();
        assert_eq!(e.kind, ToolSchemaErrorKind::NotAnObject);
        assert_eq!(ErrorData::from(&e).code, -32603);
    }

    #[test]
    #[cfg(feature = "output-check")]
    fn output_is_checked_and_located() {
        let tool = Tool::typed::<Args>("weather")
            .unwrap()
            .with_output_type::<Forecast>()
            .unwrap();
        let check = OutputCheck::for_tool(&tool).unwrap();
        let ok = check
            .result(&Forecast {
                days: vec![Day { high: 20 }],
            })
            .unwrap();
        assert_eq!(ok.content[0].as_text(), Some(r#"{"days":[{"high":20}]}"#));
        // Not the output type: the first failure, with its pointer into the output.
        let bad = serde_json::json!({"days": [{"high": 20}, {"high": "hot"}]});
        let e = check.check(&bad).unwrap_err();
        assert_eq!(e.kind, ToolSchemaErrorKind::DoesNotMatch);
        assert_eq!(e.path.pointer(), "/days/1/high");
        assert_eq!(
            e.path.segments()[1],
            crate::path::PathSegment::Index(1),
            "array steps are indices"
        );
        let e = OutputCheck::for_tool(&Tool::typed::<Args>("no-output").unwrap()).unwrap_err();
        assert_eq!(e.kind, ToolSchemaErrorKind::NoUsableSchema);
    }
}
