"""Small helpers for adapters whose wire format is the kit's canonical one
(Microsoft.Extensions.AI `ChatMessage` JSON, spec/spec.md section 1.1):
reading a message's text, calls and results, and writing a message that a
library made."""

import json


def items(data):
    """The content items of a canonical message (plain data)."""
    contents = data.get("contents")
    return contents if isinstance(contents, list) else []


def item_type(item):
    return item.get("$type") if isinstance(item, dict) else None


def text_of(data):
    """The text items of a message, joined by newlines."""
    return "\n".join(i.get("text", "") for i in items(data)
                     if item_type(i) == "text" and isinstance(i.get("text"), str))


def calls_of(data):
    """[(callId, name, arguments)] of the functionCall items."""
    return [(i.get("callId"), i.get("name") or "tool", i.get("arguments"))
            for i in items(data) if item_type(i) == "functionCall"]


def results_of(data):
    """[(callId, result)] of the functionResult items."""
    return [(i.get("callId"), i.get("result"))
            for i in items(data) if item_type(i) == "functionResult"]


def result_text(result):
    """A result payload as the text a library stores (libraries keep tool
    output as a string; a non-string payload becomes its JSON)."""
    return result if isinstance(result, str) else json.dumps(result)


def text_message(role, text):
    """A message a library made, in the canonical format."""
    return {"role": role, "contents": [{"$type": "text", "text": text}]}
