"""Small helpers for adapters whose wire format is OpenAI Chat Completions
(spec/spec.md section 1.4): reading a message's text, calls and result."""

import json


def text_of(content):
    """The text of an OpenAI `content`: a string, null, or an array of parts
    (the text of its `text` parts, joined by newlines)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content
                         if isinstance(p, dict) and p.get("type") == "text"
                         and isinstance(p.get("text"), str))
    return ""


def calls_of(data):
    """[(id, name, arguments as a dict)] of an assistant message's
    `tool_calls`. Arguments that are not a JSON object are kept under
    "__arguments__" (the library never looks at them)."""
    out = []
    for call in data.get("tool_calls") or []:
        fn = call.get("function") or {}
        args = fn.get("arguments")
        parsed = None
        if isinstance(args, str):
            try:
                parsed = json.loads(args)
            except ValueError:
                parsed = None
        elif isinstance(args, dict):
            parsed = args
        if not isinstance(parsed, dict):
            parsed = {"__arguments__": args}
        out.append((call.get("id"), fn.get("name") or "tool", parsed))
    return out


def arguments_text(args):
    return json.dumps(args if args is not None else {})
