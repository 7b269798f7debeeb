//! Telling a C++ header from a C header by its text.
//!
//! `.h` is used by both languages, and the C++ grammar misreads C that uses C++
//! keywords as names while the C grammar cannot read classes or namespaces. So a `.h`
//! file is C++ when its code (comments, string and character literals skipped) shows a
//! construct that C does not have; otherwise it is C. The markers are chosen so that a
//! C identifier cannot produce them:
//!
//! - the scope operator `::` (not after a string literal or `)`: the empty operand
//!   list of inline assembly, `asm("" :: "r"(p))`);
//! - `namespace` followed by a name or `{`; `template` followed by `<`;
//! - `class` followed by a name (C may name a field `class`, never declare one), but
//!   for a C struct tag `struct class name`;
//! - `public:`, `private:`, `protected:` (an access label, not `private::` nor a bare
//!   `private`, which C code does use as a field name);
//! - the keywords `typename`, `virtual`, `nullptr`, `constexpr`, `noexcept`, but not
//!   as a field's name: after `.` or `->`, and for `virtual`, `typename` and
//!   `constexpr` when `;`, `,`, `)`, `=`, `[`, `]` or `:` follows (`void *virtual;`,
//!   the Linux kernel's `p->virtual` and bit-field `u8 virtual:1`).
//!
//! One linear pass over the bytes, stopping at the first marker.

/// True when the header's code has a C++-only construct (see the module docs).
pub fn header_is_cpp(source: &[u8]) -> bool {
    let mut scanner = Scanner { src: source, at: 0 };
    let mut previous: Option<&[u8]> = None;
    // The word before `previous`, for `struct class name` (a C struct tag `class`).
    let mut before: Option<&[u8]> = None;
    while let Some(token) = scanner.next_token() {
        match token {
            Token::Word(word) => {
                if matches!(
                    word,
                    b"typename" | b"virtual" | b"nullptr" | b"constexpr" | b"noexcept"
                ) && !scanner.names_a_field(word)
                {
                    return true;
                }
                let tag = matches!(before, Some(b"struct" | b"union" | b"enum"));
                if previous == Some(b"namespace") || (previous == Some(b"class") && !tag) {
                    return true;
                }
                before = previous;
                previous = Some(word);
                continue;
            }
            Token::Punct(b':') => {
                if scanner.peek() == Some(b':') && !scanner.after_operands() {
                    return true;
                }
                if matches!(previous, Some(b"public" | b"private" | b"protected")) {
                    return true;
                }
                (before, previous) = (None, None);
            }
            Token::Punct(b'<') if previous == Some(b"template") => return true,
            Token::Punct(b'{') if previous == Some(b"namespace") => return true,
            Token::Punct(_) => (before, previous) = (None, None),
        }
    }
    false
}

enum Token<'a> {
    Word(&'a [u8]),
    Punct(u8),
}

/// A tokenizer that knows just enough C: identifiers, single punctuation bytes,
/// comments and literals (skipped).
struct Scanner<'a> {
    src: &'a [u8],
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.at).copied()
    }

    fn next_token(&mut self) -> Option<Token<'a>> {
        loop {
            let byte = *self.src.get(self.at)?;
            match byte {
                b'/' if self.src.get(self.at + 1) == Some(&b'/') => self.skip_line(),
                b'/' if self.src.get(self.at + 1) == Some(&b'*') => self.skip_block_comment(),
                b'"' | b'\'' => self.skip_literal(byte),
                b if b.is_ascii_whitespace() => self.at += 1,
                b if b.is_ascii_alphabetic() || b == b'_' => {
                    let start = self.at;
                    while self
                        .src
                        .get(self.at)
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    {
                        self.at += 1;
                    }
                    return Some(Token::Word(&self.src[start..self.at]));
                }
                b if b.is_ascii_digit() => {
                    // A number (with any suffix) is one token of no interest.
                    while self
                        .src
                        .get(self.at)
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.')
                    {
                        self.at += 1;
                    }
                    return Some(Token::Punct(b'0'));
                }
                _ => {
                    self.at += 1;
                    return Some(Token::Punct(byte));
                }
            }
        }
    }

    /// True when the word just read (`word`, ending at the current position) is a
    /// field's name, as C may use one of C++'s keywords: after a member access
    /// (`page->virtual`, `s.virtual`), or, for the keywords that are always followed by
    /// more of a declaration, declared (`void *virtual;`, a bit-field `u8 virtual:1;`) or
    /// ending an expression.
    fn names_a_field(&self, word: &[u8]) -> bool {
        let start = self.at - word.len();
        let before = self.src[..start]
            .iter()
            .rev()
            .copied()
            .find(|b| !b.is_ascii_whitespace());
        if before == Some(b'.') || self.src[..start].trim_ascii_end().ends_with(b"->") {
            return true;
        }
        let after = self.src[self.at..]
            .iter()
            .copied()
            .find(|b| !b.is_ascii_whitespace());
        matches!(word, b"virtual" | b"typename" | b"constexpr")
            && matches!(after, Some(b';' | b',' | b')' | b'=' | b'[' | b']' | b':'))
    }

    /// True when the `:` just read follows a string literal or a `)`: the `::` of an
    /// inline assembly statement's empty operand list (`asm("" :: "r"(p))`), not C++'s
    /// scope operator.
    fn after_operands(&self) -> bool {
        let colon = self.at - 1;
        matches!(self.src[..colon].trim_ascii_end().last(), Some(b'"' | b')'))
    }

    fn skip_line(&mut self) {
        while let Some(&b) = self.src.get(self.at) {
            self.at += 1;
            if b == b'\n' {
                break;
            }
        }
    }

    fn skip_block_comment(&mut self) {
        self.at += 2;
        while self.at < self.src.len() {
            if self.src[self.at] == b'*' && self.src.get(self.at + 1) == Some(&b'/') {
                self.at += 2;
                return;
            }
            self.at += 1;
        }
    }

    /// Skips a string or character literal; an unterminated one ends at the line end.
    fn skip_literal(&mut self, quote: u8) {
        self.at += 1;
        while let Some(&b) = self.src.get(self.at) {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'\n' => return,
                b if b == quote => return,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::header_is_cpp;

    #[test]
    fn c_headers_stay_c() {
        for c in [
            "#ifndef A_H\n#define A_H\nstruct s { int private; void *class; };\nint f(void);\n#endif\n",
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint g(int);\n#ifdef __cplusplus\n}\n#endif\n",
            "/* class Foo : public Bar, std::vector */\n// namespace x {\nconst char *s = \"a::b\";\n",
            "int f(int x) { switch (x) { case 1: return 2; default: return 0; } }\n",
            // Linux's include/linux/mm.h and mm_types.h: a field named `virtual`.
            "struct page { void *virtual; };\nvoid *f(struct page *p) { return p->virtual; }\n",
            "int g(struct s s) { return s.virtual + s . nullptr; }\n",
            // include/scsi/libsas.h: a bit-field named `virtual`.
            "struct sas_rphy { unsigned char virtual:1; };\n",
            // include/linux/blkdev.h, randomize_kstack.h: a struct tag `class`, and
            // inline assembly with no output operands.
            "extern struct class block_class;\nstruct class class;\n",
            "#define F(p) asm volatile(\"\" :: \"r\"(p) : \"memory\")\n",
        ] {
            assert!(!header_is_cpp(c.as_bytes()), "{c}");
        }
    }

    #[test]
    fn cpp_headers_are_recognised() {
        for cpp in [
            "class Foo;\n",
            "namespace v8 {\n}\n",
            "namespace {\nint x;\n}\n",
            "template <typename T> T max(T a, T b);\n",
            "struct S {\n public:\n  int x;\n};\n",
            "int x = std::max(1, 2);\n",
            "struct B { virtual ~B(); };\n",
            "struct B { virtual int f() const; };\n",
            "void f() noexcept;\n",
            "int *p = nullptr;\n",
        ] {
            assert!(header_is_cpp(cpp.as_bytes()), "{cpp}");
        }
    }
}
