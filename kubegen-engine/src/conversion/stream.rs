//! `ConversionReview`s answered object by object: the request is decoded
//! from a reader as it arrives, each object of `request.objects` converted
//! as soon as it is decoded and written to the response at once, so what a
//! review holds is one object (decoded, converted, encoded), whatever the
//! size of the review.
//!
//! The response's fields come in the order that allows this:
//! `convertedObjects` first, `uid` and `result` last (JSON objects are
//! unordered; the apiserver decodes them as any). The apiserver writes
//! `uid` and `desiredAPIVersion` before `objects`; a review that sends
//! `objects` first has them kept until `desiredAPIVersion` comes.
//!
//! A review whose envelope is not a `ConversionReview` fails before
//! anything is written (the server answers `400`). Once objects have been
//! written, a later failure — an object that does not convert, is larger
//! than the limit, or malformed JSON — ends the response with a failure
//! `result`, which the apiserver refuses the conversion on, as it does any
//! failure result.

use std::cell::Cell;
use std::fmt;
use std::io::{self, Read, Write};
use std::rc::Rc;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::Converter;

/// The review could not be answered at all: nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAReview(pub String);

impl fmt::Display for NotAReview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a ConversionReview: {}", self.0)
    }
}

impl std::error::Error for NotAReview {}

/// Answers the `ConversionReview` read from `input` into `output`,
/// converting each object as it is decoded; an object longer than
/// `max_object` bytes fails the review.
///
/// # Errors
/// [`NotAReview`] when nothing could be written: the input is not a
/// `ConversionReview` up to its first object.
pub fn answer(
    converter: &Converter,
    input: impl Read,
    output: impl Write,
    max_object: usize,
) -> Result<(), NotAReview> {
    let position = Rc::new(Cell::new(0usize));
    let limit = Rc::new(Cell::new(usize::MAX));
    let reader = Counted {
        inner: io::BufReader::with_capacity(64 * 1024, input),
        position: position.clone(),
        limit: limit.clone(),
        max_object,
    };
    let mut state = State {
        converter,
        out: Output {
            w: output,
            started: false,
            objects: 0,
        },
        uid: None,
        desired: None,
        pending: Vec::new(),
        failure: None,
        seen_request: false,
        position,
        limit,
        max_object,
    };
    let mut de = serde_json::Deserializer::from_reader(reader);
    let parsed = TopSeed(&mut state)
        .deserialize(&mut de)
        .and_then(|()| de.end());
    if let Err(e) = parsed {
        if !state.out.started {
            return Err(NotAReview(e.to_string()));
        }
        state.fail(format!("reading the review: {e}"));
    }
    if !state.seen_request && state.failure.is_none() {
        return Err(NotAReview("the review carries no request".into()));
    }
    state.convert_pending();
    if state.desired.is_none() && state.failure.is_none() {
        state.fail("the request has no desiredAPIVersion".into());
    }
    state
        .finish()
        .map_err(|e| NotAReview(format!("writing the response: {e}")))
}

/// A reader that counts the bytes read (`position`) and fails once the
/// count passes `limit` (set to `max_object` past an object's start while
/// the object is read).
struct Counted<R> {
    inner: R,
    position: Rc<Cell<usize>>,
    limit: Rc<Cell<usize>>,
    max_object: usize,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let at = self.position.get() + n;
        self.position.set(at);
        if at > self.limit.get() {
            return Err(io::Error::other(format!(
                "an object is larger than {} bytes",
                self.max_object
            )));
        }
        Ok(n)
    }
}

/// The response as it is written.
struct Output<W> {
    w: W,
    started: bool,
    objects: usize,
}

impl<W: Write> Output<W> {
    fn start(&mut self) -> io::Result<()> {
        if !self.started {
            self.started = true;
            self.w.write_all(
                br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"convertedObjects":["#,
            )?;
        }
        Ok(())
    }

    fn object(&mut self, object: &Value) -> io::Result<()> {
        self.start()?;
        if self.objects > 0 {
            self.w.write_all(b",")?;
        }
        self.objects += 1;
        serde_json::to_writer(&mut self.w, object).map_err(io::Error::from)
    }
}

struct State<'c, W> {
    converter: &'c Converter,
    out: Output<W>,
    uid: Option<String>,
    desired: Option<String>,
    /// Objects read before `desiredAPIVersion`.
    pending: Vec<Value>,
    /// The first failure; no object is converted after it.
    failure: Option<String>,
    seen_request: bool,
    position: Rc<Cell<usize>>,
    limit: Rc<Cell<usize>>,
    max_object: usize,
}

impl<W: Write> State<'_, W> {
    fn fail(&mut self, message: String) {
        if self.failure.is_none() {
            self.failure = Some(message);
        }
    }

    /// Converts `object` and writes it, unless the review already failed.
    fn take(&mut self, object: Value) -> io::Result<()> {
        if self.failure.is_some() {
            return Ok(());
        }
        let Some(desired) = self.desired.clone() else {
            self.pending.push(object);
            return Ok(());
        };
        let name = object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match self.converter.convert(object, &desired) {
            Ok(converted) => self.out.object(&converted),
            Err(e) => {
                self.fail(format!("{name}: {e}"));
                Ok(())
            }
        }
    }

    fn convert_pending(&mut self) {
        for object in std::mem::take(&mut self.pending) {
            if let Err(e) = self.take(object) {
                self.fail(format!("writing the response: {e}"));
            }
        }
    }

    /// Closes the response: `uid` and the result.
    fn finish(mut self) -> io::Result<()> {
        self.out.start()?;
        let uid = serde_json::to_string(self.uid.as_deref().unwrap_or(""))?;
        let result = match &self.failure {
            None => r#"{"metadata":{},"status":"Success"}"#.to_owned(),
            Some(message) => format!(
                r#"{{"metadata":{{}},"status":"Failure","message":{},"reason":"BadRequest","code":400}}"#,
                serde_json::to_string(message)?
            ),
        };
        write!(self.out.w, r#"],"uid":{uid},"result":{result}}}}}"#)?;
        self.out.w.flush()
    }
}

/// The review: only `request` is read.
struct TopSeed<'s, 'c, W>(&'s mut State<'c, W>);

impl<'de, W: Write> DeserializeSeed<'de> for TopSeed<'_, '_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, W: Write> Visitor<'de> for TopSeed<'_, '_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ConversionReview object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "request" {
                self.0.seen_request = true;
                map.next_value_seed(RequestSeed(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// `request`: `uid`, `desiredAPIVersion`, `objects`.
struct RequestSeed<'s, 'c, W>(&'s mut State<'c, W>);

impl<'de, W: Write> DeserializeSeed<'de> for RequestSeed<'_, '_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, W: Write> Visitor<'de> for RequestSeed<'_, '_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a ConversionRequest object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "uid" => self.0.uid = Some(map.next_value()?),
                "desiredAPIVersion" => {
                    self.0.desired = Some(map.next_value()?);
                    self.0.convert_pending();
                }
                "objects" => map.next_value_seed(ObjectsSeed(&mut *self.0))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `objects`: each decoded (at most `max_object` bytes), converted and
/// written before the next is read.
struct ObjectsSeed<'s, 'c, W>(&'s mut State<'c, W>);

impl<'de, W: Write> DeserializeSeed<'de> for ObjectsSeed<'_, '_, W> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, W: Write> Visitor<'de> for ObjectsSeed<'_, '_, W> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let state = self.0;
        loop {
            state
                .limit
                .set(state.position.get().saturating_add(state.max_object));
            let next = seq.next_element::<Value>();
            state.limit.set(usize::MAX);
            let Some(object) = next? else { break };
            state
                .take(object)
                .map_err(|e| serde::de::Error::custom(format!("writing the response: {e}")))?;
        }
        Ok(())
    }
}
