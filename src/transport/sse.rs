//! A strict, incremental parser for `text/event-stream` (the WHATWG event-stream rules): fields
//! `data`, `id`, `event`, `retry`, comment lines, and CRLF, LF or CR line ends.

use crate::record::SseEvent;

/// Feeds bytes in, takes events out.
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    started: bool,
    last_was_cr: bool,
    current: SseEvent,
    data_lines: Option<String>,
    /// Comment lines seen (keep-alives).
    pub comments: usize,
    /// Lines that were not UTF-8 (read on lossily).
    pub invalid_utf8: usize,
}

impl SseParser {
    /// Bytes held for an event not yet complete (a flooding stream may grow this without end).
    pub fn pending(&self) -> usize {
        self.buffer.len() + self.data_lines.as_ref().map_or(0, String::len)
    }

    /// Feeds a chunk; returns the events it completed. Lines are found by searching for their
    /// ends, not byte by byte: a stream that floods megabytes costs a copy of each line, once.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        while let Some((&first, rest)) = chunk.split_first() {
            // A CR ends a line; the LF right after it (in this chunk or the next) is its pair.
            if std::mem::take(&mut self.last_was_cr) && first == b'\n' {
                chunk = rest;
                continue;
            }
            let Some(end) = memchr::memchr2(b'\r', b'\n', chunk) else {
                self.buffer.extend_from_slice(chunk);
                break;
            };
            self.buffer.extend_from_slice(&chunk[..end]);
            self.last_was_cr = chunk[end] == b'\r';
            self.end_line(&mut events);
            chunk = &chunk[end + 1..];
        }
        events
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let mut line = std::mem::take(&mut self.buffer);
        if !self.started {
            self.started = true;
            if line.starts_with("\u{feff}".as_bytes()) {
                line.drain(..3);
            }
        }
        let line = String::from_utf8(line).unwrap_or_else(|not_utf8| {
            self.invalid_utf8 += 1;
            String::from_utf8_lossy(not_utf8.as_bytes()).into_owned()
        });
        if line.is_empty() {
            if let Some(data) = self.data_lines.take() {
                let mut event = std::mem::take(&mut self.current);
                event.data = data;
                events.push(event);
            } else {
                self.current = SseEvent::default();
            }
            return;
        }
        if line.starts_with(':') {
            self.comments += 1;
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_str(), ""),
        };
        match field {
            "data" => match &mut self.data_lines {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data_lines = Some(value.to_string()),
            },
            "event" => self.current.event = Some(value.to_string()),
            "id" if !value.contains('\0') => self.current.id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.current.retry = value.parse().ok();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fields_comments_and_line_ends() {
        let mut parser = SseParser::default();
        let mut events = parser
            .feed(b": keep-alive\r\nid: 7\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\n");
        events.extend(parser.feed(b"retry: 1500\rdata:\r\r"));
        assert_eq!(parser.comments, 1);
        assert_eq!(events.len(), 2);
        assert_eq!(
            events[0],
            SseEvent {
                id: Some("7".into()),
                event: Some("message".into()),
                data: "{\"a\":\n1}".into(),
                retry: None
            }
        );
        assert_eq!(
            events[1],
            SseEvent {
                id: None,
                event: None,
                data: String::new(),
                retry: Some(1500)
            }
        );
    }

    #[test]
    fn events_split_across_chunks() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"data: hel").is_empty());
        assert!(parser.feed(b"lo\n").is_empty());
        assert_eq!(parser.feed(b"\n")[0].data, "hello");
    }

    #[test]
    fn block_without_data_is_not_dispatched() {
        let mut parser = SseParser::default();
        assert!(parser.feed(b"id: 3\n\n").is_empty());
        assert!(parser.feed(b"retry: x1\ndata: a\n\n")[0].retry.is_none());
    }

    #[test]
    fn every_split_of_a_stream_gives_the_same_events() {
        let stream: &[u8] =
            b"\xef\xbb\xbfdata: a\r\n\r\nid: 1\rdata: b\xff\r\rdata: c\n: x\ndata\n\n";
        let mut whole = SseParser::default();
        let expected = whole.feed(stream);
        assert_eq!(expected.len(), 3);
        assert_eq!(expected[1].data, "b\u{fffd}");
        assert_eq!(expected[2].data, "c\n");
        for split in 0..=stream.len() {
            let mut parser = SseParser::default();
            let mut events = parser.feed(&stream[..split]);
            events.extend(parser.feed(&stream[split..]));
            assert_eq!(events, expected, "split at {split}");
            assert_eq!((parser.comments, parser.invalid_utf8), (1, 1));
        }
    }
}
