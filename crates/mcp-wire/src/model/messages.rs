//! The request and notification unions of each direction, tagged on `method`.
//!
//! Each union has every method any revision defines for that direction, expanded from the body
//! table's rows of that side (`for_each_body!` in [`super::methods`]); which revision defines
//! which method is data (the generated facts). An unknown `method` is
//! [`ModelErrorKind::UnknownTag`] with field `method`
//! (JSON-RPC -32601).

use super::methods::{by_sender, for_each_body};
use super::*;

/// The four unions from the body table's rows, split by side.
macro_rules! message_unions {
    (
        ()
        client_requests { $($(#[$crd:meta])* $crv:ident($crt:ident) => $_crr:ident($_crrt:ident),)* }
        server_requests { $($(#[$srd:meta])* $srv:ident($srt:ident) => $_srr:ident($_srrt:ident),)* }
        client_notifications { $($(#[$cnd:meta])* $cnv:ident($cnt:ident),)* }
        server_notifications { $($(#[$snd:meta])* $snv:ident($snt:ident),)* }
        server_results { $($_sres:tt)* }
        client_results { $($_cres:tt)* }
    ) => {
        tagged_union! {
            /// A request a client sends to a server.
            pub enum ClientRequest on "method", requests {
                $($(#[$crd])* $crv($crt) = $crt::METHOD,)*
            }
        }

        tagged_union! {
            /// A request a server sends to a client (handshake era; at 2026-07-28 these travel
            /// inside `InputRequiredResult.inputRequests` instead).
            pub enum ServerRequest on "method", requests {
                $($(#[$srd])* $srv($srt) = $srt::METHOD,)*
            }
        }

        tagged_union! {
            /// A notification a client sends to a server.
            pub enum ClientNotification on "method" {
                $($(#[$cnd])* $cnv($cnt) = $cnt::METHOD,)*
            }
        }

        tagged_union! {
            /// A notification a server sends to a client.
            pub enum ServerNotification on "method" {
                $($(#[$snd])* $snv($snt) = $snt::METHOD,)*
            }
        }
    };
}

for_each_body!(by_sender(message_unions));

macro_rules! method_accessor {
    ($($name:ident),+) => {
        $(
            impl $name {
                /// The wire `method` of this message.
                pub fn method(&self) -> &'static str {
                    self.tag()
                }
            }
        )+
    };
}

method_accessor!(
    ClientRequest,
    ServerRequest,
    ClientNotification,
    ServerNotification
);
