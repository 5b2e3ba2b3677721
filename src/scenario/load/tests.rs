//! Unit tests of [`super`].

use std::time::Duration;

use super::*;
use crate::record::Status;
use crate::scenario::model::{Part, Query};

const MINIMAL: &str = r#"
id = "ping-demo"
area = "lifecycle"
title = "ping"

[[step]]
name = "ping"
request = { method = "ping" }

[[check]]
id = "ping-demo-result"
title = "ping gets a result"
level = "MUST"
spec = [{ version = "2025-11-25", section = "basic/utilities/ping" }]
step = "ping"
expect = "an empty result"
rule = [{ when = { reply = "result" }, verdict = "pass" }]
"#;

#[test]
fn a_placeholder_in_a_comment_is_only_words() {
    // As the README's example has it: a comment may speak of a placeholder no step fills.
    let commented = MINIMAL.replace(
        "request = { method = \"ping\" }",
        "request = { method = \"ping\" } # later steps use \"{{capture.first}}\" — é\n# {{nothing}}",
    );
    assert!(parse("demo.toml", &commented).is_ok());
    // A `#` inside a string starts no comment: the placeholder after it is still judged.
    let in_string = MINIMAL.replace(
        "request = { method = \"ping\" }",
        "request = { method = \"ping\", params = { v = \"# {{capture.none}}\" } }",
    );
    let e = parse("demo.toml", &in_string).unwrap_err();
    assert_eq!(e.line, 8, "{e}");
    let literal = MINIMAL.replace(
        "request = { method = \"ping\" }",
        "request = { method = \"ping\", params = { v = '# \\' } } # {{fine}}",
    );
    assert!(parse("demo.toml", &literal).is_ok());
    let multiline = MINIMAL.replace(
        "title = \"ping\"",
        "title = \"ping\"\ndescription = \"\"\"\n# {{capture.none}}\n\"\"\"",
    );
    assert!(parse("demo.toml", &multiline).is_err());
}

#[test]
fn a_placeholder_that_names_nothing_is_a_load_error_at_its_place() {
    let typo = MINIMAL.replace(
        "request = { method = \"ping\" }",
        "request = { method = \"ping\", params = { v = \"{{protocolVersoin}}\" } }",
    );
    let e = parse("demo.toml", &typo).unwrap_err();
    assert_eq!((e.line, e.column), (8, 46), "{e}");
    assert!(e.message.contains("names nothing"), "{e}");
    let capture = MINIMAL.replace(
        "verdict = \"pass\" }",
        "verdict = \"pass\", message = \"got {{capture.missing}}\" }",
    );
    let e = parse("demo.toml", &capture).unwrap_err();
    assert!(e.message.contains("no step of this file makes"), "{e}");
    let fine = MINIMAL.replace(
        "verdict = \"pass\" }",
        "verdict = \"pass\", message = \"{{/result}} at {{protocolVersion}} ({{status?}})\" }",
    );
    parse("demo.toml", &fine).unwrap();
    // Every query is a placeholder, an earlier step's too; the spellings from before queries
    // were placeholders are refused with their new ones.
    let query = MINIMAL.replace(
        "verdict = \"pass\" }",
        "verdict = \"pass\", message = \"{{sent/id}} {{header.content-type}} {{step.ping/result}} {{version}}\" }",
    );
    parse("demo.toml", &query).unwrap();
    for (old, new) in [
        ("{{reply/error/code}}", "`{{/error/code}}`"),
        ("{{http_status}}", "`{{status}}`"),
        ("{{reply}}", "a query, and the query `reply` the kinds"),
    ] {
        let text = MINIMAL.replace(
            "verdict = \"pass\" }",
            &format!("verdict = \"pass\", message = \"got {old}\" }}"),
        );
        let e = parse("demo.toml", &text).unwrap_err();
        assert!(e.message.contains(&format!("is now {new}")), "{e}");
    }
    let unknown_step = MINIMAL.replace(
        "verdict = \"pass\" }",
        "verdict = \"pass\", message = \"{{step.nope/result}}\" }",
    );
    let e = parse("demo.toml", &unknown_step).unwrap_err();
    assert!(e.message.contains("no step is named `nope`"), "{e}");
    // A step is built before it has an exchange: a query there is refused where it is written,
    // and so is a placeholder that names nothing at all.
    for (in_step, says) in [
        ("{{status}}", "only a check's rules fill"),
        ("{{}}", "names nothing"),
    ] {
        let text = MINIMAL.replace(
            "request = { method = \"ping\" }",
            &format!("request = {{ method = \"ping\", params = {{ v = \"{in_step}\" }} }}"),
        );
        let e = parse("demo.toml", &text).unwrap_err();
        assert_eq!(e.line, 8, "{e}");
        assert!(e.message.contains(says), "{e}");
    }
}

#[test]
fn a_minimal_scenario_loads() {
    let scenario = parse("demo.toml", MINIMAL).unwrap();
    assert_eq!(scenario.checks[0].def.source, "demo.toml:11");
    assert_eq!(scenario.checks[0].otherwise, Status::Fail);
    assert_eq!(
        scenario.checks[0].def.spec[0].url,
        "https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping"
    );
}

#[test]
fn unknown_fields_point_at_their_line() {
    let text = MINIMAL.replace(
        "expect = \"an empty result\"",
        "expect = \"x\"\nexpcet = \"typo\"",
    );
    let err = parse("demo.toml", &text).unwrap_err();
    assert_eq!((err.line, err.column), (17, 1), "{err}");
    assert!(err.message.contains("expcet"), "{err}");
    assert!(err.to_string().starts_with("demo.toml:17:1: "), "{err}");
}

#[test]
fn semantic_errors_point_at_the_value() {
    let err = parse(
        "demo.toml",
        &MINIMAL.replace("level = \"MUST\"", "level = \"MUSTN'T\""),
    )
    .unwrap_err();
    assert_eq!((err.line, err.column), (13, 9), "{err}");
    assert!(err.message.contains("unknown level"));
    let err = parse(
        "demo.toml",
        &MINIMAL.replace("step = \"ping\"", "step = \"pong\""),
    )
    .unwrap_err();
    assert!(err.message.contains("no step is named `pong`"), "{err}");
    let err = parse(
        "demo.toml",
        &MINIMAL.replace(
            "request = { method = \"ping\" }",
            "notification = { method = \"x\" }",
        ),
    )
    .unwrap_err();
    assert!(err.message.contains("connection of its own"), "{err}");
    let err = parse(
        "demo.toml",
        &MINIMAL.replace("reply = \"result\"", "reply = \"reslut\""),
    )
    .unwrap_err();
    assert!(
        err.message.contains("`reply`: unknown reply kind `reslut`"),
        "{err}"
    );
}

#[test]
fn a_polling_step_names_where_to_look_and_when_to_stop() {
    let with = |poll: &str| {
        parse(
            "demo.toml",
            &MINIMAL.replace(
                "request = { method = \"ping\" }",
                &format!("request = {{ method = \"ping\" }}\n{poll}"),
            ),
        )
    };
    let scenario =
        with(r#"poll = { until = { "/result/status" = "completed" }, within_ms = 2000 }"#).unwrap();
    let Mode::Poll(poll) = &scenario.steps[0].mode else {
        panic!("{:?}", scenario.steps[0].mode)
    };
    assert_eq!(poll.until_text, r#"/result/status = "completed""#);
    assert_eq!(poll.until.0.len(), 1);
    assert_eq!(poll.within, Duration::from_secs(2));
    let default = with(r#"poll = { until = { "/result/status" = "completed" } }"#).unwrap();
    let Mode::Poll(poll) = &default.steps[0].mode else {
        panic!("{:?}", default.steps[0].mode)
    };
    assert_eq!(poll.within, Duration::from_secs(10));
    let err = with(r#"poll = { until = { "result/status" = "completed" } }"#).unwrap_err();
    assert!(err.message.contains("a JSON pointer"), "{err}");
    assert_eq!(err.line, 9, "{err}");
    let err =
        with("poll = { until = { \"/result/status\" = \"x\" } }\nconcurrent = 2").unwrap_err();
    assert!(
        err.message
            .contains("`concurrent` and `poll` do not go together: a step is sent one way"),
        "{err}"
    );
}

#[test]
fn transport_names_one_transport_or_a_list() {
    let with = |value: &str| {
        MINIMAL.replace(
            "title = \"ping\"\n",
            &format!("title = \"ping\"\n[requires]\ntransport = {value}\n"),
        )
    };
    let one = parse("demo.toml", &with("\"sse\"")).unwrap();
    assert_eq!(one.requires.transports, [TransportKind::LegacySse]);
    let two = parse("demo.toml", &with("[\"stdio\", \"sse\", \"stdio\"]")).unwrap();
    assert_eq!(
        two.requires.transports,
        [TransportKind::Stdio, TransportKind::LegacySse]
    );
    assert_eq!(
        two.checks[0].def.transports,
        [TransportKind::Stdio, TransportKind::LegacySse]
    );
    // Over HTTP+SSE a step may GET (a probe of the SSE endpoint), and nothing else.
    let get = with("\"sse\"")
        .replace("request = { method = \"ping\" }", "http_method = \"GET\"")
        .replace(
            "title = \"ping\"\n",
            "title = \"ping\"\nsession = \"fresh\"\n",
        );
    if let Err(err) = parse("demo.toml", &get) {
        panic!("{err}");
    }
    let delete = get.replace("\"GET\"", "\"DELETE\"");
    let err = parse("demo.toml", &delete).unwrap_err();
    assert!(err.message.contains("http transport"), "{err}");
    for (bad, says) in [
        ("[\"stdio\", \"smtp\"]", "unknown transport `smtp`"),
        ("[]", "lists no transport"),
        ("3", "a transport's name"),
    ] {
        let err = parse("demo.toml", &with(bad)).unwrap_err();
        assert_eq!(err.line, 6, "{err}");
        assert!(err.message.contains(says), "{bad}: {err}");
    }
}

#[test]
fn background_steps_are_single_requests_on_their_own_connection() {
    let background =
        "request = { method = \"ping\" }\nbackground = { once_notified = \"notifications/x\" }";
    // On the shared connection: refused, at the step's `background`.
    let text = MINIMAL.replace("request = { method = \"ping\" }", background);
    let err = parse("demo.toml", &text).unwrap_err();
    assert_eq!(err.line, 9, "{err}");
    assert!(err.message.contains("connection of its own"), "{err}");
    // On a connection of its own: loads, and only once per scenario.
    let own = text.replace("title = \"ping\"", "title = \"ping\"\nsession = \"fresh\"");
    let scenario = parse("demo.toml", &own).unwrap();
    assert_eq!(scenario.steps[0].mode.background(), Some("notifications/x"));
    let twice = own.replace(
        "[[check]]",
        &format!("[[step]]\nname = \"again\"\n{background}\n\n[[check]]"),
    );
    let err = parse("demo.toml", &twice).unwrap_err();
    assert!(err.message.contains("at most one `background`"), "{err}");
}

#[test]
fn for_each_and_pages_go_with_a_single_request_and_say_what_no_item_means() {
    let paged = MINIMAL.replace(
        "request = { method = \"ping\" }",
        "request = { method = \"resources/list\" }\npages = 4\ncapture = { all = \"/result/resources\" }\n\n[[step]]\nname = \"read\"\nfor_each = { in = \"all\", max = 3, matching = { required = [\"uri\"] }, none = \"no listed resource has a uri\" }\nrequest = { method = \"resources/read\", params = { uri = \"{{each/uri}}\" } }",
    );
    let scenario = parse("demo.toml", &paged).unwrap();
    assert_eq!(scenario.steps[0].mode.pages(), 4);
    let each = scenario.steps[1].mode.each().unwrap();
    assert_eq!((each.capture.as_str(), each.max), ("all", 3));
    let items = each.items(Some(
        &serde_json::json!([{"uri": "a"}, {"name": "no uri"}, {"uri": "b"}]),
    ));
    assert_eq!(
        items,
        vec![
            serde_json::json!({"uri": "a"}),
            serde_json::json!({"uri": "b"})
        ]
    );
    // A `matching` schema is of the dialect its `$schema` names: draft-04's boolean
    // `exclusiveMaximum`, which 2020-12 refuses, selects by its own rule.
    let draft4 = paged.replace(
        "matching = { required = [\"uri\"] }",
        "matching = { \"$schema\" = \"http://json-schema.org/draft-04/schema#\", properties = { n = { maximum = 5, exclusiveMaximum = true } } }",
    );
    let scenario = parse("demo.toml", &draft4).unwrap();
    let each = scenario.steps[1].mode.each().unwrap();
    let items = each.items(Some(&serde_json::json!([{"n": 5}, {"n": 4}])));
    assert_eq!(items, vec![serde_json::json!({"n": 4})]);
    let broken = paged.replace("required = [\"uri\"]", "required = 3");
    let e = parse("demo.toml", &broken).unwrap_err();
    assert!(
        e.message
            .contains("`for_each.matching` is no valid JSON Schema"),
        "{e}"
    );
    let e = parse("demo.toml", &paged.replace("pages = 4", "pages = 1")).unwrap_err();
    assert!(e.message.contains("`pages` is 2 to 16"), "{e}");
    let e = parse("demo.toml", &paged.replace("max = 3", "max = 17")).unwrap_err();
    assert!(e.message.contains("1 to 16 items"), "{e}");
    let e = parse(
        "demo.toml",
        &paged.replace("for_each = {", "concurrent = 2\nfor_each = {"),
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("step `read`: `concurrent` and `for_each` do not go together"),
        "{e}"
    );
    let e = parse(
        "demo.toml",
        &paged.replace(
            "for_each = {",
            "alongside = { method = \"notifications/cancelled\", after_ms = 1 }\nfor_each = {",
        ),
    )
    .unwrap_err();
    assert!(e.message.contains("go with a single `request`"), "{e}");
    let e = parse(
        "demo.toml",
        &paged.replace(", none = \"no listed resource has a uri\"", ""),
    )
    .unwrap_err();
    assert!(e.message.contains("none"), "{e}");
}

#[test]
fn a_fetch_step_gets_a_document_over_http_and_sends_nothing_else() {
    let http = MINIMAL.replace(
        "title = \"ping\"\n",
        "title = \"ping\"\n[requires]\ntransport = \"http\"\n",
    );
    let fetch = |with: &str| {
        http.replace(
            "request = { method = \"ping\" }",
            &format!("fetch = [\"{{{{capture.x?}}}}\", \"{{{{server.origin}}}}/.well-known/a{{{{server.path}}}}\"]{with}\ncapture = {{ x = \"challenge.resource_metadata\" }}"),
        )
    };
    let scenario = parse("demo.toml", &fetch("")).unwrap_or_else(|e| panic!("{e}"));
    let StepSend::Fetch(urls) = &scenario.steps[0].send else {
        panic!("{:?}", scenario.steps[0].send)
    };
    assert_eq!(urls.len(), 2);
    assert_eq!(
        scenario.steps[0].capture[0].query,
        Query::Step {
            step: None,
            part: Part::Challenge("resource_metadata".into())
        }
    );
    // Nothing that sends a message goes with it.
    let err = parse("demo.toml", &fetch("\nheaders = { A = \"b\" }")).unwrap_err();
    assert!(
        err.message.contains("`headers` does not go with it"),
        "{err}"
    );
    // Once per item of a captured list, with the URLs made from each; never paged.
    let each = parse(
        "demo.toml",
        &fetch("\nfor_each = { in = \"x\", max = 2, none = \"no URL\" }"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let each = each.steps[0].mode.each().expect("for_each kept");
    assert_eq!((each.capture.as_str(), each.max), ("x", 2));
    let err = parse("demo.toml", &fetch("\npages = 2")).unwrap_err();
    assert!(err.message.contains("`pages` does not go with it"), "{err}");
    // HTTP only, and only http(s) URLs.
    let stdio = fetch("").replace("transport = \"http\"", "transport = \"stdio\"");
    let err = parse("demo.toml", &stdio).unwrap_err();
    assert!(err.message.contains("HTTP transport"), "{err}");
    let ftp = http.replace(
        "request = { method = \"ping\" }",
        "fetch = \"ftp://example.com/x\"",
    );
    let err = parse("demo.toml", &ftp).unwrap_err();
    assert!(err.message.contains("not an http or https URL"), "{err}");
}

#[test]
fn shared_rules_stand_where_a_check_uses_them_and_are_checked_like_its_own() {
    let shared = MINIMAL.replace(
        "[[step]]",
        "[rules]\nanswered = [{ when = { reply = \"error\" }, verdict = \"fail\", message = \"m\" }]\n\n[[step]]",
    );
    let used = shared.replace(
        "rule = [{ when = { reply = \"result\" }, verdict = \"pass\" }]",
        "rule = [{ use = \"answered\" }, { when = { reply = \"result\" }, verdict = \"pass\" }]",
    );
    let scenario = parse("demo.toml", &used).unwrap();
    let rules = &scenario.checks[0].rules;
    assert_eq!(rules.len(), 2);
    assert_eq!(
        (rules[0].verdict, rules[0].message.as_deref()),
        (Status::Fail, Some("m"))
    );
    assert_eq!(rules[1].verdict, Status::Pass);
    // A list no check uses, a name no list has, and `use` beside a rule's own parts are errors
    // at their place.
    let e = parse("demo.toml", &shared).unwrap_err();
    assert!(
        e.to_string()
            .contains("no check uses the shared rules `answered`"),
        "{e}"
    );
    // Each edit of the file that uses the list, and what its error says.
    let refused = |from: &str, to: &str, says: &str| {
        let e = parse("demo.toml", &used.replace(from, to)).unwrap_err();
        assert!(e.to_string().contains(says), "{e}");
        e
    };
    refused(
        "use = \"answered\"",
        "use = \"asnwered\"",
        "[rules] has: answered",
    );
    refused(
        "{ use = \"answered\" }",
        "{ use = \"answered\", verdict = \"pass\" }",
        "stands alone",
    );
    let own = "{ when = { reply = \"result\" }, verdict = \"pass\" }";
    refused(own, "{ when = { reply = \"result\" } }", "no `verdict`");
    // A rule with neither is pointed at where it is written.
    let e = refused(own, "{ message = \"m\" }", "needs `when` and `verdict`");
    assert!(e.line > 1, "{e}");
}

#[test]
fn comments_are_blanked_and_strings_kept_whatever_their_quotes() {
    let text = r####"a = "#1" # c "
b = '#2' #'
c = """
#3 \""" # """
d = '''#4
''' #
e = "\"#5" #é
f = "open #6
# g"####;
    let blanked = super::without_comments(text);
    assert_eq!(blanked.len(), text.len());
    for kept in [
        "\"#1\"",
        "'#2'",
        "#3",
        "'''#4\n'''",
        "\"\\\"#5\"",
        "\"open #6\n",
    ] {
        assert!(blanked.contains(kept), "{kept} in {blanked:?}");
    }
    // The six numbered, and the one between an escaped quote and the end of the """ string.
    assert_eq!(blanked.matches('#').count(), 7, "{blanked:?}");
}

/// The built-in library compiles its schemas and regular expressions only when a run uses
/// them: each file, loaded as a user's file is (compiling every one at once), loads.
#[test]
fn every_schema_and_pattern_of_the_built_in_library_compiles() {
    for (path, text) in super::library_files() {
        if let Err(e) = super::parse(path, text) {
            panic!("{e}");
        }
    }
}

#[test]
fn a_schema_or_pattern_that_does_not_compile_is_an_error_at_its_line() {
    let bad = MINIMAL.replacen(
        "verdict = \"pass\"",
        "verdict = \"pass\", message = \"x\" }, { when = { \"/result\" = { schema = { type = 12 } } }, verdict = \"pass\"",
        1,
    );
    let error = parse("demo.toml", &bad).unwrap_err();
    assert!(
        error.message.contains("the schema does not compile"),
        "{error}"
    );
    assert_eq!((error.line, error.column), (17, 84), "{error}");
    let bad = bad.replace("schema = { type = 12 }", "matches = \"(\"");
    let error = parse("demo.toml", &bad).unwrap_err();
    assert!(
        error.message.contains("not a regular expression"),
        "{error}"
    );
}
