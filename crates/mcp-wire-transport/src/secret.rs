//! [`Secret`]: a credential that never reaches a log.

use serde::{Deserialize, Serialize};

/// A credential: shown as `…` by `Debug`, so it never reaches a log by accident.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The credential itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;

    /// A secret given as text (a command-line value).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(Self::new(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_the_secret() {
        let secret: Secret = "hunter2".parse().unwrap();
        assert_eq!(format!("{secret:?}"), "Secret(…)");
        assert_eq!(secret.expose(), "hunter2");
    }
}
