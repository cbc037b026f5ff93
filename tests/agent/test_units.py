"""Answer units: a list item with its command, a fence with its intro, a table row with its header,
blockquotes without markers, boilerplate and front matter never units, the file's text verbatim."""

from __future__ import annotations

import re
from pathlib import Path

from kb_agent.agent.units import MAX_CODE_LINES, AnswerUnit, build_units, is_boilerplate
from kb_agent.corpus.chunking import split_lines

TLDR = """# tar

> Archiving utility.
> More information: <https://www.gnu.org/software/tar>.

- Create a gzipped archive of a folder's contents:

`tar czf out.tgz -C dir .`

- List the contents of an archive:

`tar tvf {{path/to/source.tar}}`
"""

RUNBOOK = """---
title: "ADR 0005: Shard the cache"
tags: [adr, redis]
owner: platform-team
---

# Runbook

- **Status:** Superseded by [ADR 0006](0006.md)
- **Related to:** [ADR 0002](0002.md)

[![build](https://ci/badge.svg)](https://ci)

- Undo the last commit, keeping its changes:
  ```bash
  git reset HEAD~
  ```

To restore a dump, run:

```bash
pg_restore -d orders a b ...
```

## cache.ttl_seconds

How long an entry lives, in seconds.

| Key | Default | Meaning |
|-----|---------|---------|
| `cache.ttl_seconds` | 300 | entry lifetime |
| `cache.size_mb` | 512 | memory cap |

Setext title
============

Example:

    nwctl status --env prod
"""


def units(text: str, path: str = "a.md") -> list[AnswerUnit]:
    return build_units(path, split_lines(text))


def by_text(us: list[AnswerUnit], needle: str) -> AnswerUnit:
    return next(u for u in us if needle in u.text + u.code)


def test_list_item_with_the_command_after_a_blank_line_is_one_unit() -> None:
    us = units(TLDR)
    u = by_text(us, "gzipped archive")
    assert (u.start_line, u.end_line, u.kind) == (6, 8, "item")
    assert u.text == "Create a gzipped archive of a folder's contents:"
    assert u.code == "`tar czf out.tgz -C dir .`", "the command is verbatim: `dir .` keeps its space"
    assert u.render(1) == "- Create a gzipped archive of a folder's contents: `tar czf out.tgz -C dir .` [1]"
    assert "`tar czf out.tgz -C dir .`" in u.quote and u.quote.startswith("- Create")


def test_blockquote_without_markers_and_more_information_dropped() -> None:
    us = units(TLDR)
    q = by_text(us, "Archiving")
    assert (q.text, q.start_line, q.end_line) == ("Archiving utility.", 3, 3)
    assert is_boilerplate("More information: <https://www.gnu.org/software/tar>.")
    assert is_boilerplate("**Related to:** [ADR 0002](0002.md)")
    assert is_boilerplate("[![build](https://ci/badge.svg)](https://ci)")
    assert not is_boilerplate("**Status:** Superseded by [ADR 0006](0006.md)")


def test_list_item_with_a_fence_under_it() -> None:
    u = by_text(units(RUNBOOK), "Undo the last commit")
    assert (u.start_line, u.end_line) == (14, 17)
    assert u.code == "```bash\ngit reset HEAD~\n```"
    assert u.render(2) == "- Undo the last commit, keeping its changes: [2]\n  ```bash\n  git reset HEAD~\n  ```"


def test_fence_with_the_sentence_that_introduces_it() -> None:
    u = by_text(units(RUNBOOK), "To restore a dump")
    assert (u.start_line, u.end_line) == (19, 23)
    assert u.text == "To restore a dump, run:"
    assert "pg_restore -d orders a b ..." in u.code, "`a b ...` is not merged into `a b...`"


PAINTED = """# Workers

You can use the `--workers` command line option:

<div class="termy">

```console
$ <font color="#4E9A06">fastapi</font> run --workers 4 <u style="text-decoration-style:solid">main.py</u>
<span style="background-color:#009485"><font color="#D3D7CF"> FastAPI </font></span>  Starting server in &apos;main.py&apos;
```

</div>

```html
<b>bold</b> stays <font color="red">as written</font> in an HTML example
```
"""


def test_a_terminal_session_painted_with_html_is_shown_as_text() -> None:
    """FastAPI's and Typer's docs write a terminal session as the HTML it renders to: the command a reader
    copies is `fastapi run --workers 4 main.py`; the citation still quotes the file's lines exactly, and an
    HTML example keeps its tags."""
    u = by_text(units(PAINTED), "--workers 4")
    assert "$ fastapi run --workers 4 main.py" in u.code, u.code
    assert " FastAPI   Starting server in 'main.py'" in u.code and "<" not in u.code.replace("```", ""), u.code
    assert '<font color="#4E9A06">fastapi</font>' in u.quote
    html = by_text(units(PAINTED), "HTML example")
    assert '<b>bold</b> stays <font color="red">as written</font>' in html.code


def test_table_row_with_its_header() -> None:
    u = by_text(units(RUNBOOK), "cache.size_mb")
    assert (u.start_line, u.end_line, u.kind) == (32, 32, "row")
    assert u.text == "Key: `cache.size_mb` · Default: 512 · Meaning: memory cap"
    assert u.quote == "| `cache.size_mb` | 512 | memory cap |"


def test_a_delimiter_row_between_groups_of_rows_is_no_unit() -> None:
    """Cheat sheets (devhints.io) put `| --- | --- |` inside a table to separate groups of shortcuts: a reader
    sees a rule, not a row "Shortcut: --- · Description: ---" (207 such units in the devhints corpus)."""
    page = "# Vim\n\n| Shortcut | Description |\n| --- | --- |\n| `ma` | Mark this cursor position as `a` |\n" \
           "| --- | --- |\n| `:marks` | List all current marks |\n| `--` | end of options |\n"
    rows = [u.text for u in build_units("vim.md", split_lines(page)) if u.kind == "row"]
    assert rows == ["Shortcut: `ma` · Description: Mark this cursor position as `a`",
                    "Shortcut: `:marks` · Description: List all current marks", "Shortcut: `--` · Description: end of options"]


def test_definition_under_its_heading() -> None:
    u = by_text(units(RUNBOOK), "How long an entry lives")
    assert u.kind == "definition" and (u.start_line, u.end_line) == (25, 27)
    assert u.text == "**cache.ttl_seconds**: How long an entry lives, in seconds."


def test_a_heading_written_in_bold_labels_its_definition_once() -> None:
    """`### **max_connections**` (AList's configuration page): the label is the heading's words in bold, not its
    emphasis marks inside more of them (`****max_connections****`); emphasis around part of a heading stays."""
    page = "# Config\n\n### **max_connections**\n\nThe most connections at once; 0 means no limit.\n\n" \
           "## *fast* or *safe*\n\nPick one per store.\n"
    assert by_text(units(page), "most connections").text == "**max_connections**: The most connections at once; 0 means no limit."
    assert by_text(units(page), "Pick one").text == "***fast* or *safe***: Pick one per store."


def test_boilerplate_and_front_matter_are_never_units() -> None:
    us = units(RUNBOOK)
    shown = " ".join(u.text + u.code for u in us)
    assert all(u.start_line > 5 for u in us), "front matter is not an answer"
    assert "owner" not in shown and "platform-team" not in shown
    assert "Related to" not in shown and "badge" not in shown
    assert "Superseded by [ADR 0006](0006.md)" in shown


def test_setext_heading_is_not_a_unit_and_indented_code_is_code() -> None:
    us = units(RUNBOOK)
    assert not any("Setext title" in u.text or "=====" in u.text for u in us)
    u = by_text(us, "nwctl status")
    assert u.text == "Example:" and u.code == "```\nnwctl status --env prod\n```"
    assert (u.start_line, u.end_line) == (37, 39)


def test_units_quote_exactly_their_lines() -> None:
    lines = split_lines(RUNBOOK)
    for u in units(RUNBOOK):
        assert u.quote == "\n".join(lines[u.start_line - 1 : u.end_line]).strip()


def test_the_verifier_prints_the_command_exactly(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kb_agent.agent.citations import SourceRef, verify_answer

    (tmp_path / "tar.md").write_text(TLDR, encoding="utf-8")
    u = by_text(units(TLDR, "tar.md"), "gzipped archive")
    body = u.render(1) + "\n- Invented line [2]"
    v = verify_answer(body, [SourceRef(1, "tar.md", u.start_line, u.end_line, u.quote)], tmp_path)
    assert "`tar czf out.tgz -C dir .` [1]" in v.text, "no space dropped before `.`"
    assert "- Invented line\n" in v.text + "\n" and len(v.removed) == 1


CHEAT_FENCE = """# firewall-cmd

## Ports

```shell
# list the open ports:
firewall-cmd --zone=dmz --list-ports

# open a port in a zone:
firewall-cmd --zone=dmz --add-port=8080/tcp
# add --permanent to keep it after a reload

# remove a service
firewall-cmd --zone=work --remove-service=smtp
# show the zones
firewall-cmd --get-zones
# set the default zone
firewall-cmd --set-default-zone=home
firewall-cmd --get-default-zone
```

```python
def short():
    return 1
```
"""


def test_a_long_cheat_sheet_fence_is_one_unit_per_entry() -> None:
    units = build_units("fw.md", split_lines(CHEAT_FENCE))
    codes = [(u.start_line, u.end_line, u.code) for u in units if u.kind == "code"]
    assert codes[0][:2] == (5, 7), "the first entry keeps the opening fence line"
    assert codes[1] == (9, 11, "```shell\n# open a port in a zone:\nfirewall-cmd --zone=dmz --add-port=8080/tcp\n# add --permanent to keep it after a reload\n```"), \
        "a note right after a command stays with it"
    assert [c[:2] for c in codes[2:5]] == [(13, 14), (15, 16), (17, 19)], "entries without blank lines are cut where a comment follows code"
    assert codes[5][2] == "```python\ndef short():\n    return 1\n```", "a short fence stays whole"
    for u in units:
        assert u.quote == "\n".join(split_lines(CHEAT_FENCE)[u.start_line - 1 : u.end_line]).strip()


SESSION_FENCE = """# FastAPI CLI

Run the development server:

```console
$ <font color="#4E9A06">fastapi</font> dev

  <span style="background-color:#009485"><font color="#D3D7CF"> FastAPI </font></span>  Starting development server

             Searching for package file structure

   <span style="background-color:#007166"><font color="#D3D7CF"> module </font></span>  main.py

             Logs:

     <span style="background-color:#007166"><font color="#D3D7CF"> INFO </font></span>  Uvicorn running on http://127.0.0.1:8000
     <span style="background-color:#007166"><font color="#D3D7CF"> INFO </font></span>  Application startup complete.
$ curl http://127.0.0.1:8000/

{"message": "Hello World"}
```
"""


def test_a_long_terminal_session_is_one_unit_per_command_with_its_output() -> None:
    """A blank line inside a command's output does not start an entry: FastAPI's startup banner was quoted as
    "Logs:" alone, or as INFO lines with no command, three bullets of one fence. Each command keeps the output
    that follows it (at most MAX_CODE_LINES lines)."""
    units = build_units("cli.md", split_lines(SESSION_FENCE))
    codes = [u for u in units if u.code.startswith("```console")]
    assert [(u.start_line, u.end_line) for u in codes] == [(3, 17), (18, 20)], [(u.start_line, u.end_line, u.code) for u in codes]
    assert codes[0].code.splitlines()[1] == "$ fastapi dev" and "Logs:" in codes[0].code
    assert codes[1].code == '```console\n$ curl http://127.0.0.1:8000/\n\n{"message": "Hello World"}\n```'
    for u in units:
        assert u.quote == "\n".join(split_lines(SESSION_FENCE)[u.start_line - 1 : u.end_line]).strip()


BRANCH_PROMPT_FENCE = """# I accidentally deleted my branch

Add a file and commit it:

```sh
(my-branch)$ git add .
(my-branch)$ git commit -m 'foo.txt added'
 1 files changed, 1 insertions(+)
(my-branch)$ git log

commit 4e3cd85a670ced7cc17a2b5d8d3d809ac88d5012
Author: siemiatj <siemiatj@example.com>

    foo.txt added

commit 69204cdf0acbab201619d95ad8295928e7f411d5
Author: Kate Hudson <katehudson@example.com>

    Fixes #6: Force pushing after amending commits
```

Examples:

```sh
  $ tiup update --all                  # Update all installed components
  $ tiup update --self                 # Update tiup itself
  $ tiup list                          # Fetch the components list
  $ tiup status                        # Display all running instances
  $ tiup clean <name>                  # Clean the data of an instance
  $ tiup clean --all                   # Clean the data of all instances

Available Commands:
  install     Install a specific version of a component
  list        List the available TiDB components or versions
  uninstall   Uninstall components or versions of a component
  update      Update tiup components to the latest version
```
"""


def test_a_shell_fence_with_prompts_is_a_terminal_session() -> None:
    """git-flight-rules writes its sessions as ```sh with `(branch)$` prompts: cut at blank lines, `git log`'s output
    became three bullets of commit lines with no command (session 22). A shell fence with two `$` prompts at the start
    of a line, output between them and no comment is cut at its prompts; a help text's indented, commented examples
    are not a session."""
    units = build_units("branches.md", split_lines(BRANCH_PROMPT_FENCE))
    codes = [u for u in units if u.code.startswith("```sh")]
    assert [c.code.splitlines()[1] for c in codes[:3]] == ["(my-branch)$ git add .", "(my-branch)$ git commit -m 'foo.txt added'", "(my-branch)$ git log"]
    assert "commit 69204cdf0acbab201619d95ad8295928e7f411d5" in codes[2].code
    assert not any(c.code.splitlines()[1].startswith("commit ") for c in codes)
    help_lines = [c.code.splitlines()[1].strip() for c in codes[3:]]
    assert help_lines[0] == "$ tiup update --all                  # Update all installed components" and "Available Commands:" in codes[-1].code


PROGRAM_FENCE = """# Computed

```js
export default {
  data() {
    return {
      author: { name: 'John Doe', books: ['Vue 2', 'Vue 3'] }
    }
  },

  computed: {
    // a computed getter
    publishedBooksMessage() {
      // `this` points to the component instance
      return this.author.books.length > 0 ? 'Yes' : 'No'
    }
  }
}

// a second example
const count = ref(0)
```
"""


def test_a_long_program_is_not_cut_inside_its_brackets() -> None:
    """A comment or blank line inside a function body or an object is part of the program: the cheat-sheet cut
    (a new entry where a comment follows code) happens only outside every bracket, so no unit shows half an
    object (`// a computed getter` + `publishedBooksMessage() {` alone)."""
    codes = [u for u in units(PROGRAM_FENCE) if u.code]
    assert [(u.start_line, u.end_line) for u in codes] == [(3, 15), (20, 21)]
    assert codes[0].code.startswith("```js\nexport default {\n") and "// a computed getter" in codes[0].code
    assert codes[1].code == "```js\n// a second example\nconst count = ref(0)\n```"


COMPONENT_FENCE = """# Reactivity Transform

```vue
<script setup>
let count = $ref(0)

console.log(count)

function increment() {
  count++
}
</script>

<template>
  <button @click="increment">{{ count }}</button>
</template>
```

```shell
# stage a file
git add <file>

# unstage it
git restore --staged <file>

# show what is staged
git diff --cached

# commit it
git commit -m <message>

# push it
git push origin <branch>
```
"""


def test_a_long_component_is_not_cut_inside_its_elements() -> None:
    """An HTML element is a bracket too: the blank lines inside `<script setup>` … `</script>` are part of the
    program (a unit of `console.log(count)` alone is no example). A placeholder that nothing closes (`<file>`)
    does not hold a cheat sheet's entries together."""
    codes = [u for u in units(COMPONENT_FENCE) if u.code]
    assert codes[0].code == "```vue\n<script setup>\nlet count = $ref(0)\n\nconsole.log(count)\n\nfunction increment() {\n  count++\n}\n</script>\n```"
    assert codes[1].code.startswith("```vue\n<template>") and codes[1].code.endswith("</template>\n```")
    assert [u.code.splitlines()[1] for u in codes[2:]] == ["# stage a file", "# unstage it", "# show what is staged", "# commit it", "# push it"]


LONG_COMPONENT = "# Client components\n\n```vue\n<script setup>\nconst Comp = defineClientComponent(\n" + "".join(
    f"  () => import('lib-{i}'),\n" for i in range(MAX_CODE_LINES - 2)) + ")\n</script>\n```\n"


def test_the_closing_lines_of_a_long_program_are_no_unit_of_their_own() -> None:
    """A program longer than a unit may show is shown from its top; the `)` / `</script>` left below the cut close
    what the top opened and show nothing a reader could use."""
    codes = [u for u in units(LONG_COMPONENT) if u.code]
    assert len(codes) == 1, [u.code for u in codes]
    assert codes[0].code.startswith("```vue\n<script setup>\nconst Comp = defineClientComponent(")


def test_stubs_are_never_answer_units() -> None:
    text = "# Cleanup\n\nRemove dangling images:\n\n```shell\n# TODO: Command needed\n```\n\n## Notes\n\nTODO\n\nPrune them with:\n\n```shell\ndocker image prune\n```\n"
    units = build_units("c.md", split_lines(text))
    assert [u.code for u in units] == ["```shell\ndocker image prune\n```"], units


def test_a_shortcode_between_a_sentence_and_its_code_is_layout() -> None:
    text = "# Scale in\n\nTo scale in one TiKV node, run:\n\n{{< copyable \"shell-regular\" >}}\n\n```bash\ntiup cluster scale-in prod -N 10.0.0.1:20160\n```\n"
    units = build_units("s.md", split_lines(text))
    assert [(u.text, u.code) for u in units] == [("To scale in one TiKV node, run:", "```bash\ntiup cluster scale-in prod -N 10.0.0.1:20160\n```")]


LABELLED = """# ln

**创建软链接**

在目录`/usr/liu`下建立一个符号链接文件abc

```shell
ln -s /usr/mengqc/mub1 /usr/liu/abc
```

**创建硬链接**

```shell
ln log2022.log ln2022
```

**Note** this line is bold only at its start.

**Options:**

- `-s` make symbolic links
"""


def test_a_bold_label_line_heads_the_sentence_and_command_under_it() -> None:
    us = units(LABELLED)
    u = by_text(us, "ln -s")
    assert (u.start_line, u.end_line) == (3, 9), "the unit starts at its label, so the answer says what the command is for"
    assert u.text == "**创建软链接** 在目录`/usr/liu`下建立一个符号链接文件abc"
    assert not any(x.text == "**创建软链接**" for x in us), "the label is not a unit of its own"
    hard = by_text(us, "ln log2022.log")
    assert (hard.start_line, hard.text) == (11, "**创建硬链接**"), "a label right over code introduces it as any sentence does"
    note = by_text(us, "bold only at its start")
    assert note.start_line == 17, "a sentence that merely opens in bold is no label"
    assert by_text(us, "Options").text == "**Options:**", "a label over a list is left to the intro rule"


def test_a_man_pages_option_heads_its_description() -> None:
    """A man page in markdown (ronn, git-extras' `man/git-undo.md`) writes each option on a line of its own over the
    paragraph that says what it does: one unit, the option set off as a label, so "keep my changes staged" quotes
    `--soft` with what it does. An option over another option, or over code, labels nothing."""
    page = ("git-undo(1) -- Remove latest commits\n====\n\n## OPTIONS\n\n  --soft or -s\n\n"
            "  Rolls back the commit(s) but leaves the changes in the staging area.\n\n  -o, --output FILE\n\n"
            "  Where to write the log.\n\n  &lt;commitcount&gt;\n\n  Number of commits to remove. Defaults to *1*.\n\n"
            "  --hard\n\n  --quiet\n\n  Says nothing.\n\n  --dry-run\n\n      git undo --dry-run\n")
    us = units(page)
    soft = by_text(us, "Rolls back")
    assert (soft.start_line, soft.end_line) == (6, 8) and soft.text.startswith("**--soft or -s** Rolls back"), soft
    assert by_text(us, "Where to write").text.startswith("**-o, --output FILE** Where")
    assert by_text(us, "Number of commits").text.startswith("**<commitcount>** Number")
    assert by_text(us, "Says nothing").text.startswith("**--quiet** Says"), "the option right over the description"
    assert not any(u.text.startswith("**--hard**") for u in us), "an option over another option labels nothing"


def test_a_numbered_case_line_heads_the_paragraph_that_answers_for_that_case() -> None:
    """An FAQ answer by cases: "1) Master crashes" over what then happens. The case line alone says nothing,
    the paragraph alone does not say which case it is: one unit, the case set off as a label."""
    page = ("### 3. What is the impact of a broker crash.\n\n&#8195;1) Master crashes\n\nMessages can no longer be sent to this "
            "broker set.\n\n&#8195;2) Some slave crash\n\nThere is no impact on sending messages.\n\n"
            "## 影响\n\n1）Master节点崩溃\n\n消息不能再发送到该Broker集群。\n\n"
            "Run these steps in order:\n\n1) Stop the broker.\n\nThen wait.\n\n"
            "## 安装\n\n1）安装\n\n2）配置\n\n两步都只做一次。\n")
    us = units(page)
    master = by_text(us, "no longer be sent")
    assert (master.start_line, master.end_line) == (3, 5) and master.text.startswith("**1) Master crashes** Messages"), master
    assert by_text(us, "no impact on sending").text.startswith("**2) Some slave crash** There")
    assert by_text(us, "不能再发送").text.startswith("**1）Master节点崩溃** 消息")
    assert not any(u.text in ("1) Master crashes", "**1) Master crashes**") for u in us), "the case line is not a unit of its own"
    assert by_text(us, "Then wait").start_line == 21, "a numbered sentence (it ends in a full stop) labels nothing"
    assert by_text(us, "1）安装").text.endswith(": 1）安装"), "a case line over the next one is a list written as paragraphs"
    assert by_text(us, "只做一次").text == "**2）配置** 两步都只做一次。", "the last case line labels what follows it"


MDBOOK = """## Installing Binaries

<a id="installing-binaries-from-cratesio"></a>

The `cargo install` command installs tools shared on [crates.io](https://crates.io/)<!-- ignore -->. Use a
<kbd>Ctrl</kbd> key or a `<span>` tag; a `Vec<T>` or Vec<T> stays as written.

<span class="filename">Filename: src/main.rs</span>

```rust
{{#rustdoc_include ../listings/ch14/src/main.rs}}
```

To see them, run:

```console
$ cargo install --list
```

To install `ripgrep`, we can run the following:

<!-- manual-regeneration
cargo install something you don't have, copy relevant output below
-->

```console
$ cargo install ripgrep
```
"""


def test_inline_html_is_not_shown_and_an_include_only_fence_is_no_code() -> None:
    """mdBook pages: anchors and comments are not units or words; an include directive shows no code."""
    us = units(MDBOOK)
    assert not any("<a id" in u.text or "installing-binaries" in u.text for u in us)
    prose = by_text(us, "cargo install` command")
    # tags and comments dropped, code spans untouched, one space where a tag sat between two, lines exact in the quote
    assert prose.text == ("The `cargo install` command installs tools shared on [crates.io](https://crates.io/). Use a "
                          "Ctrl key or a `<span>` tag; a `Vec<T>` or Vec<T> stays as written.")
    assert "<!-- ignore -->" in prose.quote and "<kbd>Ctrl</kbd>" in prose.quote
    label = by_text(us, "Filename: src/main.rs")
    assert (label.text, label.code) == ("Filename: src/main.rs", "")
    assert not any("rustdoc_include" in u.code for u in us)
    assert by_text(us, "To see them").code == "```console\n$ cargo install --list\n```"
    # a comment block between a sentence and its fence is nothing a reader sees: the two are one unit
    ripgrep = by_text(us, "To install `ripgrep`")
    assert ripgrep.code == "```console\n$ cargo install ripgrep\n```" and "manual-regeneration" not in ripgrep.text + ripgrep.code


DOCUSAURUS = """import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';

# Deploy

:::tip Before you start

Install the CLI first.

:::

:::note
Run the build on a clean checkout:
:::

```bash
npm run build
```

{% include warning.html %}

Then publish the `build/` folder.

::: mkdocs_app.build.Builder
    options:
        members:
            - run
"""


def test_site_generator_containers_and_tags_are_layout() -> None:
    """Docusaurus/VuePress `:::` containers, MDX `import … from '…';` lines and Liquid `{% %}` tags are markup,
    never answer words."""
    us = units(DOCUSAURUS)
    assert [(u.text, u.code) for u in us] == [
        ("Install the CLI first.", ""),
        ("Run the build on a clean checkout:", "```bash\nnpm run build\n```"),
        ("Then publish the `build/` folder.", ""),
    ]
    assert us[1].quote == "Run the build on a clean checkout:\n:::\n\n```bash\nnpm run build\n```"  # the file's own lines


TABS = """# Installation

Install the package with your package manager:

<Tabs>
<TabItem value="npm" label="npm">

```bash
npm install --save docusaurus-plugin-foo
```

</TabItem>
<TabItem value="yarn" label="Yarn">

```bash
yarn add docusaurus-plugin-foo
```

</TabItem>
</Tabs>
"""


def test_a_tab_label_introduces_the_fence_under_it() -> None:
    """Docusaurus tabs: the second package manager's command is labelled by its tab ("Yarn"), not left bare."""
    us = units(TABS)
    assert [(u.text, u.code) for u in us] == [
        ("Install the package with your package manager:", "```bash\nnpm install --save docusaurus-plugin-foo\n```"),
        ("Yarn", "```bash\nyarn add docusaurus-plugin-foo\n```"),
    ]
    assert us[1].start_line == 13 and us[1].quote.startswith('<TabItem value="yarn" label="Yarn">')


MYST = """# Config

```{note}
:class: dropdown

The cache is cleared on every deploy.
```

```{code-block} python
print("hi")
```

````{tip}
Clean before you build:

```bash
make clean
```
````
"""


def test_a_myst_admonition_fence_holds_markdown_and_a_code_directive_stays_code() -> None:
    """Sphinx/MyST: ```{note} … ``` is a note a reader sees as prose (its `:class:` option is a setting);
    ```{code-block} python is code; a fence inside ````{tip} is the tip's command."""
    us = units(MYST)
    assert [(u.text, u.code) for u in us] == [
        ("The cache is cleared on every deploy.", ""),
        ("", '```{code-block} python\nprint("hi")\n```'),
        ("Clean before you build:", "```bash\nmake clean\n```"),
    ]


SHORTCODES = """# Taints

To taint a worker, patch its join configuration:

{{< codeFromInline lang="yaml" >}}
nodes:
- role: worker
  kubeletExtraArgs:
    register-with-taints: "dedicated=gpu:NoSchedule"
{{< /codeFromInline >}}

With Hugo's own shortcode:

{{< highlight go "linenos=table" >}}
fmt.Println("hi")
{{< /highlight >}}

In Jekyll:

{% highlight ruby %}
puts "hi"
{% endhighlight %}

{{< note >}}
A note is prose, not code.
{{< /note >}}

{{< highlight bash >}}
never closed
"""


def test_a_code_shortcode_is_a_fence_under_the_sentence_that_introduces_it() -> None:
    """Hugo and Jekyll sites write code between shortcodes (`{{< highlight go >}}` … `{{< /highlight >}}`, kind's
    `{{< codeFromInline lang="yaml" >}}`, `{% highlight ruby %}` … `{% endhighlight %}`): the lines between are code, shown
    as a fence of their language under the sentence that introduces them (session 31: kind's cluster configs were read
    as paragraphs, and "how do I taint a worker through the config?" was refused for want of code). A shortcode that is
    not about code stays layout, and an opener without its closer changes nothing."""
    us = units(SHORTCODES)
    assert (us[0].text, us[0].code) == (
        "To taint a worker, patch its join configuration:",
        '```yaml\nnodes:\n- role: worker\n  kubeletExtraArgs:\n    register-with-taints: "dedicated=gpu:NoSchedule"\n```')
    assert (us[0].start_line, us[0].end_line) == (3, 10)
    assert (us[1].text, us[1].code) == ("With Hugo's own shortcode:", '```go\nfmt.Println("hi")\n```')
    assert (us[2].text, us[2].code) == ("In Jekyll:", '```ruby\nputs "hi"\n```')
    assert [u.text for u in us[3:]] == ["A note is prose, not code.", "never closed"]
    assert all(not u.code for u in us[3:])


def test_a_piece_of_a_long_yaml_fence_is_labelled_with_the_keys_it_sits_under() -> None:
    """A configuration reference's long YAML fence is quoted a piece at a time; GoReleaser's archives page quoted
    `formats: ["zip", "tar.gz"]` for "让 Windows 的压缩包用 zip" without saying it goes under `format_overrides` (session 31).
    A later piece is labelled with the keys it sits under (markup over the fence, not quoted text); the first piece, and a
    fence in another language, get none."""
    entries = "".join(f"    # Option {i}.\n    #\n    # Default: {i}.\n    option_{i}: {i}\n\n" for i in range(4))
    doc = ("# Archives\n\n```yaml\narchives:\n" + entries +
           "    format_overrides:\n      - # Which GOOS to override the format for.\n        goos: windows\n\n"
           "        # The formats to use for the given GOOS.\n        #\n        # Valid options are: tar.gz, zip.\n"
           "        formats: [\"zip\"]\n```\n\n```toml\n[archives]\n" + entries.replace(": ", " = ") + "```\n")
    us = [u for u in units(doc) if u.code]
    yaml = [u for u in us if u.code.startswith("```yaml")]
    assert yaml[0].label == "" and "archives:" in yaml[0].code
    last = next(u for u in yaml if 'formats: ["zip"]' in u.code)
    assert last.label == "archives › format_overrides", [(u.start_line, u.label) for u in yaml]
    assert last.render(1).startswith("- *Archives* (`archives › format_overrides`) [1]\n  ```yaml"), last.render(1)
    assert "format_overrides" not in last.quote, "the label is no quoted text"
    assert all(not u.label for u in us if u.code.startswith("```toml"))


NOTES = """# Deploy notes

[[_TOC_]]

> [!NOTE]
> Deploys freeze on Fridays after 15:00.

> [!warning]- Rollback first
> If the canary fails, run `make rollback` before anything else.

See [[Runbooks/Database|the database runbook]] and [[Oncall#Pager]] for details. ==Always== page the owner. %% ask Bob %%

![[diagram.png]]

Code keeps its syntax: `a == b`, `[[x]]`.
"""


def test_alerts_callouts_wikilinks_and_highlights_show_what_a_notes_app_shows() -> None:
    """GitHub alerts and Obsidian callouts without their `[!NOTE]` marker, a wikilink as its alias or page, an
    embed and a `%% comment %%` as nothing, `==word==` as the word; code spans untouched."""
    assert [u.text for u in units(NOTES)] == [
        "Deploys freeze on Fridays after 15:00.",
        "Rollback first If the canary fails, run `make rollback` before anything else.",
        "See the database runbook and Oncall Pager for details. Always page the owner.",
        "Code keeps its syntax: `a == b`, `[[x]]`.",
    ]


DEFLIST = """# Options

`--workers`
:   The number of worker processes. Defaults to 1.

`social.icon`

:   This property must contain a valid path to an icon:

    ``` yaml
    social:
      - icon: fontawesome/brands/github
    ```
"""


def test_a_definition_list_shows_its_term_with_its_definition() -> None:
    """PHP Markdown Extra / Pandoc / MkDocs definition lists: the `:` marker is markup, the term heads its
    definition (never taken for a command of the unit above it), and what is indented under it is markdown."""
    us = units(DEFLIST)
    assert [(u.start_line, u.text, u.code) for u in us] == [
        (3, "`--workers` The number of worker processes. Defaults to 1.", ""),
        (6, "`social.icon` This property must contain a valid path to an icon:", "``` yaml\nsocial:\n  - icon: fontawesome/brands/github\n```"),
    ]


DETAILS = """# FAQ

<details>
<summary>How do I reset my password?</summary>

Run `acct reset --user NAME` and follow the link in the email.

</details>

<details><summary>Why is the build slow?</summary>
The cache is cold after a release. Run `make warm`.
</details>
"""


def test_a_collapsed_section_shows_its_summary_with_what_it_says() -> None:
    """README FAQs written as `<details><summary>Q</summary>`: the question heads its answer, and text written
    inside the HTML block itself (shown raw by a renderer) is not lost."""
    us = units(DETAILS)
    assert [(u.start_line, u.end_line, u.text) for u in us] == [
        (4, 6, "**How do I reset my password?**: Run `acct reset --user NAME` and follow the link in the email."),
        (10, 11, "**Why is the build slow?**: The cache is cold after a release. Run `make warm`."),
    ]


KRAMDOWN = """# Setup

* TOC
{:toc}

Install the agent before the first deploy.
{: .note }

A dict literal {: not an attribute} stays, and so does `{: .x}` in code.
"""


def test_kramdown_attribute_lines_and_the_toc_marker_are_layout() -> None:
    """Jekyll/kramdown: `{: .note }` under a paragraph and the `* TOC` + `{:toc}` list are markup."""
    assert [u.text for u in units(KRAMDOWN)] == [
        "Install the agent before the first deploy.",
        "A dict literal {: not an attribute} stays, and so does `{: .x}` in code.",
    ]


MATH = """# Integer types

Each signed variant can store numbers from −(2<sup>n − 1</sup>) to 2<sup>n −
1</sup> − 1 inclusive. So, an `i8` can store numbers from −(2<sup>7</sup>) to
2<sup>7</sup> − 1, which equals −128 to 127. The markup `2<sup>7</sup>` is code.

| Metric | Type | Meaning |
|---|---|---|
| **backup_duration** | Histogram | Time spent on each event.<br/>`stage :: {"write", "sync"}` |
| **backup_errors** | Counter | Errors seen. <br> Line two of the cell |

| Operator | Example | Explanation |
|---|---|---|
| <code>&vert;&vert;</code> | <code>expr &vert;&vert; expr</code> | Short-circuiting logical OR |
| `&&` | See: <ul><li>[AND](and.md)</li><li>[OR](or.md)</li></ul> | Logical AND &mdash; AT&T&#39;s `&amp;` |
"""


def test_a_superscript_is_shown_as_a_power_and_a_line_break_as_a_space() -> None:
    """`2<sup>7</sup>` read as "27" changes the number: a reader sees 2 to the 7th. A `<br/>` inside a
    table cell separates two lines: dropping it glued "event." to the code after it."""
    us = units(MATH)
    prose = by_text(us, "signed variant")
    assert "from −(2^(n − 1)) to 2^(n − 1) − 1 inclusive" in prose.text
    assert "from −(2^7) to 2^7 − 1, which equals −128 to 127" in prose.text
    assert "`2<sup>7</sup>` is code" in prose.text, "a code span is shown as written"
    assert "2<sup>7</sup> − 1, which equals" in prose.quote, "the citation quotes the file"
    row = by_text(us, "backup_duration")
    assert row.text == 'Metric: **backup_duration** · Type: Histogram · Meaning: Time spent on each event. `stage :: {"write", "sync"}`'
    assert by_text(us, "backup_errors").text.endswith("Meaning: Errors seen. Line two of the cell")


def test_html_code_and_character_references_are_shown_as_a_reader_sees_them() -> None:
    """The Rust book writes `||` in a table as `<code>&vert;&vert;</code>` (a bare `|` would end the cell):
    the answer shows the operator, not the entity. A code span keeps what it holds as written."""
    us = units(MATH)
    assert by_text(us, "Short-circuiting").text == "Operator: `||` · Example: `expr || expr` · Explanation: Short-circuiting logical OR"
    row = by_text(us, "Logical AND")
    assert row.text == "Operator: `&&` · Example: See: [AND](and.md) [OR](or.md) · Explanation: Logical AND — AT&T's `&amp;`"
    assert "<code>&vert;&vert;</code>" in by_text(us, "Short-circuiting").quote


TOGGLES = """# Reactivity <span class="version-mark">since 3.0</span>

Now implement the `increment` <span class="options-api">method</span><span class="composition-api">function</span> yourself.

This can be combined into <del class="critic">one</del><ins class="critic">a single</ins> operation, and <b>R</b>ust stays one word.

### 9.6.10 <small>March 30, 2025</small> { id="9.6.10" }

This version is a pure refactoring release.
"""


def test_two_elements_side_by_side_are_two_words_and_headings_show_no_markup() -> None:
    """VitePress shows one of two adjacent spans (the API-style toggle), critic markup strikes one word and
    inserts another: their words are not glued ("methodfunction"). A heading's inline HTML and trailing
    attribute list (`{ id="9.6.10" }`) are not what a reader sees in it."""
    us = units(TOGGLES)
    assert by_text(us, "increment").text == "Now implement the `increment` method function yourself."
    assert by_text(us, "combined").text == "This can be combined into one a single operation, and Rust stays one word."
    assert by_text(us, "increment").heading_path == ("Reactivity since 3.0",)
    release = by_text(us, "refactoring")
    assert release.text == "**9.6.10 March 30, 2025**: This version is a pure refactoring release."
    assert release.heading_path[-1] == "9.6.10 March 30, 2025"


MKDOCS = """# Getting started

## Installation

=== "Latest"

    ``` sh
    pip install mkdocs-material
    ```

=== ":octicons-file-code-16: `9.x`"

    ``` sh
    pip install mkdocs-material=="9.*"
    ```

!!! info "The `site_url` setting must be set"

    Note that you must set `site_url` when using instant navigation. Example:

    ``` yaml
    site_url: https://example.com
    ```

    ??? tip "Nested"

        A collapsible block inside an admonition is prose as well.

    Indented code stays code outside such a block:

        plain indented code
"""


def test_mkdocs_admonitions_and_content_tabs_are_markdown_not_code() -> None:
    """MkDocs (Python-Markdown) indents what belongs to `!!! note`, `??? tip` and `=== "Tab"` by four spaces: it is
    prose and fences, not an indented code block with ``` lines in it. A tab's label introduces its command."""
    us = units(MKDOCS)
    latest = by_text(us, "pip install mkdocs-material\n")
    assert (latest.text, latest.code) == ("Latest", "``` sh\npip install mkdocs-material\n```")
    assert by_text(us, '=="9.*"').text == "`9.x`"
    note = by_text(us, "Note that you must set")
    assert note.text == "Note that you must set `site_url` when using instant navigation. Example:"
    assert note.code == "``` yaml\nsite_url: https://example.com\n```"
    assert by_text(us, "collapsible").kind == "paragraph" and not by_text(us, "collapsible").code
    assert not any("!!!" in u.text or "???" in u.text or "===" in u.text for u in us)


_WORD = re.compile(r"[A-Za-z0-9]+|[\u4e00-\u9fff]")


def _in_order(shown: list[str], source: list[str]) -> bool:
    rest = iter(source)
    return all(w in rest for w in shown)


def test_every_unit_shows_the_words_of_its_lines_in_order() -> None:
    """What an answer prints is the file's text: every word a unit shows (its prose, its code, a table
    row's cells) stands in its cited lines, in the same order — markup may go, words may not change.
    Over every page of sample_kb and the fixtures above."""
    root = Path(__file__).resolve().parents[2] / "sample_kb"
    pages = {f.relative_to(root).as_posix(): f.read_text(encoding="utf-8") for f in sorted(root.rglob("*.md"))}
    pages |= {"tldr.md": TLDR, "runbook.md": RUNBOOK, "mdbook.md": MDBOOK, "math.md": MATH, "docusaurus.md": DOCUSAURUS}
    checked = 0
    for path, text in pages.items():
        lines = split_lines(text)
        for u in build_units(path, lines):
            shown = u.text if u.kind != "row" else " ".join(c.split(": ", 1)[-1] for c in u.text.split(" · "))
            code = "\n".join(ln for ln in u.code.split("\n") if not ln.lstrip().startswith(("```", "~~~")))
            source = "\n".join(lines[u.start_line - 1 : u.end_line])
            assert _in_order(_WORD.findall(f"{shown} {code}"), _WORD.findall(source)), f"{path}:{u.start_line}: {shown!r}"
            checked += 1
    assert checked > 300


def test_a_byte_order_mark_does_not_hide_the_title(tmp_path: Path) -> None:
    """A file an editor on Windows saved with a byte-order mark: its title is a heading as the index reads it,
    not a paragraph printing `\\ufeff# Deploy`."""
    from kb_agent.agent.units import UnitCache

    (tmp_path / "deploy.md").write_bytes("\ufeff# Deploy\n\nRun the deploy job:\n\n```bash\nmake deploy\n```\n".encode())
    units = UnitCache(tmp_path).file_units("deploy.md")
    assert units, "no units"
    assert all("\ufeff" not in u.text + u.code and not u.text.startswith("#") for u in units), [u.text for u in units]
    assert units[0].heading_path == ("Deploy",)
    assert units[0].start_line == 3


def test_a_pipe_standing_where_a_file_was_is_never_opened(tmp_path: Path) -> None:
    """An indexed file replaced by a named pipe: its units are none, at once (opening it would wait for a writer)."""
    import os
    import threading

    from kb_agent.agent.units import UnitCache

    fifo = tmp_path / "x.md"
    os.mkfifo(fifo)
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(UnitCache(tmp_path).file_units("x.md")), daemon=True)
    reader.start()
    reader.join(timeout=10)
    try:
        assert not reader.is_alive(), "building the units of a named pipe blocked"
        assert got == [[]]
    finally:
        if reader.is_alive():  # let the blocked open return so the thread ends
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            reader.join(timeout=5)


PINNED_FENCE = """# Compiled requirements

```requirements title="requirements-dev.txt"
annotated-types==0.7.0
    # via pydantic
anyio==4.8.0
    # via
    #   -c requirements.txt
    #   starlette
fastapi==0.115.11
    # via -r requirements.in
idna==3.10
    # via anyio
iniconfig==2.0.0
    # via pytest
packaging==24.2
```
"""


def test_a_comment_indented_under_a_line_annotates_it_and_starts_no_entry() -> None:
    units = build_units("req.md", split_lines(PINNED_FENCE))
    codes = [(u.start_line, u.end_line) for u in units if u.kind == "code"]
    # one entry (shown in pieces of MAX_CODE_LINES lines), never "# via … / anyio==4.8.0" pieces that split a pin from its note
    assert codes == [(3, 15), (16, 16)], codes


DEFAULTS_FENCE = "# Configuration\n\nThe **global default parameters** are:\n\n```text\n" + "".join(
    f"setting_{k:02d} = '{k}MB'\n" for k in range(1, 23)) + "```\n"


def test_every_line_of_a_long_fence_is_in_a_unit() -> None:
    """A run of 22 settings with no blank line is longer than a unit may show (MAX_CODE_LINES): the top is the unit
    under the sentence that introduces it, the rest a unit of its own (the 19th setting was in none)."""
    units = build_units("conf.md", split_lines(DEFAULTS_FENCE))
    assert [(u.kind, u.start_line, u.end_line) for u in units] == [("paragraph", 3, 17), ("code", 18, 27)]
    assert units[0].text == "The **global default parameters** are:"
    assert units[1].code == "```text\n" + "".join(f"setting_{k:02d} = '{k}MB'\n" for k in range(13, 23)) + "```"
    shown = "".join(u.code for u in units)
    assert all(f"setting_{k:02d} = '{k}MB'" in shown for k in range(1, 23))


HTML_PRE = """# Static files

If you don't have an index file but you want to display a file listing, use the `--browse` option:

<pre><code class="cmd bash">caddy file-server --browse</code></pre>

### `caddy fmt`

<pre><code class="cmd bash">caddy fmt [&lt;path&gt;]
	[-w, --overwrite]</code></pre>

<div class="note">Not code.</div>
"""


def test_an_html_pre_block_is_code_under_the_sentence_that_introduces_it() -> None:
    units = build_units("static.md", split_lines(HTML_PRE))
    intro = next(u for u in units if u.text.startswith("If you don't have an index file"))
    assert (intro.start_line, intro.end_line) == (3, 5)
    assert intro.code == "```\ncaddy file-server --browse\n```", "the command the page shows goes with its description"
    alone = next(u for u in units if u.start_line == 9)
    assert alone.kind == "code" and alone.code == "```\ncaddy fmt [<path>]\n\t[-w, --overwrite]\n```", "shown as rendered: tags dropped, references decoded"
    assert not any("Not code" in u.code for u in units), "other HTML blocks are no code"
    for u in units:
        assert u.quote == "\n".join(split_lines(HTML_PRE)[u.start_line - 1 : u.end_line]).strip()


CONFIG_REFERENCE = """# 构建选项

## build.chunkSizeWarningLimit {#build-chunksizewarninglimit}

- **类型：** `number`
- **默认值：** `500`

规定触发警告的 chunk 大小（以 kB 为单位）。

## hoist

* Default: **true**
* Type: **boolean**

When `true`, all dependencies are hoisted.

## Install

- Run the installer.
- Then restart.

Done.
"""


def test_a_reference_entrys_field_bullets_go_with_the_description_under_them() -> None:
    """`- **默认值：** `500`` over "规定触发警告的 chunk 大小": the value is quoted with what it is the value of."""
    lines = split_lines(CONFIG_REFERENCE)
    units = build_units("config.md", lines)
    limit = next(u for u in units if "chunk 大小" in u.text)
    assert (limit.start_line, limit.end_line) == (3, 8)
    assert "**默认值：** `500`" in limit.text and limit.text.startswith("**build.chunkSizeWarningLimit**:"), limit.text
    hoist = next(u for u in units if "hoisted" in u.text)
    assert (hoist.start_line, hoist.end_line) == (10, 15) and "Default: **true**" in hoist.text
    assert not any(u.kind == "item" and "500" in u.text for u in units), "the value is no unit of its own"
    # a list of steps is no field list: its items stay units
    assert [u.text for u in units if u.kind == "item"] == ["Run the installer.", "Then restart."]
    for u in units:
        assert u.quote == "\n".join(lines[u.start_line - 1 : u.end_line]).strip()


MANPAGE = """# Environment

`HOMEBREW_API_AUTO_UPDATE_SECS`

: Check Homebrew's API for new formulae or cask data every
  `$HOMEBREW_API_AUTO_UPDATE_SECS` seconds.
  
  *Default:* `450`.

Run the update:

```sh
brew update
```

*Default:* `never`.
"""


def test_a_field_line_under_a_description_is_its_value() -> None:
    """"*Default:* `450`." alone says nothing of what it is the default of: it goes with the description above it.
    Under a code block it stays a unit of its own (a unit's words are shown in the file's order)."""
    lines = split_lines(MANPAGE)
    units = build_units("manpage.md", lines)
    entry = next(u for u in units if "cask data" in u.text)
    assert (entry.start_line, entry.end_line) == (3, 8) and entry.text.endswith("*Default:* `450`."), entry.text
    assert not any(u.text.startswith("*Default:* `450`") for u in units)
    assert any(u.text == "*Default:* `never`." and u.start_line == 16 for u in units)
    for u in units:
        assert u.quote == "\n".join(lines[u.start_line - 1 : u.end_line]).strip()


DOCUSAURUS_TABS = """# Install

## Start

<Tabs>
  <TabItem value="compose" label="Docker compose" default>

Run it with compose:

```bash
docker compose up
```

The default port is `9080`.

  </TabItem>
  <TabItem value="binary" label="Binary">

Download the binary and run `answer run`.

  </TabItem>
</Tabs>

## Next

The end.
"""


def test_what_a_tab_holds_is_under_its_label() -> None:
    """A Docusaurus `<TabItem label="Docker compose">` heads what it holds as a heading would: "which port after docker
    compose up?" is about the line in that tab, which never writes "compose" itself."""
    units = build_units("install.md", split_lines(DOCUSAURUS_TABS))
    port = next(u for u in units if "9080" in u.text)
    assert port.heading_path == ("Install", "Start", "Docker compose"), port.heading_path
    assert next(u for u in units if "answer run" in u.text).heading_path == ("Install", "Start", "Binary")
    assert next(u for u in units if u.text.endswith("The end.")).heading_path == ("Install", "Next")


MKDOCS_TABS = """# Firewall

## Install

=== "RedHat / CentOS"

    **1. Update the packages**

    ```bash
    sudo yum update
    ```

    **2. Open the panel's port**

    ```bash
    sudo firewall-cmd --zone=public --add-port=8090/tcp --permanent
    ```

=== "Ubuntu / Debian"

    **1. Open the panel's port**

    ```bash
    sudo ufw allow 8090/tcp
    ```

The end.
"""


def test_what_a_content_tab_holds_is_under_its_label() -> None:
    """An MkDocs content tab (`=== "RedHat / CentOS"` over the lines indented under it) heads all of them, not only its
    first paragraph: "what command opens the port on CentOS?" is about the `firewall-cmd` step, which never writes
    "CentOS" itself."""
    units = build_units("firewall.md", split_lines(MKDOCS_TABS))
    port = next(u for u in units if "firewall-cmd" in u.code)
    assert port.heading_path == ("Firewall", "Install", "RedHat / CentOS"), port.heading_path
    assert next(u for u in units if "ufw" in u.code).heading_path == ("Firewall", "Install", "Ubuntu / Debian")
    assert next(u for u in units if u.text == "The end.").heading_path == ("Firewall", "Install")


VUEPRESS_TABS = """# Install

## Custom path

The default path is `/opt/app`. To install elsewhere, give the path as the second argument, e.g. `/root`:

:::tabs

@tab Stable
```bash
curl -fsSL "https://example.org/v3.sh" | bash -s install /root
```

@tab:active Beta
```bash
curl -fsSL "https://example.org/beta.sh" | bash -s install /root
```

:::

The end.
"""


def test_a_vuepress_tab_marker_sits_between_a_sentence_and_its_fence() -> None:
    """VuePress's tabs (`:::tabs`, `@tab Stable` over each tab's fence): the sentence that introduces the command and the
    first tab's fence are one unit, as without the markers (session 25: AList's "自定义安装路径 … 如 安装到 `/root`：" was
    quoted without `bash -s install /root`, which stood under "@tab 正式版"); each tab's fence is under its label."""
    units = build_units("install.md", split_lines(VUEPRESS_TABS))
    first = next(u for u in units if "v3.sh" in u.code)
    assert first.text.startswith("The default path is") and first.start_line == 5, first
    beta = next(u for u in units if "beta.sh" in u.code)
    assert beta.heading_path == ("Install", "Custom path", "Beta") and "@tab" not in beta.text, beta
    assert not any("@tab" in u.text for u in units)
    assert next(u for u in units if u.text == "The end.").heading_path == ("Install", "Custom path")


def test_a_long_paragraph_is_not_cut_at_an_abbreviation_or_inside_parentheses() -> None:
    """lazygit's Config.md: "… on Linux and Windows (e.g. word-wise cursor movement … `ctrl` elsewhere). Lazygit picks …"
    was quoted from "word-wise cursor movement" on, its opening and its closing parenthesis in another unit: a full
    stop after "e.g." ends no sentence, nor does one inside an open parenthesis. "etc." before a capital does."""
    para = ("A few keybindings have different defaults on macOS than on Linux and Windows (e.g. word-wise cursor movement "
            "in text inputs uses `alt` on macOS but `ctrl` elsewhere). Lazygit picks these based on the OS it's running on, "
            "but you can override that with the `LAZYGIT_KEYBINDING_PLATFORM` environment variable. Set it to `darwin`, "
            "`linux`, or `windows`, i.e. one of the three names. Tabs, spaces, etc. Then the rest follows.")
    got = [u.text for u in units(f"# Keys\n\n{para}\n")]
    assert got == [
        "A few keybindings have different defaults on macOS than on Linux and Windows (e.g. word-wise cursor movement "
        "in text inputs uses `alt` on macOS but `ctrl` elsewhere).",
        "Lazygit picks these based on the OS it's running on, but you can override that with the "
        "`LAZYGIT_KEYBINDING_PLATFORM` environment variable.",
        "Set it to `darwin`, `linux`, or `windows`, i.e. one of the three names.",
        "Tabs, spaces, etc.",
        "Then the rest follows.",
    ], got


def test_a_long_paragraph_is_not_cut_inside_a_code_span() -> None:
    """The postgres image's README: "… you will encounter `ERROR:  could not resize shared memory segment . . . : No
    space left on device`. You will want to pass …" was quoted up to the first ". " inside the code span (session 30)."""
    para = ("Also note that the default `/dev/shm` size for containers is 64MB. If the shared memory is exhausted you will "
            "encounter `ERROR:  could not resize shared memory segment . . . : No space left on device`. You will want to "
            "pass `--shm-size=256MB` for example to `docker run`, or alternatively set it in the compose file next to the "
            "service definition, which keeps the value with the rest of the configuration for everyone.")
    got = [u.text for u in units(f"# Caveats\n\n{para}\n")]
    assert got == [
        "Also note that the default `/dev/shm` size for containers is 64MB.",
        "If the shared memory is exhausted you will encounter `ERROR:  could not resize shared memory segment . . . : No "
        "space left on device`.",
        "You will want to pass `--shm-size=256MB` for example to `docker run`, or alternatively set it in the compose file "
        "next to the service definition, which keeps the value with the rest of the configuration for everyone.",
    ], got


def test_an_option_listing_in_a_fence_is_one_unit_per_option() -> None:
    """A command's `--help` text pasted in a fence (yt-dlp's README): each option with its description's wrapped lines
    is a unit, so "what does --lazy-playlist do" is answered by its own lines, not the twelve around them (session 27).
    A fence with fewer option lines is cut as before."""
    opts = "\n".join(f"    --opt-{k:02d}                 Does thing {k} to the\n                                  playlist entries" for k in range(1, 9))
    page = f"# Usage\n\n## General Options:\n\n```\n    -h, --help                      Print this help text and exit\n{opts}\n```\n"
    us = [u for u in units(page) if u.code]
    assert len(us) == 9, [u.code for u in us]
    lazy = by_text(us, "--opt-05")
    assert lazy.code == "```\n    --opt-05                 Does thing 5 to the\n                                  playlist entries\n```"
    assert (lazy.start_line, lazy.end_line) == (15, 16)
    short = "# Usage\n\n```\n  -h, --help    Print help\n  -v            Verbose\n```\n"
    assert len([u for u in units(short) if u.code]) == 1
    diff = "# Change\n\n```diff\n" + "\n".join(f"-old line {k}\n+new line {k}" for k in range(8)) + "\n```\n"
    assert len([u for u in units(diff) if u.code]) == 2, "a diff's removed lines are no options: cut as before"


def test_a_front_matter_description_is_the_pages_definition() -> None:
    """Hugo's function pages say what the function does only in front matter (`title: hugo.IsServer` / `description:
    Reports whether …`): that is a unit labelled with the title, citing those two lines (session 27). The other keys are
    never units, nor is front matter without a description (an ADR's `title` / `tags` / `owner`)."""
    page = "---\ntitle: hugo.IsServer\ndescription: Reports whether the built-in development server is running.\n" \
           "categories: []\nparams:\n  signatures: [hugo.IsServer]\n---\n\n```go-html-template\n{{ hugo.IsServer }} → true/false\n```\n"
    us = units(page)
    assert (us[0].kind, us[0].start_line, us[0].end_line) == ("definition", 2, 3)
    assert us[0].text == "**hugo.IsServer**: Reports whether the built-in development server is running."
    assert not any("categories" in u.text + u.code or "signatures" in u.text + u.code for u in us)
    toml = '+++\ntitle = "Deploy"\nweight = 3\ndescription = "Deploy your site to a cloud bucket."\n+++\n\nRun it.\n'
    assert units(toml)[0].text == "**Deploy**: Deploy your site to a cloud bucket."
    assert not any(u.start_line < 8 for u in units(RUNBOOK)), "an ADR's front matter has no description"
    folded = "---\ntitle: Deploy\ndescription: >-\n  Deploy your site\n  to a bucket.\n---\n\nRun it.\n"
    assert all(u.start_line > 6 for u in units(folded)), "the cited line must show the words printed"
