use super::*;
use crate::formats::to_wire;
use serde_json::json;

fn call(id: &str) -> Value {
    json!({"role": "assistant", "contents": [{"$type": "functionCall", "callId": id, "name": "f"}]})
}

fn result(id: &str) -> Value {
    json!({"role": "tool", "contents": [{"$type": "functionResult", "callId": id, "result": "r"}]})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "contents": [{"$type": "text", "text": text}]})
}

fn failure(clause: &str, detail: &str) -> Failure {
    Failure {
        clause: clause.into(),
        definition: "every result in the output has its call in an earlier output message".into(),
        detail: detail.into(),
        first_difference: Some("$[0]".into()),
    }
}

/// The counterexample `naive_last_n.py` gives for `no-orphan-result`.
fn orphan_case() -> Conversation {
    let input = vec![call("c1"), result("c1")];
    let reference: Vec<Value> = vec![];
    let reducer = vec![result("c1")];
    let budget = BudgetFields::messages(json!(1));
    Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Turns,
        input: &input,
        budget: &budget,
        reference: Answer::Messages(&reference),
        reducer: Some(Answer::Messages(&reducer)),
        failure: Some(failure(
            "no-orphan-result",
            "output message 0: result \"c1\" has no call earlier in the output",
        )),
    })
}

#[test]
fn an_orphan_result_is_kept_extra_and_linked_to_nothing() {
    let c = orphan_case();
    assert_eq!(c.rows.len(), 2);
    let states: Vec<Vec<State>> = c
        .rows
        .iter()
        .map(|r| r.cells.iter().map(|c| c.state).collect())
        .collect();
    assert_eq!(
        states,
        vec![
            vec![State::Dropped, State::Dropped],
            vec![State::Dropped, State::Kept]
        ]
    );
    let cell = &c.rows[1].cells[1];
    assert_eq!(cell.out, Some(0));
    assert_eq!(cell.versus, Some(Versus::Extra));
    assert_eq!(cell.orphans, vec![0]);
    assert!(cell.failing);
    assert_eq!(c.rows[0].cells[1].versus, None);
    // The reducer links its result to nothing; the reference left out
    // both messages of the input's pair, drawn faint.
    assert!(c.columns[1].links.is_empty());
    assert_eq!(
        c.columns[0].links,
        vec![Link {
            from: (1, 0),
            to: (0, 0),
            approval: false,
            removed: true
        }]
    );
    assert_eq!(c.columns[0].summary, "0 messages");
    assert_eq!(c.columns[1].summary, "1 message");
    assert_eq!(
        c.budget,
        Some(BudgetUse {
            tokens: false,
            limit: 1,
            used: vec![Some(0), Some(1)]
        })
    );
    assert_eq!(c.failure.as_ref().unwrap().1, Some(1));
    assert_eq!(c.budget_text, "maxMessages 1");
}

#[test]
fn the_text_form_draws_the_same_rows() {
    let text = text::conversation(&orphan_case(), false);
    let want = "\
budget: maxMessages 1; reference uses 0 of 1; reducer uses 1 of 1
   #  REFERENCE (0 messages)                          REDUCER (1 message)
   0  assistant  removed                              assistant  removed
        call f #c1                                      call f #c1
   1  tool  removed                                   tool out 0  EXTRA: the reference removes it  ✗
        result #c1 → 0 r                                result #c1 ✗ orphan: no call earlier r
      ✗ no-orphan-result: every result in the output has its call in an earlier output message
";
    assert_eq!(text, want);
}

#[test]
fn the_html_form_marks_the_orphan_the_extra_message_and_the_failure() {
    let html = html::conversation(&orphan_case());
    assert!(html.contains("<div class=\"m t k vx bad\">"), "{html}");
    assert!(html.contains("<p class=\"it re o\"><b>result</b><code>c1</code><em>orphan: no call earlier in the answer</em>r</p>"), "{html}");
    assert!(
        html.contains("<path class=\"or\" data-from=\"1.0\""),
        "{html}"
    );
    let reducer = html.split("data-side=\"reducer\"").nth(1).unwrap();
    let reducer = &reducer[..reducer.find("</svg>").unwrap()];
    assert!(!reducer.contains("class=\"ln"), "no link: {html}");
    assert!(html.contains("<path class=\"ln rm\" data-from=\"1.0\" data-to=\"0.0\""));
    assert!(html.contains("<b>&#10007; no-orphan-result</b>"), "{html}");
    // Two rows of one item each: 6 + 20 + 20 + 6 pixels, unless the note
    // needs more.
    assert!(html.contains("grid-template-rows:52px 60px\""), "{html}");
}

#[test]
fn results_link_to_their_calls_in_every_format_and_removed_items_are_struck() {
    let canonical = vec![
        user("q"),
        json!({"role": "assistant", "contents": [
            {"$type": "functionCall", "callId": "c1", "name": "f"},
            {"$type": "functionCall", "callId": "c2", "name": "g"}
        ]}),
        result("c1"),
        result("c2"),
    ];
    for format in Format::ALL {
        let input = to_wire(format, &canonical).unwrap();
        let budget = BudgetFields::messages(json!(9));
        let c = Conversation::of(&Exhibit {
            format,
            policy: Policy::Turns,
            input: &input,
            budget: &budget,
            reference: Answer::Messages(&input),
            reducer: None,
            failure: None,
        });
        let links: Vec<((usize, usize), (usize, usize))> =
            c.columns[0].links.iter().map(|l| (l.from, l.to)).collect();
        // Responses: one item per call and per result.
        let want = if format == Format::Responses {
            vec![((3, 0), (1, 0)), ((4, 0), (2, 0))]
        } else {
            vec![((2, 0), (1, 0)), ((3, 0), (1, 1))]
        };
        assert_eq!(links, want, "{format}");
        assert!(c.rows.iter().all(|r| r.cells[0].state == State::Kept));
    }
    // The reducer takes out the second result: kept with one item removed.
    let canonical = vec![
        user("q"),
        call("c1"),
        json!({"role": "tool", "contents": [
            {"$type": "functionResult", "callId": "c1", "result": 1},
            {"$type": "functionResult", "callId": "c2", "result": 2}
        ]}),
    ];
    let mut stripped = canonical.clone();
    stripped[2]["contents"].as_array_mut().unwrap().pop();
    stripped.remove(1);
    let budget = BudgetFields::messages(json!(2));
    let c = Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Turns,
        input: &canonical,
        budget: &budget,
        reference: Answer::Messages(&canonical[..1]),
        reducer: Some(Answer::Messages(&stripped)),
        failure: None,
    });
    let cell = &c.rows[2].cells[1];
    assert_eq!((cell.state, cell.removed.clone()), (State::Kept, vec![1]));
    assert_eq!(cell.orphans, vec![0]);
    assert_eq!(c.rows[1].cells[1].versus, None);
    assert_eq!(c.rows[2].cells[1].versus, Some(Versus::Extra));
}

#[test]
fn fabricated_and_changed_messages_are_told_apart() {
    let input = vec![user("a"), call("c1"), result("c1"), user("b")];
    let mut changed = result("c1");
    changed["contents"][0]["result"] = json!("not r");
    let reducer = vec![user("made up"), call("c1"), changed, user("b")];
    let budget = BudgetFields::messages(json!(4));
    let c = Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Suffix,
        input: &input,
        budget: &budget,
        reference: Answer::Messages(&input),
        reducer: Some(Answer::Messages(&reducer)),
        failure: None,
    });
    let red: Vec<(Option<usize>, State, Option<usize>)> = c
        .rows
        .iter()
        .map(|r| (r.input, r.cells[1].state, r.cells[1].out))
        .collect();
    // "made up" has the role of input message 0 but not its items' text:
    // still the same kinds and ids, so it is input message 0 changed.
    assert_eq!(
        red,
        vec![
            (Some(0), State::Changed, Some(0)),
            (Some(1), State::Kept, Some(1)),
            (Some(2), State::Changed, Some(2)),
            (Some(3), State::Kept, Some(3)),
        ]
    );
    // The changed result still answers the kept call.
    assert_eq!(c.columns[1].links[0].from, (2, 0));
    assert_eq!(c.columns[1].links[0].to, (1, 0));
    let extra =
        vec![json!({"role": "assistant", "contents": [{"$type": "text", "text": "<b>hi</b>"}]})];
    let c = Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Suffix,
        input: &input,
        budget: &budget,
        reference: Answer::Messages(&input),
        reducer: Some(Answer::Messages(&extra)),
        failure: None,
    });
    assert_eq!(c.rows.len(), 5);
    assert_eq!(c.rows[0].input, None);
    assert_eq!(c.rows[0].cells[0].state, State::Empty);
    assert_eq!(c.rows[0].cells[1].state, State::Fabricated);
    let html = html::conversation(&c);
    assert!(html.contains("&lt;b&gt;hi&lt;/b&gt;"), "{html}");
    assert!(!html.contains("<b>hi</b>"));
}

#[test]
fn a_token_budget_counts_the_kept_costs_and_an_error_answer_draws_no_messages() {
    let input = vec![user("a"), user("b"), user("c")];
    let budget = BudgetFields::tokens(json!(5), json!([4, 2, 3]), None);
    let c = Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Suffix,
        input: &input,
        budget: &budget,
        reference: Answer::Messages(&input[2..]),
        reducer: Some(Answer::Error("<no>")),
        failure: None,
    });
    let b = c.budget.unwrap();
    assert_eq!((b.tokens, b.limit, b.used), (true, 5, vec![Some(3), None]));
    assert_eq!(c.columns[1].summary, "an error: \"<no>\"");
    assert!(c.rows.iter().all(|r| r.cells[1].state == State::Dropped));
    assert_eq!(c.budget_text, "maxTokens 5");
}

#[test]
fn a_long_conversation_is_drawn_around_its_failing_row() {
    let input: Vec<Value> = (0..100).map(|i| user(&i.to_string())).collect();
    let budget = BudgetFields::messages(json!(100));
    let mut reducer = input.clone();
    reducer.remove(30);
    let c = Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Turns,
        input: &input,
        budget: &budget,
        reference: Answer::Messages(&input),
        reducer: Some(Answer::Messages(&reducer)),
        failure: Some(failure(
            "identity-when-fits",
            "input message 30 is not kept",
        )),
    });
    assert_eq!(c.rows.len(), MAX_ROWS);
    assert_eq!(c.hidden, (10, 50));
    assert_eq!(c.rows[0].input, Some(10));
    assert_eq!(c.failure.as_ref().unwrap().1, Some(20));
    assert_eq!(c.rows[20].cells[1].versus, Some(Versus::Missing));
    let text = text::conversation(&c, false);
    assert!(text.contains("(10 rows before not drawn)"), "{text}");
    assert!(text.contains("(50 rows after not drawn)"), "{text}");
}

#[test]
fn a_message_of_many_items_is_drawn_with_its_first_items_and_a_count() {
    let calls: Vec<Value> = (0..30)
        .map(|i| json!({"$type": "functionCall", "callId": format!("c{i}"), "name": "f"}))
        .collect();
    let results: Vec<Value> = (0..30)
        .map(|i| json!({"$type": "functionResult", "callId": format!("c{i}"), "result": "x".repeat(5000)}))
        .collect();
    let input = vec![
        user("q"),
        json!({"role": "assistant", "contents": calls}),
        json!({"role": "tool", "contents": results}),
    ];
    let budget = BudgetFields::messages(json!(3));
    let c = Conversation::of(&Exhibit {
        format: Format::Canonical,
        policy: Policy::Turns,
        input: &input,
        budget: &budget,
        reference: Answer::Messages(&input),
        reducer: None,
        failure: None,
    });
    let items = &c.rows[2].cells[0].message.as_ref().unwrap().items;
    assert_eq!(items.len(), MAX_ITEMS + 1);
    assert_eq!(items[MAX_ITEMS].label, "… 18 more items");
    assert_eq!(items[0].text.chars().count(), gist::MAX_TEXT + 1);
    assert_eq!(c.columns[0].links.len(), MAX_ITEMS);
    // Bounded whatever the input: 3 rows of at most 13 lines of at most
    // 161 characters.
    let html = html::conversation(&c);
    assert!(html.len() < 20_000, "{}", html.len());
}
