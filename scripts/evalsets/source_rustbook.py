"""Source of rustbook.jsonl: questions over "The Rust Programming Language" markdown (rust-lang/book,
commit 917544888a55e4da7109bdba8c88c893c0da70f4; corpus root holds src/*.md).

    python scripts/evalsets/source_rustbook.py [--corpus /work/evaldata/rust-book]
    python scripts/evalsets/check_sets.py rustbook.jsonl

must_contain was written from the gold lines, before kb was run on any question.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/evaldata/rust-book")
S = "src/"

Q: list[tuple] = [
    # ---------------- how do I (command / code) ----------------
    ("en", "conceptual", "howto", "how do i update rust to the newest version?",
     [(S + "ch01-01-installation.md", "$ rustup update")], ["rustup update"]),
    ("en", "exact", "howto", "cargo release build?",
     [(S + "ch01-03-hello-cargo.md", "When your project is finally ready for release", "--release` to compile it with optimizations"),
      (S + "ch14-01-release-profiles.md", "Cargo has two main profiles", "--release`. The `dev` profile"),
      (S + "ch14-01-release-profiles.md", "$ cargo build --release")],
     ["cargo build --release"]),
    ("en", "conceptual", "howto", "My tests write to the same file and interfere with each other. How do I make them run one at a time instead of in parallel?",
     [(S + "ch11-02-running-tests.md", "$ cargo test -- --test-threads=1")], ["cargo test -- --test-threads=1"]),
    ("en", "conceptual", "howto", "how to get a backtrace when my program panics",
     [(S + "ch09-01-unrecoverable-errors-with-panic.md", "setting the `RUST_BACKTRACE` environment variable to any value except"),
      (S + "ch09-01-unrecoverable-errors-with-panic.md", "$ RUST_BACKTRACE=1 cargo run"),
      (S + "ch02-00-guessing-game-tutorial.md", "note: run with `RUST_BACKTRACE=1`"),
      (S + "ch03-02-data-types.md", "note: run with `RUST_BACKTRACE=1`")],
     ["RUST_BACKTRACE=1"]),
    ("en", "conceptual", "howto", "I want a smaller binary — how do I make it abort on panic instead of unwinding in release mode?",
     [(S + "ch09-01-unrecoverable-errors-with-panic.md", "adding `panic = 'abort'`", "> panic = 'abort'")], ["panic = 'abort'"]),
    ("en", "conceptual", "howto", "How do I install a command-line tool that someone published on crates.io?",
     [(S + "ch14-04-installing-binaries.md", "The `cargo install` command allows you to install and use binary crates"),
      (S + "ch14-04-installing-binaries.md", "$ cargo install ripgrep")],
     ["cargo install"]),
    ("en", "conceptual", "howto", "I published version 1.0.1 of my crate and it's broken. How do I stop new projects from depending on it?",
     [(S + "ch14-02-publishing-to-crates-io.md", "_Yanking_ a version prevents new projects", "allowing all existing projects"),
      (S + "ch14-02-publishing-to-crates-io.md", "$ cargo yank --vers 1.0.1")],
     ["cargo yank --vers 1.0.1"]),
    ("en", "exact", "howto", "how do I run Miri on my project to check unsafe code",
     [(S + "ch20-01-unsafe-rust.md", "Using Miri requires a nightly build of Rust", "`cargo +nightly miri test`.")],
     ["cargo +nightly miri run"]),
    ("en", "conceptual", "howto", "in a workspace, how do I run the binary of just one member package from the top-level directory?",
     [(S + "ch14-03-cargo-workspaces.md", "To run the binary crate from the _add_ directory", "with `cargo run`:"),
      (S + "ch14-03-cargo-workspaces.md", "$ cargo run -p adder")],
     ["cargo run -p"]),
    ("en", "conceptual", "howto", "print error messages to stderr instead of stdout",
     [(S + "ch12-06-writing-to-stderr-instead-of-stdout.md", "the `eprintln!` macro that prints to the standard error stream", "instead.")],
     ["eprintln!"]),
    # ---------------- lookups ----------------
    ("en", "exact", "lookup", "what's the default integer type if I don't annotate one",
     [(S + "ch03-02-data-types.md", "Integer types default to `i32`.")], ["i32"]),
    ("en", "exact", "lookup", "Which hashing function does HashMap use by default?",
     [(S + "ch08-03-hash-maps.md", "By default, `HashMap` uses a hashing function called _SipHash_", "resistance to denial-of-service")],
     ["SipHash"]),
    ("en", "exact", "lookup", "what port does the web server in the final project listen on?",
     [(S + "ch21-01-single-threaded.md", "listen at the local address `127.0.0.1:7878`"),
      (S + "ch21-01-single-threaded.md", "`127.0.0.1:7878`. In the address", "and `7878` is the port")],
     ["7878"]),
    ("en", "exact", "lookup", "If there's no edition key in Cargo.toml, which Rust edition does the compiler use?",
     [(S + "appendix-05-editions.md", "The `edition` key in _Cargo.toml_", "value for backward compatibility reasons.")], ["2015"]),
    ("en", "exact", "lookup", "default opt-level for the dev and release profiles",
     [(S + "ch14-01-release-profiles.md", "[profile.dev]", "opt-level = 3"),
      (S + "ch14-01-release-profiles.md", "The default `opt-level` for `dev` is therefore", "why the default `opt-level` for the `release` profile is `3`")],
     ["opt-level = 0", "opt-level = 3"]),
    ("en", "exact", "lookup", "where do binaries installed with cargo install end up?",
     [(S + "ch14-04-installing-binaries.md", "All binaries installed with `cargo install` are stored", "this directory will be *$HOME/.cargo/bin*")],
     ["$HOME/.cargo/bin"]),
    # ---------------- explain ----------------
    ("en", "conceptual", "explain", "What are the rules of ownership in Rust?",
     [(S + "ch04-01-what-is-ownership.md", "- Each value in Rust has an _owner_.", "- When the owner goes out of scope, the value will be dropped.")],
     ["There can only be one owner at a time"]),
    ("en", "conceptual", "explain", "why can't I implement Display for Vec<T> in my own crate? what is the orphan rule",
     [(S + "ch10-02-traits.md", "But we can’t implement external traits on external types.", "the parent type is not present."),
      (S + "ch20-02-advanced-traits.md", "we mentioned the orphan rule that states", "type, or both, are local to our crate.")],
     ["external traits on external types"]),
    ("en", "exact", "explain", "what does the ? operator do when the Result is an Err",
     [(S + "ch09-02-recoverable-errors-with-result.md", "The `?` placed after a `Result` value is defined to work", "calling code.")],
     ["returned from the whole function"]),
    ("en", "exact", "explain", "does an unsafe block turn off the borrow checker?",
     [(S + "ch20-01-unsafe-rust.md", "It’s important to understand that `unsafe` doesn’t turn off the borrow checker", "safety. You’ll still get some degree of safety inside an unsafe block.")],
     ["doesn’t turn off the borrow checker"]),
    # ---------------- comparisons ----------------
    ("en", "relational", "comparison", "cargo check vs cargo build — what's the difference?",
     [(S + "ch01-03-hello-cargo.md", "Cargo also provides a command called `cargo check`.", "your code to make sure it compiles but doesn’t produce an executable:"),
      (S + "ch01-03-hello-cargo.md", "This command creates an executable file in _target/debug/hello_cargo_"),
      (S + "ch01-03-hello-cargo.md", "Why would you not want an executable?", "`cargo build` because it skips the step of producing an executable.")],
     ["doesn’t produce an executable", "creates an executable file"]),
    ("en", "relational", "comparison", "what happens on integer overflow in a debug build vs a release build?",
     [(S + "ch03-02-data-types.md", "> When you’re compiling in debug mode, Rust includes checks for integer overflow", "> that cause your program to _panic_ at runtime"),
      (S + "ch03-02-data-types.md", "> When you’re compiling in release mode with the `--release` flag", "> greater than the maximum value the type can hold")],
     ["Rust includes checks for integer overflow", "two’s complement wrapping"]),
    ("en", "relational", "comparison", "Rc<T> or Arc<T>: when should I use which?",
     [(S + "ch15-04-rc.md", "Note that `Rc<T>` is only for use in single-threaded scenarios."),
      (S + "ch16-03-shared-state.md", "Fortunately, `Arc<T>` _is_ a type like `Rc<T>` that is safe to use in", "reference-counted_ type."),
      (S + "ch16-03-shared-state.md", "Unfortunately, `Rc<T>` is not safe to share across threads."),
      (S + "ch16-04-extensible-concurrency-sync-and-send.md", "the reference count at the same time. For this reason, `Rc<T>` is implemented", "thread-safe performance penalty.")],
     ["only for use in single-threaded scenarios", "safe to use in concurrent situations"]),
    ("en", "relational", "comparison", "difference between the Clone and Copy traits",
     [(S + "appendix-03-derivable-traits.md", "The `Clone` trait allows you to explicitly create a deep copy of a value", "data."),
      (S + "appendix-03-derivable-traits.md", "The `Copy` trait allows you to duplicate a value by only copying bits stored on", "the stack; no arbitrary code is necessary."),
      (S + "ch04-01-what-is-ownership.md", "If we _do_ want to deeply copy the heap data of the `String`", "stack data, we can use a common method called `clone`."),
      (S + "ch04-01-what-is-ownership.md", "Rust has a special annotation called the `Copy` trait", "making them still valid after assignment to another variable.")],
     ["explicitly create a deep copy", "only copying bits stored on the stack"]),
    ("en", "relational", "comparison", "unit tests vs integration tests in rust",
     [(S + "ch11-03-test-organization.md", "tests. _Unit tests_ are small and more focused", "at a time, and can test private interfaces."),
      (S + "ch11-03-test-organization.md", "at a time, and can test private interfaces. _Integration tests_ are entirely", "modules per test."),
      (S + "ch11-03-test-organization.md", "You’ll put unit tests in the _src_ directory in each file", "`cfg(test)`."),
      (S + "ch11-03-test-organization.md", "We create a _tests_ directory at the top level of our project directory")],
     ["testing one module in isolation", "entirely external to your library"]),
    ("en", "relational", "comparison", "FnOnce vs FnMut vs Fn for closures",
     [(S + "ch13-01-closures.md", "* `FnOnce` applies to closures that can be called once.", "other `Fn` traits because it can only be called once."),
      (S + "ch13-01-closures.md", "* `FnMut` applies to closures that don’t move captured values", "once."),
      (S + "ch13-01-closures.md", "* `Fn` applies to closures that don’t move captured values", "mutating their environment")],
     ["can be called once", "might mutate the captured values", "don’t mutate captured values"]),
    # ---------------- which page / which pages mention ----------------
    ("en", "file_discovery", "mention", "which chapters mention ripgrep?",
     [(S + "ch12-00-an-io-project.md", "featured, very fast version of `grep`, called `ripgrep`", 28),
      (S + "ch14-04-installing-binaries.md", "the `grep` tool called `ripgrep`", "can run the following:")],
     [S + "ch12-00-an-io-project.md", S + "ch14-04-installing-binaries.md"]),
    ("en", "file_discovery", "file", "where is the list of reserved keywords I can't use as identifiers?",
     [(S + "appendix-01-keywords.md", 1, "macros, static values, attributes, types, traits, or lifetimes.")],
     [S + "appendix-01-keywords.md"]),
    # ---------------- unanswerable (plausible; the book does not cover them) ----------------
    ("en", "conceptual", "unanswerable", "How do I serialize a struct to JSON with serde?", [], []),
    ("en", "conceptual", "unanswerable", "how do I cross-compile my binary for aarch64 linux with cargo --target", [], []),
    ("en", "exact", "unanswerable", "What does #[repr(C)] do on a struct?", [], []),
    ("en", "exact", "unanswerable", "How do I turn on link-time optimization (lto) in the release profile?", [], []),
    ("en", "conceptual", "unanswerable", "how to declare optional features in a [features] section of Cargo.toml", [], []),
    ("en", "conceptual", "unanswerable", "How do I write a build.rs script that compiles a C library before my crate?", [], []),
    # ---------------- Chinese questions over the English book ----------------
    ("zh", "conceptual", "howto", "怎么用 cargo 创建一个新项目？",
     [(S + "ch01-03-hello-cargo.md", "$ cargo new hello_cargo", "The first command creates a new directory and project called _hello_cargo_."),
      (S + "ch02-00-guessing-game-tutorial.md", "$ cargo new guessing_game", "The first command, `cargo new`, takes the name of the project"),
      (S + "ch07-01-packages-and-crates.md", "$ cargo new my-project")],
     ["cargo new"]),
    ("zh", "conceptual", "howto", "如何自动格式化整个项目的 Rust 代码",
     [(S + "appendix-04-useful-development-tools.md", "To format", "$ cargo fmt")], ["cargo fmt"]),
    ("zh", "conceptual", "howto", "测试通过时 println! 的输出看不到，怎么让它显示出来？",
     [(S + "ch11-02-running-tests.md", "If we want to see printed values for passing tests as well", "$ cargo test -- --show-output")],
     ["--show-output"]),
    ("zh", "exact", "lookup", "Rust 的 char 类型占几个字节？",
     [(S + "ch03-02-data-types.md", "string literals, which use double quotation marks. Rust’s `char` type is 4", "bytes in size and represents a Unicode scalar value")],
     ["4 bytes in size"]),
    ("zh", "conceptual", "lookup", "一个 package 里最多可以有几个库 crate？",
     [(S + "ch07-01-packages-and-crates.md", "A package can contain as many binary crates as you like", "library or binary crate.")],
     ["at most only one library crate"]),
    ("zh", "relational", "comparison", "Send 和 Sync 这两个 trait 有什么区别？",
     [(S + "ch16-04-extensible-concurrency-sync-and-send.md", "The `Send` marker trait indicates that ownership of values of the type", "implementing `Send` can be transferred between threads."),
      (S + "ch16-04-extensible-concurrency-sync-and-send.md", "The `Sync` marker trait indicates that it is safe for the type implementing", "meaning the reference can be sent safely to another thread.")],
     ["can be transferred between threads", "referenced from multiple threads"]),
    ("zh", "conceptual", "explain", "为什么 Rust 的 String 不能用下标索引取字符？",
     [(S + "ch08-02-strings.md", "storage. Therefore, an index into the string’s bytes will not always correlate", "to a valid Unicode scalar value."),
      (S + "ch08-02-strings.md", "A final reason Rust doesn’t allow us to index into a `String`", "index to determine how many valid characters there were.")],
     ["valid Unicode scalar value"]),
    ("zh", "exact", "explain", "什么是 deref coercion（解引用强制转换）？",
     [(S + "ch15-02-deref.md", "_Deref coercion_ converts a reference to a type that implements the `Deref`", "returns `&str`. Deref coercion is a convenience")],
     ["converts a reference to a type that implements"]),
    ("zh", "conceptual", "unanswerable", "怎么给 cargo 配置 crates.io 的国内镜像源？", [], []),
    ("zh", "conceptual", "unanswerable", "如何用 rayon 把迭代器改成并行迭代？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么把 Rust 项目编译成 WebAssembly 在浏览器里运行？", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "rbk", Q, HERE / "rustbook.jsonl")


if __name__ == "__main__":
    raise SystemExit(main())
