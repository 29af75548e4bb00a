//! Where the planned emitter writes: compact JSON text ([`Bytes`]) or a JSON value
//! ([`Values`]). Both write a value exactly as `serde_json` would (to text, and to a `Value`).

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Bail, ScalarCheck, text_passes};
use crate::wire::json::{JsonWriter, write_str};
use crate::wire::shaping::Scalar;

/// An output of the planned emitter.
pub trait Sink {
    /// Writes `value` as plain serde writes it.
    fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail>;

    /// Writes the scalar `value` as plain serde writes it, when what it writes passes `check`.
    fn plain_checked<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        check: ScalarCheck,
    ) -> Result<(), Bail>;

    /// Opens an object of about `members` members.
    fn open_object(&mut self, members: usize);

    /// Starts a member: `first` of its object, named `key`; `quoted` is the key in quotes with
    /// its colon when it needs no escaping.
    fn key(&mut self, first: bool, key: &str, quoted: Option<&[u8]>);

    /// Closes the innermost object.
    fn close_object(&mut self);

    /// Opens an array of `items` items.
    fn open_array(&mut self, items: usize);

    /// Starts an item, `first` of its array.
    fn item(&mut self, first: bool);

    /// Closes the innermost array.
    fn close_array(&mut self);
}

/// Compact JSON text appended to a byte vector (the bytes `serde_json::to_writer` writes).
pub struct Bytes<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> Bytes<'a> {
    /// Text appended to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        Bytes { out }
    }
}

impl Sink for Bytes<'_> {
    #[inline]
    fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        value
            .serialize(&mut JsonWriter::new(self.out))
            .map_err(|_| Bail)
    }

    fn plain_checked<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        check: ScalarCheck,
    ) -> Result<(), Bail> {
        let at = self.out.len();
        self.plain(value)?;
        if text_passes(check, &self.out[at..]) {
            Ok(())
        } else {
            Err(Bail)
        }
    }

    #[inline]
    fn open_object(&mut self, _members: usize) {
        self.out.push(b'{');
    }

    #[inline]
    fn key(&mut self, first: bool, key: &str, quoted: Option<&[u8]>) {
        if !first {
            self.out.push(b',');
        }
        match quoted {
            Some(q) => self.out.extend_from_slice(q),
            None => {
                write_str(self.out, key);
                self.out.push(b':');
            }
        }
    }

    #[inline]
    fn close_object(&mut self) {
        self.out.push(b'}');
    }

    #[inline]
    fn open_array(&mut self, _items: usize) {
        self.out.push(b'[');
    }

    #[inline]
    fn item(&mut self, first: bool) {
        if !first {
            self.out.push(b',');
        }
    }

    #[inline]
    fn close_array(&mut self) {
        self.out.push(b']');
    }
}

/// A `serde_json::Value` built bottom-up (the value `serde_json::to_value` builds).
#[derive(Debug, Default)]
pub struct Values {
    /// The open containers, innermost last; an object with the key of its member being written.
    open: Vec<Container>,
    /// The finished outermost value.
    done: Option<Value>,
}

#[derive(Debug)]
enum Container {
    Object(Map<String, Value>, String),
    Array(Vec<Value>),
}

impl Values {
    /// The value written, once every container is closed.
    pub fn into_value(self) -> Option<Value> {
        if self.open.is_empty() {
            self.done
        } else {
            None
        }
    }

    /// Places a finished value in the innermost container (or as the whole value).
    fn put(&mut self, value: Value) {
        match self.open.last_mut() {
            Some(Container::Object(map, key)) => {
                map.insert(std::mem::take(key), value);
            }
            Some(Container::Array(items)) => items.push(value),
            None => self.done = Some(value),
        }
    }
}

impl Sink for Values {
    #[inline]
    fn plain<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Bail> {
        let value = value
            .serialize(serde_json::value::Serializer)
            .map_err(|_| Bail)?;
        self.put(value);
        Ok(())
    }

    fn plain_checked<T: Serialize + ?Sized>(
        &mut self,
        value: &T,
        check: ScalarCheck,
    ) -> Result<(), Bail> {
        let value = value
            .serialize(serde_json::value::Serializer)
            .map_err(|_| Bail)?;
        if !check.passes(Scalar::of_value(&value)) {
            return Err(Bail);
        }
        self.put(value);
        Ok(())
    }

    #[inline]
    fn open_object(&mut self, members: usize) {
        // Sized as `serde_json::to_value` sizes a struct's map.
        self.open.push(Container::Object(
            Map::with_capacity(members),
            String::new(),
        ));
    }

    #[inline]
    fn key(&mut self, _first: bool, key: &str, _quoted: Option<&[u8]>) {
        if let Some(Container::Object(_, pending)) = self.open.last_mut() {
            key.clone_into(pending);
        }
    }

    #[inline]
    fn close_object(&mut self) {
        if let Some(Container::Object(map, _)) = self.open.pop() {
            self.put(Value::Object(map));
        }
    }

    #[inline]
    fn open_array(&mut self, items: usize) {
        self.open.push(Container::Array(Vec::with_capacity(items)));
    }

    #[inline]
    fn item(&mut self, _first: bool) {}

    #[inline]
    fn close_array(&mut self) {
        if let Some(Container::Array(items)) = self.open.pop() {
            self.put(Value::Array(items));
        }
    }
}
