//! JSON values to Python objects and back, exactly: what crosses the
//! boundary between the kit and Python code (a history given to
//! `validate`, a request given to the reducer under certification, its
//! answer).
//!
//! | JSON | Python |
//! |------|--------|
//! | `null`, `true`, `false` | `None`, `True`, `False` |
//! | a number without fraction or exponent | `int` (any size) |
//! | another number | `float`; a `reducer_kit.JsonFloat` (a `float` that keeps its text) when a float would not write it back the same (`1e400`, `0.1000000000000000055511151231257827`, `2.50`) |
//! | a string | `str` |
//! | an array | `list` (a `tuple` is read as an array too) |
//! | an object | `dict` (its members in order; keys must be `str`) |
//!
//! A `JsonFloat` is written back as the text it was read from, so that a
//! message the reducer keeps comes back denoting the same numbers (spec
//! §1.3, the corpus case `spec/exact-numbers`), as the kit's example
//! reducers keep them. Anything else (a `set`, `NaN`, infinity that was
//! not read as `1e400`, a key that is no string) is not JSON: [`from_py`]
//! says what and where.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

/// The deepest a value read from Python may nest (the kit's own limit on
/// histories is 100 levels, spec §8.11; an answer deeper than this is no
/// answer, and a cycle ends here).
pub const MAX_DEPTH: usize = 256;

/// `v` as Python objects; `json_float` is the `reducer_kit.JsonFloat`
/// class.
pub fn to_py<'py>(
    py: Python<'py>,
    v: &Value,
    json_float: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number_to_py(py, n, json_float)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x, json_float))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, to_py(py, x, json_float)?)?;
            }
            d.into_any()
        }
    })
}

fn number_to_py<'py>(
    py: Python<'py>,
    n: &Number,
    json_float: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    let text = n.to_string();
    if !text.contains(['.', 'e', 'E']) {
        // An integer beyond 64 bits: Python's int reads it exactly.
        return py.get_type::<PyInt>().call1((text,)).map(Bound::into_any);
    }
    let f: f64 = text.parse().unwrap_or(f64::NAN);
    if f.is_finite() && float_text(f).as_deref() == Some(text.as_str()) {
        return Ok(PyFloat::new(py, f).into_any());
    }
    let x = json_float.call1((f,))?;
    x.setattr("text", text)?;
    Ok(x)
}

/// How a finite float is written back: the shortest text that reads as it.
fn float_text(f: f64) -> Option<String> {
    Number::from_f64(f).map(|n| n.to_string())
}

/// `obj` as a JSON value, or what in it is not JSON (with its JSON path).
pub fn from_py(obj: &Bound<'_, PyAny>, json_float: &Bound<'_, PyAny>) -> Result<Value, String> {
    let mut path = String::from("$");
    value(obj, json_float, &mut path, 0)
}

/// [`from_py`] as a `TypeError` for a value given to one of the package's
/// functions.
pub fn from_py_arg(
    obj: &Bound<'_, PyAny>,
    json_float: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<Value> {
    from_py(obj, json_float).map_err(|e| PyTypeError::new_err(format!("{what}: {e}")))
}

fn value(
    obj: &Bound<'_, PyAny>,
    json_float: &Bound<'_, PyAny>,
    path: &mut String,
    depth: usize,
) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("{path}: nested deeper than {MAX_DEPTH} levels"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|e| format!("{path}: a string that is not UTF-8 ({e})"));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut out = Map::with_capacity(d.len());
        for (k, x) in d.iter() {
            let key = dict_key(&k, path)?.into_owned();
            let len = path.len();
            path.push('.');
            path.push_str(&key);
            let v = value(&x, json_float, path, depth + 1)?;
            path.truncate(len);
            out.insert(key, v);
        }
        return Ok(Value::Object(out));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return seq(l.iter(), l.len(), json_float, path, depth);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return seq(t.iter(), t.len(), json_float, path, depth);
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(n) = i.extract::<i64>() {
            return Ok(Value::from(n));
        }
        let text = i.str().map_err(|e| format!("{path}: {e}"))?;
        return serde_json::from_str::<Number>(&text.to_string_lossy())
            .map(Value::Number)
            .map_err(|e| format!("{path}: {e}"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        if obj.is_instance(json_float).unwrap_or(false) {
            if let Ok(text) = obj.getattr("text").and_then(|t| t.extract::<String>()) {
                if let Ok(n) = serde_json::from_str::<Number>(&text) {
                    return Ok(Value::Number(n));
                }
            }
        }
        let x = f.value();
        return Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| format!("{path}: the float {x} is not a JSON number"));
    }
    Err(format!(
        "{path}: an object of type {} is not JSON",
        type_name(obj)
    ))
}

fn seq<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    len: usize,
    json_float: &Bound<'_, PyAny>,
    path: &mut String,
    depth: usize,
) -> Result<Value, String> {
    let mut out = Vec::with_capacity(len);
    for (i, x) in items.enumerate() {
        let at = path.len();
        path.push_str(&format!("[{i}]"));
        out.push(value(&x, json_float, path, depth + 1)?);
        path.truncate(at);
    }
    Ok(Value::Array(out))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// `obj` written as compact JSON text onto `out`, as [`from_py`] reads it
/// (the same values, the same errors), without building a value first: the
/// answer of a reducer under certification, read again by the kit as a
/// process's answer line.
pub fn write_py(
    obj: &Bound<'_, PyAny>,
    json_float: &Bound<'_, PyAny>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let mut path = String::from("$");
    write(obj, json_float, out, &mut path, 0)
}

fn write(
    obj: &Bound<'_, PyAny>,
    json_float: &Bound<'_, PyAny>,
    out: &mut Vec<u8>,
    path: &mut String,
    depth: usize,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{path}: nested deeper than {MAX_DEPTH} levels"));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s
            .to_cow()
            .map_err(|e| format!("{path}: a string that is not UTF-8 ({e})"))?;
        serde_json::to_writer(&mut *out, &*s).map_err(|e| format!("{path}: {e}"))?;
        return Ok(());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        out.push(b'{');
        for (n, (k, x)) in d.iter().enumerate() {
            let key = dict_key(&k, path)?;
            if n > 0 {
                out.push(b',');
            }
            serde_json::to_writer(&mut *out, &*key).map_err(|e| format!("{path}: {e}"))?;
            out.push(b':');
            let len = path.len();
            path.push('.');
            path.push_str(&key);
            write(&x, json_float, out, path, depth + 1)?;
            path.truncate(len);
        }
        out.push(b'}');
        return Ok(());
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return write_seq(l.iter(), json_float, out, path, depth);
    }
    if obj.is_none() {
        out.extend_from_slice(b"null");
        return Ok(());
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
        return Ok(());
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return write_seq(t.iter(), json_float, out, path, depth);
    }
    match value(obj, json_float, path, depth)? {
        // Numbers (and what is not JSON): as [`from_py`] reads them.
        Value::Number(n) => {
            out.extend_from_slice(n.to_string().as_bytes());
            Ok(())
        }
        other => serde_json::to_writer(&mut *out, &other).map_err(|e| format!("{path}: {e}")),
    }
}

fn write_seq<'py>(
    items: impl Iterator<Item = Bound<'py, PyAny>>,
    json_float: &Bound<'_, PyAny>,
    out: &mut Vec<u8>,
    path: &mut String,
    depth: usize,
) -> Result<(), String> {
    out.push(b'[');
    for (i, x) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let at = path.len();
        path.push_str(&format!("[{i}]"));
        write(&x, json_float, out, path, depth + 1)?;
        path.truncate(at);
    }
    out.push(b']');
    Ok(())
}

/// A dict key as text: the key of a JSON object must be a `str` holding
/// UTF-8 (errors name `path` and the key's type).
fn dict_key<'a>(k: &'a Bound<'_, PyAny>, path: &str) -> Result<std::borrow::Cow<'a, str>, String> {
    let Ok(key) = k.cast::<PyString>() else {
        return Err(format!(
            "{path}: a key that is not a string ({})",
            type_name(k)
        ));
    };
    key.to_cow()
        .map_err(|e| format!("{path}: a key that is not UTF-8 ({e})"))
}
