//! Exact answers on small sources, one group per language, plus robustness checks and
//! an ignored throughput benchmark on the Python standard library.

use super::super::{
    extract, CallRef, FileFacts, ImportKind, ImportRef, InheritRef, Language, SymbolKind,
};

fn facts(lang: Language, source: &str) -> FileFacts {
    match extract(lang, source.as_bytes()) {
        Ok(facts) => facts,
        Err(e) => panic!("extract failed: {e}"),
    }
}

/// `(kind, qualified_name, start_line, end_line, parent)` per symbol.
fn outline(facts: &FileFacts) -> Vec<(SymbolKind, &str, u32, u32, Option<usize>)> {
    facts
        .symbols
        .iter()
        .map(|s| {
            (
                s.kind,
                s.qualified_name.as_str(),
                s.start_line,
                s.end_line,
                s.parent,
            )
        })
        .collect()
}

fn signatures(facts: &FileFacts) -> Vec<&str> {
    facts.symbols.iter().map(|s| s.signature.as_str()).collect()
}

fn specifiers(facts: &FileFacts) -> Vec<(ImportKind, &str, u32)> {
    facts
        .imports
        .iter()
        .map(|i| (i.kind, i.specifier.as_str(), i.line))
        .collect()
}

/// `(name, qualifier, line, enclosing)` per call.
fn calls(facts: &FileFacts) -> Vec<(&str, Option<&str>, u32, Option<usize>)> {
    facts
        .calls
        .iter()
        .map(|c: &CallRef| (c.name.as_str(), c.qualifier.as_deref(), c.line, c.enclosing))
        .collect()
}

fn inherits(facts: &FileFacts) -> Vec<(usize, &str, bool, u32)> {
    facts
        .inherits
        .iter()
        .map(|i: &InheritRef| (i.symbol, i.name.as_str(), i.implements, i.line))
        .collect()
}

use SymbolKind::{Class, Enum, Function, Interface, Method, Module, Struct, Trait};

const RUST: &str = r#"use crate::a::{b, c::{D, e as f}, self};
use super::*;
pub use x::y as z;
mod m;
mod n {
    pub struct Foo<T> {
        x: T,
    }
    impl<T> Foo<T> {
        /// Makes one.
        pub fn new() -> Self { Self::make(); helper(); Vec::<u8>::new() }
    }
    impl fmt::Display for Foo<u8> {
        fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "{}", g()) }
    }
}
pub trait Shape: Clone {
    fn area(&self) -> f64;
    fn twice(&self) -> f64 { self.area() * 2.0 }
}
enum E { A, B }
impl Shape for E { fn area(&self) -> f64 { 1.0 } }
union U { a: u32 }
pub(crate) async fn free<T>(x: T)
where
    T: Clone,
{
    fn inner() {}
    x.clone().into::<u8>();
}
"#;

#[test]
fn rust_symbols_nest_with_impl_scopes() {
    let facts = facts(Language::Rust, RUST);
    assert_eq!(
        outline(&facts),
        vec![
            (Module, "n", 5, 16, None),
            (Struct, "n::Foo", 6, 8, Some(0)),
            (Method, "n::Foo::new", 11, 11, Some(0)),
            (Method, "n::Foo::fmt", 14, 14, Some(0)),
            (Trait, "Shape", 17, 20, None),
            (Method, "Shape::area", 18, 18, Some(4)),
            (Method, "Shape::twice", 19, 19, Some(4)),
            (Enum, "E", 21, 21, None),
            (Method, "E::area", 22, 22, None),
            (Struct, "U", 23, 23, None),
            (Function, "free", 24, 30, None),
            (Function, "free::inner", 28, 28, Some(10)),
        ]
    );
    assert_eq!(facts.symbols[2].name, "new");
    assert_eq!(
        signatures(&facts),
        vec![
            "mod n",
            "pub struct Foo<T>",
            "pub fn new() -> Self",
            "fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result",
            "pub trait Shape: Clone",
            "fn area(&self) -> f64",
            "fn twice(&self) -> f64",
            "enum E",
            "fn area(&self) -> f64",
            "union U",
            "pub(crate) async fn free<T>(x: T) where T: Clone,",
            "fn inner()",
        ]
    );
    assert!(!facts.has_errors);
}

#[test]
fn rust_use_trees_expand_to_leaves() {
    let facts = facts(Language::Rust, RUST);
    assert_eq!(
        specifiers(&facts),
        vec![
            (ImportKind::Use, "crate::a::b", 1),
            (ImportKind::Use, "crate::a::c::D", 1),
            (ImportKind::Use, "crate::a::c::e", 1),
            (ImportKind::Use, "crate::a", 1),
            (ImportKind::Use, "super::*", 2),
            (ImportKind::Use, "x::y", 3),
            (ImportKind::Mod, "m", 4),
        ]
    );
    assert!(facts
        .imports
        .iter()
        .all(|i| i.names.is_empty() && !i.type_checking));
}

#[test]
fn rust_calls_skip_macros() {
    let facts = facts(Language::Rust, RUST);
    assert_eq!(
        calls(&facts),
        vec![
            ("make", Some("Self"), 11, Some(2)),
            ("helper", None, 11, Some(2)),
            ("new", Some("Vec::<u8>"), 11, Some(2)),
            ("area", Some("self"), 19, Some(6)),
            ("into", Some("x.clone()"), 29, Some(10)),
            ("clone", Some("x"), 29, Some(10)),
        ]
    );
}

#[test]
fn rust_impl_trait_for_local_type_inherits() {
    let facts = facts(Language::Rust, RUST);
    assert_eq!(
        inherits(&facts),
        vec![(1, "Display", true, 13), (7, "Shape", true, 22)]
    );
    // A type defined elsewhere yields nothing; a local one in a module is preferred.
    let facts = self::facts(
        Language::Rust,
        "struct A;\nmod m { struct A; impl x::T<u8> for A {} }\nimpl Clone for Remote {}\n",
    );
    assert_eq!(inherits(&facts), vec![(2, "T", true, 2)]);
}

const PYTHON: &str = r#"import a.b, c as d
from ..x import y as z, w
from . import m
from x import *
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from q import R
if typing.TYPE_CHECKING:
    import s
else:
    import t

class Outer(Base, mod.Mixin, Generic[T], metaclass=Meta):
    """Doc."""
    x = helper()

    @decorator(arg)
    def method(self, a,
               b=1) -> int:  # comment
        def inner():
            return self.other.call(a)
        return inner()

    class Inner:
        def m(self): pass

    sq = lambda self: self.x ** 2

def f():
    try:
        import json
    except ImportError:
        pass
    return obj.attr.method(1)(2)

@dataclass
class D(Outer.Inner): pass
"#;

#[test]
fn python_symbols_qualify_through_parents() {
    let facts = facts(Language::Python, PYTHON);
    assert_eq!(
        outline(&facts),
        vec![
            (Class, "Outer", 13, 27, None),
            (Method, "Outer::method", 18, 22, Some(0)),
            (Function, "Outer::method::inner", 20, 21, Some(1)),
            (Class, "Outer::Inner", 24, 25, Some(0)),
            (Method, "Outer::Inner::m", 25, 25, Some(3)),
            (Method, "Outer::sq", 27, 27, Some(0)),
            (Function, "f", 29, 34, None),
            (Class, "D", 37, 37, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "class Outer(Base, mod.Mixin, Generic[T], metaclass=Meta)",
            "def method(self, a, b=1) -> int",
            "def inner()",
            "class Inner",
            "def m(self)",
            "sq = lambda self",
            "def f()",
            "class D(Outer.Inner)",
        ]
    );
}

#[test]
fn python_imports_keep_dots_names_and_type_checking() {
    let facts = facts(Language::Python, PYTHON);
    let imports: Vec<(&str, Vec<&str>, u32, bool, i64)> = facts
        .imports
        .iter()
        .map(|i: &ImportRef| {
            assert_eq!(i.kind, ImportKind::Import);
            (
                i.specifier.as_str(),
                i.names.iter().map(String::as_str).collect(),
                i.line,
                i.type_checking,
                i.flags(),
            )
        })
        .collect();
    // flags: 1 TYPE_CHECKING, 2 conditional, 4 deferred.
    assert_eq!(
        imports,
        vec![
            ("a.b", vec![], 1, false, 0),
            ("c", vec![], 1, false, 0),
            ("..x", vec!["y", "w"], 2, false, 0),
            (".", vec!["m"], 3, false, 0),
            ("x", vec!["*"], 4, false, 0),
            ("typing", vec!["TYPE_CHECKING"], 5, false, 0),
            ("q", vec!["R"], 7, true, 1),
            ("s", vec![], 9, true, 1),
            ("t", vec![], 11, false, 2),
            ("json", vec![], 31, false, 6),
        ]
    );
}

#[test]
fn javascript_import_flags_say_conditional_and_deferred() {
    let source = "const a = require('./a');
if (cond) { require('./b'); } else { require('./c'); }
try { require('optional'); } catch (e) {}
function lazy() { return require('./d'); }
const e = cond ? require('./e') : null;
const f = async () => (await import('./f')).default;
import g from './g';
";
    let facts = facts(Language::JavaScript, source);
    let flags: Vec<(&str, i64)> = facts
        .imports
        .iter()
        .map(|i| (i.specifier.as_str(), i.flags()))
        .collect();
    assert_eq!(
        flags,
        vec![
            ("./a", 0),
            ("./b", 2),
            ("./c", 2),
            ("optional", 2),
            ("./d", 4),
            ("./e", 2),
            ("./f", 4),
            ("./g", 0),
        ]
    );
}

#[test]
fn python_calls_and_bases() {
    let facts = facts(Language::Python, PYTHON);
    assert_eq!(
        calls(&facts),
        vec![
            ("helper", None, 15, Some(0)),
            ("decorator", None, 17, Some(0)),
            ("call", Some("self.other"), 21, Some(2)),
            ("inner", None, 22, Some(1)),
            ("method", Some("obj.attr"), 34, Some(6)),
        ]
    );
    assert_eq!(
        inherits(&facts),
        vec![
            (0, "Base", false, 13),
            (0, "Mixin", false, 13),
            (0, "Generic", false, 13),
            (7, "Inner", false, 37),
        ]
    );
}

#[test]
fn python_decorated_definition_starts_at_def_line() {
    let facts = facts(
        Language::Python,
        "class A:\n    @property\n    @other\n    async def p(self):\n        return 1\n",
    );
    assert_eq!(
        outline(&facts),
        vec![(Class, "A", 1, 5, None), (Method, "A::p", 4, 5, Some(0))]
    );
    assert_eq!(facts.symbols[1].signature, "async def p(self)");
}

const JAVASCRIPT: &str = r#"import x, { y as z } from './a.js';
import './side-effect';
export {
  q,
} from "../b";
export * from 'c';
const fs = require('fs'), path = require(`path`);
const dyn = require(`x${y}`), v = require(name);
async function load() { const m = await import('./lazy.js'); return m.default(); }
function* gen() { yield 1; }
const arrow = (a, b) => a + b;
var fexpr = function named(x) { return helper(x); };
let Klass = class extends Base {};
export default class A extends B.C {
  #secret = 1;
  constructor(a) { super(a); this.a = new Map(); }
  get value() { return this.#compute(); }
  static create() { return new A(); }
  async #compute() {}
  handler = () => { this.emit('x'); };
}
module.exports = class Foo {};
module.exports.bar = function () { other(); };
exports.baz = () => {};
const obj = { m() {}, n: function () {} };
"#;

#[test]
fn javascript_symbols() {
    let facts = facts(Language::JavaScript, JAVASCRIPT);
    assert_eq!(
        outline(&facts),
        vec![
            (Function, "load", 9, 9, None),
            (Function, "gen", 10, 10, None),
            (Function, "arrow", 11, 11, None),
            (Function, "fexpr", 12, 12, None),
            (Class, "Klass", 13, 13, None),
            (Class, "A", 14, 21, None),
            (Method, "A::constructor", 16, 16, Some(5)),
            (Method, "A::value", 17, 17, Some(5)),
            (Method, "A::create", 18, 18, Some(5)),
            (Method, "A::#compute", 19, 19, Some(5)),
            (Method, "A::handler", 20, 20, Some(5)),
            (Class, "Foo", 22, 22, None),
            (Function, "bar", 23, 23, None),
            (Function, "baz", 24, 24, None),
            (Method, "obj::m", 25, 25, None),
            (Method, "obj::n", 25, 25, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "async function load()",
            "function* gen()",
            "const arrow = (a, b) =>",
            "var fexpr = function named(x)",
            "let Klass = class extends Base",
            "class A extends B.C",
            "constructor(a)",
            "get value()",
            "static create()",
            "async #compute()",
            "handler = () =>",
            "class Foo",
            "module.exports.bar = function ()",
            "exports.baz = () =>",
            "m()",
            "n: function ()",
        ]
    );
}

#[test]
fn javascript_imports_requires_and_dynamic_imports() {
    let facts = facts(Language::JavaScript, JAVASCRIPT);
    assert_eq!(
        specifiers(&facts),
        vec![
            (ImportKind::Import, "./a.js", 1),
            (ImportKind::Import, "./side-effect", 2),
            (ImportKind::ReExport, "../b", 3),
            (ImportKind::ReExport, "c", 6),
            (ImportKind::Require, "fs", 7),
            (ImportKind::Require, "path", 7),
            (ImportKind::Dynamic, "./lazy.js", 9),
        ]
    );
}

#[test]
fn javascript_calls_and_inherits() {
    let facts = facts(Language::JavaScript, JAVASCRIPT);
    assert_eq!(
        calls(&facts),
        vec![
            ("default", Some("m"), 9, Some(0)),
            ("helper", None, 12, Some(3)),
            ("Map", None, 16, Some(6)),
            ("#compute", Some("this"), 17, Some(7)),
            ("A", None, 18, Some(8)),
            ("emit", Some("this"), 20, Some(10)),
            ("other", None, 23, Some(12)),
        ]
    );
    assert_eq!(
        inherits(&facts),
        vec![(4, "Base", false, 13), (5, "C", false, 14)]
    );
}

const TYPESCRIPT: &str = r#"import type { X } from './types';
import fs = require('fs');
export interface Shape extends Base, ns.Other<T> {
  area(): number;
  name: string;
}
export abstract class Circle<T> extends Figure<T> implements Shape, ns.Drawable {
  private r = 1;
  abstract draw(ctx: Ctx): void;
  area(): number { return Math.max(this.r, 0); }
  onClick = (e: Event): void => { this.handle(e); };
}
export enum Color { Red, Green }
namespace Geometry.Shapes {
  export function make(): Shape { return new Circle<number>(); }
}
declare module "foo" {
  export function bar(): void;
}
const typed: Fn = async <T,>(x: T): Promise<T> => identity<T>(x);
"#;

#[test]
fn typescript_symbols() {
    let facts = facts(Language::TypeScript, TYPESCRIPT);
    assert_eq!(
        outline(&facts),
        vec![
            (Interface, "Shape", 3, 6, None),
            (Method, "Shape::area", 4, 4, Some(0)),
            (Class, "Circle", 7, 12, None),
            (Method, "Circle::draw", 9, 9, Some(2)),
            (Method, "Circle::area", 10, 10, Some(2)),
            (Method, "Circle::onClick", 11, 11, Some(2)),
            (Enum, "Color", 13, 13, None),
            (Module, "Geometry.Shapes", 14, 16, None),
            (Function, "Geometry.Shapes::make", 15, 15, Some(7)),
            (Module, "foo", 17, 19, None),
            (Function, "foo::bar", 18, 18, Some(9)),
            (Function, "typed", 20, 20, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "interface Shape extends Base, ns.Other<T>",
            "area(): number",
            "abstract class Circle<T> extends Figure<T> implements Shape, ns.Drawable",
            "abstract draw(ctx: Ctx): void",
            "area(): number",
            "onClick = (e: Event): void =>",
            "enum Color",
            "namespace Geometry.Shapes",
            "function make(): Shape",
            "module \"foo\"",
            "function bar(): void",
            "const typed: Fn = async <T,>(x: T): Promise<T> =>",
        ]
    );
}

#[test]
fn typescript_imports_calls_and_heritage() {
    let facts = facts(Language::TypeScript, TYPESCRIPT);
    assert_eq!(
        specifiers(&facts),
        vec![
            (ImportKind::Import, "./types", 1),
            (ImportKind::Import, "fs", 2),
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            ("max", Some("Math"), 10, Some(4)),
            ("handle", Some("this"), 11, Some(5)),
            ("Circle", None, 15, Some(8)),
            ("identity", None, 20, Some(11)),
        ]
    );
    assert_eq!(
        inherits(&facts),
        vec![
            (0, "Base", false, 3),
            (0, "Other", false, 3),
            (2, "Figure", false, 7),
            (2, "Shape", true, 7),
            (2, "Drawable", true, 7),
        ]
    );
}

#[test]
fn tsx_components_and_calls_in_jsx() {
    let source = "import React from 'react';\nconst App = () => <div onClick={() => go()}>{render(x)}</div>;\nexport function Comp({ a }: Props) {\n  return <Foo bar={baz()} />;\n}\n";
    let facts = facts(Language::Tsx, source);
    assert_eq!(
        outline(&facts),
        vec![
            (Function, "App", 2, 2, None),
            (Function, "Comp", 3, 5, None)
        ]
    );
    assert_eq!(specifiers(&facts), vec![(ImportKind::Import, "react", 1)]);
    assert_eq!(
        calls(&facts),
        vec![
            ("go", None, 2, Some(0)),
            ("render", None, 2, Some(0)),
            ("baz", None, 4, Some(1)),
        ]
    );
    assert!(!facts.has_errors);
    // The same text is not valid TypeScript (JSX), and says so.
    assert!(extract(Language::TypeScript, source.as_bytes())
        .map(|f| f.has_errors)
        .unwrap_or(false));
}

const GO: &str = r#"package shapes

import (
	"fmt"
	m "math"
	_ "embed"
	"example.com/app/util"
)

type Shape interface {
	io.Reader
	Area() float64
}

type (
	Point struct{ X, Y float64 }
	List[T any] struct {
		Base
		items []T
	}
)

func (l *List[T]) Push(v T) { l.items = append(l.items, v); util.Log("x") }

func New() *List[int] {
	fmt.Println(m.Sqrt(2))
	return &List[int]{}
}
"#;

#[test]
fn go_symbols_methods_take_their_receiver_type() {
    let facts = facts(Language::Go, GO);
    assert_eq!(
        outline(&facts),
        vec![
            (Interface, "Shape", 10, 13, None),
            (Method, "Shape::Area", 12, 12, Some(0)),
            (Struct, "Point", 16, 16, None),
            (Struct, "List", 17, 20, None),
            (Method, "List::Push", 23, 23, None),
            (Function, "New", 25, 28, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "type Shape interface",
            "Area() float64",
            "Point struct",
            "List[T any] struct",
            "func (l *List[T]) Push(v T)",
            "func New() *List[int]",
        ]
    );
}

#[test]
fn go_imports_calls_and_embedding() {
    let facts = facts(Language::Go, GO);
    let imports: Vec<(&str, Vec<&str>, u32)> = facts
        .imports
        .iter()
        .map(|i| {
            (
                i.specifier.as_str(),
                i.names.iter().map(String::as_str).collect(),
                i.line,
            )
        })
        .collect();
    assert_eq!(
        imports,
        vec![
            ("fmt", vec![], 4),
            ("math", vec!["m"], 5),
            ("embed", vec!["_"], 6),
            ("example.com/app/util", vec![], 7),
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            ("append", None, 23, Some(4)),
            ("Log", Some("util"), 23, Some(4)),
            ("Println", Some("fmt"), 26, Some(5)),
            ("Sqrt", Some("m"), 26, Some(5)),
        ]
    );
    assert_eq!(
        inherits(&facts),
        vec![(0, "Reader", false, 11), (3, "Base", false, 18)]
    );
}

const JAVA: &str = r#"package com.x;

import java.util.List;
import static com.x.Util.helper;
import com.y.*;

/** Doc. */
@Deprecated
public class Foo extends Base<T> implements Runnable, java.io.Serializable {
    @Override
    public void run() {
        helper();
        new Bar().go();
        this.run();
    }

    public Foo(int x) { super(); }

    interface Inner extends A, B { void go(); }
    enum Color implements Runnable { RED; public void run() {} }
    record P(int x) {}
}
"#;

#[test]
fn java_symbols_start_after_annotations() {
    let facts = facts(Language::Java, JAVA);
    assert_eq!(
        outline(&facts),
        vec![
            (Class, "Foo", 9, 22, None),
            (Method, "Foo::run", 11, 15, Some(0)),
            (Method, "Foo::Foo", 17, 17, Some(0)),
            (Interface, "Foo::Inner", 19, 19, Some(0)),
            (Method, "Foo::Inner::go", 19, 19, Some(3)),
            (Enum, "Foo::Color", 20, 20, Some(0)),
            (Method, "Foo::Color::run", 20, 20, Some(5)),
            (Class, "Foo::P", 21, 21, Some(0)),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "public class Foo extends Base<T> implements Runnable, java.io.Serializable",
            "public void run()",
            "public Foo(int x)",
            "interface Inner extends A, B",
            "void go()",
            "enum Color implements Runnable",
            "public void run()",
            "record P(int x)",
        ]
    );
}

#[test]
fn java_imports_calls_and_bases() {
    let facts = facts(Language::Java, JAVA);
    assert_eq!(
        specifiers(&facts),
        vec![
            (ImportKind::Import, "java.util.List", 3),
            (ImportKind::Import, "com.x.Util.helper", 4),
            (ImportKind::Import, "com.y.*", 5),
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            ("helper", None, 12, Some(1)),
            ("go", Some("new Bar()"), 13, Some(1)),
            ("Bar", None, 13, Some(1)),
            ("run", Some("this"), 14, Some(1)),
        ]
    );
    assert_eq!(
        inherits(&facts),
        vec![
            (0, "Base", false, 9),
            (0, "Runnable", true, 9),
            (0, "Serializable", true, 9),
            (3, "A", false, 19),
            (3, "B", false, 19),
            (5, "Runnable", true, 20),
        ]
    );
}

const C: &str = r#"#include "a.h"
#include <stdio.h>
#include MACRO_PATH

struct node { int v; struct node *next; };
typedef struct { int x; } point;
enum color { RED, GREEN };
int prototype(int x);

static int
helper(int x)
{
    return x + 1;
}

int *make(void) { return 0; }
int (*getfn(void))(int) { return helper; }

int main(void) { printf("%d", helper(2)); s.cb(); p->run(); return 0; }
"#;

/// The Linux kernel's `drivers/mtd/nand/spi/gigadevice.c` idiom, shortened: a
/// file-scope `static MACRO(..)` whose arguments hold calls, then definitions.
const C_STATIC_INVOCATION: &str = r#"static SPINAND_OP_VARIANTS(read_cache_variants,
		SPINAND_PAGE_READ_FROM_CACHE_OP(true, 0, 1, NULL, 0),
		SPINAND_PAGE_READ_FROM_CACHE_OP(false, 0, 1, NULL, 0));

static int gd5fxgq4xa_ooblayout_ecc(struct mtd_info *mtd, int section)
{
	return ooblayout_check(mtd, section);
}

static int gd5fxgq4xa_ooblayout_free(struct mtd_info *mtd, int section)
{
	return gd5fxgq4xa_ooblayout_ecc(mtd, section);
}
"#;

#[test]
fn c_definitions_after_a_static_macro_invocation_with_calls_are_read() {
    let facts = facts(Language::C, C_STATIC_INVOCATION);
    // Before rule 7 of `macros`, the grammar's error took the whole file: no symbol.
    assert_eq!(
        outline(&facts),
        vec![
            (Function, "gd5fxgq4xa_ooblayout_ecc", 5, 8, None),
            (Function, "gd5fxgq4xa_ooblayout_free", 10, 13, None),
        ]
    );
    // The invocation reads as a call at file scope (no enclosing symbol): the macro
    // names stay call sites that resolve only to a function of that name.
    assert_eq!(
        calls(&facts),
        vec![
            ("SPINAND_OP_VARIANTS", None, 1, None),
            ("SPINAND_PAGE_READ_FROM_CACHE_OP", None, 2, None),
            ("SPINAND_PAGE_READ_FROM_CACHE_OP", None, 3, None),
            ("ooblayout_check", None, 7, Some(0)),
            ("gd5fxgq4xa_ooblayout_ecc", None, 12, Some(1)),
        ]
    );
}

/// The Linux kernel's system call definitions (fs/read_write.c, kernel/fork.c,
/// kernel/bpf/helpers.c, shortened): a helper, `SYSCALL_DEFINE3(read, ..)`,
/// `SYSCALL_DEFINE0(fork)`, a compat definition and a BPF helper, each body calling a
/// function.
const C_SYSCALLS: &str = r#"ssize_t ksys_read(unsigned int fd, char __user *buf, size_t count)
{
	return vfs_read(fd, buf, count);
}

SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)
{
	return ksys_read(fd, buf, count);
}

SYSCALL_DEFINE0(fork)
{
	return kernel_clone(NULL);
}

COMPAT_SYSCALL_DEFINE3(lseek, unsigned int, fd, compat_off_t, offset,
		       unsigned int, whence)
{
	return ksys_lseek(fd, offset, whence);
}

BPF_CALL_2(bpf_map_lookup_elem, struct bpf_map *, map, void *, key)
{
	return lookup(map, key);
}
"#;

#[test]
fn c_system_call_definitions_are_functions_named_as_the_kernel_names_them() {
    let facts = facts(Language::C, C_SYSCALLS);
    // Before rule 8 of `macros`, only ksys_read was a symbol and the other bodies'
    // calls had no enclosing function.
    assert_eq!(
        outline(&facts),
        vec![
            (Function, "ksys_read", 1, 4, None),
            (Function, "sys_read", 6, 9, None),
            (Function, "sys_fork", 11, 14, None),
            (Function, "compat_sys_lseek", 16, 20, None),
            (Function, "bpf_map_lookup_elem", 22, 25, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "ssize_t ksys_read(unsigned int fd, char __user *buf, size_t count)",
            "SYSCALL_DEFINE3(read, unsigned int, fd, char __user *, buf, size_t, count)",
            "SYSCALL_DEFINE0(fork)",
            "COMPAT_SYSCALL_DEFINE3(lseek, unsigned int, fd, compat_off_t, offset, unsigned int, whence)",
            "BPF_CALL_2(bpf_map_lookup_elem, struct bpf_map *, map, void *, key)",
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            ("vfs_read", None, 3, Some(0)),
            ("ksys_read", None, 8, Some(1)),
            ("kernel_clone", None, 13, Some(2)),
            ("ksys_lseek", None, 19, Some(3)),
            ("lookup", None, 24, Some(4)),
        ]
    );
}

/// A selftest of the kernel's kselftest harness (tools/testing/selftests/vm/hmm-tests.c,
/// shortened): a fixture's set-up and a test, each calling a helper and a macro.
const C_SELFTEST: &str = r#"FIXTURE_SETUP(hmm)
{
	self->fd = hmm_open(variant->device_number);
}

TEST_F(hmm, open_close)
{
	int fd = hmm_open(0);
	ASSERT_GE(fd, 0);
}
"#;

#[test]
fn c_selftests_are_functions_named_as_the_harness_defines_them() {
    let facts = facts(Language::C, C_SELFTEST);
    assert_eq!(
        outline(&facts),
        vec![
            (Function, "hmm_setup", 1, 4, None),
            (Function, "hmm_open_close", 6, 10, None),
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            ("hmm_open", None, 3, Some(0)),
            ("hmm_open", None, 8, Some(1)),
            ("ASSERT_GE", None, 9, Some(1)),
        ]
    );
    // In C++ `TEST_F` is GoogleTest's: no such function.
    let facts = self::facts(Language::Cpp, C_SELFTEST);
    assert!(facts.symbols.iter().all(|s| s.name != "hmm_open_close"));
}

/// The Linux kernel's annotation macros around a definition (net/mac80211/agg-tx.c,
/// include/linux/spinlock_api_smp.h): the functions keep their own names and calls.
const C_ANNOTATED: &str = r#"static void __acquires(agg_queue)
ieee80211_stop_queue_agg(struct ieee80211_sub_if_data *sdata, int tid)
{
	ieee80211_stop_queue_by_reason(sdata, tid);
}

void __lockfunc _raw_spin_lock(raw_spinlock_t *lock) __acquires(lock)
{
	__acquire(lock);
	do_raw_spin_lock(lock);
}

static int __init agg_init(const char __user *buf)
{
	if (likely(buf))
		return container_of(buf, struct foo, bar);
	return 0;
}
"#;

#[test]
fn c_annotation_macros_are_not_taken_for_function_names() {
    let facts = facts(Language::C, C_ANNOTATED);
    assert_eq!(
        outline(&facts),
        vec![
            (Function, "ieee80211_stop_queue_agg", 1, 5, None),
            (Function, "_raw_spin_lock", 7, 11, None),
            (Function, "agg_init", 13, 18, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "static void __acquires(agg_queue) ieee80211_stop_queue_agg(struct ieee80211_sub_if_data *sdata, int tid)",
            "void __lockfunc _raw_spin_lock(raw_spinlock_t *lock)",
            "static int __init agg_init(const char __user *buf)",
        ]
    );
    // `likely` and `container_of` stay call sites (macros: never resolved to a
    // function unless one is defined under that name); `__acquire` is gone.
    assert_eq!(
        calls(&facts),
        vec![
            ("ieee80211_stop_queue_by_reason", None, 4, Some(0)),
            ("do_raw_spin_lock", None, 10, Some(1)),
            ("likely", None, 15, Some(2)),
            ("container_of", None, 16, Some(2)),
        ]
    );
}

#[test]
fn c_definitions_not_prototypes() {
    let facts = facts(Language::C, C);
    assert_eq!(
        outline(&facts),
        vec![
            (Struct, "node", 5, 5, None),
            (Struct, "point", 6, 6, None),
            (Enum, "color", 7, 7, None),
            (Function, "helper", 10, 14, None),
            (Function, "make", 16, 16, None),
            (Function, "getfn", 17, 17, None),
            (Function, "main", 19, 19, None),
        ]
    );
    assert_eq!(
        signatures(&facts),
        vec![
            "struct node",
            "typedef struct",
            "enum color",
            "static int helper(int x)",
            "int *make(void)",
            "int (*getfn(void))(int)",
            "int main(void)",
        ]
    );
    assert_eq!(
        specifiers(&facts),
        vec![
            (ImportKind::Include, "a.h", 1),
            (ImportKind::SystemInclude, "stdio.h", 2),
        ]
    );
    assert_eq!(
        calls(&facts),
        vec![
            ("printf", None, 19, Some(6)),
            ("helper", None, 19, Some(6)),
            ("cb", Some("s"), 19, Some(6)),
            ("run", Some("p"), 19, Some(6)),
        ]
    );
}

const CPP: &str = r#"#include "a.h"
namespace geo {
namespace detail { int f(); }
template <typename T>
class Box : public Base, private ns::Other<T> {
 public:
  Box() {}
  ~Box();
  T get() const { return v_; }
  bool operator==(const Box& o) const { return true; }
 private:
  T v_;
};
struct S { void m() {} };
}
void geo::detail::g() {}
template <typename T> geo::Box<T>::~Box() { cleanup(); }
int geo::S::n() { return std::max(1, 2); }
namespace a::b { class C {}; }
"#;

#[test]
fn cpp_namespaces_classes_and_out_of_line_methods() {
    let facts = facts(Language::Cpp, CPP);
    assert_eq!(
        outline(&facts),
        vec![
            (Module, "geo", 2, 15, None),
            (Module, "geo::detail", 3, 3, Some(0)),
            (Class, "geo::Box", 5, 13, Some(0)),
            (Method, "geo::Box::Box", 7, 7, Some(2)),
            (Method, "geo::Box::get", 9, 9, Some(2)),
            (Method, "geo::Box::operator==", 10, 10, Some(2)),
            (Struct, "geo::S", 14, 14, Some(0)),
            (Method, "geo::S::m", 14, 14, Some(6)),
            (Function, "geo::detail::g", 16, 16, None),
            (Method, "geo::Box::~Box", 17, 17, None),
            (Method, "geo::S::n", 18, 18, None),
            (Module, "a::b", 19, 19, None),
            (Class, "a::b::C", 19, 19, Some(11)),
        ]
    );
    assert_eq!(facts.symbols[9].name, "~Box");
    assert_eq!(facts.symbols[11].name, "b");
    assert_eq!(
        calls(&facts),
        vec![
            ("cleanup", None, 17, Some(9)),
            ("max", Some("std"), 18, Some(10))
        ]
    );
    assert_eq!(
        inherits(&facts),
        vec![(2, "Base", false, 5), (2, "Other", false, 5)]
    );
}

#[test]
fn headers_are_c_unless_their_code_is_cpp() {
    assert_eq!(
        Language::detect("a/x.h", b"struct s { int class; };\n"),
        Some(Language::C)
    );
    assert_eq!(
        Language::detect("a/x.h", b"namespace n { class C; }\n"),
        Some(Language::Cpp)
    );
    assert_eq!(
        Language::detect("a/x.hpp", b"int f(void);\n"),
        Some(Language::Cpp)
    );
    assert_eq!(
        Language::detect("a/x.c", b"class C {};\n"),
        Some(Language::C)
    );
}

#[test]
fn signatures_collapse_strip_and_cap() {
    // Whitespace runs collapse, the trailing `:` goes, comments after the head are out.
    let facts = facts(
        Language::Python,
        "def   f(\n\ta,\n   b):   # trailing\n    pass\n",
    );
    assert_eq!(facts.symbols[0].signature, "def f( a, b)");
    // 200 characters at most, cut on a character boundary (multi-byte names).
    let params: Vec<String> = (0..100).map(|i| format!("é{i}")).collect();
    let source = format!("def g({}):\n    pass\n", params.join(", "));
    let facts = self::facts(Language::Python, &source);
    let signature = &facts.symbols[0].signature;
    assert_eq!(signature.chars().count(), 200);
    assert!(source.starts_with(signature.as_str()));
    // No body: the whole node, `;` dropped.
    let facts = self::facts(
        Language::Rust,
        "trait T {\n    fn f(\n        &self,\n    ) -> u8;\n}\n",
    );
    assert_eq!(facts.symbols[1].signature, "fn f( &self, ) -> u8");
}

#[test]
fn errors_are_flagged_and_facts_still_extracted() {
    let facts = facts(
        Language::Python,
        "def ok():\n    pass\n\ndef broken(:\n    x = (\n",
    );
    assert!(facts.has_errors);
    assert_eq!(facts.symbols[0].name, "ok");
    let facts = self::facts(Language::Rust, "fn f() { g(); }\nfn h( {\n");
    assert!(facts.has_errors);
    assert_eq!(facts.symbols[0].qualified_name, "f");
}

/// A deterministic byte soup (xorshift), so failures reproduce.
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn any_bytes_extract_without_panicking() {
    let languages = Language::ALL;
    let mut inputs: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\xff\xfe\x00def \xc3( class".to_vec(),
        b"fn \xe9() { a::\xff(); }\nuse {{{{;\nimpl for {}".to_vec(),
        b"import \xff from '\xfe'; require(`\xc0`); class extends {".to_vec(),
        format!("x = f({})", "a,".repeat(20_000)).into_bytes(),
        format!("{}{}", "(".repeat(5_000), ")".repeat(5_000)).into_bytes(),
        format!("use {}a{};", "a::{".repeat(2_000), "}".repeat(2_000)).into_bytes(),
        format!("def f({}):\n  pass\n", " ".repeat(100_000)).into_bytes(),
        // Declarators and scopes nested past the walkers' depth limits.
        format!(
            "int {}f(void){} {{ }}",
            "(*".repeat(3_000),
            ")(int)".repeat(3_000)
        )
        .into_bytes(),
        format!(
            "void {}f() {{ {}g(); }}",
            "a::".repeat(3_000),
            "b::".repeat(3_000)
        )
        .into_bytes(),
        format!("package p\nfunc ({}T) M() {{}}", "*".repeat(3_000)).into_bytes(),
    ];
    inputs.extend((0..20).map(|seed| garbage(seed, 4_096)));
    // Real sources with their tails cut at every few bytes.
    for source in [RUST, PYTHON, JAVASCRIPT, TYPESCRIPT, GO, JAVA, C, CPP] {
        for cut in (0..source.len()).step_by(37) {
            inputs.push(source.as_bytes()[..cut].to_vec());
        }
    }
    for lang in languages {
        for input in &inputs {
            let facts = match extract(lang, input) {
                Ok(facts) => facts,
                Err(e) => panic!("{lang:?}: {e}"),
            };
            for (index, symbol) in facts.symbols.iter().enumerate() {
                assert!(symbol.start_line <= symbol.end_line);
                assert!(symbol.parent.is_none_or(|p| p < index));
                assert!(symbol.signature.chars().count() <= 200);
            }
            assert!(facts.calls.iter().all(|c| c
                .qualifier
                .as_ref()
                .is_none_or(|q| q.chars().count() <= 100)));
        }
    }
    assert_eq!(
        extract(Language::Python, b"").ok(),
        Some(FileFacts::default())
    );
}

#[test]
fn symbols_are_in_document_order_outer_first() {
    let facts = facts(
        Language::JavaScript,
        "class A { m() { const f = () => { function g() {} }; } }\nfunction h() {}\n",
    );
    assert_eq!(
        outline(&facts),
        vec![
            (Class, "A", 1, 1, None),
            (Method, "A::m", 1, 1, Some(0)),
            (Function, "A::m::f", 1, 1, Some(1)),
            (Function, "A::m::f::g", 1, 1, Some(2)),
            (Function, "h", 2, 2, None),
        ]
    );
    let starts: Vec<u32> = facts.symbols.iter().map(|s| s.start_byte).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn extraction_is_thread_safe() {
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                (0..50)
                    .map(|_| {
                        let (lang, source) = match i % 4 {
                            0 => (Language::Rust, RUST),
                            1 => (Language::Python, PYTHON),
                            2 => (Language::JavaScript, JAVASCRIPT),
                            _ => (Language::TypeScript, TYPESCRIPT),
                        };
                        extract(lang, source.as_bytes()).map(|f| f.symbols.len())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let expected = [12, 8, 16, 12];
    for (i, handle) in handles.into_iter().enumerate() {
        let counts = handle.join().unwrap_or_default();
        assert_eq!(counts.len(), 50);
        assert!(counts.iter().all(|c| c.as_ref().ok() == Some(&expected[i])));
    }
}

/// CPU seconds used by this thread (Linux; wall time elsewhere is close enough for a
/// single-threaded benchmark on an idle machine).
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the stat line (index 11, 12 here).
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Extracts every `.py` under the Python standard library (`PYTHON_STDLIB`, else
/// `python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'`) and prints
/// MB/s per core. Run with
/// `cargo test --release -- --ignored --nocapture python_stdlib_throughput`.
#[test]
#[ignore = "benchmark: needs the Python stdlib and a release build"]
fn python_stdlib_throughput() {
    let root = std::env::var("PYTHON_STDLIB").ok().or_else(|| {
        let out = std::process::Command::new("python3")
            .args([
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
            ])
            .output()
            .ok()?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    });
    let Some(root) = root else {
        panic!("no Python stdlib found");
    };
    let skip_site = std::env::var("SKIP_SITE_PACKAGES").is_ok();
    let mut files = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(&root)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if !(skip_site && path.ends_with("site-packages")) {
                    dirs.push(path);
                }
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "py") {
                if let Ok(bytes) = std::fs::read(&path) {
                    files.push(bytes);
                }
            }
        }
    }
    let bytes: usize = files.iter().map(Vec::len).sum();
    let measure = |label: &str, work: &mut dyn FnMut(&[u8]) -> usize| {
        let (wall, cpu) = (std::time::Instant::now(), thread_cpu_seconds());
        let items: usize = files.iter().map(|f| work(f)).sum();
        let wall = wall.elapsed().as_secs_f64();
        let cpu = match (cpu, thread_cpu_seconds()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => wall,
        };
        println!(
            "{label}: {} files, {:.1} MB, {items} items, {wall:.2} s wall, {cpu:.2} s cpu, {:.2} MB/s per core",
            files.len(),
            bytes as f64 / 1e6,
            bytes as f64 / 1e6 / cpu
        );
    };
    let mut parser = tree_sitter::Parser::new();
    let grammar: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
    if parser.set_language(&grammar).is_err() {
        panic!("python grammar");
    }
    measure("parse only (tree-sitter)", &mut |source| {
        parser
            .parse(source, None)
            .map_or(0, |tree| tree.root_node().child_count() as usize)
    });
    measure("extract", &mut |source| {
        extract(Language::Python, source).map_or(0, |f| {
            f.symbols.len() + f.imports.len() + f.calls.len() + f.inherits.len()
        })
    });
}

#[test]
#[ignore]
fn dump_facts_of_a_file() {
    // CONSTELLATION_DUMP=path: prints the facts of one file (a development aid).
    let Ok(path) = std::env::var("CONSTELLATION_DUMP") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let lang = Language::detect(&path, &bytes).unwrap();
    let facts = extract(lang, &bytes).unwrap();
    for c in &facts.calls {
        println!("{c:?}");
    }
    for i in &facts.imports {
        println!("{i:?}");
    }
    for i in &facts.inherits {
        println!("{i:?}");
    }
    for e in &facts.exports {
        println!("{e:?}");
    }
}

#[test]
#[ignore]
fn dump_tree_of_a_file() {
    // CONSTELLATION_DUMP=path: prints the syntax tree of one file (a development aid).
    let Ok(path) = std::env::var("CONSTELLATION_DUMP") else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let lang = Language::detect(&path, &bytes).unwrap();
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&super::super::grammar(lang)).unwrap();
    let tree = parser.parse(&bytes, None).unwrap();
    println!("{}", tree.root_node().to_sexp());
}

/// `(name, qualifier, line, enclosing)` per value reference.
fn references(facts: &FileFacts) -> Vec<(&str, Option<&str>, u32, Option<usize>)> {
    facts
        .references
        .iter()
        .map(|c: &CallRef| (c.name.as_str(), c.qualifier.as_deref(), c.line, c.enclosing))
        .collect()
}

#[test]
fn python_names_used_as_values() {
    let source = r#"import os
from m import helper

def double(x):
    return x * 2

def uses(xs, cb=double):
    ys = list(map(double, xs))
    ys.sort(key=helper.key)
    f = double
    g = cb
    table = {"d": double, "h": helper}
    pair = (double, os.path.join)
    items = [double]
    return f, ys, g, table, pair, items, double(1)

class C:
    handler = double

    def run(self, submit, cls_arg):
        submit(self.done, callback=self.done)
        return cls_arg.attr

    def done(self):
        return self

REGISTRY = [C.run, C]
"#;
    let facts = facts(Language::Python, source);
    // Symbols: 0 double, 1 uses, 2 C, 3 C::run, 4 C::done.
    assert_eq!(
        references(&facts),
        vec![
            ("double", None, 7, Some(1)),
            ("double", None, 8, Some(1)),
            ("key", Some("helper"), 9, Some(1)),
            ("double", None, 10, Some(1)),
            ("double", None, 12, Some(1)),
            ("helper", None, 12, Some(1)),
            ("double", None, 13, Some(1)),
            ("join", Some("os.path"), 13, Some(1)),
            ("double", None, 14, Some(1)),
            ("double", None, 18, Some(2)),
            ("done", Some("self"), 21, Some(3)),
            ("done", Some("self"), 21, Some(3)),
            ("run", Some("C"), 27, None),
            ("C", None, 27, None),
        ]
    );
    // The call of `double` on line 15 is a call, not a value.
    assert!(calls(&facts).contains(&("double", None, 15, Some(1))));
}

#[test]
fn javascript_names_used_as_values() {
    let source = r#"import { helper } from "./m";
function double(x) { return x * 2; }
export function uses(xs, cb) {
  const ys = xs.map(double);
  const f = helper.key;
  const g = cb;
  const table = { d: double, double };
  return [double, f, g, ys, table];
}
class C {
  run(submit) { submit(this.done); return double; }
  done() {}
}
module.exports = double;
"#;
    let facts = facts(Language::JavaScript, source);
    // Symbols: 0 double, 1 uses, 2 C, 3 C::run, 4 C::done.
    assert_eq!(
        references(&facts),
        vec![
            ("double", None, 4, Some(1)),
            ("key", Some("helper"), 5, Some(1)),
            ("double", None, 7, Some(1)),
            ("double", None, 7, Some(1)),
            ("double", None, 8, Some(1)),
            ("done", Some("this"), 11, Some(3)),
            ("double", None, 11, Some(3)),
            ("double", None, 14, None),
        ]
    );
}

/// C sources that reach the edges of each pattern of `queries/c.scm`: several
/// declarators in one declaration or typedef, pointer and initialised declarators,
/// functions returning pointers (one and two levels), K&R and unnamed parameters,
/// anonymous and named records, enums, includes of both kinds and a malformed one,
/// nested and computed callees, and syntax errors.
const C_EDGES: &str = r#"
#include "local.h"
#include <sys/types.h>
#include MACRO_PATH
struct named { int a; };
struct declared_only;
union u { int i; float f; };
enum colour { RED, GREEN };
typedef struct { int x; } point, *point_ptr, point_alias;
typedef union { int i; } number;
typedef enum { A, B } letter, other_letter;
typedef struct tagged { int y; } tagged_t;
typedef int plain_t;
static int *ptr_fn(struct named *n, int k, char **argv, void (*cb)(int)) { return 0; }
static int **ptr_ptr_fn(int a) { return 0; }
int (*returns_fn(int q))(int) { return 0; }
int kr(a, b) int a; char *b; { return a; }
void unnamed(int, char *) {}
int main(int argc, char *argv[]) {
    int a = 1, *b = &a, c, *d;
    struct named n = { 0 }, *pn = &n;
    unsigned long flags;
    ptr_fn(&n, a, 0, 0);
    (*pn).a = f(g(h(1)), a)(2);
    table[0](3);
    obj->method(4);
    do_it((void *)0);
    { int inner = compute(); }
    broken(1 2;
    return list_first_entry(head, struct named, a);
}
void after_error(void) { call_after(); }
"#;

/// The files under `dir` (symbolic links not followed) whose names end with one of
/// `extensions`, sorted.
fn files_ending(dir: &std::path::Path, extensions: &[&str]) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file()
                && path
                    .extension()
                    .is_some_and(|e| extensions.iter().any(|x| e == *x))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Python sources that reach the edges of each pattern of `queries/python.scm`:
/// typed and untyped, starred and default parameters, lambdas bound to names,
/// assignments to names, tuples, lists and attributes (typed, untyped, chained),
/// walrus, loop, comprehension, `with`/`except` targets, `global`/`nonlocal`, bases of
/// every kind with keywords, `TYPE_CHECKING` blocks, generators, values passed and
/// returned, and a syntax error.
const PY_EDGES: &str = r#"
from __future__ import annotations
import os, sys as system
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from collections import OrderedDict
if typing.TYPE_CHECKING:
    import json
class Base(object, mixins.Mixin, Generic[T], metaclass=Meta):
    attr: int = 1
    def method(self, a, b: int, c=1, d: str = "x", *args, e: list = [], **kwargs):
        self.x: Foo = Foo()
        self.y = make(a)
        self.z = self.w = other
        x: int
        y = z = compute()
        p, q = r
        (s, t) = u
        [v, w] = items
        a.b.c = 2
        n += 1
        if (m := match(a)):
            pass
        for i in range(3):
            pass
        for j, k in pairs:
            pass
        for (l, o) in pairs:
            pass
        values = [f(i) for i in xs if check(i)]
        table = {key: handler, other: fn}
        with open(a) as fh, lock as (g1, g2), ctx as [h1, h2]:
            pass
        try:
            pass
        except Exception as err:
            pass
        return callback, helper.run
    def gen(self):
        global counter
        nonlocal_thing = lambda q, *r, s=1, **t: q
        yield from items
        yield value
area = lambda self: self.w * self.h
def outer():
    total = 0
    def inner():
        nonlocal total
        total += 1
    return inner
result = map(transform, data, key=sort_key)
broken(1 2
def after_error(x): return other(x)
"#;

/// Rust source that reaches the edges of each pattern of `queries/rust.scm`: items of
/// every kind, inline and file modules, impls with and without a trait, uses,
/// parameters, `let` with a type, a value or neither, closures, every binding pattern,
/// struct fields, and a syntax error.
const RS_EDGES: &str = r#"
use std::collections::{HashMap, HashSet as Set};
use crate::a::b;
mod file_module;
mod inline { pub fn inner() {} }
pub struct Point { x: i32, pub y: Vec<u8> }
union Bits { i: u32, f: f32 }
enum Shape { Circle(f64), Square { side: f64 } }
trait Draw { fn draw(&self); fn size(&self) -> usize { 0 } }
impl Draw for Point { fn draw(&self) { render(self.x); } }
impl<T> Wrapper<T> { fn new(value: T) -> Self { Wrapper { value } } }
fn main(a: i32, (b, c): (u8, u8), mut d: String) {
    let e: u32 = 1;
    let f = compute(a);
    let g;
    let (h, ref i, mut j) = tuple();
    let Some(k) = maybe() else { return };
    let Point { x, y: ref yy } = point;
    let closure = |m, n: u8, (o, p)| m + n;
    for q in items.iter() { use_it(q); }
    match shape { Shape::Circle(r) => area(r), s @ Shape::Square { .. } => 0.0 };
    Wrapper::<u8>::new(1).method();
}
fn with_error() { broken(1 2; }
fn after_error() { other(); }
"#;

/// Java source that reaches the edges of each pattern of `queries/java.scm`: every
/// declaration kind, bases of classes and interfaces, parameters (final, varargs with
/// modifiers), locals with and without values, several declarators, fields, loops,
/// catches, lambdas with one or inferred parameters, calls and constructions.
const JAVA_EDGES: &str = r#"
package p;
import java.util.List;
import static java.lang.Math.max;
@interface Marker { String value() default ""; }
record Pair(int a, int b) { Pair { check(a); } }
interface Shape extends Comparable<Shape>, java.io.Serializable { double area(); }
enum Colour { RED, GREEN; Colour() {} }
public class Box<T> extends Base<T> implements Shape, Runnable {
    private final List<T> items = new ArrayList<>(), others;
    int count;
    public Box(final int size, String... names) { super(size); }
    static void each(final @Marker String... names) {}
    public double area() {
        int a = 1, b, c = compute(a);
        var list = List.of(1, 2);
        for (String s : names()) { use(s); }
        try { run(); } catch (IllegalStateException | RuntimeException e) { log(e); }
        Runnable r = () -> work();
        java.util.function.Function<Integer, Integer> f = x -> x + 1;
        java.util.function.BiFunction<Integer, Integer, Integer> g = (x, y) -> x + y;
        return new Box<>(1).count;
    }
    public void run() { broken(1 2; }
    void after() { other(); }
}
"#;

fn qualified_names(facts: &FileFacts) -> Vec<&str> {
    facts
        .symbols
        .iter()
        .map(|s| s.qualified_name.as_str())
        .collect()
}

/// The walkers (`extract/walkers/`) yield the facts their queries yield: C, Python,
/// Rust and Java on their edge sources and on every fixture file of the language.
#[test]
fn walkers_match_the_queries() {
    let mut sources: Vec<(String, String)> = vec![
        ("edges.c".into(), C_EDGES.into()),
        ("edges.py".into(), PY_EDGES.into()),
        ("edges.rs".into(), RS_EDGES.into()),
        ("Edges.java".into(), JAVA_EDGES.into()),
    ];
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for file in files_ending(&fixtures, &["c", "h", "py", "rs", "java"]) {
        let source = std::fs::read_to_string(&file).unwrap();
        sources.push((file.to_string_lossy().into_owned(), source));
    }
    let mut compared = std::collections::BTreeMap::new();
    for (path, source) in &sources {
        let lang = match Language::detect(path, source.as_bytes()) {
            Some(lang @ (Language::C | Language::Python | Language::Rust | Language::Java)) => lang,
            _ => continue,
        };
        let walked = facts(lang, source);
        let queried = super::extract_with_query(lang, source.as_bytes()).unwrap();
        assert_eq!(walked, queried, "{path}");
        // The matches themselves, not only the facts made of them: a capture the
        // facts happen not to show (a binding no call reads) still counts.
        let (queried, walked) = super::matches_both_ways(lang, source.as_bytes()).unwrap();
        assert_eq!(walked, queried, "{path}");
        *compared.entry(lang.name()).or_insert(0) += 1;
    }
    assert!(
        compared.get("c") >= Some(&5)
            && compared.get("python") >= Some(&20)
            && compared.get("rust") >= Some(&5)
            && compared.get("java") >= Some(&5),
        "compared {compared:?}"
    );
    // The edge sources exercise every role their queries capture. Of the names of
    // one typedef, the symbol takes the first (`point`, not `point_alias`).
    let edges = facts(Language::C, C_EDGES);
    let names: Vec<&str> = edges.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "named",
            "u",
            "colour",
            "point",
            "number",
            "letter",
            "tagged",
            "ptr_fn",
            "ptr_ptr_fn",
            "returns_fn",
            "kr",
            "unnamed",
            "main",
            "after_error"
        ]
    );
    assert_eq!(specifiers(&edges).len(), 2);
    assert!(edges.calls.iter().any(|c| c.name == "compute"));
    let edges = facts(Language::Python, PY_EDGES);
    assert_eq!(
        qualified_names(&edges),
        [
            "Base",
            "Base::method",
            "Base::gen",
            "Base::gen::nonlocal_thing",
            "area",
            "outer",
            "outer::inner",
            "after_error"
        ]
    );
    assert_eq!(edges.inherits.len(), 3);
    assert!(edges.calls.iter().any(|c| c.name == "check"));
    assert!(edges.references.iter().any(|r| r.name == "sort_key"));
    let edges = facts(Language::Rust, RS_EDGES);
    assert_eq!(
        qualified_names(&edges),
        [
            "inline",
            "inline::inner",
            "Point",
            "Bits",
            "Shape",
            "Draw",
            "Draw::draw",
            "Draw::size",
            "Point::draw",
            "Wrapper::new",
            "main",
            "after_error"
        ]
    );
    assert_eq!(edges.inherits.len(), 1);
    assert_eq!(specifiers(&edges).len(), 4);
    let edges = facts(Language::Java, JAVA_EDGES);
    // `after` is lost to the syntax error before it, both ways.
    assert_eq!(
        qualified_names(&edges),
        [
            "Marker",
            "Marker::value",
            "Pair",
            "Pair::Pair",
            "Shape",
            "Shape::area",
            "Colour",
            "Colour::Colour",
            "Box",
            "Box::Box",
            "Box::each",
            "Box::area",
            "Box::run"
        ]
    );
    assert_eq!(edges.inherits.len(), 5);
    assert_eq!(specifiers(&edges).len(), 2);
}

/// Compares each walker with its query on every C, Python, Rust and Java file under the
/// directory named by `CONSTELLATION_WALK_CORPUS` (a Linux kernel tree, the Python
/// standard library, the cargo registry's sources, the JDK's `src.zip` unpacked);
/// prints the count compared per language.
/// `CONSTELLATION_WALK_CORPUS=DIR cargo test --release --lib walkers_match_the_queries_on_a_corpus -- --ignored --nocapture`.
#[test]
#[ignore = "needs a corpus: CONSTELLATION_WALK_CORPUS"]
fn walkers_match_the_queries_on_a_corpus() {
    let root = std::env::var("CONSTELLATION_WALK_CORPUS").expect("CONSTELLATION_WALK_CORPUS");
    let (mut compared, mut differ) = (std::collections::BTreeMap::new(), Vec::new());
    for file in files_ending(std::path::Path::new(&root), &["c", "h", "py", "rs", "java"]) {
        let path = file.to_string_lossy().into_owned();
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let lang = match Language::detect(&path, &bytes) {
            Some(lang @ (Language::C | Language::Python | Language::Rust | Language::Java)) => lang,
            _ => continue,
        };
        let walked = extract(lang, &bytes).ok();
        let queried = super::extract_with_query(lang, &bytes).ok();
        *compared.entry(lang.name()).or_insert(0usize) += 1;
        let matches = super::matches_both_ways(lang, &bytes);
        if walked != queried || matches.is_some_and(|(q, w)| q != w) {
            differ.push(path);
        }
    }
    println!("compared {compared:?}; {} differ", differ.len());
    assert!(
        differ.is_empty(),
        "differ: {:?}",
        &differ[..differ.len().min(20)]
    );
}
