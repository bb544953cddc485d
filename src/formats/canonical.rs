//! The canonical format (spec §1.1): Microsoft.Extensions.AI
//! `ChatMessage` JSON, the format of case files and of the generator. A
//! message is `{"role", "contents": [items]}`; each item is tagged by
//! `$type`:
//!
//! | `$type` | kind | id member |
//! |---------|------|-----------|
//! | `text` | text | — |
//! | `functionCall` | call | `callId` |
//! | `functionResult` | result | `callId` |
//! | `toolApprovalRequest` | approval request | `requestId` |
//! | `toolApprovalResponse` | approval response | `requestId` |
//! | `functionApprovalRequest` | approval request (older name) | `id` |
//! | `functionApprovalResponse` | approval response (older name) | `id` |
//! | anything else | opaque, carried through | — |
//!
//! The OpenAI and Anthropic formats carry approval items and opaque items
//! with the same tags (as `type`), so their readers use
//! `classify_tagged` as well.

use super::{member, string_field, ItemSink};
use crate::terms::{ItemKind, ShapeError};
use serde_json::{Map, Value};

/// Classifies a canonical content item or an OpenAI content part by its type
/// tag (`$type` or `type`), reading its id field.
pub(crate) fn classify_tagged<'a>(
    obj: &'a Map<String, Value>,
    tag: &str,
    index: usize,
    item: usize,
) -> Result<(ItemKind, &'a str), ShapeError> {
    let at = Some(item);
    let kind_id = |kind, key: &str, what: &str| -> Result<(ItemKind, &'a str), ShapeError> {
        Ok((kind, string_field(obj, key, index, at, what)?))
    };
    match tag {
        "text" => Ok((ItemKind::Text, "")),
        "functionCall" => kind_id(ItemKind::Call, "callId", "functionCall"),
        "functionResult" => kind_id(ItemKind::Result, "callId", "functionResult"),
        "toolApprovalRequest" => kind_id(
            ItemKind::ApprovalRequest,
            "requestId",
            "toolApprovalRequest",
        ),
        "toolApprovalResponse" => kind_id(
            ItemKind::ApprovalResponse,
            "requestId",
            "toolApprovalResponse",
        ),
        "functionApprovalRequest" => {
            kind_id(ItemKind::ApprovalRequest, "id", "functionApprovalRequest")
        }
        "functionApprovalResponse" => {
            kind_id(ItemKind::ApprovalResponse, "id", "functionApprovalResponse")
        }
        _ => Ok((ItemKind::Opaque, "")),
    }
}

/// Classifies a part or block that is not a call or result by its tag
/// (the `$type` of a canonical item, the `type` of an OpenAI part or an
/// Anthropic block): the signature [`tagged_items`] takes.
pub(crate) type Classify<'a> = &'a dyn for<'m> Fn(
    &'m Map<String, Value>,
    &str,
    usize,
) -> Result<(ItemKind, &'m str), ShapeError>;

/// One item per element of `elems` (the contents, parts or blocks of a
/// message), each classified by `classify` (with its tag and its position)
/// when it is an object with a string member `tag_key`, else opaque, into
/// `sink`.
pub(crate) fn tagged_items(
    elems: &[Value],
    tag_key: &str,
    classify: Classify,
    sink: &mut dyn ItemSink,
) -> Result<(), ShapeError> {
    for (i, e) in elems.iter().enumerate() {
        let (kind, id) = match e {
            Value::Object(o) => match member(o, tag_key) {
                Some(Value::String(tag)) => classify(o, tag, i)?,
                _ => (ItemKind::Opaque, ""),
            },
            _ => (ItemKind::Opaque, ""),
        };
        sink.item(kind, id, Some(i));
    }
    Ok(())
}

/// The items of a canonical message: one per element of its `contents`
/// (absent or `null`: none), classified by `$type`; an element that is not
/// an object, or has no string `$type`, is opaque. Into `sink`.
pub(crate) fn items(
    obj: &Map<String, Value>,
    index: usize,
    sink: &mut dyn ItemSink,
) -> Result<(), ShapeError> {
    match member(obj, "contents") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Array(contents)) => tagged_items(
            contents,
            "$type",
            &|o, tag, i| classify_tagged(o, tag, index, i),
            sink,
        ),
        Some(_) => Err(ShapeError::new(index, None, "`contents` is not an array")),
    }
}
