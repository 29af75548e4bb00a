//! The pinned official MCP JSON Schemas.
//!
//! - [`PinManifest`]: our pin manifest (`pins.json` of this crate), compiled in.
//! - [`SchemaStore`]: finds verified copies (`schemas/<version>/schema.json` of the workspace, then
//!   `../shared/schemas`, or a directory named by `MCP_WIRE_SCHEMAS`), checking each sha256.
//! - [`SchemaOracle`]: "validate this value as definition D of revision V" with the `jsonschema`
//!   crate, one compiled validator per definition, cached.
//! - [`UPSTREAM_FIXES`]: the named corrections of the pinned files where they contradict their
//!   `schema.ts` (a fractional elicitation answer rendered `integer`), applied by the oracle and
//!   the code generator alike.
//!
//! The schema files are never committed; `cargo xtask schemas` puts copies in place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use mcp_wire::ProtocolVersion;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

mod upstream;

pub use upstream::{UPSTREAM_FIXES, UpstreamFix, apply_upstream_fixes};

/// Environment variable naming a directory laid out as `<version>/schema.json`.
pub const SCHEMAS_ENV: &str = "MCP_WIRE_SCHEMAS";

const PINS_JSON: &str = include_str!("../pins.json");

/// Errors of this layer: missing or corrupt schema files, unknown definitions.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SchemaError {
    /// No copy of the schema was found in any searched place.
    #[error(
        "no pinned schema for {version}: looked in {searched}; run `cargo xtask schemas` to put verified copies in place"
    )]
    Missing {
        /// The revision whose schema is missing.
        version: ProtocolVersion,
        /// The places searched, comma-separated.
        searched: String,
    },
    /// A file's sha256 differs from the manifest.
    #[error("{path}: sha256 {found} does not match the pinned {expected}")]
    Mismatch {
        /// The file that was checked.
        path: PathBuf,
        /// The manifest's digest.
        expected: String,
        /// The file's digest.
        found: String,
    },
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A file is not valid JSON.
    #[error("{path}: not JSON: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// The schema has no definition of that name.
    #[error("revision {version} has no schema definition named {name}")]
    NoSuchDefinition {
        /// The revision.
        version: ProtocolVersion,
        /// The definition name that was asked for.
        name: String,
    },
    /// An upstream fix found nothing to correct: the pinned schema no longer has the mistake
    /// (drop the fix) or changed shape (revise it).
    #[error("{version}: upstream fix {name} no longer applies: {message}")]
    StaleFix {
        /// The revision.
        version: ProtocolVersion,
        /// The fix ([`UpstreamFix::name`]).
        name: &'static str,
        /// What it found.
        message: String,
    },
    /// `jsonschema` refused to compile a definition.
    #[error("cannot compile definition {name} of {version}: {message}")]
    Compile {
        /// The revision.
        version: ProtocolVersion,
        /// The definition.
        name: String,
        /// What `jsonschema` said.
        message: String,
    },
}

/// One revision's entry in the pin manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct PinnedFile {
    /// Path of the file inside the upstream repository at the pinned commit.
    pub path: String,
    /// Hex sha256 of the file.
    pub sha256: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// The pinned examples directory (2026-07-28 only).
#[derive(Debug, Clone, Deserialize)]
pub struct PinnedExamples {
    /// The revision the examples belong to.
    pub version: String,
    /// Path of the directory inside the upstream repository.
    pub path: String,
    /// Number of example files.
    pub files: usize,
    /// Digest over the tree, see [`examples_tree_sha256`].
    pub tree_sha256: String,
}

/// Our pin manifest (`pins.json` of this crate).
#[derive(Debug, Clone, Deserialize)]
pub struct PinManifest {
    /// Upstream repository, `owner/name`.
    pub repository: String,
    /// The pinned upstream commit.
    pub commit: String,
    /// Date of that commit.
    pub commit_date: String,
    /// URL template with `{repository}`, `{commit}` and `{path}` placeholders.
    pub raw_url_template: String,
    /// One entry per revision, keyed by the version string.
    pub versions: BTreeMap<String, PinnedFile>,
    /// The pinned examples.
    pub examples: PinnedExamples,
}

impl PinManifest {
    /// The manifest compiled into this crate.
    pub fn get() -> &'static PinManifest {
        static MANIFEST: std::sync::OnceLock<PinManifest> = std::sync::OnceLock::new();
        MANIFEST.get_or_init(|| {
            // The manifest is part of this crate's source; a broken one fails every test at once.
            serde_json::from_str(PINS_JSON).expect("the crate's pins.json is valid")
        })
    }

    /// The entry for one revision.
    pub fn file(&self, version: ProtocolVersion) -> &PinnedFile {
        // `tests::manifest_covers_every_revision` proves every revision has an entry.
        &self.versions[version.as_str()]
    }

    /// The download URL of a path at the pinned commit.
    pub fn url(&self, path: &str) -> String {
        self.raw_url_template
            .replace("{repository}", &self.repository)
            .replace("{commit}", &self.commit)
            .replace("{path}", path)
    }
}

/// Hex sha256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Digest of an examples tree: sha256 over the sorted lines `<relative path>\0<file sha256>\n`.
pub fn examples_tree_sha256(dir: &Path) -> Result<(String, usize), SchemaError> {
    let mut entries = Vec::new();
    collect_files(dir, dir, &mut entries)?;
    entries.sort();
    let text: String = entries
        .iter()
        .map(|(rel, sha)| format!("{rel}\0{sha}\n"))
        .collect();
    Ok((sha256_hex(text.as_bytes()), entries.len()))
}

fn collect_files(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(String, String)>,
) -> Result<(), SchemaError> {
    let io = |source| SchemaError::Io {
        path: dir.to_owned(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect_files(root, &path, out)?;
        } else {
            let bytes = std::fs::read(&path).map_err(|source| SchemaError::Io {
                path: path.clone(),
                source,
            })?;
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, sha256_hex(&bytes)));
        }
    }
    Ok(())
}

/// The workspace root, as compiled in.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Finds and loads verified schema files.
#[derive(Debug, Clone)]
pub struct SchemaStore {
    roots: Vec<PathBuf>,
}

impl Default for SchemaStore {
    fn default() -> Self {
        Self::discover()
    }
}

impl SchemaStore {
    /// The standard search order: `$MCP_WIRE_SCHEMAS`, the workspace's `schemas/`, then
    /// `../shared/schemas` next to the workspace.
    pub fn discover() -> Self {
        let mut roots = Vec::new();
        if let Some(dir) = std::env::var_os(SCHEMAS_ENV) {
            roots.push(PathBuf::from(dir));
        }
        let ws = workspace_root();
        roots.push(ws.join("schemas"));
        roots.push(ws.join("../shared/schemas"));
        Self { roots }
    }

    /// A store that searches only the given directories, in order.
    pub fn with_roots(roots: Vec<PathBuf>) -> Self {
        Self { roots }
    }

    /// The directories searched, in order.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Path of the first copy of `version`'s schema, without verifying it.
    pub fn find(&self, version: ProtocolVersion) -> Result<PathBuf, SchemaError> {
        self.roots
            .iter()
            .map(|r| r.join(version.as_str()).join("schema.json"))
            .find(|p| p.is_file())
            .ok_or_else(|| SchemaError::Missing {
                version,
                searched: self.searched(),
            })
    }

    fn searched(&self) -> String {
        self.roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The verified bytes of `version`'s schema.
    pub fn bytes(&self, version: ProtocolVersion) -> Result<Vec<u8>, SchemaError> {
        self.read_verified(version).map(|(_, bytes)| bytes)
    }

    /// The verified schema of `version`, parsed.
    pub fn schema(&self, version: ProtocolVersion) -> Result<Value, SchemaError> {
        let (path, bytes) = self.read_verified(version)?;
        serde_json::from_slice(&bytes).map_err(|source| SchemaError::Json { path, source })
    }

    /// Finds, reads and verifies `version`'s schema once, keeping its path for error messages.
    fn read_verified(&self, version: ProtocolVersion) -> Result<(PathBuf, Vec<u8>), SchemaError> {
        let path = self.find(version)?;
        let bytes = std::fs::read(&path).map_err(|source| SchemaError::Io {
            path: path.clone(),
            source,
        })?;
        verify_bytes(&path, &bytes, &PinManifest::get().file(version).sha256)?;
        Ok((path, bytes))
    }

    /// The verified 2026-07-28 examples directory (`<root>/2026-07-28/examples`).
    pub fn examples_dir(&self) -> Result<PathBuf, SchemaError> {
        let dir = self
            .roots
            .iter()
            .map(|r| {
                r.join(ProtocolVersion::V2026_07_28.as_str())
                    .join("examples")
            })
            .find(|p| p.is_dir())
            .ok_or_else(|| SchemaError::Missing {
                version: ProtocolVersion::V2026_07_28,
                searched: format!("examples under {}", self.searched()),
            })?;
        let (found, _) = examples_tree_sha256(&dir)?;
        let expected = &PinManifest::get().examples.tree_sha256;
        if &found != expected {
            return Err(SchemaError::Mismatch {
                path: dir,
                expected: expected.clone(),
                found,
            });
        }
        Ok(dir)
    }
}

/// Checks bytes against a pinned digest.
pub fn verify_bytes(path: &Path, bytes: &[u8], expected: &str) -> Result<(), SchemaError> {
    let found = sha256_hex(bytes);
    if found == expected {
        Ok(())
    } else {
        Err(SchemaError::Mismatch {
            path: path.to_owned(),
            expected: expected.to_owned(),
            found,
        })
    }
}

/// The key under which a revision's schema keeps its definitions.
pub fn definitions_key(version: ProtocolVersion) -> &'static str {
    if version >= ProtocolVersion::V2025_11_25 {
        "$defs"
    } else {
        "definitions"
    }
}

/// One schema violation: where in the value, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer into the validated value.
    pub path: String,
    /// What the validator said.
    pub message: String,
}

/// Validates values as named definitions of one revision's pinned schema.
///
/// [`SchemaOracle::load`] validates against the pinned schema with the [`UPSTREAM_FIXES`]
/// applied, the contract the generated types and the boundary implement: where the pinned
/// `schema.json` contradicts its `schema.ts` (a fractional elicitation answer rendered
/// `integer`), a value `schema.ts` allows is valid. `mcp-frames validate --schema` loads its
/// oracle this way. [`SchemaOracle::from_schema`] validates against a document exactly as given
/// (the pinned file unfixed, to see what it says alone).
pub struct SchemaOracle {
    version: ProtocolVersion,
    schema: Value,
    validators: Mutex<BTreeMap<String, Arc<jsonschema::Validator>>>,
}

impl std::fmt::Debug for SchemaOracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaOracle")
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl SchemaOracle {
    /// An oracle for `version`: the schema from `store`, with the [`UPSTREAM_FIXES`] applied.
    pub fn load(store: &SchemaStore, version: ProtocolVersion) -> Result<Self, SchemaError> {
        let mut schema = store.schema(version)?;
        apply_upstream_fixes(version, &mut schema)?;
        Ok(Self::from_schema(version, schema))
    }

    /// An oracle over an already loaded schema document, used as given (no fixes applied).
    pub fn from_schema(version: ProtocolVersion, schema: Value) -> Self {
        Self {
            version,
            schema,
            validators: Mutex::new(BTreeMap::new()),
        }
    }

    /// The revision this oracle validates against.
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The whole schema document.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The names of every definition, sorted.
    pub fn definition_names(&self) -> Vec<String> {
        self.schema[definitions_key(self.version)]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Whether the schema defines `name`.
    pub fn has_definition(&self, name: &str) -> bool {
        self.schema[definitions_key(self.version)]
            .get(name)
            .is_some()
    }

    fn validator(&self, name: &str) -> Result<Arc<jsonschema::Validator>, SchemaError> {
        let mut cache = self
            .validators
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(v) = cache.get(name) {
            return Ok(v.clone());
        }
        if !self.has_definition(name) {
            return Err(SchemaError::NoSuchDefinition {
                version: self.version,
                name: name.to_owned(),
            });
        }
        // A copy of the root document whose own `$ref` points at the definition: every internal
        // `#/definitions/...` reference still resolves against the same document.
        let mut root = self.schema.clone();
        if let Some(obj) = root.as_object_mut() {
            obj.insert(
                "$ref".into(),
                Value::String(format!("#/{}/{}", definitions_key(self.version), name)),
            );
        }
        let validator = jsonschema::validator_for(&root).map_err(|e| SchemaError::Compile {
            version: self.version,
            name: name.to_owned(),
            message: e.to_string(),
        })?;
        let validator = Arc::new(validator);
        cache.insert(name.to_owned(), validator.clone());
        Ok(validator)
    }

    /// Validates `value` as definition `name`; `Ok(vec![])` means valid.
    pub fn violations(&self, name: &str, value: &Value) -> Result<Vec<Violation>, SchemaError> {
        let validator = self.validator(name)?;
        Ok(validator
            .iter_errors(value)
            .map(|e| Violation {
                path: e.instance_path().to_string(),
                message: e.to_string(),
            })
            .collect())
    }

    /// Whether `value` is valid as definition `name`.
    pub fn is_valid(&self, name: &str, value: &Value) -> Result<bool, SchemaError> {
        Ok(self.validator(name)?.is_valid(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_covers_every_revision() {
        let m = PinManifest::get();
        for v in ProtocolVersion::ALL {
            let f = m.file(v);
            assert_eq!(f.path, format!("schema/{v}/schema.json"));
            assert_eq!(f.sha256.len(), 64);
        }
        assert_eq!(m.versions.len(), ProtocolVersion::ALL.len());
        assert!(
            m.url("schema/x")
                .ends_with("/b0f60ba5409db7a6582440a7b473cc0398890f15/schema/x")
        );
    }

    #[test]
    fn missing_schema_names_the_fix() {
        let store = SchemaStore::with_roots(vec![PathBuf::from("/nonexistent-mcp-wire")]);
        let err = store.find(ProtocolVersion::V2025_06_18).unwrap_err();
        assert!(err.to_string().contains("cargo xtask schemas"), "{err}");
    }

    #[test]
    fn corrupt_copy_is_a_mismatch() {
        let err = verify_bytes(Path::new("x.json"), b"{}", &"0".repeat(64)).unwrap_err();
        assert!(matches!(err, SchemaError::Mismatch { .. }));
    }

    /// A fractional answer to a number field is valid wherever schema.ts types the answers
    /// `number`, although the pinned schema.json renders them `integer`.
    #[test]
    fn fractional_elicitation_answers_validate_where_schema_ts_says_number() {
        use serde_json::json;
        let store = SchemaStore::discover();
        let answer =
            json!({"action": "accept", "content": {"x": 2.5, "n": 3, "s": "a", "b": true}});
        let object = json!({"action": "accept", "content": {"x": {"a": 1}}});
        for v in [
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ] {
            let oracle = SchemaOracle::load(&store, v).expect("pinned schema available");
            assert_eq!(
                oracle.violations("ElicitResult", &answer).unwrap(),
                [],
                "{v}"
            );
            assert!(!oracle.is_valid("ElicitResult", &object).unwrap(), "{v}");
            // The schema as pinned refuses it: the named fix is what admits it.
            let pinned = SchemaOracle::from_schema(v, store.schema(v).unwrap());
            assert!(!pinned.is_valid("ElicitResult", &answer).unwrap(), "{v}");
        }
    }

    /// A fix that finds nothing to correct fails, naming itself: once upstream renders the
    /// answers `number`, the generator and the oracle stop until the fix is dropped.
    #[test]
    fn an_upstream_fix_that_no_longer_applies_fails_loudly() {
        let store = SchemaStore::discover();
        let v = ProtocolVersion::V2025_11_25;
        let mut doc = store.schema(v).unwrap();
        apply_upstream_fixes(v, &mut doc).expect("the pinned schema needs its fixes");
        let err = apply_upstream_fixes(v, &mut doc).unwrap_err();
        assert!(
            matches!(
                &err,
                SchemaError::StaleFix {
                    name: "elicit_result_content_numbers",
                    ..
                }
            ),
            "{err}"
        );
        // Every revision a fix names needs it.
        for v in ProtocolVersion::ALL {
            let mut doc = store.schema(v).unwrap();
            apply_upstream_fixes(v, &mut doc).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn oracle_validates_definitions() {
        let store = SchemaStore::discover();
        for v in ProtocolVersion::ALL {
            let oracle = SchemaOracle::load(&store, v).expect("pinned schema available");
            assert!(
                oracle
                    .is_valid(
                        "Implementation",
                        &serde_json::json!({"name":"a","version":"1"})
                    )
                    .unwrap()
            );
            let bad = oracle
                .violations("Implementation", &serde_json::json!({"name": 3}))
                .unwrap();
            assert!(!bad.is_empty(), "{v}: a numeric name must be rejected");
            assert!(matches!(
                oracle.violations("NoSuchThing", &Value::Null),
                Err(SchemaError::NoSuchDefinition { .. })
            ));
        }
    }
}
