//! Server-sent events (<https://html.spec.whatwg.org/multipage/server-sent-events.html>),
//! decoded from raw byte chunks.

/// One event: its `event:` name, if any, and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SseEvent {
    /// The `event:` field.
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined by `\n`.
    pub(crate) data: String,
}

/// Splits a byte stream into events. Bytes are kept until their line ends, so a UTF-8
/// character cut between two chunks is decoded whole. Lines end with `\n`, `\r\n` or `\r`;
/// comment lines (`:`) and unknown fields are ignored.
#[derive(Debug, Default)]
pub(crate) struct SseDecoder {
    buffer: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
    pending_cr: bool,
}

impl SseDecoder {
    /// Reads a chunk, returning the events it completed.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &byte in bytes {
            if self.pending_cr {
                self.pending_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' => self.end_line(&mut events),
                b'\r' => {
                    self.end_line(&mut events);
                    self.pending_cr = true;
                }
                _ => self.buffer.push(byte),
            }
        }
        events
    }

    /// The stream ended: the last event, when its data had no blank line after it.
    pub(crate) fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.buffer.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        events
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.buffer);
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        let line = String::from_utf8_lossy(&line);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if let Some(data) = self.data.take() {
            events.push(SseEvent { event, data });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_between_chunks_is_decoded_whole() {
        let text = "event: x\r\ndata: {\"t\":\"é€😀\"}\r\n\r\n".as_bytes();
        let mut decoder = SseDecoder::default();
        let mut events = Vec::new();
        for byte in text {
            events.extend(decoder.push(std::slice::from_ref(byte)));
        }
        assert_eq!(
            events,
            [SseEvent {
                event: Some("x".into()),
                data: "{\"t\":\"é€😀\"}".into()
            }]
        );
        assert!(decoder.finish().is_empty());
    }
}
