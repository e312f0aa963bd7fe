//! Protobuf's wire format (not Kubernetes' framing, which is `envelope`):
//! varints, field keys and a message split into its fields' raw values,
//! read without copying; and the few writers (`put_varint`, `put_bytes`)
//! envelopes and tests need.

use std::ops::Range;

use super::Error;

/// One field occurrence as it appears on the wire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Raw<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    /// Length-delimited: a string, bytes, a message or a packed run.
    Bytes(&'a [u8]),
}

/// Reads a varint from the front of `input`, advancing it.
pub(super) fn varint(input: &mut &[u8]) -> Result<u64, Error> {
    let mut value = 0u64;
    for (i, &byte) in input.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            if i == 9 && byte > 1 {
                break;
            }
            *input = &input[i + 1..];
            return Ok(value);
        }
    }
    Err(Error::new("a malformed or truncated varint"))
}

fn take<'a>(input: &mut &'a [u8], len: usize) -> Result<&'a [u8], Error> {
    if input.len() < len {
        return Err(Error::new("a field runs past the end of its message"));
    }
    let (head, tail) = input.split_at(len);
    *input = tail;
    Ok(head)
}

/// Reads one field: its number and raw value.
pub(super) fn field<'a>(input: &mut &'a [u8]) -> Result<(u32, Raw<'a>), Error> {
    let key = varint(input)?;
    let number = u32::try_from(key >> 3)
        .ok()
        .filter(|&n| n != 0)
        .ok_or_else(|| Error::new("a field number out of range"))?;
    let raw = match key & 7 {
        0 => Raw::Varint(varint(input)?),
        1 => Raw::Fixed64(u64::from_le_bytes(
            take(input, 8)?.try_into().expect("8 bytes"),
        )),
        2 => {
            let len =
                usize::try_from(varint(input)?).map_err(|_| Error::new("a length out of range"))?;
            Raw::Bytes(take(input, len)?)
        }
        5 => Raw::Fixed32(u32::from_le_bytes(
            take(input, 4)?.try_into().expect("4 bytes"),
        )),
        other => {
            return Err(Error::new(format!(
                "wire type {other}, which Kubernetes never writes"
            )));
        }
    };
    Ok((number, raw))
}

/// Every field of a message, in wire order.
pub(super) fn fields(mut input: &[u8]) -> impl Iterator<Item = Result<(u32, Raw<'_>), Error>> {
    std::iter::from_fn(move || {
        if input.is_empty() {
            return None;
        }
        let next = field(&mut input);
        if next.is_err() {
            input = &[];
        }
        Some(next)
    })
}

/// A field, its raw value, and the bytes it spans (key included).
pub(super) type Span<'a> = (u32, Raw<'a>, Range<usize>);

/// Every field of a message with the bytes it spans.
pub(super) fn spans(input: &[u8]) -> impl Iterator<Item = Result<Span<'_>, Error>> {
    let mut rest = input;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let start = input.len() - rest.len();
        let next =
            field(&mut rest).map(|(number, raw)| (number, raw, start..input.len() - rest.len()));
        if next.is_err() {
            rest = &[];
        }
        Some(next)
    })
}

/// Appends `value` as a varint.
pub(super) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends field `number` holding `data` (length-delimited).
pub(super) fn put_bytes(out: &mut Vec<u8>, number: u32, data: &[u8]) {
    put_varint(out, u64::from(number) << 3 | 2);
    put_varint(out, data.len() as u64);
    out.extend_from_slice(data);
}

/// The last occurrence of field `number` (protobuf's rule for a field that
/// is not repeated).
pub(super) fn last(input: &[u8], number: u32) -> Result<Option<Raw<'_>>, Error> {
    let mut found = None;
    for next in fields(input) {
        let (n, raw) = next?;
        if n == number {
            found = Some(raw);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_read_as_protobuf_writes_them() {
        for (bytes, value) in [
            (&[0x00][..], 0u64),
            (&[0x01], 1),
            (&[0x96, 0x01], 150),
            (&[0xff, 0xff, 0xff, 0xff, 0x0f], u64::from(u32::MAX)),
            (
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
                u64::MAX,
            ),
        ] {
            let mut input = bytes;
            assert_eq!(varint(&mut input).unwrap(), value);
            assert!(input.is_empty());
        }
        for bad in [
            &[0x80][..],
            &[],
            &[0xff; 10],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
        ] {
            assert!(varint(&mut &bad[..]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn fields_split_a_message_and_reject_truncation() {
        // 1: "ab", 2: 150, 3: fixed64 1, 4: fixed32 2
        let message = [
            0x0a, 2, b'a', b'b', 0x10, 0x96, 0x01, 0x19, 1, 0, 0, 0, 0, 0, 0, 0, 0x25, 2, 0, 0, 0,
        ];
        let got: Vec<_> = fields(&message).collect::<Result<_, _>>().unwrap();
        assert_eq!(
            got,
            [
                (1, Raw::Bytes(b"ab")),
                (2, Raw::Varint(150)),
                (3, Raw::Fixed64(1)),
                (4, Raw::Fixed32(2))
            ]
        );
        assert!(fields(&message[..3]).any(|f| f.is_err()));
        assert!(fields(&[0x0b]).any(|f| f.is_err()), "wire type 3 (groups)");
        assert!(fields(&[0x00, 0x00]).any(|f| f.is_err()), "field number 0");
        assert_eq!(last(&[0x08, 1, 0x08, 2], 1).unwrap(), Some(Raw::Varint(2)));
        let spans: Vec<_> = spans(&message)
            .map(|span| span.map(|(n, _, range)| (n, range)))
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(spans, [(1, 0..4), (2, 4..7), (3, 7..16), (4, 16..21)]);
    }

    #[test]
    fn written_varints_read_back() {
        for value in [
            0,
            1,
            127,
            128,
            150,
            16_383,
            16_384,
            u64::from(u32::MAX),
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            let mut input = &out[..];
            assert_eq!(varint(&mut input).unwrap(), value);
            assert!(input.is_empty(), "{value} left bytes");
        }
    }
}
