//! Elicitation: form mode with its primitive schema shapes, URL mode, results and completion.

use crate::model::describe::Describe;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::{Meta, TaskMetadata};

tag!(
    /// The `mode` literal `form`.
    FormMode = "form"
);
tag!(
    /// The `mode` literal `url`.
    UrlMode = "url"
);
tag!(
    /// The schema `type` literal `object`.
    ObjectType = "object"
);
tag!(
    /// The schema `type` literal `string`.
    StringType = "string"
);
tag!(
    /// The schema `type` literal `boolean`.
    BooleanType = "boolean"
);
tag!(
    /// The schema `type` literal `array`.
    ArrayType = "array"
);

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum ElicitAction {
    /// Submitted the form / completed the flow.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The `type` of a number schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
pub enum NumberType {
    /// Any number.
    Number,
    /// Whole numbers only.
    Integer,
}

/// The `format` of a string schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Describe)]
pub enum StringFormat {
    /// An email address.
    #[serde(rename = "email")]
    Email,
    /// A URI.
    #[serde(rename = "uri")]
    Uri,
    /// A date.
    #[serde(rename = "date")]
    Date,
    /// A date and time.
    #[serde(rename = "date-time")]
    DateTime,
}

/// Parameters of a form-mode `elicitation/create` (the only mode before 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestFormParams {
    /// `"form"`; may be absent (it is the default, and absent before 2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormMode>,
    /// What to ask the user.
    pub message: String,
    /// The flat form schema.
    pub requested_schema: ElicitRequestedSchema,
    /// Asks for task-augmented execution (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitRequestFormParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(message: impl Into<String>, requested_schema: ElicitRequestedSchema) -> Self {
        Self {
            mode: None,
            message: message.into(),
            requested_schema,
            task: None,
            meta: None,
        }
    }

    /// Sets `mode`.
    pub fn with_mode(mut self, value: FormMode) -> Self {
        self.mode = Some(value);
        self
    }

    /// Sets `task`.
    pub fn with_task(mut self, value: TaskMetadata) -> Self {
        self.task = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of a URL-mode `elicitation/create` (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestURLParams {
    /// `"url"`.
    pub mode: UrlMode,
    /// Why the user should open the URL.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// Identifier for completion notifications (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Asks for task-augmented execution (2025-11-25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitRequestURLParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            mode: UrlMode,
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
            task: None,
            meta: None,
        }
    }

    /// Sets `elicitationId`.
    pub fn with_elicitation_id(mut self, value: impl Into<String>) -> Self {
        self.elicitation_id = Some(value.into());
        self
    }

    /// Sets `task`.
    pub fn with_task(mut self, value: TaskMetadata) -> Self {
        self.task = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// The restricted JSON Schema of an elicitation form: a flat object of primitive properties. Open, like every JSON Schema object here: other keywords (real peers send `title`) are kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitRequestedSchema {
    /// The JSON Schema dialect (2025-11-25+).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// `"object"`.
    pub r#type: ObjectType,
    /// The fields, in order.
    pub properties: IndexMap<String, PrimitiveSchemaDefinition>,
    /// Names of the required fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ElicitRequestedSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(properties: IndexMap<String, PrimitiveSchemaDefinition>) -> Self {
        Self {
            schema: None,
            r#type: ObjectType,
            properties,
            required: None,
            extra: Map::new(),
        }
    }

    /// Sets `$schema`.
    pub fn with_schema(mut self, value: impl Into<String>) -> Self {
        self.schema = Some(value.into());
        self
    }

    /// Sets `required`.
    pub fn with_required(mut self, value: Vec<String>) -> Self {
        self.required = Some(value);
        self
    }
}

/// A string field of an elicitation form.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct StringSchema {
    /// `"string"`.
    pub r#type: StringType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Expected format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl StringSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            r#type: StringType,
            title: None,
            description: None,
            min_length: None,
            max_length: None,
            format: None,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `minLength`.
    pub fn with_min_length(mut self, value: u64) -> Self {
        self.min_length = Some(value);
        self
    }

    /// Sets `maxLength`.
    pub fn with_max_length(mut self, value: u64) -> Self {
        self.max_length = Some(value);
        self
    }

    /// Sets `format`.
    pub fn with_format(mut self, value: StringFormat) -> Self {
        self.format = Some(value);
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: impl Into<String>) -> Self {
        self.default = Some(value.into());
        self
    }
}

/// A number field of an elicitation form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    pub r#type: NumberType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Maximum value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl NumberSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(r#type: NumberType) -> Self {
        Self {
            r#type,
            title: None,
            description: None,
            minimum: None,
            maximum: None,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `minimum`.
    pub fn with_minimum(mut self, value: Number) -> Self {
        self.minimum = Some(value);
        self
    }

    /// Sets `maximum`.
    pub fn with_maximum(mut self, value: Number) -> Self {
        self.maximum = Some(value);
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: Number) -> Self {
        self.default = Some(value);
        self
    }
}

/// A boolean field of an elicitation form.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BooleanSchema {
    /// `"boolean"`.
    pub r#type: BooleanType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BooleanSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new() -> Self {
        Self {
            r#type: BooleanType,
            title: None,
            description: None,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: bool) -> Self {
        self.default = Some(value);
        self
    }
}

/// A single choice among plain values (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledSingleSelectEnumSchema {
    /// `"string"`.
    pub r#type: StringType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UntitledSingleSelectEnumSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(r#enum: Vec<String>) -> Self {
        Self {
            r#type: StringType,
            title: None,
            description: None,
            r#enum,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: impl Into<String>) -> Self {
        self.default = Some(value.into());
        self
    }
}

/// One titled choice: a value and its display title.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EnumOption {
    /// The value.
    pub r#const: String,
    /// Display title.
    pub title: String,
}

impl EnumOption {
    /// A value with the required fields set and every optional field absent.
    pub fn new(r#const: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            r#const: r#const.into(),
            title: title.into(),
        }
    }
}

/// A single choice among titled values (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledSingleSelectEnumSchema {
    /// `"string"`.
    pub r#type: StringType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The choices.
    pub one_of: Vec<EnumOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TitledSingleSelectEnumSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(one_of: Vec<EnumOption>) -> Self {
        Self {
            r#type: StringType,
            title: None,
            description: None,
            one_of,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: impl Into<String>) -> Self {
        self.default = Some(value.into());
        self
    }
}

/// The item schema of an untitled multi-select.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledEnumItems {
    /// `"string"`.
    pub r#type: StringType,
    /// The allowed values.
    pub r#enum: Vec<String>,
}

impl UntitledEnumItems {
    /// A value with the required fields set and every optional field absent.
    pub fn new(r#enum: Vec<String>) -> Self {
        Self {
            r#type: StringType,
            r#enum,
        }
    }
}

/// The item schema of a titled multi-select.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledEnumItems {
    /// The choices.
    pub any_of: Vec<EnumOption>,
}

impl TitledEnumItems {
    /// A value with the required fields set and every optional field absent.
    pub fn new(any_of: Vec<EnumOption>) -> Self {
        Self { any_of }
    }
}

/// A multiple choice among plain values (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UntitledMultiSelectEnumSchema {
    /// `"array"`.
    pub r#type: ArrayType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// Default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl UntitledMultiSelectEnumSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(items: UntitledEnumItems) -> Self {
        Self {
            r#type: ArrayType,
            title: None,
            description: None,
            min_items: None,
            max_items: None,
            items,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `minItems`.
    pub fn with_min_items(mut self, value: u64) -> Self {
        self.min_items = Some(value);
        self
    }

    /// Sets `maxItems`.
    pub fn with_max_items(mut self, value: u64) -> Self {
        self.max_items = Some(value);
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: Vec<String>) -> Self {
        self.default = Some(value);
        self
    }
}

/// A multiple choice among titled values (2025-11-25+).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TitledMultiSelectEnumSchema {
    /// `"array"`.
    pub r#type: ArrayType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Maximum number of choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The choices.
    pub items: TitledEnumItems,
    /// Default choices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TitledMultiSelectEnumSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(items: TitledEnumItems) -> Self {
        Self {
            r#type: ArrayType,
            title: None,
            description: None,
            min_items: None,
            max_items: None,
            items,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `minItems`.
    pub fn with_min_items(mut self, value: u64) -> Self {
        self.min_items = Some(value);
        self
    }

    /// Sets `maxItems`.
    pub fn with_max_items(mut self, value: u64) -> Self {
        self.max_items = Some(value);
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: Vec<String>) -> Self {
        self.default = Some(value);
        self
    }
}

/// A choice with parallel `enumNames` (the 2025-06-18 `EnumSchema`; deprecated later).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LegacyTitledEnumSchema {
    /// `"string"`.
    pub r#type: StringType,
    /// Human-readable title for display (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    pub r#enum: Vec<String>,
    /// Display names, parallel to `enum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Keys this model does not name, kept so that a round trip loses nothing.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl LegacyTitledEnumSchema {
    /// A value with the required fields set and every optional field absent.
    pub fn new(r#enum: Vec<String>) -> Self {
        Self {
            r#type: StringType,
            title: None,
            description: None,
            r#enum,
            enum_names: None,
            default: None,
            extra: Map::new(),
        }
    }

    /// Sets `title`.
    pub fn with_title(mut self, value: impl Into<String>) -> Self {
        self.title = Some(value.into());
        self
    }

    /// Sets `description`.
    pub fn with_description(mut self, value: impl Into<String>) -> Self {
        self.description = Some(value.into());
        self
    }

    /// Sets `enumNames`.
    pub fn with_enum_names(mut self, value: Vec<String>) -> Self {
        self.enum_names = Some(value);
        self
    }

    /// Sets `default`.
    pub fn with_default(mut self, value: impl Into<String>) -> Self {
        self.default = Some(value.into());
        self
    }
}

/// One field of an elicitation form. The schemas carry no single tag, so the member is chosen
/// from `type` and then the distinguishing keys (`oneOf`, `enum`/`enumNames`, `items.anyOf`).
#[derive(Debug, Clone, PartialEq, Describe)]
#[non_exhaustive]
pub enum PrimitiveSchemaDefinition {
    /// A free string.
    String(StringSchema),
    /// A number or integer.
    Number(NumberSchema),
    /// A boolean.
    Boolean(BooleanSchema),
    /// Single choice, plain values.
    UntitledSingleSelectEnum(UntitledSingleSelectEnumSchema),
    /// Single choice, titled values.
    TitledSingleSelectEnum(TitledSingleSelectEnumSchema),
    /// Multiple choice, plain values.
    UntitledMultiSelectEnum(UntitledMultiSelectEnumSchema),
    /// Multiple choice, titled values.
    TitledMultiSelectEnum(TitledMultiSelectEnumSchema),
    /// Choice with `enumNames` (legacy).
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

/// Each member is written as a newtype struct of its spec name, which JSON serializers write as
/// the member itself: the members are written as maps (they keep unknown keys), so this is how a
/// serializer learns which member it writes (the version boundary decides per member).
impl Serialize for PrimitiveSchemaDefinition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(v) => s.serialize_newtype_struct("StringSchema", v),
            Self::Number(v) => s.serialize_newtype_struct("NumberSchema", v),
            Self::Boolean(v) => s.serialize_newtype_struct("BooleanSchema", v),
            Self::UntitledSingleSelectEnum(v) => {
                s.serialize_newtype_struct("UntitledSingleSelectEnumSchema", v)
            }
            Self::TitledSingleSelectEnum(v) => {
                s.serialize_newtype_struct("TitledSingleSelectEnumSchema", v)
            }
            Self::UntitledMultiSelectEnum(v) => {
                s.serialize_newtype_struct("UntitledMultiSelectEnumSchema", v)
            }
            Self::TitledMultiSelectEnum(v) => {
                s.serialize_newtype_struct("TitledMultiSelectEnumSchema", v)
            }
            Self::LegacyTitledEnum(v) => s.serialize_newtype_struct("LegacyTitledEnumSchema", v),
        }
    }
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::de::dispatch;
        use crate::de::error::{missing_tag, unknown_tag};
        let value = Value::deserialize(d)?;
        let Some(ty) = crate::de::tag_of(&value, "type").map(str::to_owned) else {
            return Err(missing_tag("type"));
        };
        let one_of = value.get("oneOf").is_some();
        let enum_names = value.get("enumNames").is_some();
        let plain_enum = value.get("enum").is_some();
        let titled_items = value.pointer("/items/anyOf").is_some();
        match ty.as_str() {
            "boolean" => dispatch(value).map(Self::Boolean),
            "number" | "integer" => dispatch(value).map(Self::Number),
            "string" if one_of => dispatch(value).map(Self::TitledSingleSelectEnum),
            "string" if enum_names => dispatch(value).map(Self::LegacyTitledEnum),
            "string" if plain_enum => dispatch(value).map(Self::UntitledSingleSelectEnum),
            "string" => dispatch(value).map(Self::String),
            "array" if titled_items => dispatch(value).map(Self::TitledMultiSelectEnum),
            "array" => dispatch(value).map(Self::UntitledMultiSelectEnum),
            other => Err(unknown_tag(
                "type",
                other,
                &["string", "number", "integer", "boolean", "array"],
            )),
        }
    }
}

/// Parameters of `elicitation/create`: form mode (`mode` `"form"` or absent) or URL mode.
#[derive(Debug, Clone, PartialEq, Describe)]
#[non_exhaustive]
pub enum ElicitRequestParams {
    /// Form mode.
    Form(ElicitRequestFormParams),
    /// URL mode (2025-11-25+).
    Url(ElicitRequestURLParams),
}

impl Serialize for ElicitRequestParams {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Form(v) => v.serialize(s),
            Self::Url(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Tagged on `mode`; an absent `mode` (or a value that is not an object) is form mode.
        crate::de::deserialize_tagged(d)
    }
}

impl crate::de::Tagged for ElicitRequestParams {
    const TAG_FIELD: &'static str = "mode";
    const TAG_VALUES: &'static [&'static str] = &["form", "url"];
    const DEFAULT_MEMBER: Option<usize> = Some(0);

    fn member<'de, D: serde::Deserializer<'de>>(index: usize, d: D) -> Result<Self, D::Error> {
        match index {
            0 => ElicitRequestFormParams::deserialize(d).map(Self::Form),
            _ => ElicitRequestURLParams::deserialize(d).map(Self::Url),
        }
    }
}

impl From<ElicitRequestFormParams> for ElicitRequestParams {
    fn from(v: ElicitRequestFormParams) -> Self {
        Self::Form(v)
    }
}

impl From<ElicitRequestURLParams> for ElicitRequestParams {
    fn from(v: ElicitRequestURLParams) -> Self {
        Self::Url(v)
    }
}

/// Result of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, on accept), kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// A value with the required fields set and every optional field absent.
    pub fn new(action: ElicitAction) -> Self {
        Self {
            action,
            content: None,
            meta: None,
        }
    }

    /// Sets `content`.
    pub fn with_content(mut self, value: Map<String, Value>) -> Self {
        self.content = Some(value);
        self
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

/// Parameters of `notifications/elicitation/complete` (2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Describe)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitationCompleteNotificationParams {
    /// The URL-mode elicitation that completed.
    pub elicitation_id: String,
    /// Metadata (`_meta`): an open map; see [`Meta`] for the reserved keys.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitationCompleteNotificationParams {
    /// A value with the required fields set and every optional field absent.
    pub fn new(elicitation_id: impl Into<String>) -> Self {
        Self {
            elicitation_id: elicitation_id.into(),
            meta: None,
        }
    }

    /// Sets `_meta`.
    pub fn with_meta(mut self, value: Meta) -> Self {
        self.meta = Some(value);
        self
    }
}

request! {
    /// `elicitation/create` (2025-06-18+): the server asks the user for input through the client.
    ElicitRequest, ElicitationCreateMethod = "elicitation/create",
    params: ElicitRequestParams, result: ElicitResult
}

notification! {
    /// `notifications/elicitation/complete` (2025-11-25): a URL-mode elicitation finished.
    ElicitationCompleteNotification, ElicitationCompleteMethod = "notifications/elicitation/complete",
    params: ElicitationCompleteNotificationParams
}
