//! One module per fuzz target: `run(data)` and `seeds(sources)`.

pub mod parse_as;
pub mod router;
pub mod serialize_for;
pub mod translate;
