//! The session layer is the library's: [`mcp_wire::session`] (revision detection, ids per
//! direction, the client identity, what each response answers). This module re-exports it for
//! the CLI's modules and runs it over the shared corpus.

pub use mcp_wire::session::*;

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wire::ProtocolVersion;

    use ProtocolVersion::*;

    /// Runs a session over a corpus file, each line read as `translate` reads it; returns each
    /// line's revision or error text.
    fn detect(name: &str) -> Vec<(usize, Result<Option<ProtocolVersion>, String>)> {
        let path = mcp_wire_tests::corpus_dir().join(name);
        // (`corpus_dir` panics with what to set when the corpus is missing.)
        let text = std::fs::read_to_string(&path).expect("corpus file readable");
        let mut s = Session::new();
        (1..)
            .zip(text.lines())
            .map(|(line, l)| {
                let (r, env) = crate::stream::read(line, l.as_bytes()).unwrap();
                let got = s.observe(line, r.format.direction(), &env, &r.frame);
                (line, got.map(|c| c.revision).map_err(|e| e.to_string()))
            })
            .collect()
    }

    #[test]
    fn handshake_sessions_are_detected_from_initialize() {
        for (name, v) in [
            ("pysdk-2024-11-05.jsonl", V2024_11_05),
            ("pysdk-2025-03-26.jsonl", V2025_03_26),
            ("pysdk-2025-06-18.jsonl", V2025_06_18),
            ("pysdk-2025-11-25.jsonl", V2025_11_25),
            ("tsv2-2025-11-25.jsonl", V2025_11_25),
        ] {
            let got = detect(name);
            assert!(got.len() > 40, "{name}: {} lines", got.len());
            for (line, r) in got {
                assert_eq!(r, Ok(Some(v)), "{name}:{line}");
            }
        }
    }

    #[test]
    fn the_2026_session_follows_meta_and_a_refused_initialize() {
        let got = detect("pysdk-2026-07-28.jsonl");
        let odd: Vec<_> = got
            .iter()
            .filter(|(_, r)| *r != Ok(Some(V2026_07_28)))
            .collect();
        // Line 84 offers 2025-11-25 in an `initialize` the server turns down (line 85 answers
        // at the offered revision, then the session is back at 2026-07-28); line 76 claims a
        // revision nobody knows, and its answer (line 77) answers a request with no revision.
        assert_eq!(
            odd,
            vec![
                &(
                    76,
                    Err(
                        "unknown protocol revision \"2099-01-01\"; known: 2024-11-05, \
                         2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28"
                            .into()
                    )
                ),
                &(77, Ok(None)),
                &(84, Ok(Some(V2025_11_25))),
                &(85, Ok(Some(V2025_11_25))),
            ]
        );
        assert_eq!(got.len(), 87);
    }
}
