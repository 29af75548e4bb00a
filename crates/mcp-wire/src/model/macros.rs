//! Small declarative macros for the repetitive parts of the model: zero-sized discriminator
//! constants, tag-dispatched unions, and request/notification structs with their method map entry.

/// A zero-sized discriminator constant: serializes as its literal and refuses any other value.
macro_rules! tag {
    ($(#[$meta:meta])* $name:ident = $lit:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;

        impl $name {
            /// The literal on the wire.
            pub const VALUE: &'static str = $lit;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($lit)
            }
        }

        $crate::model::describe::describe_scalar!($name);

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::de::expect_tag(d, $lit).map(|()| $name)
            }
        }
    };
}

/// An enum of structs chosen by a string discriminator (`type`, `method`, `mode`, …).
///
/// Each member struct carries the discriminator itself (as a [`tag!`] field), so serializing
/// delegates to the member; parsing reads the tag and streams the object into that member
/// (see [`crate::de`]).
/// An unknown tag is [`ModelErrorKind::UnknownTag`](crate::model::ModelErrorKind::UnknownTag).
macro_rules! tagged_union {
    // A union of request bodies: also [`RequestMeta`](crate::model::RequestMeta), by member.
    (
        $(#[$meta:meta])*
        pub enum $name:ident on $field:literal, requests {
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) = $tag:expr, )+
        }
    ) => {
        tagged_union! {
            $(#[$meta])*
            pub enum $name on $field {
                $( $(#[$vmeta])* $variant($ty) = $tag, )+
            }
        }

        impl $crate::model::RequestMeta for $name {
            fn meta(&self) -> Option<&$crate::model::Meta> {
                match self {
                    $( Self::$variant(r) => $crate::model::RequestMeta::meta(r), )+
                }
            }

            fn meta_mut(&mut self) -> &mut $crate::model::Meta {
                match self {
                    $( Self::$variant(r) => $crate::model::RequestMeta::meta_mut(r), )+
                }
            }

            fn take_meta(&mut self) -> Option<$crate::model::Meta> {
                match self {
                    $( Self::$variant(r) => $crate::model::RequestMeta::take_meta(r), )+
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub enum $name:ident on $field:literal {
            $( $(#[$vmeta:meta])* $variant:ident($ty:ty) = $tag:expr, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, $crate::model::describe::Describe)]
        #[non_exhaustive]
        // Members are plain structs so they can be matched and built directly; boxing the large
        // ones would cost every user an indirection for a few hundred bytes.
        #[allow(clippy::large_enum_variant)]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )+
        }

        impl $name {
            /// Every tag value, in declaration order.
            pub const TAGS: &'static [&'static str] = &[$($tag),+];

            /// The spec name of each member's type, in the order of [`Self::TAGS`].
            pub const TYPE_NAMES: &'static [&'static str] = &[$(stringify!($ty)),+];

            /// The discriminator value of this member.
            pub fn tag(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => $tag, )+
                }
            }

            /// The spec name of this member's type, e.g. `"CallToolRequest"`.
            pub fn type_name(&self) -> &'static str {
                match self {
                    $( Self::$variant(_) => stringify!($ty), )+
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $( Self::$variant(v) => serde::Serialize::serialize(v, s), )+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::de::deserialize_tagged(d)
            }
        }

        impl $crate::de::Tagged for $name {
            const TAG_FIELD: &'static str = $field;
            const TAG_VALUES: &'static [&'static str] = <$name>::TAGS;

            fn member<'de, D: serde::Deserializer<'de>>(
                index: usize,
                d: D,
            ) -> Result<Self, D::Error> {
                let mut i = 0usize;
                $(
                    if index == i {
                        return <$ty as serde::Deserialize>::deserialize(d).map(Self::$variant);
                    }
                    i += 1;
                )+
                Err(<D::Error as serde::de::Error>::custom(format_args!(
                    "no member number {index} among {i}"
                )))
            }
        }

        $(
            impl From<$ty> for $name {
                fn from(v: $ty) -> Self {
                    Self::$variant(v)
                }
            }
        )+
    };
}

/// A request body struct (`method` + `params`) and its [`Request`](crate::model::Request) entry.
macro_rules! request {
    (
        $(#[$meta:meta])*
        $name:ident, $tagty:ident = $method:literal, params: $params:ty, result: $result:ty
    ) => {
        tag!(
            #[doc = concat!("The method literal `", $method, "`.")]
            $tagty = $method
        );

        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, $crate::model::describe::Describe)]
        #[non_exhaustive]
        pub struct $name {
            /// The method literal (written on emit, checked on read).
            pub method: $tagty,
            /// The parameters.
            pub params: $params,
        }

        impl $name {
            /// The wire method.
            pub const METHOD: &'static str = $method;

            /// A request with these parameters.
            pub fn new(params: $params) -> Self {
                Self { method: $tagty, params }
            }
        }

        impl $crate::model::Request for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }

        impl $crate::model::RequestMeta for $name {
            fn meta(&self) -> Option<&$crate::model::Meta> {
                $crate::model::ParamsMeta::meta(&self.params)
            }

            fn meta_mut(&mut self) -> &mut $crate::model::Meta {
                $crate::model::ParamsMeta::meta_slot(&mut self.params).get_or_insert_with(Default::default)
            }

            fn take_meta(&mut self) -> Option<$crate::model::Meta> {
                $crate::model::ParamsMeta::meta_slot(&mut self.params).take()
            }
        }
    };
    (
        $(#[$meta:meta])*
        $name:ident, $tagty:ident = $method:literal, params?: $params:ty, result: $result:ty
    ) => {
        tag!(
            #[doc = concat!("The method literal `", $method, "`.")]
            $tagty = $method
        );

        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize, $crate::model::describe::Describe)]
        #[non_exhaustive]
        pub struct $name {
            /// The method literal (written on emit, checked on read).
            pub method: $tagty,
            /// The parameters, absent when the request carries none.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub params: Option<$params>,
        }

        impl $name {
            /// The wire method.
            pub const METHOD: &'static str = $method;

            /// A request without parameters.
            pub fn new() -> Self {
                Self { method: $tagty, params: None }
            }

            /// Sets the parameters.
            pub fn with_params(mut self, params: $params) -> Self {
                self.params = Some(params);
                self
            }
        }

        impl $crate::model::Request for $name {
            const METHOD: &'static str = $method;
            type Params = Option<$params>;
            type Result = $result;
        }

        impl $crate::model::RequestMeta for $name {
            fn meta(&self) -> Option<&$crate::model::Meta> {
                self.params.as_ref().and_then($crate::model::ParamsMeta::meta)
            }

            fn meta_mut(&mut self) -> &mut $crate::model::Meta {
                let params = self.params.get_or_insert_with(Default::default);
                $crate::model::ParamsMeta::meta_slot(params).get_or_insert_with(Default::default)
            }

            fn take_meta(&mut self) -> Option<$crate::model::Meta> {
                self.params.as_mut().and_then(|p| $crate::model::ParamsMeta::meta_slot(p).take())
            }
        }
    };
}

/// A notification body struct (`method` + `params`) and its
/// [`Notification`](crate::model::Notification) entry.
macro_rules! notification {
    (
        $(#[$meta:meta])*
        $name:ident, $tagty:ident = $method:literal, params: $params:ty
    ) => {
        tag!(
            #[doc = concat!("The method literal `", $method, "`.")]
            $tagty = $method
        );

        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, $crate::model::describe::Describe)]
        #[non_exhaustive]
        pub struct $name {
            /// The method literal (written on emit, checked on read).
            pub method: $tagty,
            /// The parameters.
            pub params: $params,
        }

        impl $name {
            /// The wire method.
            pub const METHOD: &'static str = $method;

            /// A notification with these parameters.
            pub fn new(params: $params) -> Self {
                Self { method: $tagty, params }
            }
        }

        impl $crate::model::Notification for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
    (
        $(#[$meta:meta])*
        $name:ident, $tagty:ident = $method:literal, params?: $params:ty
    ) => {
        tag!(
            #[doc = concat!("The method literal `", $method, "`.")]
            $tagty = $method
        );

        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize, $crate::model::describe::Describe)]
        #[non_exhaustive]
        pub struct $name {
            /// The method literal (written on emit, checked on read).
            pub method: $tagty,
            /// The parameters, absent when the notification carries none.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub params: Option<$params>,
        }

        impl $name {
            /// The wire method.
            pub const METHOD: &'static str = $method;

            /// A notification without parameters.
            pub fn new() -> Self {
                Self { method: $tagty, params: None }
            }

            /// Sets the parameters.
            pub fn with_params(mut self, params: $params) -> Self {
                self.params = Some(params);
                self
            }
        }

        impl $crate::model::Notification for $name {
            const METHOD: &'static str = $method;
            type Params = Option<$params>;
        }
    };
}

/// A string enumeration whose unknown values are kept (`Other`), for open discriminators.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $lit:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this crate does not know, kept as sent.
            Other(String),
        }

        impl $name {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $lit, )+
                    Self::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $( $lit => Self::$variant, )+
                    other => Self::Other(other.to_owned()),
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        $crate::model::describe::describe_scalar!($name);

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::de::read_open_str(d, |s: &str| Self::from(s), |s| match s.as_str() {
                    $( $lit => Self::$variant, )+
                    _ => Self::Other(s),
                })
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
