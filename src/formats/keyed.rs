//! What Gemini and Bedrock Converse share: their parts (Gemini) and
//! content blocks (Bedrock) are not tagged by a `type` member but by which
//! member they have (`{"text": ...}`, `{"functionCall": {...}}`,
//! `{"toolUse": {...}}`), results travel in `user` messages, and the system
//! prompt is a top-level member of the request. [`Keyed`] describes one
//! such format; [`super::gemini`] and [`super::bedrock`] are its two
//! instances, and this file converts and reads either (spec §14.2,
//! §14.3).
//!
//! | canonical | keyed part (Gemini / Bedrock) |
//! |-----------|-------------------------------|
//! | the first message, role `system`, text items only, no other member | the system pseudo-message `{"role": "system", "content": <top-level value>}` |
//! | `user` / `assistant` / `tool` message | role `user` / `model` (Bedrock `assistant`) / `user` |
//! | a `tool` message's other items beside its results (spec §1.6) | the parts of a user message, beside the results |
//! | `text` item (a string `text`) | `{"text": ..., <other members>}` |
//! | `functionCall` item | `{"functionCall": {"id", "name", "args"}}` / `{"toolUse": {"toolUseId", "name", "input"}}`, other members beside it |
//! | `functionResult` item (in a tool message) | `{"functionResponse": {"id", "name", "response"}}` / `{"toolResult": {"toolUseId", "content", "status"}}`, other members beside it; the result as the format wraps it |
//! | any other item (not an approval) | the item as it is (`$type` kept), when no member would make it read as text, a call or a result |
//!
//! A keyed part that has a `$type` member is carried as it is (opaque), so
//! canonical opaque items travel unchanged. Approval items have no keyed
//! form. For every history that converts, `from(to(h)) == h` (as JSON
//! values), but that in a format whose call requires its arguments
//! ([`Keyed::args_required`], Bedrock) a call without `arguments` comes back
//! with `arguments: {}`.

use super::anthropic::system_message;
use super::{copy_members, copy_other, object_and_role, refuse_members, ConvertError, Members};
use crate::terms::{Item, ItemKind, Role, ShapeError};
use serde_json::{json, Map, Value};

/// A result payload conversion: canonical `result` → the wire payload
/// member's value, or the reverse; `Err(problem)` when there is none.
pub(crate) type Wrap = fn(&Value) -> Result<Value, String>;

/// A format whose parts are keyed by member name.
pub(crate) struct Keyed {
    /// The format's name in prose: `Gemini`, `Bedrock`.
    pub title: &'static str,
    /// The member of a message holding its parts: `parts`, `content`.
    pub items_key: &'static str,
    /// The wire role of an `assistant` message: `model`, `assistant`.
    pub model_role: &'static str,
    /// The call member and, inside it, the id and arguments members:
    /// `("functionCall", "id", "args")`.
    pub call: (&'static str, &'static str, &'static str),
    /// Whether the format requires the arguments member of a call (Bedrock's
    /// `input`; Gemini's `args` is optional): a canonical call without
    /// arguments is written with the empty object.
    pub args_required: bool,
    /// The result member and, inside it, the id and payload members:
    /// `("functionResponse", "id", "response")`.
    pub result: (&'static str, &'static str, &'static str),
    /// Members of a canonical result item that travel inside the result
    /// object under the same name: `name` (Gemini), `status` (Bedrock).
    pub result_inner: &'static [&'static str],
    /// Canonical `result` → payload.
    pub wrap: Wrap,
    /// Payload → canonical `result`.
    pub unwrap: Wrap,
    /// Whether a call or result without an id gets one from its name
    /// (`<name>#<k>`, Gemini): the view only; the canonical form needs ids.
    pub ids_from_names: bool,
    /// The top-level system value for its text parts: Gemini
    /// `{"parts": [...]}`, Bedrock `[...]`.
    pub system_value: fn(Vec<Value>) -> Value,
    /// The text parts of a top-level system value, when it has the shape
    /// [`Keyed::system_value`] makes.
    pub system_parts: fn(&Value) -> Option<&Vec<Value>>,
}

const APPROVAL_TAGS: [&str; 4] = [
    "toolApprovalRequest",
    "toolApprovalResponse",
    "functionApprovalRequest",
    "functionApprovalResponse",
];

fn err(index: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, None, problem)
}

fn item_err(index: usize, item: usize, problem: impl Into<String>) -> ConvertError {
    ShapeError::new(index, Some(item), problem)
}

impl Keyed {
    /// The members that make a part text, a call or a result.
    fn keys(&self) -> [&'static str; 3] {
        ["text", self.call.0, self.result.0]
    }

    // ---- the view -----------------------------------------------------

    /// The role and items of a message whose role string is `role_text`.
    ///
    /// # Errors
    ///
    /// A [`ShapeError`] when the items member is neither an array nor null,
    /// a call or result member is not an object, or its id is missing (and
    /// not taken from a name) or not a string.
    pub(crate) fn view(
        &self,
        obj: &Map<String, Value>,
        role_text: &str,
        index: usize,
    ) -> Result<(Role, Vec<Item>), ShapeError> {
        let role = if role_text == self.model_role {
            Role::Assistant
        } else {
            Role::parse(role_text)
        };
        if role == Role::System {
            return Ok((role, Vec::new()));
        }
        let parts = match obj.get(self.items_key) {
            None | Some(Value::Null) => return Ok((role, Vec::new())),
            Some(Value::Array(parts)) => parts,
            Some(_) => {
                return Err(ShapeError::new(
                    index,
                    None,
                    format!("`{}` is not an array or null", self.items_key),
                ))
            }
        };
        let mut items = Vec::with_capacity(parts.len());
        let mut named: Vec<(ItemKind, String)> = Vec::new();
        for (i, p) in parts.iter().enumerate() {
            let (kind, id) = match p.as_object() {
                Some(o) if !o.contains_key("$type") => {
                    let (kind, inner) = if let Some(c) = o.get(self.call.0) {
                        (ItemKind::Call, Some((c, self.call)))
                    } else if let Some(r) = o.get(self.result.0) {
                        (ItemKind::Result, Some((r, self.result)))
                    } else if o.get("text").is_some_and(Value::is_string) {
                        (ItemKind::Text, None)
                    } else {
                        (ItemKind::Opaque, None)
                    };
                    match inner {
                        None => (kind, String::new()),
                        Some((v, (key, id_key, _))) => {
                            let inner = v.as_object().ok_or_else(|| {
                                ShapeError::new(index, Some(i), format!("`{key}` is not an object"))
                            })?;
                            let id = self.id_of(inner, key, id_key, kind, &mut named, index, i)?;
                            (kind, id)
                        }
                    }
                }
                _ => (ItemKind::Opaque, String::new()),
            };
            items.push(Item {
                kind,
                id,
                elem: Some(i),
            });
        }
        let results = items.iter().filter(|i| i.kind == ItemKind::Result).count();
        // A `user` message with a result is a tool message, also when other
        // parts sit beside its results (spec §1.6).
        let role = if role == Role::User && results > 0 {
            Role::Tool
        } else {
            role
        };
        Ok((role, items))
    }

    /// The id of a call or result object: its id member, or (Gemini) from
    /// its name, `<name>#<k>` for the k-th id-less one of that kind and
    /// name in the message (spec §14.2).
    #[allow(clippy::too_many_arguments)]
    fn id_of(
        &self,
        inner: &Map<String, Value>,
        key: &str,
        id_key: &str,
        kind: ItemKind,
        named: &mut Vec<(ItemKind, String)>,
        index: usize,
        i: usize,
    ) -> Result<String, ShapeError> {
        match inner.get(id_key) {
            Some(Value::String(id)) => Ok(id.clone()),
            Some(_) => Err(ShapeError::new(
                index,
                Some(i),
                format!("{key} has a non-string `{id_key}`"),
            )),
            None if self.ids_from_names => match inner.get("name") {
                Some(Value::String(name)) => {
                    named.push((kind, name.clone()));
                    let k = named
                        .iter()
                        .filter(|(k, n)| *k == kind && n == name)
                        .count();
                    Ok(format!("{name}#{k}"))
                }
                _ => Err(ShapeError::new(
                    index,
                    Some(i),
                    format!("{key} has no string `{id_key}` and no string `name`"),
                )),
            },
            None => Err(ShapeError::new(
                index,
                Some(i),
                format!("{key} has no `{id_key}`"),
            )),
        }
    }

    // ---- canonical → keyed --------------------------------------------

    /// Converts a canonical history, one message for one message.
    ///
    /// # Errors
    ///
    /// [`ConvertError`] for the first message the format cannot carry.
    pub(crate) fn write_wire(&self, messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
        messages
            .iter()
            .enumerate()
            .map(|(i, m)| self.message_to(m, i))
            .collect()
    }

    fn no_form(&self, what: impl std::fmt::Display) -> String {
        format!("{what} has no {} form", self.title)
    }

    fn message_to(&self, msg: &Value, index: usize) -> Result<Value, ConvertError> {
        let (obj, role) = object_and_role(msg, index)?;
        let contents = match obj.get("contents") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(Value::Array(a)) => Some(Some(a)),
            Some(_) => return Err(err(index, "`contents` is not an array")),
        };
        let wire_role = match role {
            "system" if index == 0 => return self.system_to(obj, contents, index),
            "system" => {
                return Err(err(
                    index,
                    format!(
                        "{} (only the first message becomes the top-level system prompt)",
                        self.no_form("a system message that is not the first message")
                    ),
                ))
            }
            "user" | "tool" => "user",
            "assistant" => self.model_role,
            _ => {
                return Err(err(
                    index,
                    format!(
                        "role {role:?} has no lossless {} form (only lowercase user, assistant, tool and system)",
                        self.title
                    ),
                ))
            }
        };
        refuse_members(obj, &[self.items_key], index, &format!("{}'s", self.title))?;
        let tool = role == "tool";
        let mut out = Map::new();
        out.insert("role".into(), Value::String(wire_role.into()));
        match contents {
            None if tool => return Err(err(index, self.no_form("a tool message without results"))),
            None => {}
            Some(None) if tool => {
                return Err(err(index, self.no_form("a tool message without results")))
            }
            Some(None) => {
                out.insert(self.items_key.into(), Value::Null);
            }
            Some(Some(items)) => {
                let is_result =
                    |c: &Value| c.get("$type").and_then(Value::as_str) == Some("functionResult");
                if tool && !items.iter().any(is_result) {
                    return Err(err(index, self.no_form("a tool message without results")));
                }
                let parts = items
                    .iter()
                    .enumerate()
                    .map(|(k, c)| self.item_to(c, index, k, tool))
                    .collect::<Result<Vec<_>, _>>()?;
                out.insert(self.items_key.into(), Value::Array(parts));
            }
        }
        copy_other(obj, &mut out, &["role", "contents"]);
        Ok(Value::Object(out))
    }

    fn system_to(
        &self,
        obj: &Map<String, Value>,
        contents: Option<Option<&Vec<Value>>>,
        index: usize,
    ) -> Result<Value, ConvertError> {
        if let Some(k) = obj.keys().find(|k| *k != "role" && *k != "contents") {
            return Err(err(
                index,
                format!(
                    "system message member `{k}` has no place in {}'s top-level system prompt",
                    self.title
                ),
            ));
        }
        let Some(Some(items)) = contents else {
            return Err(err(
                index,
                self.no_form("a system message without a `contents` array"),
            ));
        };
        let mut parts = Vec::with_capacity(items.len());
        for (k, c) in items.iter().enumerate() {
            if c.get("$type").and_then(Value::as_str) != Some("text") {
                return Err(item_err(
                    index,
                    k,
                    format!(
                        "{} (the top-level system prompt takes only text)",
                        self.no_form("a system message item that is not text")
                    ),
                ));
            }
            parts.push(self.item_to(c, index, k, false)?);
        }
        Ok(system_message((self.system_value)(parts)))
    }

    /// A canonical item as a part; `tool`: the item of a tool message.
    fn item_to(
        &self,
        c: &Value,
        index: usize,
        k: usize,
        tool: bool,
    ) -> Result<Value, ConvertError> {
        let o = c
            .as_object()
            .ok_or_else(|| item_err(index, k, "is not an object"))?;
        let tag = o.get("$type").and_then(Value::as_str);
        let keys = self.keys();
        let whose = format!("{}'s", self.title);
        let beside = |skip: &[&str], part: &mut Map<String, Value>| {
            copy_members(
                o,
                part,
                &Members {
                    skip,
                    rename: &[],
                    refuse: &keys,
                },
                |key| {
                    item_err(
                        index,
                        k,
                        format!("member `{key}` would collide with {whose}"),
                    )
                },
            )
        };
        match tag {
            Some("text") => {
                let text = o
                    .get("text")
                    .filter(|t| t.is_string())
                    .ok_or_else(|| item_err(index, k, self.no_form("a text item without a string `text`")))?;
                let mut part = Map::new();
                part.insert("text".into(), text.clone());
                beside(&["$type", "text"], &mut part)?;
                Ok(Value::Object(part))
            }
            Some("functionCall") => {
                let (key, id_key, args_key) = self.call;
                let mut inner = Map::new();
                inner.insert(id_key.into(), self.id(o, index, k)?);
                if let Some(n) = o.get("name") {
                    inner.insert("name".into(), n.clone());
                }
                if let Some(a) = o.get("arguments") {
                    inner.insert(args_key.into(), a.clone());
                } else if self.args_required {
                    inner.insert(args_key.into(), Value::Object(Map::new()));
                }
                let mut part = Map::new();
                part.insert(key.into(), Value::Object(inner));
                beside(&["$type", "callId", "name", "arguments"], &mut part)?;
                Ok(Value::Object(part))
            }
            Some("functionResult") if !tool => Err(item_err(
                index,
                k,
                self.no_form("a functionResult outside a tool message"),
            )),
            Some("functionResult") => {
                let (key, id_key, payload) = self.result;
                let mut inner = Map::new();
                inner.insert(id_key.into(), self.id(o, index, k)?);
                for m in self.result_inner {
                    if let Some(v) = o.get(*m) {
                        inner.insert((*m).into(), v.clone());
                    }
                }
                if let Some(r) = o.get("result") {
                    let wrapped = (self.wrap)(r).map_err(|p| item_err(index, k, p))?;
                    inner.insert(payload.into(), wrapped);
                }
                let mut part = Map::new();
                part.insert(key.into(), Value::Object(inner));
                let mut skip = vec!["$type", "callId", "result"];
                skip.extend_from_slice(self.result_inner);
                beside(&skip, &mut part)?;
                Ok(Value::Object(part))
            }
            Some(t) if APPROVAL_TAGS.contains(&t) => Err(item_err(
                index,
                k,
                format!("{} (it has no approval items)", self.no_form(format!("a {t} item"))),
            )),
            _ if o.contains_key("$type") => Ok(c.clone()),
            _ => match keys.iter().find(|key| o.contains_key(**key)) {
                Some(key) => Err(item_err(
                    index,
                    k,
                    format!(
                        "an item without `$type` that has a `{key}` member has no {} form (it would be read as a {key} part)",
                        self.title
                    ),
                )),
                None => Ok(c.clone()),
            },
        }
    }

    fn id(&self, o: &Map<String, Value>, index: usize, k: usize) -> Result<Value, ConvertError> {
        o.get("callId")
            .filter(|v| v.is_string())
            .cloned()
            .ok_or_else(|| item_err(index, k, "has no string `callId`"))
    }

    // ---- keyed → canonical --------------------------------------------

    /// Converts keyed messages (the system pseudo-message first, when there
    /// is one) to a canonical history, one message for one message; the
    /// inverse of [`Keyed::write_wire`].
    ///
    /// # Errors
    ///
    /// [`ConvertError`] for the first message that has no canonical form.
    pub(crate) fn read_wire(&self, messages: &[Value]) -> Result<Vec<Value>, ConvertError> {
        messages
            .iter()
            .enumerate()
            .map(|(i, m)| self.message_from(m, i))
            .collect()
    }

    fn message_from(&self, msg: &Value, index: usize) -> Result<Value, ConvertError> {
        let (obj, role) = object_and_role(msg, index)?;
        match role {
            "system" if index == 0 => return self.system_from(obj, index),
            "system" => {
                return Err(err(
                    index,
                    "a system pseudo-message that is not the first message has no canonical form",
                ))
            }
            "user" => {}
            _ if role == self.model_role => {}
            _ => {
                return Err(err(
                    index,
                    format!(
                        "role {role:?} is not a {} role (user or {})",
                        self.title, self.model_role
                    ),
                ))
            }
        }
        refuse_members(obj, &["contents"], index, "the canonical format")?;
        let mut out = Map::new();
        let mut out_role = if role == "user" { "user" } else { "assistant" };
        match obj.get(self.items_key) {
            None => {}
            Some(Value::Null) => {
                out.insert("contents".into(), Value::Null);
            }
            Some(Value::Array(parts)) => {
                let mut items = Vec::with_capacity(parts.len());
                let mut results = 0;
                for (k, p) in parts.iter().enumerate() {
                    let (item, is_result) = self.part_from(p, index, k)?;
                    results += usize::from(is_result);
                    items.push(item);
                }
                if results > 0 {
                    if role != "user" {
                        return Err(err(
                            index,
                            format!(
                                "a {} part in a {role} message has no canonical form",
                                self.result.0
                            ),
                        ));
                    }
                    out_role = "tool";
                }
                out.insert("contents".into(), Value::Array(items));
            }
            Some(_) => {
                return Err(err(
                    index,
                    format!("`{}` is not an array or null", self.items_key),
                ))
            }
        }
        let mut message = Map::new();
        message.insert("role".into(), Value::String(out_role.into()));
        message.extend(out);
        copy_other(obj, &mut message, &["role", self.items_key]);
        Ok(Value::Object(message))
    }

    fn system_from(&self, obj: &Map<String, Value>, index: usize) -> Result<Value, ConvertError> {
        if let Some(k) = obj.keys().find(|k| *k != "role" && *k != "content") {
            return Err(err(
                index,
                format!(
                    "the system pseudo-message has a member `{k}` besides `role` and `content`"
                ),
            ));
        }
        let parts = obj
            .get("content")
            .and_then(self.system_parts)
            .ok_or_else(|| {
                err(
                    index,
                    format!(
                        "the system pseudo-message's `content` is not {}'s top-level system prompt of text parts",
                        self.title
                    ),
                )
            })?;
        let mut items = Vec::with_capacity(parts.len());
        for (k, p) in parts.iter().enumerate() {
            let (item, _) = self.part_from(p, index, k)?;
            if item.get("$type").and_then(Value::as_str) != Some("text") {
                return Err(item_err(
                    index,
                    k,
                    "a system part that is not text has no canonical form",
                ));
            }
            items.push(item);
        }
        Ok(json!({"role": "system", "contents": items}))
    }

    /// A part as a canonical item, and whether it is a result.
    fn part_from(&self, p: &Value, index: usize, k: usize) -> Result<(Value, bool), ConvertError> {
        let o = p
            .as_object()
            .ok_or_else(|| item_err(index, k, "is not an object"))?;
        if let Some(t) = o.get("$type") {
            let known = t.as_str().is_some_and(|t| {
                matches!(t, "text" | "functionCall" | "functionResult")
                    || APPROVAL_TAGS.contains(&t)
            });
            if known {
                return Err(item_err(
                    index,
                    k,
                    format!("a part with `$type` {t} has no canonical form (it would be read as that item)"),
                ));
            }
            return Ok((p.clone(), false));
        }
        let keys = self.keys();
        let present: Vec<&str> = keys
            .iter()
            .copied()
            .filter(|key| o.contains_key(*key))
            .collect();
        if present.len() > 1 {
            return Err(item_err(
                index,
                k,
                format!(
                    "a part with both `{}` and `{}` has no canonical form",
                    present[0], present[1]
                ),
            ));
        }
        let beside = |skip: &str, refuse: &[&str], item: &mut Map<String, Value>| {
            copy_members(
                o,
                item,
                &Members {
                    skip: &[skip],
                    rename: &[],
                    refuse,
                },
                |key| {
                    item_err(
                        index,
                        k,
                        format!("member `{key}` would collide with the canonical format"),
                    )
                },
            )
        };
        match present.first().copied() {
            None => Ok((p.clone(), false)),
            Some("text") => {
                let text = o.get("text").filter(|t| t.is_string()).ok_or_else(|| {
                    item_err(
                        index,
                        k,
                        "a text part whose `text` is not a string has no canonical form",
                    )
                })?;
                let mut item = Map::new();
                item.insert("$type".into(), json!("text"));
                item.insert("text".into(), text.clone());
                beside("text", &["$type"], &mut item)?;
                Ok((Value::Object(item), false))
            }
            Some(key) if key == self.call.0 => {
                let (_, id_key, args_key) = self.call;
                let inner = self.inner(o, key, &[id_key, "name", args_key], index, k)?;
                let mut item = Map::new();
                item.insert("$type".into(), json!("functionCall"));
                item.insert(
                    "callId".into(),
                    self.inner_id(inner, key, id_key, index, k)?,
                );
                if let Some(n) = inner.get("name") {
                    item.insert("name".into(), n.clone());
                }
                if let Some(a) = inner.get(args_key) {
                    item.insert("arguments".into(), a.clone());
                }
                beside(key, &["$type", "callId", "name", "arguments"], &mut item)?;
                Ok((Value::Object(item), false))
            }
            Some(key) => {
                let (_, id_key, payload) = self.result;
                let mut allowed = vec![id_key, payload];
                allowed.extend_from_slice(self.result_inner);
                let inner = self.inner(o, key, &allowed, index, k)?;
                let mut item = Map::new();
                item.insert("$type".into(), json!("functionResult"));
                item.insert(
                    "callId".into(),
                    self.inner_id(inner, key, id_key, index, k)?,
                );
                for m in self.result_inner {
                    if let Some(v) = inner.get(*m) {
                        item.insert((*m).into(), v.clone());
                    }
                }
                if let Some(v) = inner.get(payload) {
                    let r = (self.unwrap)(v).map_err(|p| item_err(index, k, p))?;
                    item.insert("result".into(), r);
                }
                let mut refuse = vec!["$type", "callId", "result"];
                refuse.extend_from_slice(self.result_inner);
                beside(key, &refuse, &mut item)?;
                Ok((Value::Object(item), true))
            }
        }
    }

    /// The call or result object of a part, holding no member but `allowed`.
    fn inner<'a>(
        &self,
        o: &'a Map<String, Value>,
        key: &str,
        allowed: &[&str],
        index: usize,
        k: usize,
    ) -> Result<&'a Map<String, Value>, ConvertError> {
        let inner = o
            .get(key)
            .and_then(Value::as_object)
            .ok_or_else(|| item_err(index, k, format!("`{key}` is not an object")))?;
        if let Some(m) = inner.keys().find(|m| !allowed.contains(&m.as_str())) {
            return Err(item_err(
                index,
                k,
                format!("{key} member `{m}` has no canonical form"),
            ));
        }
        Ok(inner)
    }

    fn inner_id(
        &self,
        inner: &Map<String, Value>,
        key: &str,
        id_key: &str,
        index: usize,
        k: usize,
    ) -> Result<Value, ConvertError> {
        inner
            .get(id_key)
            .filter(|v| v.is_string())
            .cloned()
            .ok_or_else(|| {
                item_err(
                    index,
                    k,
                    format!("{key} has no string `{id_key}` (the canonical form needs a call id)"),
                )
            })
    }
}
