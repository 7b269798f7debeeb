//! The references a run extracted, held until resolution in a packed form.
//!
//! A build from nothing parses every file before it resolves anything, so it holds
//! every reference of the tree at once: 4.9 million on the Linux kernel. As [`Ref`]
//! values (168 bytes each, plus their strings) they were about 1 GB of the build's peak
//! memory; packed they take the bytes of their strings plus about a dozen more.
//!
//! The queue keeps one byte buffer per resolution phase (imports, exports, bases, then
//! calls and value references), each in id order, so the resolver reads them in the
//! order it resolves them without sorting. Integers are LEB128 varints (ids and node
//! ids as zigzag deltas from the row before in the same phase), strings are a varint
//! length then their bytes, and `kind` and `form` are indexes into a table of the
//! static names seen. Decoding gives back the very [`Ref`] that was pushed.

use std::borrow::Cow;

use crate::store::files::Ref;

/// Number of resolution phases ([`phase_of`]).
pub(crate) const PHASES: usize = 4;

/// The resolution phase of a reference: imports (0), exports (1), bases (2), then the
/// rest: calls and value references (3).
pub(crate) fn phase_of(r: &Ref) -> u8 {
    match r.kind {
        "import" => 0,
        "export" => 1,
        "inherit" | "implement" => 2,
        _ => 3,
    }
}

/// References waiting for resolution, packed (module docs). Cost: O(1) amortised per
/// push, plus the bytes; reading decodes one reference at a time.
#[derive(Debug, Default)]
pub(crate) struct RefQueue {
    phases: [Phase; PHASES],
    /// The distinct `kind` and `form` names pushed; a reference stores their index.
    names: Vec<&'static str>,
}

#[derive(Debug, Default, Clone)]
struct Phase {
    bytes: Vec<u8>,
    len: usize,
    /// The row before's id, file and node: deltas are taken from them.
    last: (i64, i64, i64),
    /// Every id pushed was above the one before.
    unsorted: bool,
}

impl RefQueue {
    /// Queues `r` in its phase.
    pub(crate) fn push(&mut self, r: Ref) {
        let kind = self.name_index(r.kind);
        let form = r.form.map(|f| self.name_index(f));
        let phase = &mut self.phases[phase_of(&r) as usize];
        if phase.len > 0 && r.id <= phase.last.0 {
            phase.unsorted = true;
        }
        let out = &mut phase.bytes;
        put_signed(out, r.id.wrapping_sub(phase.last.0));
        put_signed(out, r.file_id.wrapping_sub(phase.last.1));
        put_signed(out, r.src_id.wrapping_sub(phase.last.2));
        put(out, kind);
        put(out, form.map_or(0, |f| f + 1));
        put_str(out, Some(&r.name));
        put_str(out, r.qualifier.as_deref());
        put(out, u64::from(r.line));
        put(out, u64::from(r.col));
        put_str(out, r.receiver_type.as_deref());
        put_str(out, r.bindings.as_deref());
        put_signed(out, r.flags);
        phase.last = (r.id, r.file_id, r.src_id);
        phase.len += 1;
    }

    /// All references queued.
    pub(crate) fn len(&self) -> usize {
        self.phases.iter().map(|p| p.len).sum()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The references queued in `phase`.
    pub(crate) fn phase_len(&self, phase: u8) -> usize {
        self.phases[phase as usize].len
    }

    /// The references of `phase` in id order, decoded one at a time. Sorts the phase
    /// first when its ids were not pushed in increasing order (no caller does that
    /// today; this keeps the order a promise of the queue rather than of its callers).
    pub(crate) fn phase(&mut self, phase: u8) -> impl Iterator<Item = Ref> + '_ {
        let at = phase as usize;
        if self.phases[at].unsorted {
            let mut refs: Vec<Ref> = Decoder::new(&self.phases[at], &self.names).collect();
            refs.sort_by_key(|r| r.id);
            self.phases[at] = Phase::default();
            for r in refs {
                self.push(r);
            }
            // Equal ids (which no run makes) stay in their order.
            self.phases[at].unsorted = false;
        }
        Decoder::new(&self.phases[at], &self.names)
    }

    /// Every reference in id order (the phases merged), emptying the queue.
    pub(crate) fn drain_in_id_order(&mut self) -> Vec<Ref> {
        let mut all: Vec<Ref> = Vec::with_capacity(self.len());
        for phase in 0..PHASES as u8 {
            all.extend(self.phase(phase));
        }
        *self = RefQueue::default();
        all.sort_by_key(|r| r.id);
        all
    }

    fn name_index(&mut self, name: &'static str) -> u64 {
        let at = match self.names.iter().position(|n| *n == name) {
            Some(at) => at,
            None => {
                self.names.push(name);
                self.names.len() - 1
            }
        };
        at as u64
    }
}

/// Reads the references of one phase back.
struct Decoder<'q> {
    bytes: &'q [u8],
    names: &'q [&'static str],
    left: usize,
    last: (i64, i64, i64),
}

impl<'q> Decoder<'q> {
    fn new(phase: &'q Phase, names: &'q [&'static str]) -> Decoder<'q> {
        Decoder {
            bytes: &phase.bytes,
            names,
            left: phase.len,
            last: (0, 0, 0),
        }
    }

    fn varint(&mut self) -> u64 {
        let mut value = 0u64;
        let mut shift = 0;
        loop {
            let byte = self.bytes[0];
            self.bytes = &self.bytes[1..];
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return value;
            }
            shift += 7;
        }
    }

    fn signed(&mut self) -> i64 {
        let z = self.varint();
        ((z >> 1) as i64) ^ -((z & 1) as i64)
    }

    fn string(&mut self) -> Option<String> {
        let len = self.varint();
        if len == 0 {
            return None;
        }
        let len = (len - 1) as usize;
        let (text, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        // Written from a `&str` by `put_str`: valid UTF-8 by construction.
        Some(String::from_utf8_lossy(text).into_owned())
    }
}

impl Iterator for Decoder<'_> {
    type Item = Ref;

    fn next(&mut self) -> Option<Ref> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let id = self.last.0.wrapping_add(self.signed());
        let file_id = self.last.1.wrapping_add(self.signed());
        let src_id = self.last.2.wrapping_add(self.signed());
        self.last = (id, file_id, src_id);
        let kind = self.names[self.varint() as usize];
        let form = match self.varint() {
            0 => None,
            f => Some(self.names[(f - 1) as usize]),
        };
        Some(Ref {
            id,
            file_id,
            src_id,
            kind,
            form,
            name: self.string().unwrap_or_default(),
            qualifier: self.string(),
            line: self.varint() as u32,
            col: self.varint() as u32,
            receiver_type: self.string(),
            bindings: self.string(),
            flags: self.signed(),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

fn put(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Zigzag: small magnitudes of either sign take few bytes.
fn put_signed(out: &mut Vec<u8>, value: i64) {
    put(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// `None` as 0, a string as its length plus one, then its bytes.
fn put_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => put(out, 0),
        Some(s) => {
            put(out, s.len() as u64 + 1);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// The references of `new` and `old` (each in id order, of one phase) merged by id,
/// each with `true` when it comes from `new`.
pub(crate) fn merge_by_id<'a>(
    new: impl Iterator<Item = Ref> + 'a,
    old: &'a [Ref],
) -> impl Iterator<Item = (Cow<'a, Ref>, bool)> + 'a {
    let (mut new, mut old) = (new.peekable(), old.iter().peekable());
    std::iter::from_fn(move || match (new.peek(), old.peek()) {
        (Some(a), Some(b)) if b.id < a.id => old.next().map(|r| (Cow::Borrowed(r), false)),
        (Some(_), _) => new.next().map(|r| (Cow::Owned(r), true)),
        (None, _) => old.next().map(|r| (Cow::Borrowed(r), false)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs() -> Vec<Ref> {
        let base = Ref {
            id: 0,
            file_id: 3,
            src_id: 40,
            kind: "call",
            form: None,
            name: "f".into(),
            qualifier: None,
            line: 1,
            col: 0,
            receiver_type: None,
            bindings: None,
            flags: 0,
        };
        vec![
            Ref {
                id: 1,
                kind: "import",
                form: Some("from"),
                name: "os.path".into(),
                qualifier: Some("join,split".into()),
                bindings: Some("join=join".into()),
                flags: 5,
                ..base.clone()
            },
            Ref {
                id: 2,
                name: "".into(),
                qualifier: Some("".into()),
                line: u32::MAX,
                col: 300,
                receiver_type: Some("Vec<é>".into()),
                flags: -7,
                ..base.clone()
            },
            Ref {
                id: 3,
                kind: "inherit",
                src_id: 12,
                ..base.clone()
            },
            Ref {
                id: 4,
                kind: "export",
                file_id: 1_000_000_007,
                src_id: i64::MAX,
                flags: i64::MIN,
                ..base.clone()
            },
            Ref {
                id: 9,
                kind: "reference",
                file_id: 2,
                src_id: 1,
                ..base.clone()
            },
            Ref {
                id: 10,
                kind: "import",
                form: Some("require"),
                ..base.clone()
            },
            Ref {
                id: 11,
                kind: "implement",
                ..base
            },
        ]
    }

    fn dump(refs: impl IntoIterator<Item = Ref>) -> Vec<String> {
        refs.into_iter().map(|r| format!("{r:?}")).collect()
    }

    #[test]
    fn references_come_back_as_pushed_by_phase_in_id_order() {
        let all = refs();
        let mut q = RefQueue::default();
        for r in all.clone() {
            q.push(r);
        }
        assert_eq!(q.len(), all.len());
        let mut read = Vec::new();
        for phase in 0..PHASES as u8 {
            let expected: Vec<Ref> = all
                .iter()
                .filter(|r| phase_of(r) == phase)
                .cloned()
                .collect();
            assert_eq!(q.phase_len(phase), expected.len());
            let got: Vec<Ref> = q.phase(phase).collect();
            assert_eq!(dump(got.clone()), dump(expected), "phase {phase}");
            read.extend(got);
        }
        assert_eq!(read.len(), all.len());
        assert_eq!(dump(q.drain_in_id_order()), dump(all));
        assert!(q.is_empty());
    }

    #[test]
    fn references_pushed_out_of_id_order_are_read_in_id_order() {
        let mut all = refs();
        all.reverse();
        let mut q = RefQueue::default();
        for r in all.clone() {
            q.push(r);
        }
        all.sort_by_key(|r| r.id);
        let calls: Vec<Ref> = all.iter().filter(|r| phase_of(r) == 3).cloned().collect();
        assert_eq!(dump(q.phase(3)), dump(calls));
        assert_eq!(dump(q.drain_in_id_order()), dump(all));
    }

    #[test]
    fn merging_takes_the_smaller_id_first_and_says_where_it_came_from() {
        let all = refs();
        let new: Vec<Ref> = vec![all[0].clone(), all[3].clone(), all[5].clone()];
        let old: Vec<Ref> = vec![all[1].clone(), all[4].clone(), all[6].clone()];
        let merged: Vec<(i64, bool)> = merge_by_id(new.into_iter(), &old)
            .map(|(r, is_new)| (r.id, is_new))
            .collect();
        assert_eq!(
            merged,
            [
                (1, true),
                (2, false),
                (4, true),
                (9, false),
                (10, true),
                (11, false)
            ]
        );
    }
}
