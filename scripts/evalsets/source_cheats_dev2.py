"""Source of cheats_dev2.jsonl: extra *development* (tuning) questions over the cheat-sheet corpus
(/work/evaldata/cheats: git-tips/docs/, linux-command/command/, art-of-command-line/README.md + README-zh.md;
sources and commits in README.md). Every row is split "dev".

    python scripts/evalsets/source_cheats_dev2.py [--corpus /work/evaldata/cheats]
    python scripts/evalsets/check_sets.py cheats_dev2.jsonl --corpus /work/evaldata/cheats

45 questions (23 en, 22 zh; 35 answerable, 10 unanswerable), written by a helper from the files only: kb was not
run on any of them. The facts differ from cheats.jsonl (no question there asks the same command or value; a few
gold lines recur only as alternative gold, e.g. find.md's `-delete`). Cross-language by design: English questions
over the Chinese linux-command pages (must_contain is then the command or a Latin token of the gold line),
Chinese questions over the English git-tips pages; ten Chinese questions contain no Latin letters at all.
Where the art-of-command-line answer is written in both README.md and README-zh.md, both are gold.

must_contain was written from the gold lines, before kb was run on any question. Comparisons: gold[i] is side i,
must_contain[i] a phrase of that side (ssh -L/-R accepts the page's syntax or its Chinese heading; rsync's
trailing slash: `destination/source` vs `rsync -a source/ destination`). Loose items, kept on purpose: `20` (wget
retries), `1024` (ulimit's open files, from the page's `ulimit -a` example), `ACL`, `bzip2` / `xz`; `-delete`
accepts find's answer to "Argument list too long".

Unanswerable rows: plausible and near-topic, checked absent with a case-insensitive `grep -ril` over
/work/evaldata/cheats (no hits unless noted):
  - recovering a dropped stash: `fsck`, `dangling` (stashing.md only shows `git stash drop`; reflog tips are
    about HEAD);
  - cron at boot: `@reboot` (crontab.md only enables crond itself at boot, systemctl.md enables services);
  - capping a process's CPU share: `cpulimit`, `cgroup` (nice.md sets priority, ulimit -t limits CPU seconds);
  - a permanent static IP with netplan: `netplan`, `ifcfg`, `BOOTPROTO` (ip.md's `ip addr add` is runtime only);
  - listing systemd timers: `list-timers`, `OnCalendar` (`timer` only hits netstat.md's `--timers`);
  - git sparse checkout of one subdirectory: `sparse-checkout` (`sparse` hits only tar/rsync sparse files);
  - removing a git submodule: `deinit`, `删除子模块` (submodules page only updates/adds);
  - ssh through a jump host: `ProxyJump`, `ProxyCommand` (ssh.md names 跳板机 only as an access-control idea);
  - logrotate configuration: `/etc/logrotate`, `logrotate.d` (the art-of-command-line lists `logrotate` in one line);
  - adding a swap file: `swapon`, `mkswap`, `swapfile`, `交换文件` (free.md / top.md only explain swap usage).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402
from source_cheats import AE, AZ, DEFAULT_CORPUS, GT, HERE, LC  # noqa: E402 - the same corpus and folders

Q: list[tuple] = [
    # ================= English =================
    # ---------------- how do I: git-tips ----------------
    ("en", "conceptual", "howto", "git: jump back to the branch I was on a minute ago",
     [(GT + "basic-operations.md", "## Quickly switch to the previous branch", "git checkout @{-1}")],
     [["git checkout -", "git checkout @{-1}"]]),
    ("en", "conceptual", "howto", "I forgot to include a file in my last commit. How do I add it without retyping the message?",
     [(GT + "basic-operations.md", "## Modify previous commit without modifying the commit message",
       "git add --all && git commit --amend --no-edit")],
     ["git commit --amend --no-edit"]),
    ("en", "conceptual", "howto", "A merge I already pushed broke the build. How do I back it out without rewriting history?",
     [(GT + "undoing-changes.md", "## Revert: Reverting an entire merge", "git revert -m 1 <commit-ish>")],
     ["git revert -m 1"]),
    ("en", "conceptual", "howto", "git status lists files as modified but all I did was chmod them",
     [(GT + "setup-and-config.md", "## Ignore file mode changes on commits", "git config core.fileMode false")],
     ["core.fileMode false"]),
    # ---------------- how do I: linux-command (Chinese pages, asked in English) ----------------
    ("en", "conceptual", "howto", "untar an archive without the top-level folder it wraps everything in",
     [(LC + "tar.md", "**解压目录**", "portal-web-v2.0.0.tar --strip-components 1")],
     ["--strip-components"]),
    ("en", "conceptual", "howto", "How can I see what rsync would copy or delete before actually running it?",
     [(LC + "rsync.md", "**模拟执行的结果**", "`-n` 参数模拟命令执行的结果")],
     [["rsync -anv", "--dry-run"]]),
    ("en", "conceptual", "howto", "turn an epoch timestamp like 1234567890 into a normal date",
     [(LC + "date.md", "# 传说中的 1234567890 秒", "2009-02-13 23:02:30")],
     [["date -d@1234567890", "1970-01-01 1234567890 seconds"]]),
    ("en", "conceptual", "howto", "rm *.log fails with 'Argument list too long'. How do I delete them all?",
     [(LC + "xargs.md", "用 rm 删除太多的文件时候", "xargs -0 将"),
      (LC + "find.md", "删除当前目录下所有.txt文件", 'find . -type f -name "*.txt" -delete')],
     [["xargs -0 rm", "-delete"]]),
    ("en", "conceptual", "howto", "what's my server's public IP? need it from the terminal",
     [(LC + "curl.md", "#### **获取本机外网 IP**", "curl ipecho.net/plain")],
     ["ipecho.net/plain"]),
    # ---------------- how do I: The Art of Command Line (README.md, twin in README-zh.md) ----------------
    ("en", "conceptual", "howto", "How do I get a thread dump out of a running Java process?",
     [(AE, "- Java system debugging is a different kettle of fish"), (AZ, "- Java 系统调试则是一件截然不同的事")],
     ["kill -3"]),
    ("en", "conceptual", "howto", "Back up the permissions of a whole directory tree so I can put them back later",
     [(AE, "- Use `getfacl` and `setfacl` to save and restore file permissions", "setfacl --restore=permissions.txt"),
      (AZ, "- 使用 `getfacl` 和 `setfacl` 以保存和恢复文件权限", "setfacl --restore=permissions.txt")],
     ["getfacl -R", "setfacl --restore"]),
    # ---------------- lookups ----------------
    ("en", "exact", "lookup", "How many times does wget retry a failed download by default?",
     [(LC + "wget.md", "**增加重试次数**", "wget默认重试20次")], ["20"]),
    ("en", "exact", "lookup", "Which config file sets the port sshd listens on?",
     [(LC + "ssh.md", "端口号可以在配置文件 /etc/ssh/sshd_config")], ["/etc/ssh/sshd_config"]),
    ("en", "exact", "lookup", "Where on disk are users' crontab files kept?",
     [(LC + "crontab.md", "/var/spool/cron/   所有用户crontab文件存放的目录")], ["/var/spool/cron"]),
    # ---------------- comparisons (gold[i] is side i) ----------------
    ("en", "conceptual", "comparison", "What's the difference between git clean -f and git clean -X -f?",
     [(GT + "undoing-changes.md", "## Forcefully remove untracked files", "git clean -f"),
      (GT + "undoing-changes.md", "## Clean the files from `.gitignore`.", "git clean -X -f")],
     ["untracked", ".gitignore"]),
    ("en", "conceptual", "comparison", "ssh -L vs ssh -R port forwarding: which way does each one go?",
     [(LC + "ssh.md", "在本地端口转发到远程服务器", "ssh -L local_port:remote_host:remote_port"),
      (LC + "ssh.md", "在远程服务器端口转发到本地", "ssh -R remote_port:local_host:local_port")],
     [["local_port:remote_host:remote_port", "本地端口转发到远程服务器"],
      ["remote_port:local_host:local_port", "远程服务器端口转发到本地"]]),
    ("en", "conceptual", "comparison", "rsync: does a trailing slash on the source directory change anything?",
     [(LC + "rsync.md", "$ rsync -a source destination", "即形成了 `destination/source` 的目录结构"),
      (LC + "rsync.md", "$ rsync -a source/ destination", "并不会在 `destination` 下面创建一个 `source` 子目录")],
     ["destination/source", "rsync -a source/ destination"]),
    # ---------------- explain ----------------
    ("en", "conceptual", "explain", "free shows almost no free memory but a big 'cached' number. Is my RAM really used up?",
     [(AE, "- To know memory status, run and understand the output of `free`"),
      (AZ, "- 若要了解内存状态，运行并理解 `free` 和 `vmstat` 的输出")],
     [["file cache", "文件缓存"]]),
    # ---------------- unanswerable (plausible, near-topic; grep checks in the docstring) ----------------
    ("en", "conceptual", "unanswerable", "I ran git stash drop by mistake. How do I get that stash back?", [], []),
    ("en", "conceptual", "unanswerable", "How do I make a cron job run once every time the machine boots?", [], []),
    ("en", "conceptual", "unanswerable", "How can I cap a process at 50% of one CPU?", [], []),
    ("en", "conceptual", "unanswerable", "How do I give an Ubuntu server a permanent static IP with netplan?", [], []),
    ("en", "conceptual", "unanswerable", "How do I list the systemd timers that are scheduled to run?", [], []),
    # ================= Chinese =================
    # ---------------- 怎么做：linux-command ----------------
    ("zh", "conceptual", "howto", "怎么看哪个进程占用了 8080 端口？",
     [(LC + "lsof.md", "获取端口对应的进程ID", "lsof -i:9981 -P -t -sTCP:LISTEN"),
      (LC + "lsof.md", "查看端口占用", "lsof -i:$port"),
      (LC + "lsof.md", "**查看指定端口相关的进程：**", "lsof -i :<port>"),
      (LC + "ss.md", "ss -lp | grep 3306"),
      (LC + "ss.md", "**找出打开套接字/端口应用程序**", "ss -pl | grep 3306"),
      (LC + "netstat.md", "找出运行在指定端口的进程", "netstat -anp|grep 8081")],
     [["lsof -i", "ss -lp", "ss -pl", "netstat -an"]]),
    ("zh", "conceptual", "howto", "不解压，怎么先看看 tar.gz 包里都有哪些文件？",
     [(LC + "tar.md", "**查阅上述tar包内有哪些文件**", "所以要查阅log.tar.gz包内的文件时"),
      (LC + "tar.md", "tar -tvf archive.tar         # 详细列举"),
      (LC + "tar.md", "tar -tf all.tar", "-t是列出文件的意思")],
     [["tar -ztvf", "tar -tvf", "tar -tf"]]),
    ("zh", "conceptual", "howto", "大文件下载到一半断了，怎么接着下，而不是从头再来？",
     [(LC + "wget.md", "**使用wget断点续传**", "重新启动下载中断的文件"),
      (LC + "curl.md", "#### **断点续传**", "curl -C -URL")],
     [["wget -c", "-C -"]]),
    ("zh", "conceptual", "howto", "下载大文件的时候怎么限速，别把带宽全占了？",
     [(LC + "curl.md", "#### **curl的带宽控制和下载配额**", "curl URL --limit-rate 50k"),
      (LC + "wget.md", "**wget限速下载**", "它默认会占用全部可能的宽带下载")],
     ["--limit-rate"]),
    ("zh", "conceptual", "howto", "怎么设置默认网关？",
     [(LC + "ip.md", "ip route add default via 192.168.1.254", "ip route add default via  192.168.0.254  dev eth0"),
      (LC + "route.md", "**删除和添加设置默认网关：**", "route add default gw 192.168.120.240")],
     [["ip route add default via", "route add default gw"]]),
    ("zh", "conceptual", "howto", "想给进程发个信号测一下它还在不在，但不能真把它杀掉，怎么做？",
     [(LC + "killall.md", "# 0信号表示不向进程发送信号", "echo $?")],
     ["killall -0"]),
    ("zh", "conceptual", "howto", "想让某个用户用 sudo 时不再输入密码，怎么配置？",
     [(LC + "sudo.md", "每次使用sudo还要输入密码就显得烦琐了", "foobar localhost=NOPASSWD:")],
     ["NOPASSWD"]),
    # ---------------- 怎么做：git-tips（英文页面，用中文提问） ----------------
    ("zh", "conceptual", "howto", "哪些提交还没推送到远程？",
     [(GT + "log-and-history.md", "## List unpushed git commits", "git cherry -v")],
     [["git log --branches --not --remotes", "git log @{u}..", "git cherry -v"]]),
    ("zh", "conceptual", "howto", "远程仓库上有个标签打错了，怎么把它删掉？",
     [(GT + "basic-operations.md", "## Delete remote tag", "git push origin :refs/tags/<tag-name>")],
     ["git push origin :refs/tags/"]),
    # ---------------- 怎么做：命令行的艺术（README-zh.md，英文原文为孪生页） ----------------
    ("zh", "conceptual", "howto", "一条命令把配置文件复制一份加上 .bak 后缀，不想把文件名敲两遍",
     [(AZ, "- 使用括号扩展（`{`...`}`）"), (AE, "- Brace expansion using `{`...`}`")],
     ["{,.bak}"]),
    ("zh", "conceptual", "howto", "怎么查看当前系统是哪个发行版？",
     [(AZ, "- 查看你当前使用的系统，使用 `uname`"), (AE, "- Check what OS you're on with `uname`")],
     ["lsb_release -a"]),
    # ---------------- 查值 ----------------
    ("zh", "exact", "lookup", "单个进程最多能同时打开多少个文件？",
     [(LC + "ulimit.md", "一个任务最多可以同时打开1024的文件")], ["1024"]),
    ("zh", "exact", "lookup", "关掉终端以后，敲过的命令历史存在哪个文件里？",
     [(LC + "history.md", "关闭终端后，历史列表将被写入历史文件"),
      (LC + "history.md", "默认调用顺序为`filename`、环境变量`HISTFILE`")],
     ["~/.bash_history"]),
    # ---------------- 比较 ----------------
    ("zh", "conceptual", "comparison", "tar 参数里小写 j 和大写 J 有什么区别？",
     [(LC + "tar.md", "打包并压缩： tar -jcvf", "注：小写j代表用bzip2算法来压缩/解压。"),
      (LC + "tar.md", "打包并压缩： tar -Jcvf", "注：大写J代表用xz算法来压缩/解压。")],
     ["bzip2", "xz"]),
    ("zh", "conceptual", "comparison", "sudo -i 和 sudo -s 切到 root 有什么不一样？",
     [(LC + "sudo.md", "$ sudo -i", "这个命令基本与 `sudo su -` 相同"),
      (LC + "sudo.md", "$ sudo -s", "不会加载/etc/profile等系统配置")],
     ["sudo su -", "/etc/profile"]),
    # ---------------- 解释 ----------------
    ("zh", "conceptual", "explain", "umask 和 chmod 有什么区别？",
     [(LC + "umask.md", "`chmod`用于更改已有对象的权限，`umask`影响之后新建对象的权限")],
     ["已有对象", "新建对象"]),
    ("zh", "conceptual", "explain", "ls -l 看到权限后面多了个加号是什么意思？",
     [(LC + "setfacl.md", "-rw-rw-r--+ 1 root admin 0 Jul 3 22:06 ./test.txt", "这个+号就是用来提示我们的")],
     ["ACL"]),
    # ---------------- 无答案（语料未覆盖；grep 检查见文件开头） ----------------
    ("zh", "conceptual", "unanswerable", "git 能不能只检出仓库里的某一个子目录？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么彻底删除一个 git 子模块？", [], []),
    ("zh", "conceptual", "unanswerable", "ssh 怎么通过跳板机一步登录到内网机器？", [], []),
    ("zh", "conceptual", "unanswerable", "logrotate 怎么配置按天切割并压缩 nginx 日志？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么给服务器加一个交换文件？", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "chd", Q, HERE / "cheats_dev2.jsonl", only_split="dev")  # all tuning questions


if __name__ == "__main__":
    raise SystemExit(main())
