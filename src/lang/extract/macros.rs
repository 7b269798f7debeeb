//! C and C++: macro uses that tree-sitter cannot read, blanked before parsing.
//!
//! tree-sitter parses C without running the preprocessor, so a few common macro idioms
//! derail it, and an error there can swallow the definitions after it (or produce a
//! bogus one: `DECLARE_FOO(x)` on its own line followed by a `typedef struct {..}` reads
//! as a function definition). The idioms below are replaced by spaces before parsing —
//! same length, line breaks kept, so every byte offset and line number stays true and
//! names and signatures are still read from the original text:
//!
//! 1. a line holding nothing but a macro invocation without a semicolon
//!    (`DECLARE_ASN1_FUNCTIONS(X509)`, `UV_HANDLE_FIELDS`), when the code before it ends
//!    a statement or opens a block (`;`, `{`, `}`, a directive, or the file start) and
//!    the code after it does not open a body (`{`, as in `PHP_FUNCTION(name) {`);
//! 2. a macro between `class`/`struct`/`union` and the name of a type being defined
//!    (`class V8_EXPORT Map : public Object {`, `struct API_EXPORT S final`; not
//!    `struct FOO bar;`, where `FOO` is the struct's own name);
//! 3. a macro right before a keyword that starts a declaration
//!    (`SQLITE_API int sqlite3_open(..)`, `V8_INLINE static Local<T> New()`), or at the
//!    start of a declaration before a template or scoped type (`V8_INLINE Local<T>
//!    Get()`, `V8_EXPORT v8::Local<v8::Value> F()`).
//!
//! 4. an annotation macro of the Linux kernel's kind ([`ANNOTATIONS`]: sparse's lock
//!    context `__acquires(x)`/`__releases(x)`/`__must_hold(x)`, address spaces
//!    `__user`/`__iomem`/`__rcu`, section and attribute shorthands `__init`,
//!    `__lockfunc`, `__always_inline`, `__printf(1, 2)`, `__packed`, `__aligned(8)`,
//!    `__attribute_const__`), with its argument list, wherever
//!    it stands but after `.`, `->` or `::`. The grammar reads `static void
//!    __acquires(q) stop_queue(..) {` as a definition of a function `__acquires` whose
//!    body's calls then hang off that bogus name; these words are reserved identifiers
//!    that expand to attributes or nothing, so blanking them loses no code.
//!
//! 5. a loop macro that ends a `do` body in place of `while`
//!    (`do { .. } while_each_thread(g, t);` in the Linux kernel): the letters after
//!    `while` are blanked, leaving `while (g, t);`, a comma expression as the condition.
//!    Unread, the grammar's error swallowed every definition after it in the file
//!    (`kernel/exit.c` lost the last 380 lines);
//! 6. at file scope, a line holding nothing but an invocation of a lower-case macro
//!    without a semicolon (`module_init(f)`, `module_exit(f)` in the kernel), under the
//!    conditions of rule 1, unless a type keyword follows (`main(argc, argv)` then
//!    `int argc;` is an old-style definition). The grammar read `module_init(f)
//!    module_exit(g)` as a definition of a function `module_exit` spanning the lines
//!    after it. No declaration at file scope is a bare `name(args)`: C99 has no
//!    implicit `int`.
//! 7. at file scope, the storage class (and qualifiers) of a statement that is nothing
//!    but a macro invocation whose arguments hold a call or a parenthesis
//!    (`static SPINAND_OP_VARIANTS(read_cache_variants, OP(0, 1, NULL, 0), ..);` in the
//!    Linux kernel's `drivers/mtd/nand/spi/*.c`): the grammar reads `static NAME(` as
//!    a function declarator, fails on the nested parentheses and recovers with an error
//!    that takes the whole rest of the file (`gigadevice.c` kept none of its 10
//!    functions). Without the keyword the invocation reads as a call, its arguments as
//!    expressions, and the definitions after it are read. Arguments without
//!    parentheses (`static DEFINE_MUTEX(lock);`, `static FOO(x, "s", &y);`) read as a
//!    declaration already and are left alone.
//!
//! 8. at file scope, the head of a function that a macro of the Linux kernel defines
//!    ([`DEFINERS`]): a system call,
//!    `SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count) {`
//!    or `COMPAT_SYSCALL_DEFINEn(..)`, a BPF helper, `BPF_CALL_2(name, ..) {`, an
//!    interrupt entry point, `DEFINE_IDTENTRY_RAW_ERRORCODE(exc_page_fault) {`, and in C
//!    (not C++) a selftest of the kselftest harness, `TEST(name) {`,
//!    `TEST_F(fixture, name) {`, `FIXTURE_SETUP(fixture) {`: the grammar reads the head
//!    as a call statement and the body as a block of its own, so the body's calls had
//!    no enclosing function. The head is rewritten (same length) as `int read() {` and
//!    the function is named after the symbol the macro defines, as the kernel's
//!    `scripts/tags.sh` and the harness's expansions name it: `sys_read`,
//!    `compat_sys_read`, the helper's or entry point's first argument, `fixture_name`,
//!    `fixture_setup`. [`Neutralized::renames`] carries that name to the extractor. Its
//!    signature is the head as written. This rule writes bytes other than spaces; the
//!    others only blank.
//!
//! A macro here is an identifier of capital letters, digits and underscores with at least
//! three characters and one capital (`SQLITE_API`, `V8_EXPORT`; not `FILE` followed by a
//! name, which rule 3 leaves alone as it may be a type). One pass over the bytes; a copy
//! is made only when something is blanked.

use std::borrow::Cow;

/// Keywords that may start a declaration after a specifier macro (rule 3). `const` and
/// `volatile` are not among them: `SSL_CTX const *ctx` is a type followed by `const`.
const DECLARATION_KEYWORDS: &[&[u8]] = &[
    b"static",
    b"inline",
    b"extern",
    b"void",
    b"int",
    b"char",
    b"unsigned",
    b"signed",
    b"long",
    b"short",
    b"double",
    b"float",
    b"bool",
    b"struct",
    b"class",
    b"enum",
    b"union",
    b"virtual",
    b"explicit",
    b"constexpr",
    b"typename",
    b"template",
    b"friend",
    b"typedef",
];

/// Rule 4's annotation macros (sorted, for a binary search): lower-case macros that
/// expand to an attribute, a sparse annotation or nothing, written where the grammar
/// expects a declarator or a type. `__cond_lock(x, c)` is not among them: it expands to
/// an expression holding the call `c`.
pub(super) const ANNOTATIONS: &[&[u8]] = &[
    b"__acquire",
    b"__acquires",
    b"__aligned",
    b"__aligned_largest",
    b"__alloc_size",
    b"__always_inline",
    b"__always_unused",
    b"__assume_aligned",
    b"__attribute_const__",
    b"__bitwise",
    b"__cacheline_aligned",
    b"__cacheline_aligned_in_smp",
    b"__cold",
    b"__cond_acquires",
    b"__cond_releases",
    b"__deprecated",
    b"__designated_init",
    b"__ec_align1",
    b"__ec_align2",
    b"__ec_align4",
    b"__ec_align_offset1",
    b"__ec_align_offset2",
    b"__ec_align_size1",
    b"__ec_todo_packed",
    b"__ec_todo_unpacked",
    b"__exit",
    b"__exitdata",
    b"__flatten",
    b"__force",
    b"__hot",
    b"__init",
    b"__init_memblock",
    b"__initconst",
    b"__initdata",
    b"__iomem",
    b"__irq_entry",
    b"__kernel",
    b"__kprobes",
    b"__latent_entropy",
    b"__lockfunc",
    b"__malloc",
    b"__maybe_unused",
    b"__meminit",
    b"__must_check",
    b"__must_hold",
    b"__naked",
    b"__net_exit",
    b"__net_init",
    b"__net_initconst",
    b"__no_caller_saved_registers",
    b"__no_kcsan",
    b"__no_sanitize_address",
    b"__nocast",
    b"__nocfi",
    b"__noclone",
    b"__noreturn",
    b"__nostackprotector",
    b"__packed",
    b"__percpu",
    b"__printf",
    b"__private",
    b"__pure",
    b"__randomize_layout",
    b"__rcu",
    b"__read_mostly",
    b"__realloc_size",
    b"__ref",
    b"__refconst",
    b"__refdata",
    b"__release",
    b"__releases",
    b"__ro_after_init",
    b"__safe",
    b"__scanf",
    b"__sched",
    b"__section",
    b"__softirq_entry",
    b"__used",
    b"__user",
    b"__visible",
    b"__weak",
    b"asmlinkage",
    b"noinline",
    b"noinstr",
    b"notrace",
];

/// The bytes an [`ANNOTATIONS`] entry starts with: most words are ruled out by their
/// first byte before the binary search (a profile of the kernel's index found the
/// search's comparisons at 1.3% of the run).
const ANNOTATION_FIRST_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < ANNOTATIONS.len() {
        table[ANNOTATIONS[i][0] as usize] = true;
        i += 1;
    }
    table
};

/// Words that may start an old-style parameter declaration (rule 6 keeps an invocation
/// line followed by one: it may be a K&R definition's head).
const PARAMETER_TYPE_KEYWORDS: &[&[u8]] = &[
    b"int",
    b"char",
    b"unsigned",
    b"signed",
    b"long",
    b"short",
    b"double",
    b"float",
    b"struct",
    b"union",
    b"enum",
    b"register",
    b"const",
    b"volatile",
];

/// Most lines a rule-1 invocation's arguments may span.
const MAX_INVOCATION_LINES: usize = 32;

/// What [`neutralize`] makes of a file: the text to parse, and the definitions the
/// extractor names otherwise than their text says.
#[derive(Debug)]
pub(super) struct Neutralized<'s> {
    /// The source with the idioms of the module docs blanked or rewritten; the same
    /// length as the source, line breaks where they were. Borrowed when nothing changed.
    pub text: Cow<'s, [u8]>,
    /// Rule 8: for each function a macro defines, the byte offset of its name in
    /// `text` and the name to give it (`sys_read` for `SYSCALL_DEFINE3(read, ..)`), in
    /// offset order.
    pub renames: Vec<(usize, String)>,
}

/// The source with the macro idioms of the module docs blanked (see [`Neutralized`]);
/// `cpp` when the file is C++ (rule 8 has macros of C only).
pub(super) fn neutralize(source: &[u8], cpp: bool) -> Neutralized<'_> {
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    // Rule 8's bytes written after the blanking, and the names it gives.
    let mut writes: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut renames: Vec<(usize, String)> = Vec::new();
    let tokens = tokenize(source);
    // The last token of the latest rule-1 invocation: it ends a statement too.
    let mut invocation_end: Option<usize> = None;
    // Braces open before the current token (rule 6 acts at file scope only).
    let mut depth = 0usize;
    for (index, token) in tokens.iter().enumerate() {
        let Token::Word { start, end } = *token else {
            match token {
                Token::Punct { byte: b'{', .. } => depth += 1,
                Token::Punct { byte: b'}', .. } => depth = depth.saturating_sub(1),
                _ => {}
            }
            continue;
        };
        let word = &source[start..end];
        let previous = index.checked_sub(1).map(|i| &tokens[i]);
        let next = tokens.get(index + 1);
        // Rule 5: `} while_each_thread(..)` ending a `do` body reads as `} while (..)`.
        if word.len() > 6
            && word.starts_with(b"while_")
            && matches!(previous, Some(Token::Punct { byte: b'}', .. }))
            && matches!(next, Some(Token::Punct { byte: b'(', .. }))
        {
            blanks.push((start + 5, end));
            continue;
        }
        // Rule 4: an annotation, with its arguments, unless it is a member's name.
        if word
            .first()
            .is_some_and(|b| ANNOTATION_FIRST_BYTES[usize::from(*b)])
            && ANNOTATIONS.binary_search(&word).is_ok()
            && !after_member_access(source, previous)
        {
            let end = match next {
                Some(Token::Punct { byte: b'(', .. }) => {
                    matching_paren(&tokens, index + 1).map(|close| token_end(&tokens[close]))
                }
                _ => Some(end),
            };
            if let Some(end) = end {
                blanks.push((start, end));
            }
            continue;
        }
        let word_at = |i: usize| word_in(source, &tokens, i);
        if !is_macro_name(word) {
            // Rule 6: a lower-case macro's invocation line at file scope.
            let invoked = matches!(next, Some(Token::Punct { byte: b'(', .. }));
            if depth == 0 && invoked && !is_keyword(word) {
                if let Some(last) = invocation_line(source, &tokens, index, invocation_end) {
                    let declares =
                        word_at(last + 1).is_some_and(|w| PARAMETER_TYPE_KEYWORDS.contains(&w));
                    if !declares {
                        blanks.push((start, token_end(&tokens[last])));
                        invocation_end = Some(last);
                    }
                }
            }
            continue;
        }
        // Rule 8: a function-defining macro's head at file scope.
        if depth == 0 {
            if let Some(head) = definer_head(source, &tokens, index, cpp) {
                blanks.push((start, head.close));
                writes.push((start, b"int".to_vec()));
                let mut declarator = head.first;
                declarator.push(b'(');
                writes.push((head.open, declarator));
                renames.push((head.open, head.name));
                continue;
            }
        }
        // Rule 2: `class MACRO.. Name :` / `{` / `final`: this macro and any after it up
        // to the name.
        let mut first = index;
        while first > 0 && word_at(first - 1).is_some_and(is_macro_name) {
            first -= 1;
        }
        if first > 0 && matches!(word_at(first - 1), Some(b"class" | b"struct" | b"union")) {
            let mut name = index + 1;
            while word_at(name).is_some_and(is_macro_name) && word_at(name + 1).is_some() {
                name += 1;
            }
            let head = match tokens.get(name + 1) {
                Some(Token::Punct { at, byte: b':' }) => source.get(at + 1) != Some(&b':'),
                Some(Token::Punct { byte: b'{', .. }) => true,
                Some(Token::Word { start, end }) => &source[*start..*end] == b"final",
                _ => false,
            };
            if word_at(name).is_some() && head {
                blanks.push((start, end));
                continue;
            }
        }
        // Rule 3: `MACRO static ..`; at the start of a declaration also `MACRO Type<..>`
        // and `MACRO ns::Type` (a type cannot be followed by a template or scoped name).
        if word_at(index + 1).is_some_and(|w| DECLARATION_KEYWORDS.contains(&w)) {
            blanks.push((start, end));
            continue;
        }
        let declaration_start = match previous {
            None | Some(Token::Directive) => true,
            Some(Token::Punct { byte, .. }) => matches!(byte, b';' | b'{' | b'}' | b':' | b'>'),
            _ => false,
        };
        let templated = match (word_at(index + 1), tokens.get(index + 2)) {
            (Some(_), Some(Token::Punct { byte: b'<', .. })) => true,
            (Some(_), Some(Token::Punct { at, byte: b':' })) => source.get(at + 1) == Some(&b':'),
            _ => false,
        };
        if declaration_start && templated {
            blanks.push((start, end));
            continue;
        }
        // Rule 7: `static MACRO(a, CALL(..));` at file scope: the storage class goes.
        if depth == 0 {
            if let Some(keywords) = storage_before_invocation(source, &tokens, index) {
                blanks.push(keywords);
                continue;
            }
        }
        // Rule 1: the macro starts its line and its invocation ends it.
        if let Some(last) = invocation_line(source, &tokens, index, invocation_end) {
            blanks.push((start, token_end(&tokens[last])));
            invocation_end = Some(last);
        }
    }
    if blanks.is_empty() {
        return Neutralized {
            text: Cow::Borrowed(source),
            renames,
        };
    }
    let mut out = source.to_vec();
    for (start, end) in blanks {
        for byte in &mut out[start..end] {
            if *byte != b'\n' && *byte != b'\r' {
                *byte = b' ';
            }
        }
    }
    for (at, bytes) in writes {
        out[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    Neutralized {
        text: Cow::Owned(out),
        renames,
    }
}

/// A macro that defines a function whose body follows its invocation (rule 8), and
/// how the function it defines is named.
struct Definer {
    /// The macro's name, or what it starts with (see `form`).
    macro_name: &'static [u8],
    /// How the invoked name relates to `macro_name`.
    form: MacroForm,
    /// How many arguments an invocation has; `None`: any number, at least one.
    arity: Option<usize>,
    /// Only in C, not C++ (`TEST(a, b)` of GoogleTest defines a class, not `a_b`).
    c_only: bool,
    /// Written before the name.
    prefix: &'static str,
    /// The leading arguments the name is made of, joined by `_` (each must be a name).
    parts: usize,
    /// Written after the name.
    suffix: &'static str,
}

/// How a [`Definer`]'s macro is spelled at its invocations.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MacroForm {
    /// The name itself (`TEST_F`).
    Exact,
    /// The name, then one or more digits: the argument count (`SYSCALL_DEFINE3`).
    Numbered,
    /// The name, alone or followed by `_` and a variant's capitals
    /// (`DEFINE_IDTENTRY`, `DEFINE_IDTENTRY_RAW_ERRORCODE`).
    Family,
}

impl MacroForm {
    /// Whether `word` is an invocation's name of the macro `name` in this form.
    fn matches(self, word: &[u8], name: &[u8]) -> bool {
        let Some(rest) = word.strip_prefix(name) else {
            return false;
        };
        match self {
            MacroForm::Exact => rest.is_empty(),
            MacroForm::Numbered => !rest.is_empty() && rest.iter().all(u8::is_ascii_digit),
            MacroForm::Family => {
                rest.is_empty()
                    || rest.len() > 1
                        && rest[0] == b'_'
                        && rest.iter().all(|b| b.is_ascii_uppercase() || *b == b'_')
            }
        }
    }
}

impl Definer {
    /// A kernel macro with the argument count in its name, naming the function by its
    /// first argument after `prefix` (`SYSCALL_DEFINE3(read, ..)` -> `sys_read`).
    const fn numbered(macro_name: &'static [u8], prefix: &'static str) -> Definer {
        Definer {
            macro_name,
            form: MacroForm::Numbered,
            arity: None,
            c_only: false,
            prefix,
            parts: 1,
            suffix: "",
        }
    }

    /// A family of kernel macros whose variants all define the function their first
    /// argument names (`DEFINE_IDTENTRY_RAW_ERRORCODE(exc_page_fault)` ->
    /// `exc_page_fault`).
    const fn family(macro_name: &'static [u8]) -> Definer {
        Definer {
            macro_name,
            form: MacroForm::Family,
            arity: None,
            c_only: false,
            prefix: "",
            parts: 1,
            suffix: "",
        }
    }

    /// A macro of the kselftest harness (C only) taking `arity` arguments, naming the
    /// function by its first `parts` joined by `_`, then `suffix`.
    const fn harness(
        macro_name: &'static [u8],
        arity: usize,
        parts: usize,
        suffix: &'static str,
    ) -> Definer {
        Definer {
            macro_name,
            form: MacroForm::Exact,
            arity: Some(arity),
            c_only: true,
            prefix: "",
            parts,
            suffix,
        }
    }
}

/// Rule 8's macros, with the names the Linux kernel gives what they define: its
/// `scripts/tags.sh` for system calls and BPF helpers, the macros' expansions for the
/// interrupt entry points (`arch/x86/include/asm/idtentry.h`,
/// `arch/powerpc/include/asm/interrupt.h`) and the selftests' harness
/// (`tools/testing/selftests/kselftest_harness.h`).
const DEFINERS: &[Definer] = &[
    // SYSCALL_DEFINE3(read, ..) -> sys_read; COMPAT_.. -> compat_sys_read
    Definer::numbered(b"SYSCALL_DEFINE", "sys_"),
    Definer::numbered(b"COMPAT_SYSCALL_DEFINE", "compat_sys_"),
    // BPF_CALL_2(bpf_map_lookup_elem, ..) -> bpf_map_lookup_elem
    Definer::numbered(b"BPF_CALL_", ""),
    // DEFINE_IDTENTRY_RAW_ERRORCODE(exc_page_fault) -> exc_page_fault (x86);
    // DEFINE_INTERRUPT_HANDLER_ASYNC(timer_interrupt) -> timer_interrupt (powerpc)
    Definer::family(b"DEFINE_IDTENTRY"),
    Definer::family(b"DEFINE_INTERRUPT_HANDLER"),
    // TEST(name), TEST_SIGNAL(name, SIGSEGV) -> name
    Definer::harness(b"TEST", 1, 1, ""),
    Definer::harness(b"TEST_SIGNAL", 2, 1, ""),
    // TEST_F(fixture, name), TEST_F_SIGNAL(.., SIGSEGV), TEST_F_TIMEOUT(.., 60)
    // -> fixture_name
    Definer::harness(b"TEST_F", 2, 2, ""),
    Definer::harness(b"TEST_F_SIGNAL", 3, 2, ""),
    Definer::harness(b"TEST_F_TIMEOUT", 3, 2, ""),
    // FIXTURE_SETUP(fixture) -> fixture_setup; FIXTURE_TEARDOWN -> fixture_teardown
    Definer::harness(b"FIXTURE_SETUP", 1, 1, "_setup"),
    Definer::harness(b"FIXTURE_TEARDOWN", 1, 1, "_teardown"),
];

/// Rule 8's match: where a function-defining macro's head is and what it defines.
struct DefinerHead {
    /// The offset of the `(` after the macro's name.
    open: usize,
    /// The offset of the `)` that closes the macro's arguments.
    close: usize,
    /// The first argument (a name).
    first: Vec<u8>,
    /// The function's name ([`Definer`]: `sys_read`).
    name: String,
}

/// Rule 8: when the word at `index` is one of [`DEFINERS`] (in C++ those not
/// `c_only`) starting its line after the end of a statement, its arguments as many as
/// the definer takes, the first a name directly after the `(` (spaces and tabs between
/// them at most), those the name is made of names, and the closing `)` followed by the
/// body's `{`, what it defines.
fn definer_head(source: &[u8], tokens: &[Token], index: usize, cpp: bool) -> Option<DefinerHead> {
    let Token::Word { start, end } = tokens[index] else {
        return None;
    };
    let word = &source[start..end];
    let definer = DEFINERS
        .iter()
        .find(|d| (!cpp || !d.c_only) && d.form.matches(word, d.macro_name))?;
    if !starts_statement(tokens, index) || !starts_line(source, start) {
        return None;
    }
    let Some(Token::Punct {
        at: open,
        byte: b'(',
    }) = tokens.get(index + 1)
    else {
        return None;
    };
    let close = matching_paren(tokens, index + 1)?;
    if !matches!(tokens.get(close + 1), Some(Token::Punct { byte: b'{', .. })) {
        return None;
    }
    // The arguments: the tokens between the parentheses, split at top-level commas.
    let mut arguments: Vec<&[Token]> = Vec::new();
    let mut depth = 0usize;
    let mut from = index + 2;
    for i in index + 2..close {
        match tokens[i] {
            Token::Punct { byte: b'(', .. } => depth += 1,
            Token::Punct { byte: b')', .. } => depth = depth.saturating_sub(1),
            Token::Punct { byte: b',', .. } if depth == 0 => {
                arguments.push(&tokens[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    arguments.push(&tokens[from..close]);
    if definer.arity.is_some_and(|n| n != arguments.len()) || arguments.len() < definer.parts {
        return None;
    }
    let mut name = String::from(definer.prefix);
    for (i, argument) in arguments[..definer.parts].iter().enumerate() {
        let [Token::Word { start, end }] = argument else {
            return None;
        };
        let part = std::str::from_utf8(&source[*start..*end]).ok()?;
        if part.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        if i > 0 {
            name.push('_');
        }
        name.push_str(part);
    }
    name.push_str(definer.suffix);
    // The first argument is a name (the loop above checked it).
    let [Token::Word {
        start: first_start,
        end: first_end,
    }] = *arguments[0]
    else {
        return None;
    };
    if !source[open + 1..first_start]
        .iter()
        .all(|b| *b == b' ' || *b == b'\t')
    {
        return None;
    }
    let Token::Punct { at: close, .. } = tokens[close] else {
        return None;
    };
    Some(DefinerHead {
        open: *open,
        close,
        first: source[first_start..first_end].to_vec(),
        name,
    })
}

/// Rules 1 and 6: when the word at `index` starts its line after the end of a
/// statement (`;`, `{`, `}`, a directive, the file start or the invocation that ended
/// at `invocation_end`), and the word with its argument list, if any, ends the line
/// without opening a body (`{` next), the index of its last token.
fn invocation_line(
    source: &[u8],
    tokens: &[Token],
    index: usize,
    invocation_end: Option<usize>,
) -> Option<usize> {
    let Token::Word { start, .. } = tokens[index] else {
        return None;
    };
    let after_statement =
        starts_statement(tokens, index) || (index > 0 && invocation_end == Some(index - 1));
    if !after_statement || !starts_line(source, start) {
        return None;
    }
    let mut last = index;
    if let Some(Token::Punct { at, byte: b'(' }) = tokens.get(index + 1) {
        let close = matching_paren(tokens, index + 1)?;
        if line_span(source, *at, token_end(&tokens[close])) > MAX_INVOCATION_LINES {
            return None;
        }
        last = close;
    }
    if !ends_line(source, token_end(&tokens[last])) {
        return None;
    }
    if let Some(Token::Punct { byte: b'{', .. }) = tokens.get(last + 1) {
        return None;
    }
    Some(last)
}

/// Rule 7: when the macro word at `index` follows storage-class and qualifier keywords
/// that start a statement (`static`, `extern`, `const`, `volatile`), and its argument
/// list holds a parenthesis and is followed by `;`, the byte range from the first of
/// those keywords to the end of the last.
fn storage_before_invocation(
    source: &[u8],
    tokens: &[Token],
    index: usize,
) -> Option<(usize, usize)> {
    let word_at = |i: usize| word_in(source, tokens, i);
    let mut first = index;
    while first > 0
        && matches!(
            word_at(first - 1),
            Some(b"static" | b"extern" | b"const" | b"volatile")
        )
    {
        first -= 1;
    }
    if first == index || !matches!(word_at(first), Some(b"static" | b"extern")) {
        return None;
    }
    if !starts_statement(tokens, first)
        || !matches!(tokens.get(index + 1), Some(Token::Punct { byte: b'(', .. }))
    {
        return None;
    }
    let close = matching_paren(tokens, index + 1)?;
    let nested = tokens[index + 2..close]
        .iter()
        .any(|t| matches!(t, Token::Punct { byte: b'(', .. }));
    let ends = matches!(tokens.get(close + 1), Some(Token::Punct { byte: b';', .. }));
    let Token::Word { start, .. } = tokens[first] else {
        return None;
    };
    (nested && ends).then(|| (start, token_end(&tokens[index - 1])))
}

/// True when token `i` starts a statement: it is the first token, or the token before
/// it is a directive, `;`, `{` or `}`.
fn starts_statement(tokens: &[Token], i: usize) -> bool {
    match i.checked_sub(1).map(|p| &tokens[p]) {
        None | Some(Token::Directive) => true,
        Some(Token::Punct { byte, .. }) => matches!(byte, b';' | b'{' | b'}'),
        _ => false,
    }
}

/// The text of token `i` when it is a word.
fn word_in<'s>(source: &'s [u8], tokens: &[Token], i: usize) -> Option<&'s [u8]> {
    match tokens.get(i) {
        Some(Token::Word { start, end }) => Some(&source[*start..*end]),
        _ => None,
    }
}

/// C and C++ keywords that may stand before `(` at file scope (`typedef`, `asm`, ...):
/// never a macro invocation for rule 6.
fn is_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"asm"
            | b"__asm__"
            | b"__asm"
            | b"typedef"
            | b"static_assert"
            | b"_Static_assert"
            | b"__attribute__"
            | b"decltype"
            | b"alignas"
            | b"_Alignas"
            | b"sizeof"
            | b"return"
            | b"if"
            | b"while"
            | b"for"
            | b"switch"
            | b"extern"
            | b"namespace"
            | b"template"
            | b"operator"
    )
}

/// True when the token before a word is `.`, `->` or `::`: the word names a member.
fn after_member_access(source: &[u8], previous: Option<&Token>) -> bool {
    match previous {
        Some(Token::Punct { byte: b'.', .. }) => true,
        Some(Token::Punct {
            at,
            byte: b'>' | b':',
        }) => {
            matches!(source.get(at.wrapping_sub(1)), Some(b'-' | b':'))
        }
        _ => false,
    }
}

/// `SQLITE_API`, `V8_EXPORT`, `UV_HANDLE_FIELDS`: capitals, digits and underscores, at
/// least three characters, a capital first or after leading underscores.
fn is_macro_name(word: &[u8]) -> bool {
    word.len() >= 3
        && word
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_')
        && word.iter().any(u8::is_ascii_uppercase)
        && !word[0].is_ascii_digit()
}

/// A token of code; comments, literals and preprocessor lines are not tokens, but a
/// directive leaves a `Directive` marker (it ends what came before, for rule 1).
#[derive(Debug, Clone, Copy)]
enum Token {
    Word { start: usize, end: usize },
    Punct { at: usize, byte: u8 },
    Literal { end: usize },
    Directive,
}

fn token_end(token: &Token) -> usize {
    match *token {
        Token::Word { end, .. } | Token::Literal { end } => end,
        Token::Punct { at, .. } => at + 1,
        Token::Directive => 0,
    }
}

/// The index of the `)` matching the `(` at `open`, if any.
fn matching_paren(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, token) in tokens.iter().enumerate().skip(open) {
        match token {
            Token::Punct { byte: b'(', .. } => depth += 1,
            Token::Punct { byte: b')', .. } => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            Token::Directive => return None,
            _ => {}
        }
    }
    None
}

fn line_span(source: &[u8], from: usize, to: usize) -> usize {
    source[from..to.min(source.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Only spaces and tabs between the line start and `at`.
fn starts_line(source: &[u8], at: usize) -> bool {
    source[..at]
        .iter()
        .rev()
        .take_while(|b| **b != b'\n')
        .all(|b| *b == b' ' || *b == b'\t')
}

/// Only whitespace or a comment between `at` and the line end.
fn ends_line(source: &[u8], at: usize) -> bool {
    let rest = &source[at.min(source.len())..];
    let line = rest.split(|b| *b == b'\n').next().unwrap_or_default();
    let trimmed: &[u8] = {
        let start = line
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(line.len());
        &line[start..]
    };
    trimmed.is_empty() || trimmed.starts_with(b"//") || trimmed.starts_with(b"/*")
}

/// Splits C code into words and punctuation, skipping comments, literals and
/// preprocessor directives (with their continuation lines).
fn tokenize(src: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut at = 0;
    let mut line_start = true;
    while at < src.len() {
        let byte = src[at];
        match byte {
            b'\n' => {
                line_start = true;
                at += 1;
                continue;
            }
            b if b.is_ascii_whitespace() => {
                at += 1;
                continue;
            }
            b'#' if line_start => {
                // A directive runs to the end of the line, and further after a `\`.
                while at < src.len() {
                    if src[at] == b'\n' && (at == 0 || src[at - 1] != b'\\') {
                        break;
                    }
                    at += 1;
                }
                tokens.push(Token::Directive);
                continue;
            }
            b'/' if src.get(at + 1) == Some(&b'/') => {
                while at < src.len() && src[at] != b'\n' {
                    at += 1;
                }
                continue;
            }
            b'/' if src.get(at + 1) == Some(&b'*') => {
                at += 2;
                while at < src.len() && !(src[at] == b'*' && src.get(at + 1) == Some(&b'/')) {
                    at += 1;
                }
                at = (at + 2).min(src.len());
                continue;
            }
            b'"' | b'\'' => {
                at += 1;
                while at < src.len() && src[at] != byte && src[at] != b'\n' {
                    if src[at] == b'\\' {
                        at += 1;
                    }
                    at += 1;
                }
                at = (at + 1).min(src.len());
                tokens.push(Token::Literal { end: at });
            }
            b if b.is_ascii_alphanumeric() || b == b'_' => {
                let start = at;
                while at < src.len() && (src[at].is_ascii_alphanumeric() || src[at] == b'_') {
                    at += 1;
                }
                tokens.push(Token::Word { start, end: at });
            }
            _ => {
                tokens.push(Token::Punct { at, byte });
                at += 1;
            }
        }
        line_start = false;
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::neutralize;

    fn blanked(source: &str) -> String {
        String::from_utf8(neutralize(source.as_bytes(), false).text.into_owned()).unwrap()
    }

    #[test]
    fn macro_lines_export_macros_and_specifiers_are_blanked() {
        assert_eq!(
            blanked("DECLARE_ASN1_FUNCTIONS(ASRange)\nDECLARE_X(a,\n  b)\ntypedef struct s { int x; } S;\n"),
            "                               \n            \n    \ntypedef struct s { int x; } S;\n"
        );
        assert_eq!(
            blanked("struct s {\n  UV_HANDLE_FIELDS\n  int x;\n};\n"),
            "struct s {\n                  \n  int x;\n};\n"
        );
        assert_eq!(
            blanked("class V8_EXPORT Map : public Object {};\n"),
            "class           Map : public Object {};\n"
        );
        assert_eq!(
            blanked(
                "class V8_EXPORT V8_NODISCARD Scope {\n public:\n  V8_INLINE Local<T> Get();\n};\n"
            ),
            "class                        Scope {\n public:\n            Local<T> Get();\n};\n"
        );
        assert_eq!(
            blanked("SQLITE_API int sqlite3_open(void);\nV8_INLINE static int f();\n"),
            "           int sqlite3_open(void);\n          static int f();\n"
        );
    }

    #[test]
    fn code_that_only_looks_like_macros_is_kept() {
        for kept in [
            "PHP_FUNCTION(strlen)\n{\n  return;\n}\n",
            "int x = a +\n    FOO\n    ;\n",
            "f(a,\n  BAR(b));\n",
            "static SSL_CTX *ctx;\nSSL_CTX const *c;\n",
            "#define X(a) \\\n  FOO(a)\nint y;\n",
            "/* FOO(x) */\nint z;\n",
            "int FILE_MAX = 3;\n",
            "struct GUID guid_from(int x) { return g; }\nstruct FOO bar;\n",
        ] {
            assert_eq!(blanked(kept), kept);
        }
    }

    #[test]
    fn annotation_macros_are_blanked_with_their_arguments() {
        // net/mac80211/agg-tx.c: the grammar took `__acquires` for the function's name.
        assert_eq!(
            blanked("static void __acquires(agg_queue)\nieee80211_stop_queue_agg(int tid)\n{\n}\n"),
            "static void                      \nieee80211_stop_queue_agg(int tid)\n{\n}\n"
        );
        assert_eq!(
            blanked("void __lockfunc _raw_spin_lock(raw_spinlock_t *l) __acquires(l);\n"),
            "void            _raw_spin_lock(raw_spinlock_t *l)              ;\n"
        );
        assert_eq!(
            blanked("static int __init f(const char __user *buf) { __acquire(x); }\n"),
            "static int        f(const char        *buf) {             ; }\n"
        );
        assert_eq!(
            blanked("__printf(2, 3) int log(int l, const char *f, ...);\n"),
            "               int log(int l, const char *f, ...);\n"
        );
        // arch/x86/include/asm/hyperv-tlfs.h, arch/arm/include/asm/cputype.h,
        // mm/memblock.c: attribute macros before a type's or a function's name.
        assert_eq!(
            blanked("struct __packed hv_control {\n\tu32 a;\n} __aligned(8) c;\n"),
            "struct          hv_control {\n\tu32 a;\n}              c;\n"
        );
        assert_eq!(
            blanked("static inline unsigned int __attribute_const__ __deprecated f(void);\n"),
            "static inline unsigned int                                  f(void);\n"
        );
        assert_eq!(
            blanked("bool __init_memblock memblock_overlaps_region(int t);\n"),
            "bool                 memblock_overlaps_region(int t);\n"
        );
    }

    #[test]
    fn annotation_names_used_as_members_or_in_directives_are_kept() {
        for kept in [
            "x.__init = 1;\np->__user = 2;\nA::__weak();\n",
            "# define __acquires(x) __attribute__((context(x,0,1)))\n",
            "return __cond_lock(lock, do_raw_spin_trylock(lock));\n",
        ] {
            assert_eq!(blanked(kept), kept);
        }
    }

    #[test]
    fn loop_macros_ending_a_do_body_read_as_while() {
        // kernel/exit.c
        assert_eq!(
            blanked("\tdo {\n\t\tf(t);\n\t} while_each_thread(current, tsk);\n"),
            "\tdo {\n\t\tf(t);\n\t} while            (current, tsk);\n"
        );
        for kept in [
            "while_each_thread(g, t);\n",
            "x = while_flag;\n",
            "} while_x;\n",
        ] {
            assert_eq!(blanked(kept), kept);
        }
    }

    #[test]
    fn lower_case_macro_lines_at_file_scope_are_blanked() {
        // drivers/media/rc/keymaps/*.c: no semicolons after module_init/module_exit.
        assert_eq!(
            blanked("}\n\nmodule_init(init_map)\nmodule_exit(exit_map)\n\nMODULE_LICENSE(\"GPL\");\nint f(void);\n"),
            format!("}}\n\n{0}\n{0}\n\nMODULE_LICENSE(\"GPL\");\nint f(void);\n", " ".repeat(21))
        );
        for kept in [
            // Inside a body: a loop macro's head, or any call.
            "void f(void)\n{\n\tlist_for_each(p, h)\n\t\tg(p);\n}\n",
            // An old-style definition and a definition's head on its own line.
            "int x;\nmain(argc, argv)\n\tint argc;\n{\n}\n",
            "static int\nfoo(int a)\n{\n}\n",
            "int y;\nbar(void)\n{\n}\n",
            // With a semicolon, or continued on the next line.
            "module_init(f);\nmodule_exit(g);\n",
            "typedef int t;\nasm(\"nop\")\n;\n",
        ] {
            assert_eq!(blanked(kept), kept);
        }
    }

    #[test]
    fn system_call_heads_are_rewritten_as_function_heads_and_renamed() {
        // fs/read_write.c, shortened: the arguments over two lines, a comment before
        // the body, an arity of 0 and a compat definition.
        let source = "#include <x.h>\nSYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf,\n\t\tsize_t, count) /* c */\n{\n\treturn ksys_read(fd, buf, count);\n}\nSYSCALL_DEFINE0(fork)\n{\n}\nCOMPAT_SYSCALL_DEFINE1(lseek, int, fd) {\n}\nBPF_CALL_2(bpf_get, void *, map, u32, key)\n{\n}\nDEFINE_IDTENTRY_RAW_ERRORCODE(exc_page_fault)\n{\n}\nDEFINE_IDTENTRY(exc_int3)\n{\n}\n";
        let done = neutralize(source.as_bytes(), false);
        let text = String::from_utf8(done.text.into_owned()).unwrap();
        assert_eq!(
            text,
            "#include <x.h>\nint            read(                                       \n               ) /* c */\n{\n\treturn ksys_read(fd, buf, count);\n}\nint            fork()\n{\n}\nint                   lseek(         ) {\n}\nint       bpf_get(                       )\n{\n}\nint                          exc_page_fault()\n{\n}\nint            exc_int3()\n{\n}\n"
        );
        let read = source.find("(read").unwrap();
        let fork = source.find("(fork").unwrap();
        let lseek = source.find("(lseek").unwrap();
        assert_eq!(
            done.renames,
            vec![
                (read, "sys_read".to_string()),
                (fork, "sys_fork".to_string()),
                (lseek, "compat_sys_lseek".to_string()),
                (source.find("(bpf_get").unwrap(), "bpf_get".to_string()),
                (
                    source.find("(exc_page_fault").unwrap(),
                    "exc_page_fault".to_string(),
                ),
                (source.find("(exc_int3").unwrap(), "exc_int3".to_string()),
            ]
        );
        // The kselftest harness, in C.
        let tests = "TEST(open_close)\n{\n}\nTEST_F(hmm, anon_read)\n{\n}\nTEST_F_TIMEOUT(hmm, big, 60) {\n}\nTEST_SIGNAL(segv, SIGSEGV) {\n}\nFIXTURE_SETUP(hmm)\n{\n}\nFIXTURE_TEARDOWN(hmm)\n{\n}\n";
        let done = neutralize(tests.as_bytes(), false);
        let names: Vec<&str> = done.renames.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "open_close",
                "hmm_anon_read",
                "hmm_big",
                "segv",
                "hmm_setup",
                "hmm_teardown"
            ]
        );
        assert_eq!(
            String::from_utf8(done.text.into_owned()).unwrap(),
            "int open_close()\n{\n}\nint   hmm(           )\n{\n}\nint           hmm(         ) {\n}\nint        segv(         ) {\n}\nint          hmm()\n{\n}\nint             hmm()\n{\n}\n"
        );
        // In C++ they are GoogleTest's, which defines classes: left alone.
        assert!(neutralize(tests.as_bytes(), true).renames.is_empty());
        for kept in [
            // A declaration (no body), an invocation inside a body, one that does not
            // start its line, a first argument that is not a name, another macro.
            "SYSCALL_DEFINE3(read, int, fd);\n",
            "void f(void)\n{\n\tSYSCALL_DEFINE1(x, int, a)\n\t{\n\t}\n}\n",
            "int y; SYSCALL_DEFINE1(x, int, a)\n{\n}\n",
            "SYSCALL_DEFINE1(\"x\", int, a)\n{\n}\n",
            "SYSCALL_DEFINEX(x, int, a)\n{\n}\n",
            "DEFINE_IDTENTRYX(x)\n{\n}\n",
            "DEFINE_IDTENTRY_(x)\n{\n}\n",
            "COND_SYSCALL(x);\n",
            // Another arity than the harness's (GoogleTest in a C file), a fixture's
            // struct, a name part that is not a name.
            "TEST(suite, name)\n{\n}\n",
            "FIXTURE(hmm) {\n\tint fd;\n};\n",
            "TEST_F(hmm, 1)\n{\n}\n",
        ] {
            let done = neutralize(kept.as_bytes(), false);
            assert!(done.renames.is_empty(), "{kept}");
        }
    }

    #[test]
    fn storage_before_a_file_scope_invocation_with_calls_is_blanked() {
        // drivers/mtd/nand/spi/gigadevice.c, shortened.
        let source = "#include <x.h>\nstatic SPINAND_OP_VARIANTS(read_cache_variants,\n\t\tOP(0, 1, NULL, 0),\n\t\tOP(false, 0, 1, NULL, 0));\n\nstatic int f(void)\n{\n}\n";
        assert_eq!(
            blanked(source),
            source.replacen("static SPINAND", "       SPINAND", 1)
        );
        assert_eq!(
            blanked("int x;\nstatic const FOO(a, (1 << 4));\nextern BAR(b, G(1));\n"),
            "int x;\n             FOO(a, (1 << 4));\n       BAR(b, G(1));\n"
        );
        for kept in [
            // Read as declarations already: no parenthesis among the arguments.
            "static DEFINE_MUTEX(lock);\n",
            "static FOO(x, \"s\", &y, 1);\n",
            // Not a whole statement: a type macro before a declarator, an initializer.
            "static STACK_OF(X509) *certs(FOO(a));\n",
            "static STACK_OF(X509) *f(void)\n{\n}\n",
            "static int x = FOO(G(1));\n",
            // Inside a body, and after something that does not end a statement.
            "void f(void)\n{\n\tstatic FOO(x, G(1));\n}\n",
            "int y = 1 + static FOO(x, G(1));\n",
        ] {
            assert_eq!(blanked(kept), kept);
        }
    }

    #[test]
    fn the_annotations_are_sorted_for_the_binary_search() {
        assert!(super::ANNOTATIONS.windows(2).all(|w| w[0] < w[1]));
    }
}
