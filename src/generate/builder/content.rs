//! The content of a history under construction: ids, roles, messages and
//! their items (texts, calls, results, opaque items), drawn from small
//! word lists that cover the tricky cases (quotes, escapes, non-ASCII,
//! large payloads, non-string results, exact numbers).

use super::{Builder, R};
use crate::terms::Role;
use serde_json::{json, Map, Value};

const WORDS: &[&str] = &[
    "order", "42", "shipment", "check", "please", "status", "the", "refund", "weather", "in",
    "Paris", "ok", "thanks", "when", "will", "it", "arrive", "?", "done.",
];
const TRICKY: &[&str] = &[
    "\"quoted\"",
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "{\"json\": 1}",
    "</script>",
    "  ",
];
const NON_ASCII: &[&str] = &[
    "naïve",
    "café",
    "日本語",
    "Привет",
    "שלום",
    "مرحبا",
    "🚀",
    "👩‍💻",
    "e\u{301}",
    "\u{200b}",
    "ÿ",
    "\u{0}",
    "\u{7f}",
    "\u{fffd}",
    "𝔘𝔫𝔦",
];
const TOOLS: &[&str] = &[
    "GetOrder",
    "GetShipment",
    "GetWeather",
    "SearchDocs",
    "SendEmail",
    "Refund",
];
const NUMBERS: &[&str] = &[
    "19.99",
    "1.0",
    "1e3",
    "-0",
    "0.1",
    "123456789012345678901234567890",
];
const AUTHORS: &[&str] = &["Ada", "ops-bot", "Zoë 🦊"];

/// The stem of a long id: 60 bytes that every long id starts with, so that
/// two of them differ only after it (a reducer that compares ids by a
/// prefix, or truncates them, takes them for one).
const LONG_ID: &str = "toolu_01A09q90qw90lq917835lq9Xk2mPzR7vTnB4cYhWdJsE8fGa3LuN0_";

/// What a non-ASCII id carries: an accent composed and decomposed (equal
/// once normalized), CJK, right-to-left, an emoji, a zero-width space.
const ID_TAGS: &[&str] = &["é", "e\u{301}", "呼出", "שלום", "🚀", "\u{200b}"];

/// Whether some item is a call or an approval item (whose messages have no
/// extra members without `mixed_tool_messages`).
fn carries_calls_or_approvals(contents: &[Value]) -> bool {
    contents.iter().any(|c| {
        matches!(
            c.get("$type").and_then(Value::as_str),
            Some(
                "functionCall"
                    | "toolApprovalRequest"
                    | "toolApprovalResponse"
                    | "functionApprovalRequest"
                    | "functionApprovalResponse"
            )
        )
    })
}

/// An object of `members`, in this order: what `json!` builds, with its map
/// allocated once at its size (`json!` grows it member by member, a tenth
/// of the generator's time).
pub(super) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    let mut m = Map::with_capacity(N);
    for (k, v) in members {
        m.insert(k.to_owned(), v);
    }
    Value::Object(m)
}

fn number(text: &str) -> Value {
    serde_json::from_str(text).expect("the generator's numbers are JSON")
}

impl Builder<'_, '_, '_> {
    /// A call id: with `reuse_call_ids`, sometimes an answered one again;
    /// else a fresh one, `call_N` or another spelling ([`Self::spelled`],
    /// a variant of one of `siblings`, the ids drawn before it for the
    /// same message, among others).
    pub(super) fn new_call_id(&mut self, siblings: &[String]) -> R<String> {
        if self.cfg.reuse_call_ids && !self.answered.is_empty() && self.chance(1, 4)? {
            let i = self.upto(self.answered.len() - 1)?;
            return Ok(self.answered.swap_remove(i));
        }
        self.fresh_calls += 1;
        let plain = format!("call_{}", self.fresh_calls);
        let id = self.spelled(plain, siblings, false)?;
        self.call_ids.push(id.clone());
        Ok(id)
    }

    /// A fresh approval request id: with `reuse_call_ids`, sometimes an
    /// answered one again; else `req_N` or another spelling, as
    /// [`Self::new_call_id`].
    pub(super) fn new_request_id(&mut self, siblings: &[String]) -> R<String> {
        let free: Vec<usize> = (0..self.answered_requests.len())
            .filter(|&i| !siblings.contains(&self.answered_requests[i]))
            .collect();
        if self.cfg.reuse_call_ids && !free.is_empty() && self.chance(1, 3)? {
            let i = free[self.upto(free.len() - 1)?];
            return Ok(self.answered_requests.swap_remove(i));
        }
        self.fresh_requests += 1;
        let plain = format!("req_{}", self.fresh_requests);
        let id = self.spelled(plain, siblings, true)?;
        self.request_ids.push(id.clone());
        Ok(id)
    }

    /// `plain`, or with `id_spellings` another spelling of a fresh id
    /// (ids are compared exactly, spec §2): a variant of one of
    /// `siblings` (the same letters in another ASCII case, or the sibling
    /// and a suffix, so that one is a prefix of the other); a long id
    /// ([`LONG_ID`], whose first 60 bytes every long id shares); an id
    /// with non-ASCII characters (accents composed and decomposed, CJK,
    /// emoji); a case variant of an id drawn earlier in the history. Never
    /// an id of the same kind drawn before (`requests`: approval request
    /// ids, else call ids) nor one of `siblings` (a sibling may be of the
    /// other kind: a request's id is sometimes its call's id, and a second
    /// request under a waiting one's id breaks `unique-pending-request`,
    /// spec §5); `plain` when the spelling drawn would be one.
    fn spelled(&mut self, plain: String, siblings: &[String], requests: bool) -> R<String> {
        if !self.cfg.id_spellings {
            return Ok(plain);
        }
        let id = if !siblings.is_empty() && self.chance(1, 3)? {
            let s = siblings[self.upto(siblings.len() - 1)?].clone();
            if self.chance(1, 2)? {
                self.case_variant(&s)?
            } else {
                Some(format!("{s}-{}", self.upto(9)?))
            }
        } else {
            match self.upto(5)? {
                0 => Some(format!("{LONG_ID}{plain}")),
                1 => {
                    let tag = self.pick(ID_TAGS)?;
                    Some(format!("{plain}_{tag}"))
                }
                2 | 3 => {
                    let n = if requests {
                        self.request_ids.len()
                    } else {
                        self.call_ids.len()
                    };
                    match n {
                        0 => None,
                        n => {
                            let i = self.upto(n - 1)?;
                            let s = if requests {
                                self.request_ids[i].clone()
                            } else {
                                self.call_ids[i].clone()
                            };
                            self.case_variant(&s)?
                        }
                    }
                }
                _ => None,
            }
        };
        let used = if requests {
            &self.request_ids
        } else {
            &self.call_ids
        };
        Ok(id
            .filter(|id| !used.contains(id) && !siblings.contains(id))
            .unwrap_or(plain))
    }

    /// `id` with its ASCII letters in another case (the first one upper,
    /// all upper, all swapped), or `None` when it has no ASCII letter.
    fn case_variant(&mut self, id: &str) -> R<Option<String>> {
        let variant: String = match self.upto(2)? {
            0 => {
                let mut done = false;
                id.chars()
                    .map(|c| {
                        if !done && c.is_ascii_alphabetic() {
                            done = true;
                            if c.is_ascii_uppercase() {
                                c.to_ascii_lowercase()
                            } else {
                                c.to_ascii_uppercase()
                            }
                        } else {
                            c
                        }
                    })
                    .collect()
            }
            1 if id != id.to_ascii_uppercase() => id.to_ascii_uppercase(),
            _ => id
                .chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect(),
        };
        Ok((variant != id).then_some(variant))
    }

    pub(super) fn role(&mut self, role: Role) -> R<String> {
        let mut r = match role {
            Role::System if self.cfg.developer_role && self.chance(1, 4)? => "developer",
            Role::System => "system",
            Role::User => "user",
            Role::Tool => "tool",
            Role::Assistant | Role::Other => "assistant",
        }
        .to_string();
        if self.cfg.role_case && self.chance(1, 8)? {
            r = if self.chance(1, 2)? {
                r.to_ascii_uppercase()
            } else {
                let mut c = r.chars();
                let first = c.next().expect("roles are non-empty").to_ascii_uppercase();
                std::iter::once(first).chain(c).collect()
            };
        }
        Ok(r)
    }

    pub(super) fn message(&mut self, role: Role, contents: Vec<Value>) -> R<Value> {
        let mut m = Map::with_capacity(2);
        m.insert("role".into(), Value::String(self.role(role)?));
        let extras = (role != Role::System || self.cfg.system_extra_fields)
            && (self.cfg.mixed_tool_messages || !carries_calls_or_approvals(&contents));
        if self.cfg.extra_fields && extras && self.chance(1, 5)? {
            for _ in 0..1 + self.upto(1)? {
                match self.upto(3)? {
                    0 => {
                        let a = self.pick(AUTHORS)?;
                        m.insert("authorName".into(), json!(a));
                    }
                    1 => {
                        self.fresh_messages += 1;
                        m.insert(
                            "messageId".into(),
                            json!(format!("msg_{}", self.fresh_messages)),
                        );
                    }
                    2 => {
                        m.insert("createdAt".into(), json!("2025-01-31T12:00:00+00:00"));
                    }
                    _ => {
                        m.insert(
                            "additionalProperties".into(),
                            json!({"traceId": "t-1", "weight": number("0.5"), "tags": ["a"]}),
                        );
                    }
                }
            }
        }
        m.insert("contents".into(), Value::Array(contents));
        Ok(Value::Object(m))
    }

    pub(super) fn push(&mut self, role: Role, contents: Vec<Value>) -> R<()> {
        if role == Role::System && self.first_system.is_none() {
            self.first_system = Some(self.msgs.len());
        }
        let m = self.message(role, contents)?;
        self.msgs.push(m);
        Ok(())
    }

    pub(super) fn item_extras(&mut self, item: &mut Value) -> R<()> {
        if self.cfg.extra_fields && self.chance(1, 8)? {
            item["additionalProperties"] = json!({"source": "gen", "score": number("1.0")});
        }
        Ok(())
    }

    pub(super) fn text(&mut self) -> R<String> {
        if self.cfg.large_payloads && self.chance(1, 1000)? {
            return self.large();
        }
        if self.cfg.empty_text && self.chance(1, 16)? {
            return Ok(String::new());
        }
        let n = 1 + self.upto(7)?;
        // Room for n words of up to 11 bytes and their spaces: one
        // allocation, not one per doubling.
        let mut s = String::with_capacity(12 * n);
        for i in 0..n {
            if i > 0 {
                s.push(' ');
            }
            let w = if self.cfg.non_ascii_text && self.chance(1, 6)? {
                self.pick(NON_ASCII)?
            } else if self.chance(1, 16)? {
                self.pick(TRICKY)?
            } else {
                self.pick(WORDS)?
            };
            s.push_str(w);
        }
        Ok(s)
    }

    /// A string of exactly `large_payload_bytes` bytes (or the nearest char
    /// boundary below).
    pub(super) fn large(&mut self) -> R<String> {
        let unit = if self.cfg.non_ascii_text && self.chance(1, 2)? {
            "日本語 naïve 🚀 "
        } else {
            "lorem ipsum dolor sit amet "
        };
        let bytes = self.cfg.large_payload_bytes;
        let mut s = unit.repeat(bytes / unit.len() + 1);
        let mut cut = bytes;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        Ok(s)
    }

    pub(super) fn text_item(&mut self) -> R<Value> {
        let mut v = object([
            ("$type", json!("text")),
            ("text", Value::String(self.text()?)),
        ]);
        self.item_extras(&mut v)?;
        Ok(v)
    }

    /// A text item for a system message: without extra members unless
    /// `system_extra_fields`.
    pub(super) fn system_text_item(&mut self) -> R<Value> {
        if self.cfg.system_extra_fields {
            return self.text_item();
        }
        Ok(object([
            ("$type", json!("text")),
            ("text", Value::String(self.text()?)),
        ]))
    }

    pub(super) fn opaque_item(&mut self) -> R<Value> {
        let mut v = match self.upto(5)? {
            0 => json!({"$type": "dataContent", "uri": "data:image/png;base64,iVBORw0KGgo=",
                        "mediaType": "image/png"}),
            1 => json!({"$type": "uriContent", "uri": "https://example.com/a.png",
                        "mediaType": "image/png"}),
            2 => json!({"$type": "textReasoning", "text": self.text()?}),
            3 => {
                json!({"$type": "usage", "details": {"inputTokenCount": 12, "outputTokenCount": 3}})
            }
            4 => json!({"$type": "errorContent", "message": "rate limited", "errorCode": "429"}),
            _ => json!({"$type": "x-vendor-widget", "payload": {"k": [1, number("2.50"), null]}}),
        };
        self.item_extras(&mut v)?;
        Ok(v)
    }

    pub(super) fn arguments(&mut self) -> R<Value> {
        let n = self.upto(3)?;
        let mut o = Map::with_capacity(n);
        for _ in 0..n {
            let (k, v) = match self.upto(5)? {
                0 => ("id", json!(self.upto(1000)?)),
                1 => {
                    let w = self.pick(WORDS)?;
                    ("query", json!(w))
                }
                2 => ("amount", number(self.pick(NUMBERS)?)),
                3 => ("tags", json!(["urgent", "b"])),
                4 => ("filter", json!({"from": "2024-01-01", "limit": 10})),
                _ => ("confirm", json!(true)),
            };
            o.insert(k.into(), v);
        }
        Ok(Value::Object(o))
    }

    pub(super) fn call_item(&mut self, id: &str) -> R<Value> {
        let name = self.pick(TOOLS)?;
        let arguments = self.arguments()?;
        let mut v = object([
            ("$type", json!("functionCall")),
            ("callId", json!(id)),
            ("name", json!(name)),
            ("arguments", arguments),
        ]);
        self.item_extras(&mut v)?;
        Ok(v)
    }

    pub(super) fn payload(&mut self) -> R<Value> {
        if self.cfg.non_string_results && self.chance(1, 4)? {
            return Ok(match self.upto(4)? {
                0 => json!({"status": "Paid", "total": number("19.99"), "items": [1, 2]}),
                1 => json!([self.text()?, 3]),
                2 => number(self.pick(NUMBERS)?),
                3 => json!(true),
                _ => Value::Null,
            });
        }
        Ok(Value::String(self.text()?))
    }

    pub(super) fn result_item(&mut self, id: &str) -> R<Value> {
        let result = self.payload()?;
        let mut v = object([
            ("$type", json!("functionResult")),
            ("callId", json!(id)),
            ("result", result),
        ]);
        if self.cfg.result_extra_fields && self.chance(1, 8)? {
            v["additionalProperties"] = json!({"durationMs": 12});
        }
        Ok(v)
    }
}
