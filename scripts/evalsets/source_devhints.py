"""Source of devhints.jsonl: held-out answer questions over the devhints.io cheat sheets — every markdown file of
github.com/rstacruz/cheatsheets at commit f3c908448052c0a590707b2c15134d5507d42589 (2026-07-05), extracted to
/work/evaldata/devhints (359 .md files: 352 cheat sheets at the root plus _docs/, _includes/common/, tests/, wip/).
The pages are reference cheat sheets: YAML front matter, `### heading` then an indented block or a fence whose lines
end in `# comment`, shortcut tables (`| `C-b d` | Detach |`), kramdown attributes (`{: .-three-column}`).

    python scripts/evalsets/source_devhints.py [--corpus /work/evaldata/devhints]
    python scripts/evalsets/check_sets.py devhints.jsonl --corpus /work/evaldata/devhints

50 questions: 38 answerable (27 English, 11 Chinese asked by a Chinese reader of the English pages; six of the
Chinese ones have no Latin letters at all) and 12 unanswerable (8 English, 4 Chinese). Answerable kinds: 20 howto
(the answer is a command, key or code line), 9 comparison (one must_contain phrase per side, gold[i] is side i),
6 lookup, 3 explain; gold on 30 pages (plus rest-api.md as an alternative). Rows are split dev/test by _gold.split_of (seeded hash of the id, stratified by
lang and kind): the split does not depend on kb's output.

The questions, gold lines and must_contain were written by reading the corpus files only (cat/grep/sed), before kb
was run on any of them; about half are everyday paraphrases rather than the page's heading words. Every
must_contain item was copied from the gold lines (a list item = any of its forms; a few extra forms are plain
re-spellings of the gold wording — without backticks, `Ctrl-b d` for the page's `C-b d`, "1970 to 2038" for
`1970->2038`). Alternative gold ranges were added mechanically by grepping each
must_contain phrase over the corpus (rest-api.md's `422 Unprocessable entity`, git-branch.md's remote-branch
delete beside git-tricks.md's; other hits — `npm install --save-dev` in jest/webpack install lines — were not
answers to the question and were left out).

Unanswerable rows are near-topic (the tool has a page; the feature is not on it). Checked absent with
`grep -rilF` (case-insensitive, fixed strings) over /work/evaldata/devhints:
- git stash: "stash" only in tig.md (tig's stash-view keys A/P/!, not how to stash); "shelve": none.
- bash wait for background jobs: `grep -rliw wait` hits capybara, adb, go (WaitGroup), docker-compose
  (`docker compose wait`), do, mocha-blanket, backbone — nothing about the shell builtin.
- multi-stage Dockerfile: "multi-stage", "multistage", " AS build", "--from=": none.
- Makefile phony target: "phony": none.
- Go generics: "[T any]", "type param": none; "generic" only in flow, typescript, rbenv, stimulus-reflex.
- PostgreSQL dump/restore: "pg_dump", "pg_restore": none (mysql.md has mysqldump — the hard negative).
- curl timeout: "--max-time", "connect-timeout", "retry": none; "timeout" is on other pages only (httpie.md has
  `--timeout SECONDS` for httpie, docker-compose.md a healthcheck timeout) — hard negatives.
- npm publish: "npm publish", "--access", "registry" (only docker-compose image names and heroku): none;
  package-json.md names `prepublish` only.
- rsync over ssh on another port (zh): "ssh -p", "-e ssh", "--rsh", "port 22": none (scp.md's `-P connection port`
  is the hard negative).
- Vim macros (zh): "macro" only in jinja, elixir, mako, c_preprocessor, elixir-metaprogramming, shelljs, cask-index;
  "recording": none.
- docker compose memory/CPU limits (zh): "mem_limit", "mem_", "limits:" in compose: none; "cpus" only pm2.md;
  "deploy:" only makefile.md; "resources:" only rails-routes.md.
- tmux synchronized panes (zh): "synchroniz" only cask-index.md / pass.md, "sync-panes": none.
A question first drafted as unanswerable ("undo the last commit but keep the changes") was dropped: git-extras.md
lists `git undo  # undo the last local commit`, so the corpus half answers it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/evaldata/devhints")

Q: list[tuple] = [
    # ================= English: how do I (command / key / code line) =================
    ("en", "conceptual", "howto", "I left a tmux session named 'build' running on the server yesterday — how do I get back into it?",
     [("tmux.md", "$ tmux attach # Default session", "$ tmux attach -t session_name")],
     ["tmux attach -t"]),
    ("en", "conceptual", "howto", "My feature branch is merged. What do I run to delete it from origin as well, not just locally?",
     [("git-tricks.md", "# delete remote branch", "git push origin :$branchname"),
      ("git-branch.md", "### Delete remote branch", "Works for tags, too!")],
     [["git push origin :", "git push origin --delete"]]),
    ("en", "exact", "howto", "how can I make git GPG-sign every commit automatically instead of passing -S each time?",
     [("git-tricks.md", "### GPG signing", "git config set commit.gpgsign true")],
     ["commit.gpgsign true"]),
    ("en", "conceptual", "howto", "bash: I've got a file path in a variable, how do I get only its extension (the part after the last dot)?",
     [("bash.md", 'str="/path/to/foo.cpp"', 'echo "${str##*.}"')],
     ["##*."]),
    ("en", "conceptual", "howto", "A file edited on Windows has CRLF endings. What do I type in vim so it gets saved with plain LF newlines?",
     [("vim.md", "| `:set ff=unix` |")],
     [":set ff=unix"]),
    ("en", "conceptual", "howto", "I'm writing a commit message in vim and changed my mind — how do I quit so that git aborts the commit instead of committing?",
     [("vim.md", "### Exiting with an error", "Great for aborting Git commands.")],
     [":cq"]),
    ("en", "exact", "howto", "docker compose: my app container starts before postgres is ready. How do I make it wait until the db service reports healthy?",
     [("docker-compose.md", "# make sure `db` is healty before starting", "condition: service_completed_successfully")],
     ["condition: service_healthy"]),
    ("en", "conceptual", "howto", "Docker has eaten my disk. Which single command also removes every unused image, not only the dangling ones?",
     [("docker.md", "docker system prune -a", "not just dangling images")],
     ["docker system prune -a"]),
    ("en", "exact", "howto", "Using curl in a script, how do I print just the HTTP status code of a URL (to check the file exists) without downloading the body?",
     [("curl.md", "# Use Curl to Check if a remote resource is available", "%{http_code}")],
     ["%{http_code}"]),
    ("en", "conceptual", "howto", "When I grep a log for an error I also want to see the lines just above and below each hit. Which option does that?",
     [("grep.md", "### Context Options", "-C NUM, -NUM, --context=NUM"),
      ("grep.md", "# follow the tail of server.log", "tail -f server.log | grep -iC 5 error")],
     [["-C NUM", "--context=NUM", "-C 5", "-iC 5"]]),
    ("en", "exact", "howto", "How do I encrypt a file with gpg using only a passphrase — no keypair, no recipient?",
     [("gnupg.md", "### Symmetric encryption", "gpg -c secret.txt")],
     [["gpg --symmetric", "gpg -c"]]),
    ("en", "exact", "howto", "With ffmpeg, how do I take the video track from one file and the audio track from another and put them into one output?",
     [("ffmpeg.md", "### Stream selection", "`-map` syntax")],
     ["-map 0:v", "-map 1:a"]),
    ("en", "conceptual", "howto", "Go: main() returns before my goroutines are done. How do I block until all of them have finished?",
     [("go.md", "### WaitGroup", "wg.Wait()"),
      ("go.md", "A WaitGroup waits for a collection of goroutines to finish.")],
     ["sync.WaitGroup", "wg.Wait()"]),
    # ================= English: comparisons (gold[i] is side i) =================
    ("en", "relational", "comparison", "What do I press to detach and leave the session running — in tmux, and in GNU screen?",
     [("tmux.md", "### Detach/attach", "C-b d       # Detach"),
      ("screen.md", "| `ctrl+a ctrl+d`")],
     [["C-b d", "Ctrl-b d", "Ctrl+b d"], ["ctrl+a ctrl+d", "Ctrl-a Ctrl-d"]]),
    ("en", "relational", "comparison", "git won't let me delete a branch with -d but -D works. What's the actual difference between the two?",
     [("git-branch.md", "### Delete a local branch", "Deletes the branch only if the changes have been pushed"),
      ("git-branch.md", "### Delete branch forcefully", "> Delete a branch irrespective of its merged status.")],
     ["pushed and merged", ["regardless of its merge status", "irrespective of its merged status"]]),
    ("en", "relational", "comparison", "My sed -i find-and-replace works on Linux but breaks on my Mac. How does the in-place syntax differ between GNU sed and BSD/macOS sed?",
     [("sed.md", "#### In-place replacement (GNU)", "In GNU sed: use `-i` without arg."),
      ("sed.md", "#### In-place replacement (BSD)", "In OSX, `-i ''` is required.")],
     ["sed -i -e", "-i ''"]),
    ("en", "relational", "comparison", "How do I add a package as a devDependency with npm, and what's the equivalent yarn command?",
     [("npm.md", "| `npm install --save-dev lodash`"),
      ("yarn.md", "`yarn add gulp --dev --exact`"),
      ("yarn.md", "### yarn add", "These options are available for `yarn add`.")],
     ["npm install --save-dev", ["yarn add gulp --dev", "yarn add --dev"]]),
    ("en", "relational", "comparison", "Makefile variables: what's the difference between assigning with = and with :=?",
     [("makefile.md", "bar  = $(foo) foo  # dynamic"),
      ("makefile.md", 'foo := "boo"'),
      ("makefile.md", "`=` expressions are only evaluated")],
     [["dynamic (renewing) assignment", "only evaluated when"], "one time assignment"]),
    ("en", "relational", "comparison", "In a package.json version range, how far can ~1.2.3 go compared with ^1.2.3?",
     [("semver.md", "| `~1.2.3` |"),
      ("semver.md", "| `^1.2.3` |"),
      ("semver.md", '| `^` | means "compatible with" |', '| `~` | means "reasonably close to" |')],
     [">=1.2.3 <1.3.0", ">=1.2.3 <2.0.0"]),
    ("en", "relational", "comparison", "rsync ./src /dest versus rsync ./src/ /dest — what does the trailing slash on the source change?",
     [("rsync.md", "# syncing folder src into dest:", "rsync -avz ./src /dest"),
      ("rsync.md", "# syncing the content of src into dest:", "rsync -avz ./src/ /dest")],
     ["folder src into dest", "content of src into dest"]),
    # ================= English: lookups =================
    ("en", "exact", "lookup", "When I call GNU grep without -E or -P, which regex syntax is it using by default?",
     [("grep.md", "### Pattern options", "-P, --perl-regexp")],
     ["basic regular expression"]),
    ("en", "exact", "lookup", "Which bash special variable holds the PID of the last job I sent to the background with &?",
     [("bash.md", "| `$!`")],
     ["$!"]),
    ("en", "exact", "lookup", "If I don't set restart: for a service in docker-compose, what restart policy does it get by default?",
     [("docker-compose.md", "# automatically restart container", "# always, on-failure, no (default)")],
     [["no (default)", "default is no", "default is `no`"]]),
    ("en", "exact", "lookup", "What range of years can a MySQL TIMESTAMP column hold?",
     [("mysql.md", "DATETIME (AAAA-MM-JJ HH:MM", "TIMESTAMP (like DATETIME")],
     [["1970->2038", "1970 to 2038", "1970-2038", "1970–2038"]]),
    # ================= English: explain =================
    ("en", "conceptual", "explain", "My Dockerfile has ENTRYPOINT exec top -b, and any arguments I add to docker run are just ignored. Why?",
     [("dockerfile.md", "ENTRYPOINT exec top -b", "This will use shell processing")],
     ["shell processing", ["ignore any `CMD`", "ignore any CMD", "ignores any CMD", "ignores any `CMD`"]]),
    ("en", "conceptual", "explain", "find . -mtime +1w works on my Mac but not on our Ubuntu server — why?",
     [("find.md", "### Access time conditions", "These conditions only work in MacOS")],
     [["only work in MacOS and BSD-like systems", "no GNU/Linux support"]]),
    ("en", "conceptual", "explain", "Coming from C: does a Go switch case fall through into the next case, and how do I get fall-through when I want it?",
     [("go.md", "switch day {", "    fallthrough")],
     ["fallthrough"]),
    # ================= Chinese (asked of the English pages) =================
    ("zh", "conceptual", "howto", "定时任务想每隔十五分钟执行一次，时间表达式应该怎么写？",
     [("cron.md", "| `*/15 * * * *`"),
      ("cron.md", "| `/`      | divide a value into steps  |")],
     ["*/15 * * * *"]),
    ("zh", "conceptual", "howto", "在终端里看进程占用的时候，怎么让列表按内存使用量排序？",
     [("top.md", "| `Shift+m`")],
     ["Shift+m"]),
    ("zh", "exact", "howto", "正则表达式里怎么写一个只用来分组、但不捕获内容的括号？",
     [("regexp.md", "| `(?:abc)`")],
     ["(?:"]),
    ("zh", "relational", "comparison", "左外连接和全外连接查出来的结果有什么区别？",
     [("sql-join.md", "| Left outer join"),
      ("sql-join.md", "| Full outer join")],
     [["`A` + `∩`", "A + ∩"], ["`A` + `∩` + `B`", "A + ∩ + B"]]),
    ("zh", "exact", "lookup", "10.0.0.0/16 这个网段的最后一个地址是多少？",
     [("cidr.md", "| **10.0.0.0/16**")],
     ["10.0.255.255"]),
    ("zh", "exact", "lookup", "接口返回了状态码 422，这个状态码叫什么名字？",
     [("http-status.md", "| `422` | Unprocessable Entity"),
      ("rest-api.md", "| `422 Unprocessable entity`")],
     ["Unprocessable Entity"]),
    ("zh", "exact", "howto", "一个 tar.gz 包怎么解压到指定的目录，而不是当前目录？",
     [("tar.md", "# Extract file to a defined directory", "tar -xzf archive.tar.gz -C /target/directory")],
     [["-C /target/directory", "archive.tar.gz -C"]]),
    ("zh", "exact", "howto", "怎么把整个 MySQL 数据库导出成一个 .sql 文件做备份？",
     [("mysql.md", "### Backup Database to SQL File", "mysqldump -u Username")],
     ["mysqldump"]),
    ("zh", "relational", "comparison", 'Python 字典里取一个不存在的键，用 dict["key"] 和 dict.get("key") 分别会怎样？',
     [("python.md", 'dict["key"]      # if "key" not in dict raises KeyError'),
      ("python.md", 'dict.get("key")  # if "key" not in dict returns None')],
     ["KeyError", "None"]),
    ("zh", "exact", "howto", "发布新版本前，怎么用 npm 把补丁版本号加一（比如 1.2.3 变成 1.2.4）？",
     [("npm.md", "| `npm version patch`")],
     ["npm version patch"]),
    ("zh", "conceptual", "howto", "写 shell 脚本时，怎么把命令的标准输出和报错信息一起写进同一个日志文件？",
     [("bash.md", "python hello.py >output.txt 2>&1", "python hello.py &>/dev/null")],
     [["2>&1", "&>"]]),
    # ================= unanswerable (plausible, near-topic; the corpus does not answer) =================
    ("en", "conceptual", "unanswerable", "How do I temporarily shelve my uncommitted changes in git so I can switch branches, and bring them back later?", [], []),
    ("en", "conceptual", "unanswerable", "In a bash script, how do I start a few commands in the background and then block until every one of them has finished?", [], []),
    ("en", "conceptual", "unanswerable", "How do I write a multi-stage Dockerfile so the final image contains only the compiled binary, not the build toolchain?", [], []),
    ("en", "exact", "unanswerable", "How do I declare a Makefile target like clean as phony, so a file named clean in the directory doesn't stop it from running?", [], []),
    ("en", "conceptual", "unanswerable", "How do I write a generic function in Go with a type parameter, say a Map that works over a slice of any element type?", [], []),
    ("en", "exact", "unanswerable", "What's the command to dump a PostgreSQL database to a file and restore it on another server?", [], []),
    ("en", "exact", "unanswerable", "How do I make curl give up if the server hasn't answered within 10 seconds?", [], []),
    ("en", "exact", "unanswerable", "How do I publish a scoped package to the npm registry so that it's public?", [], []),
    ("zh", "exact", "unanswerable", "rsync 通过 ssh 同步时，远程服务器的 ssh 端口不是 22，要怎么指定端口？", [], []),
    ("zh", "conceptual", "unanswerable", "Vim 里怎么录制一个宏，然后在很多行上重复执行？", [], []),
    ("zh", "exact", "unanswerable", "docker compose 里怎么限制某个服务最多能用多少内存和 CPU？", [], []),
    ("zh", "conceptual", "unanswerable", "tmux 里怎么让所有窗格同时输入同一条命令？", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "dh", Q, HERE / "devhints.jsonl")  # held out: seeded dev/test split


if __name__ == "__main__":
    raise SystemExit(main())
