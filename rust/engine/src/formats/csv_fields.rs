//! Splitting CSV records into fields the way Spark's CSV parser (univocity,
//! with Spark's defaults: `escape` `\`, unescaped quotes handled
//! `STOP_AT_DELIMITER`) does, quirks included, so a file reads to the same
//! values on both engines:
//!
//! - an unquoted field is its raw text up to the separator (quotes inside
//!   are kept: `x"y"z`);
//! - in a quoted field a separator is text, `\"` is a quote, `\\` a
//!   backslash; in a run of quotes the first may close the field and each
//!   later one is kept as text (`"a""",` reads `a""`);
//! - a closing quote followed by blanks and then the separator ends the field
//!   (the blanks dropped);
//! - a closing quote followed by anything else was not one: the field is
//!   then the quote, what was read, the quote and the rest of the field as
//!   written (`"a,b"c` reads `"a,b"c`, `"d""e"` reads `"d""e"`);
//! - a quote left open ends with the record.

/// The characters that shape fields.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    /// Field separator (`sep`).
    pub sep: u8,
    /// Quote character (`quote`).
    pub quote: u8,
    /// Escape of a quote inside quotes (`escape`).
    pub escape: u8,
    /// Whether a quoted field may span lines (`multiLine`).
    pub multi_line: bool,
}

/// The records of `text`: each one's fields and its text as written
/// (without its line end). Without `multi_line` a record is a line.
pub fn records(text: &str, dialect: Dialect) -> Vec<(Vec<String>, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let start = pos;
        let (fields, end) = record(bytes, pos, dialect);
        // a quote left open in multiLine takes the rest, but not its last line end
        let text = bytes[start..end]
            .strip_suffix(b"\n")
            .unwrap_or(&bytes[start..end]);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let raw = String::from_utf8_lossy(text).into_owned();
        out.push((fields, raw));
        pos = skip_line_end(bytes, end);
    }
    out
}

fn is_line_end(b: u8) -> bool {
    b == b'\n' || b == b'\r'
}

/// Past one line end (`\n`, `\r` or `\r\n`) at `pos`.
fn skip_line_end(bytes: &[u8], pos: usize) -> usize {
    match bytes.get(pos) {
        Some(b'\r') if bytes.get(pos + 1) == Some(&b'\n') => pos + 2,
        Some(b) if is_line_end(*b) => pos + 1,
        _ => pos,
    }
}

/// The fields of the record starting at `pos`, and where it ends (its line end or the text's end).
fn record(bytes: &[u8], mut pos: usize, d: Dialect) -> (Vec<String>, usize) {
    let mut fields = Vec::new();
    loop {
        let (value, end) = if bytes.get(pos) == Some(&d.quote) {
            quoted(bytes, pos + 1, d)
        } else {
            let end = field_end(bytes, pos, d.sep);
            (bytes[pos..end].to_vec(), end)
        };
        fields.push(String::from_utf8_lossy(&value).into_owned());
        match bytes.get(end) {
            Some(b) if *b == d.sep => pos = end + 1,
            _ => return (fields, end),
        }
    }
}

/// Where the raw text from `pos` meets the separator or a line end.
fn field_end(bytes: &[u8], pos: usize, sep: u8) -> usize {
    bytes[pos..]
        .iter()
        .position(|b| *b == sep || is_line_end(*b))
        .map_or(bytes.len(), |i| pos + i)
}

fn is_blank(b: u8) -> bool {
    b != 0 && b <= b' ' && !is_line_end(b)
}

/// A quoted field whose text starts at `pos` (after its opening quote): its
/// value, and where the field ends (at the separator, a line end or the end).
fn quoted(bytes: &[u8], mut pos: usize, d: Dialect) -> (Vec<u8>, usize) {
    let mut value = Vec::new();
    // the character before, as the quote rules see it (None: nothing, or consumed)
    let mut prev: Option<u8> = None;
    if bytes
        .get(pos)
        .is_none_or(|b| is_line_end(*b) && !d.multi_line)
    {
        return (vec![d.quote], pos); // a record ending in an opening quote: the quote
    }
    loop {
        let Some(&c) = bytes.get(pos) else {
            return (value, pos); // a quote left open ends with the text
        };
        let line_end = is_line_end(c) && !(d.multi_line && prev != Some(d.quote));
        if prev == Some(d.quote) && (c == d.sep || line_end || is_blank(c)) {
            break; // the closing quote
        }
        if line_end {
            return (value, pos); // a quote left open ends with its line
        }
        if c == d.quote || c == d.escape {
            if c == d.escape && prev == Some(d.escape) && d.escape != d.quote {
                value.push(d.escape); // `\\`
                prev = None;
            } else if prev == Some(d.escape) {
                if c == d.quote {
                    value.push(d.quote); // `\"`
                    prev = None;
                } else {
                    value.push(d.escape);
                    prev = Some(c);
                }
            } else if c == d.quote && prev == Some(d.quote) {
                value.push(d.quote); // a later quote of a run
                prev = Some(c);
            } else if prev == Some(d.quote) {
                // the escape character right after a closing quote: the
                // quote is text, the rest up to the separator is read with
                // escapes, and the separator itself is swallowed: the field
                // goes on as quoted text after it
                value.push(d.quote);
                pos = escaped_text(bytes, pos, &mut value, d);
                match bytes.get(pos) {
                    Some(&stop) if d.multi_line || !is_line_end(stop) => {
                        prev = Some(stop);
                        pos += 1;
                        continue;
                    }
                    _ => return (value, pos),
                }
            } else {
                prev = Some(c);
            }
            pos += 1;
            continue;
        }
        if prev == Some(d.quote) {
            return unescaped(bytes, value, pos, d);
        }
        if prev == Some(d.escape) {
            value.push(d.escape); // an escape before no quote is text
        }
        // text up to the next quote or escape (a line end is text only in multiLine)
        let stop = bytes[pos..]
            .iter()
            .position(|b| *b == d.quote || *b == d.escape || (!d.multi_line && is_line_end(*b)))
            .map_or(bytes.len(), |i| pos + i);
        value.extend_from_slice(&bytes[pos..stop]);
        match bytes.get(stop) {
            Some(b) if *b == d.quote || *b == d.escape => {
                prev = Some(*b);
                pos = stop + 1;
            }
            _ => return (value, stop),
        }
    }
    // blanks after the closing quote, then the separator or the record's end
    let after = bytes[pos..]
        .iter()
        .position(|b| !is_blank(*b))
        .map_or(bytes.len(), |i| pos + i);
    match bytes.get(after) {
        None => (value, after),
        Some(b) if *b == d.sep || is_line_end(*b) => (value, after),
        Some(_) => unescaped(bytes, value, pos, d),
    }
}

/// Text read after a quote that did not close its field and an escape
/// character (at `pos`), up to the separator or a line end (returned):
/// escapes apply, a quote before text is kept, a lone quote is dropped.
fn escaped_text(bytes: &[u8], mut pos: usize, value: &mut Vec<u8>, d: Dialect) -> usize {
    // the escape at `pos` escapes itself
    let mut prev = Some(d.escape);
    while let Some(&c) = bytes.get(pos) {
        if c == d.sep || is_line_end(c) {
            break;
        }
        let mut seen = Some(c);
        if c != d.quote && c != d.escape {
            if prev == Some(d.quote) {
                value.push(d.quote);
            }
            value.push(c);
        } else if c == d.escape && prev == Some(d.escape) {
            value.push(d.escape);
            seen = None;
        } else if prev == Some(d.escape) {
            if c == d.quote {
                value.push(d.quote);
                seen = None;
            } else {
                value.push(d.escape);
            }
        } else if c == d.quote && prev == Some(d.quote) {
            value.push(d.quote);
        } else if prev == Some(d.quote) {
            // an escape after a quote: the quote is text, the escape escapes itself
            value.push(d.quote);
            prev = Some(d.escape);
            continue;
        }
        prev = seen;
        pos += 1;
    }
    pos
}

/// A closing quote followed by text: the field is the quote, what was read,
/// the quote, then the rest as written up to the separator.
fn unescaped(bytes: &[u8], read: Vec<u8>, pos: usize, d: Dialect) -> (Vec<u8>, usize) {
    let end = field_end(bytes, pos, d.sep);
    let mut value = Vec::with_capacity(read.len() + 2 + end - pos);
    value.push(d.quote);
    value.extend_from_slice(&read);
    value.push(d.quote);
    value.extend_from_slice(&bytes[pos..end]);
    (value, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str) -> Vec<String> {
        let d = Dialect {
            sep: b',',
            quote: b'"',
            escape: b'\\',
            multi_line: false,
        };
        records(line, d).remove(0).0
    }

    #[test]
    fn reads_quotes_as_spark_does() {
        // each case checked against PySpark 4.3's spark.read.csv
        let cases: &[(&str, &[&str])] = &[
            (r#""a,b"c,d"#, &[r#""a,b"c"#, "d"]),
            (r#""ab"c"d,e"#, &[r#""ab"c"d"#, "e"]),
            (r#""a\"b"x,f"#, &[r#""a"b"x"#, "f"]),
            (r#""ab" ,g"#, &["ab", "g"]),
            (r#"x"y"z,i"#, &[r#"x"y"z"#, "i"]),
            (r#""""",k"#, &[r#""""#, "k"]),
            (r#""a""",l"#, &[r#"a"""#, "l"]),
            (r#""a"b"c",m"#, &[r#""a"b"c""#, "m"]),
            (r#"  "ab",n"#, &[r#"  "ab""#, "n"]),
            (r#"2,"d""e""#, &["2", r#""d""e""#]),
            (r#"1,"abc"#, &["1", "abc"]),
            (r#"1,""#, &["1", r#"""#]),
            (r#""""\", true"#, &[r#"""\ true"#]),
            (r#",""\"",-21.5"#, &["", r#""\"-21.5"#]),
        ];
        for (line, want) in cases {
            assert_eq!(fields(line), want.to_vec(), "{line}");
        }
    }
}
