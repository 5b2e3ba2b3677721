//! Property tests: the parsers and text handlers that take what a server or a user wrote never
//! panic on arbitrary input, and keep their promises (an SSE stream parses the same however it
//! is chunked; a scenario file's error points into the file; redacted text holds no secret;
//! server text made visible holds no control character).

use proptest::prelude::*;
use serde_json::Value;

use crate::report::redact::Redactor;
use crate::report::safe;
use crate::scenario::{load, template};
use crate::transport::sse::SseParser;

/// Bytes that look like SSE more often than random bytes would.
fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(b"data: {\"a\":1}\n".to_vec()),
            Just(b"event: message\n".to_vec()),
            Just(b"id: 7\r\n".to_vec()),
            Just(b"retry: 10\n".to_vec()),
            Just(b": keep-alive\n".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            prop::collection::vec(any::<u8>(), 0..40),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// Text that looks like a scenario file more often than random text would.
fn scenario_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("id = \"x\"\n".to_string()),
            Just("area = \"tools\"\n".to_string()),
            Just("[[step]]\nname = \"s\"\nmethod = \"ping\"\n".to_string()),
            Just("[[check]]\nid = \"c\"\nlevel = \"MUST\"\n".to_string()),
            Just("params = { uri = \"{{capture.u}}\" }\n".to_string()),
            Just("[[check.rule]]\nverdict = \"pass\"\n".to_string()),
            Just("{{".to_string()),
            Just("\"\"\"".to_string()),
            any::<String>(),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sse_parsing_never_panics_and_ignores_chunking(bytes in sse_bytes(), cut in any::<prop::sample::Index>()) {
        let whole = SseParser::default().feed(&bytes);
        let at = cut.index(bytes.len() + 1);
        let mut parser = SseParser::default();
        let mut split = parser.feed(&bytes[..at]);
        split.extend(parser.feed(&bytes[at..]));
        prop_assert_eq!(whole, split);
    }

    #[test]
    fn a_scenario_file_never_panics_the_loader_and_errors_point_into_it(text in scenario_text()) {
        if let Err(e) = load::parse("x.toml", &text) {
            prop_assert!(e.line >= 1 && e.column >= 1);
            prop_assert!(e.line <= text.lines().count() + 1, "line {} of {}", e.line, text.lines().count());
            prop_assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn placeholders_never_panic(text in any::<String>(), braces in "[{}a-z.?/ ]{0,30}") {
        let lookup = |name: &str| (name == "a").then(|| Value::from(1));
        let _ = template::expand_str(&text, &lookup);
        let _ = template::expand_str(&braces, &lookup);
        let _ = template::expand_str(&format!("{{{{{braces}}}}}"), &lookup);
    }

    #[test]
    fn redaction_never_panics_and_leaves_no_long_secret(
        secrets in prop::collection::vec("[ -~]{0,12}", 0..4),
        text in any::<String>(),
    ) {
        let redactor = Redactor::new(&secrets);
        let mut seeded = text.clone();
        for s in &secrets {
            seeded.push(' ');
            seeded.push_str(s);
        }
        let out = redactor.wire(&seeded);
        for s in secrets.iter().filter(|s| s.chars().count() >= 4) {
            // What is left is the mark, or a longer secret's mark around it.
            prop_assert!(!out.contains(s.as_str()) || "[redacted]".contains(s.as_str()), "{:?} in {:?}", s, out);
        }
        let _ = redactor.prose(&text);
        let _ = redactor.header(&text);
    }

    #[test]
    fn visible_text_holds_no_control_character(text in any::<String>()) {
        let shown = safe::terminal(&text);
        prop_assert!(!shown.chars().any(|c| c.is_control() && c != '\t'), "{:?}", shown);
        let md = safe::md_text(&text);
        prop_assert!(!md.contains('\n'));
        let code = safe::md_code(&text);
        prop_assert!(!code.contains('\n'));
    }
}
