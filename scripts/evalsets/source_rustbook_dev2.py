"""Source of rustbook_dev2.jsonl: extra *development* (tuning) questions over "The Rust Programming Language"
markdown (rust-lang/book; corpus root holds src/*.md). Every row is split "dev".

    python scripts/evalsets/source_rustbook_dev2.py [--corpus /work/evaldata/rust-book]
    python scripts/evalsets/check_sets.py rustbook_dev2.jsonl --corpus /work/evaldata/rust-book

Facts differ from rustbook.jsonl. must_contain was written from the gold lines, before kb was run on any question;
unanswerable rows were checked with a case-insensitive grep of src/ (thread::scope, RwLock, non_exhaustive,
OnceLock/LazyLock/lazy_static, PhantomData: no hits).
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
    # ---------------- how do I (command / attribute / syntax) ----------------
    ("en", "conceptual", "howto", "how do I pretty-print a struct with Debug so each field is on its own line",
     [(S + "ch05-02-example-structs.md", "larger structs, it’s useful to have output", "this example, using the `{:#?}` style")],
     ["{:#?}"]),
    ("en", "exact", "howto", "run all tests including the ones marked #[ignore]",
     [(S + "ch11-02-running-tests.md", "you can run `cargo test -- --ignored` instead. If you want to run all tests",
       "whether they’re ignored or not, you can run `cargo test -- --include-ignored`.")],
     ["cargo test -- --include-ignored"]),
    ("en", "conceptual", "howto", "How can I make a should_panic test check the panic message, not just that it panicked?",
     [(S + "ch11-01-writing-tests.md", "Tests that use `should_panic` can be imprecise.", "make sure that the failure message contains the provided text.")],
     ["expected", "contains the provided text"]),
    ("en", "conceptual", "howto", "hashmap: insert a value only if the key isn't there yet",
     [(S + "ch08-03-hash-maps.md", "Hash maps have a special API for this called `entry`", "called `Entry` that represents a value"),
      (S + "ch08-03-hash-maps.md", "The `or_insert` method on `Entry` is defined to return", "reference to the new value.")],
     ["entry", "or_insert"]),
    ("en", "conceptual", "howto", "How do I re-export a type from a nested module so users can import it from my crate root?",
     [(S + "ch07-04-bringing-paths-into-scope-with-the-use-keyword.md", "### Re-exporting Names with `pub use`", "scope."),
      (S + "ch14-02-publishing-to-crates-io.md", "Instead, you can re-export items to make a public structure", "defined in the other location instead.")],
     ["pub use"]),
    ("en", "exact", "howto", "generic fn that also accepts str / unsized types - how do i relax the implicit Sized bound",
     [(S + "ch20-03-advanced-types.md", "By default, generic functions will work only on types that have a known size", "`Sized`, not any other traits.")],
     ["?Sized"]),
    ("en", "exact", "howto", "minigrep: how do I turn on case-insensitive search when running it?",
     [(S + "ch12-05-working-with-environment-variables.md", "$ IGNORE_CASE=1 cargo run -- to poem.txt"),
      (S + "ch12-05-working-with-environment-variables.md", "PS> $Env:IGNORE_CASE=1; cargo run -- to poem.txt")],
     ["IGNORE_CASE=1"]),
    ("en", "conceptual", "howto", "how to force a value to be dropped before the end of its scope",
     [(S + "ch15-03-drop.md", "Rust doesn’t let you call the `Drop` trait’s `drop` method manually", "if you want to force a value to be dropped before the end of its scope."),
      (S + "ch15-03-drop.md", "We can’t disable the automatic insertion of `drop`", "a value to be cleaned up early, we use the `std::mem::drop` function.")],
     ["std::mem::drop"]),
    # ---------------- lookups ----------------
    ("en", "exact", "lookup", "How often does Rust ship a new stable release?",
     [(S + "appendix-07-nightly-rust.md", "Rust releases every six weeks, like clockwork.", "release, you can know the date of the next one: it’s six weeks later."),
      (S + "appendix-07-nightly-rust.md", "Every six weeks, it’s time to prepare a new release!"),
      (S + "appendix-07-nightly-rust.md", "This is called the “train model” because every six weeks")],
     ["six weeks"]),
    ("en", "exact", "lookup", "who called null references a billion dollar mistake",
     [(S + "ch06-01-defining-an-enum.md", "In his 2009 presentation “Null References: The Billion Dollar Mistake,” Tony", "Hoare, the inventor of null")],
     ["Tony Hoare"]),
    ("en", "exact", "lookup", "what is the ! type called",
     [(S + "ch20-03-advanced-types.md", "Rust has a special type named `!`", "return. Here is an example:")],
     ["never type"]),
    ("en", "exact", "lookup", "What type does Mutex lock() return?",
     [(S + "ch16-03-shared-state.md", "The call to `lock` returns a type called `MutexGuard`", "`LockResult` that we handled with the call to `unwrap`.")],
     ["MutexGuard", "LockResult"]),
    ("en", "exact", "lookup", "where does cargo login save my crates.io API token",
     [(S + "ch14-02-publishing-to-crates-io.md", "This command will inform Cargo of your API token and store it locally in", "_~/.cargo/credentials.toml_")],
     ["~/.cargo/credentials.toml"]),
    # ---------------- comparisons ----------------
    ("en", "relational", "comparison", "v[100] vs v.get(100) on a Vec — what happens when the index is out of range?",
     [(S + "ch08-01-vectors.md", "When we run this code, the first `[]` method will cause the program to panic", "end of the vector."),
      (S + "ch08-01-vectors.md", "When the `get` method is passed an index that is outside the vector", "circumstances.")],
     ["cause the program to panic", "without panicking"]),
    ("en", "relational", "comparison", "recv vs try_recv on a channel receiver",
     [(S + "ch16-02-message-passing.md", "The receiver has two useful methods: `recv` and `try_recv`.", "an error to signal that no more values will be coming."),
      (S + "ch16-02-message-passing.md", "The `try_recv` method doesn’t block", "again.")],
     ["block the main thread", "doesn’t block"]),
    ("en", "relational", "comparison", "difference between strong and weak references (Rc::clone vs Rc::downgrade)",
     [(S + "ch15-06-reference-cycles.md", "So far, we’ve demonstrated that calling `Rc::clone` increases the", "up if its `strong_count` is 0."),
      (S + "ch15-06-reference-cycles.md", "When you call `Rc::downgrade`, you get a smart pointer of type `Weak<T>`.", "`Rc<T>` instance to be cleaned up."),
      (S + "ch15-06-reference-cycles.md", "reference to the `Rc<T>`. *Strong references* are how you can share ownership", "involved is 0.")],
     ["only cleaned up if", "doesn’t need to be 0"]),
    ("en", "relational", "comparison", "What's the difference between refutable and irrefutable patterns?",
     [(S + "ch19-02-refutability.md", "Patterns come in two forms: refutable and irrefutable.", "statement `let x = 5;` because `x` matches anything"),
      (S + "ch19-02-refutability.md", "to match. Patterns that can fail to match for some possible value are", "`Some`, the `Some(x)` pattern will not match."),
      (S + "ch19-02-refutability.md", "Function parameters, `let` statements, and `for` loops can only accept", "its ability to perform differently depending on success or failure.")],
     ["match for any possible value", "fail to match for some possible value"]),
    # ---------------- explain ----------------
    ("en", "conceptual", "explain", "are iterators slower than writing the loop by hand? what's a zero-cost abstraction",
     [(S + "ch13-04-performance.md", "Iterators, although a high-level abstraction, get compiled down to roughly the", "imposes no additional runtime overhead.")],
     ["imposes no additional runtime overhead"]),
    ("en", "conceptual", "explain", "Does Rust have inheritance like classes in Java?",
     [(S + "ch18-01-what-is-oo.md", "If a language must have inheritance to be object oriented, then Rust is not", "struct’s fields and method implementations without using a macro."),
      (S + "ch18-01-what-is-oo.md", "You would choose inheritance for two main reasons.", "way in Rust code using default trait method implementations")],
     ["Rust is not such a language", "default trait method implementations"]),
    ("en", "conceptual", "explain", "why does the thread pool in the web server project wrap the receiver in Arc<Mutex<...>>",
     [(S + "ch21-02-multithreaded.md", "Additionally, taking a job off the channel queue involves mutating the", "the receiver at a time. Listing 21-18 shows the changes we need to make.")],
     ["share ownership across multiple threads"]),
    # ---------------- unanswerable (plausible; the book does not cover them) ----------------
    ("en", "conceptual", "unanswerable", "how do I spawn scoped threads with std::thread::scope so they can borrow local variables?", [], []),
    ("en", "relational", "unanswerable", "When should I use RwLock instead of Mutex?", [], []),
    ("en", "exact", "unanswerable", "what does the #[non_exhaustive] attribute do on a pub enum", [], []),
    ("en", "conceptual", "unanswerable", "How do I make a lazily initialized global with OnceLock?", [], []),
    # ---------------- Chinese questions over the English book ----------------
    ("zh", "conceptual", "howto", "match 分支里怎么再加一个 if 条件判断",
     [(S + "ch19-03-pattern-syntax.md", "A _match guard_ is an additional `if` condition", "`while let` expressions.")],
     ["match guard"]),
    ("zh", "exact", "lookup", "Rust 社区的 crate 一般用什么许可证？Cargo.toml 里 license 怎么写",
     [(S + "ch14-02-publishing-to-crates-io.md", "of this book. Many people in the Rust community license their projects in the", "by `OR` to have multiple licenses for your project."),
      (S + "ch14-02-publishing-to-crates-io.md", "license = \"MIT OR Apache-2.0\"")],
     ["MIT OR Apache-2.0"]),
    ("zh", "relational", "comparison", "Rust 里宏和函数有什么区别？",
     [(S + "ch20-05-macros.md", "A function signature must declare the number and type of parameters the"),
      (S + "ch20-05-macros.md", "function has. Macros, on the other hand, can take a variable number of", "parameters: We can call"),
      (S + "ch20-05-macros.md", "`println!(\"hello {}\", name)` with two arguments. Also, macros are expanded", "called at runtime and a trait needs to be implemented at compile time.")],
     ["must declare the number and type of parameters", "can take a variable number of"]),
    ("zh", "conceptual", "explain", "为什么调用 async 函数之后不 await 就什么都不执行？",
     [(S + "ch17-01-futures-and-syntax.md", "We have to explicitly await both of these futures, because futures in Rust are", "(In fact, Rust will show a compiler warning if you don’t use a future.)"),
      (S + "ch17-01-futures-and-syntax.md", "the resulting futures as `title_fut_1` and `title_fut_2`.", "do anything yet, because futures are lazy")],
     ["don’t do anything until you ask them"]),
    ("zh", "conceptual", "explain", "生命周期省略规则是哪三条",
     [(S + "ch10-03-lifetime-syntax.md", "The first rule is that the compiler assigns a lifetime parameter to each", "methods much nicer to read and write because fewer symbols are necessary.")],
     ["assigns a lifetime parameter to each", "exactly one input lifetime parameter"]),
    ("zh", "conceptual", "unanswerable", "PhantomData 是干什么用的？什么时候需要它", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "rbd", Q, HERE / "rustbook_dev2.jsonl", only_split="dev")  # all tuning questions


if __name__ == "__main__":
    raise SystemExit(main())
