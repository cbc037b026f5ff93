"""Source of zhdocs.jsonl: questions over Chinese-native TiDB docs (pingcap/docs-cn br/, faq/, tiup/; see README.md).

    python scripts/evalsets/source_zhdocs.py [--corpus /work/evaldata/pingcap-docs-cn]
    python scripts/evalsets/check_sets.py zhdocs.jsonl

Three shapes in one Chinese-native corpus: long task guides and command manuals (br/: backup, log backup,
PITR), question-per-heading FAQ pages (faq/), and short reference pages, one per command (tiup/: `tiup cluster
scale-in` with 语法 / 选项 / 输出). Pages carry YAML front matter (title, summary, aliases). Most questions are
Chinese; some English questions are asked of the Chinese pages.

must_contain was written from the gold lines, before kb was run on any question.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _gold import cli  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = Path("/work/evaldata/pingcap-docs-cn")
SNAP_G, SNAP_M = "br/br-snapshot-guide.md", "br/br-snapshot-manual.md"
PITR_G, PITR_M = "br/br-pitr-guide.md", "br/br-pitr-manual.md"
BR_FAQ, MANAGE_FAQ, SQL_FAQ = "faq/backup-and-restore-faq.md", "faq/manage-cluster-faq.md", "faq/sql-faq.md"
DEPLOY_FAQ, MONITOR_FAQ = "faq/deploy-and-maintain-faq.md", "faq/monitor-faq.md"
CLUSTER, PLAYGROUND = "tiup/tiup-cluster.md", "tiup/tiup-playground.md"
SCALE_IN, CHECK = "tiup/tiup-component-cluster-scale-in.md", "tiup/tiup-component-cluster-check.md"

Q: list[tuple] = [
    # ================= 中文 =================
    # ---------------- 怎么做（答案是命令或代码） ----------------
    ("zh", "conceptual", "howto", "怎么对整个 TiDB 集群做一次快照备份？",
     [(SNAP_G, "使用 `tiup br backup full` 可以进行一次快照备份", "--storage \"s3://backup-101/snapshot-202209081330"),
      (SNAP_M, "## 备份集群快照", "--log-file backupfull.log")], ["tiup br backup full"]),
    ("zh", "conceptual", "howto", "只恢复备份里的某一个库，命令怎么写？",
     [(SNAP_G, "要将备份数据中的某个数据库恢复到集群中", "--storage \"s3://backup-101/snapshot-202209081330"),
      (SNAP_M, "### 恢复单个数据库的数据", "--log-file restore_db.log")], ["tiup br restore db"]),
    ("zh", "conceptual", "howto", "如何开启日志备份？",
     [(PITR_G, "执行 `tiup br log start` 命令启动日志备份任务", "--storage 's3://backup-101/logbackup"),
      (PITR_M, "tiup br log start \\", "--storage='s3://backup-101/logbackup"), ("br/backup-and-restore-use-cases.md", "tiup br log start --task-name=pitr")], ["tiup br log start"]),
    ("zh", "conceptual", "howto", "PITR 恢复到某个时间点用什么命令？",
     [(PITR_G, "如果你想恢复到备份保留期内的任意时间点", "--restored-ts '2022-05-15 18:00:00+0800'"),
      ("br/backup-and-restore-use-cases.md", "tiup br restore point --pd=", "--restored-ts '2022-05-15 18:00:00+0800'")],
     ["tiup br restore point", "--restored-ts"]),
    ("zh", "conceptual", "howto", "日志备份任务怎么先暂停，之后再继续跑？",
     [(PITR_M, "tiup br log pause --task-name=pitr --pd="), (PITR_M, "tiup br log resume --task-name=pitr --pd=")],
     ["tiup br log pause", "tiup br log resume"]),
    ("zh", "conceptual", "howto", "怎么查看日志备份任务现在的状态？",
     [(PITR_G, "如果你需要查询日志备份任务当前状态", "tiup br log status --task-name=pitr"),
      (PITR_M, "tiup br log status --task-name=pitr --pd=")], ["tiup br log status"]),
    ("zh", "conceptual", "howto", "清理过期的日志备份",
     [(PITR_G, "3. 清理该快照备份 `FULL_BACKUP_TS` 之前的日志备份数据。", "tiup br log truncate --until=${FULL_BACKUP_TS}"),
      (PITR_M, "tiup br log truncate --until='2022-07-26 21:20:00+0800'"), ("br/backup-and-restore-use-cases.md", "tiup br log truncate --until=")],
     ["tiup br log truncate --until="]),
    ("zh", "conceptual", "howto", "备份的时候怎么把表的统计信息一起备份？",
     [(SNAP_M, "下面是备份集群快照数据并备份表统计信息的示例", 120)], ["--ignore-stats=false"]),
    ("zh", "conceptual", "howto", "备份数据怎么加密？",
     [(SNAP_M, "自 TiDB v5.3.0 起，你可配置下列参数在备份过程中实现数据加密", "--crypter.key 0123456789abcdef")],
     ["--crypter.method", "--crypter.key"]),
    ("zh", "conceptual", "howto", "想知道某个快照备份对应的是哪个时间点，怎么查？",
     [(SNAP_G, "## 查询快照备份的时间点信息", "435844546560000000"),
      (PITR_G, "2. 使用 `validate` 指令获取该备份对应的时间点", "FULL_BACKUP_TS=`tiup br validate decode")], ['tiup br validate decode --field="end-version"']),
    ("zh", "conceptual", "howto", "关闭批量建表",
     [(("br/br-batch-create-table.md"), "如果需要关闭此功能", "--ddl-batch-size=1")], ["--ddl-batch-size=1"]),
    ("zh", "conceptual", "howto", "不重启集群，怎么打开或关闭备份自动调节？",
     [("br/br-auto-tune.md", "TiKV 支持[动态配置]", "tikv-ctl modify-tikv-config -n backup.enable-auto-tune")],
     ["tikv-ctl modify-tikv-config -n backup.enable-auto-tune"]),
    ("zh", "conceptual", "howto", "断点恢复做到一半不想继续了，GC 还停着，怎么手动打开？",
     [("br/br-checkpoint-restore.md", "br 工具暂停 GC 的原理是")], ["SET config tikv gc.ratio-threshold = 1.1"]),
    ("zh", "conceptual", "howto", "本机想起一个 3 个 TiKV 的测试集群，怎么启动？",
     [(PLAYGROUND, "### 启动多个组件实例", "tiup playground --db 3 --pd 3 --kv 3")], ["tiup playground", "--kv 3"]),
    ("zh", "conceptual", "howto", "playground 集群退出以后数据还想留着，怎么办？",
     [(PLAYGROUND, "### 启动集群时指定 `tag` 以保留数据", "tiup playground --tag ${tag_name}")], ["tiup playground --tag"]),
    ("zh", "conceptual", "howto", "改了集群配置以后怎么让它生效？",
     [(CLUSTER, "如果想要动态更新组件的配置", "tiup cluster reload prod-cluster"),
      ("tiup/tiup-component-cluster-edit-config.md", "在部署集群之后，如果需要再调整集群服务的配置", "要应用配置需要执行 `tiup cluster reload` 命令")],
     ["tiup cluster edit-config", "tiup cluster reload"]),
    ("zh", "conceptual", "howto", "缩容一个 TiKV 节点的命令",
     [(CLUSTER, "缩容命令的基本用法", "tiup cluster scale-in <cluster-name> -N <node-id>"),
      (SCALE_IN, "## 语法", "tiup cluster scale-in <cluster-name> [flags]"),
      (CLUSTER, "比如想缩容 172.16.5.140 上的 TiKV 节点", "tiup cluster scale-in prod-cluster -N 172.16.5.140:20160")], ["tiup cluster scale-in"]),
    ("zh", "conceptual", "howto", "节点所在的机器已经宕机，SSH 连不上，怎么把它从集群里移除？",
     [(SCALE_IN, "### --force", "选项强制将其从集群中移除")], ["--force"]),
    ("zh", "conceptual", "howto", "怎么关闭透明大页？",
     [(CHECK, "### THP（透明大页）", "echo never > /sys/kernel/mm/transparent_hugepage/enabled")],
     [["echo never > /sys/kernel/mm/transparent_hugepage/enabled", 'grubby --update-kernel=ALL --args="transparent_hugepage=never"']]),
    ("zh", "conceptual", "howto", "部署前怎么检查机器环境，还能自动修复不合格的项？",
     [(CLUSTER, "使用 `check` 子命令可以对部署机的环境进行一系列检查", "tiup cluster check <cluster-name> --cluster"),
      (CLUSTER, "在运行检测时，若指定了 `--apply` 参数"),
      (CHECK, "tiup cluster check <topology.yml | cluster-name> [flags]"), (CHECK, "### --apply", "- 尝试自动修复失败的检查项")],
     ["tiup cluster check", "--apply"]),
    ("zh", "conceptual", "howto", "用 MySQL 客户端怎么连 TiDB？",
     [(MANAGE_FAQ, "### TiDB 如何登录？", "mysql -h 127.0.0.1 -uroot -P4000")], ["mysql -h 127.0.0.1 -uroot -P4000"]),
    ("zh", "conceptual", "howto", "Prometheus 监控数据想保留两个月，怎么改？",
     [(MONITOR_FAQ, "可以的，在 Prometheus 启动的机器上", '--storage.tsdb.retention="60d"')], ['--storage.tsdb.retention="60d"']),
    ("zh", "conceptual", "howto", "怎么用 fio 测 TiKV 磁盘的随机读性能？",
     [(DEPLOY_FAQ, "- 随机读测试：", "-rw=randread")], ["-rw=randread"]),
    ("zh", "conceptual", "howto", "一直卡着的 DDL 怎么取消掉？",
     [(MANAGE_FAQ, "- Kill DDL 语句：执行 `admin show ddl jobs`")], ["admin cancel ddl jobs"]),
    ("zh", "conceptual", "howto", "第一次部署时忘了配 TiKV 的 Label，后面怎么补上？",
     [(DEPLOY_FAQ, "TiDB 的 Label 设置是与集群的部署架构相关的")], ["config set location-labels"]),
    ("zh", "conceptual", "howto", "副本数想从 3 改成 5，怎么操作？",
     [(MANAGE_FAQ, "可以，目前只能调整全局的 replica 数量")], ["config set max-replicas"]),
    ("zh", "conceptual", "howto", "让 TiUP 用系统自带的 ssh",
     [(CLUSTER, "此时可以通过命令行参数 `--ssh=system` 启用系统自带命令行", "export TIUP_NATIVE_SSH=enable")],
     [["--ssh=system", "TIUP_NATIVE_SSH"]]),
    ("zh", "conceptual", "howto", "怎么查看一张表是什么时候创建的？",
     [(MANAGE_FAQ, "information_schema 库中的 tables 表里的 create_time")], ["create_time"]),
    # ---------------- 查值 ----------------
    ("zh", "exact", "lookup", "tidb_gc_life_time 默认值是多少？",
     [(SQL_FAQ, "要配置历史数据的保留时限，你可以修改系统变量")], ["10m0s"]),
    ("zh", "exact", "lookup", "一个事务里最多能有多少条语句？",
     [(SQL_FAQ, "一个事务中的语句数量，默认限制最大为 5000 条。")], ["5000"]),
    ("zh", "exact", "lookup", "scale-in 的 --transfer-timeout 默认多少秒？",
     [(SCALE_IN, "### --transfer-timeout（uint，默认 600）", "可以通过设置 `--transfer-timeout` 设置最长等待时间（单位为秒）")],
     ["600"]),
    ("zh", "exact", "lookup", "tidb_auto_analyze_ratio 默认是多少？",
     [(SQL_FAQ, "`tidb_auto_analyze_ratio` 的默认值为 `0.5`")], ["0.5"]),
    ("zh", "exact", "lookup", "慢查询的阈值默认是多少毫秒？",
     [(DEPLOY_FAQ, "`tidb_slow_log_threshold: 300`")], ["300"]),
    ("zh", "exact", "lookup", "playground 启动后 Grafana 的地址和默认密码是什么？",
     [(PLAYGROUND, "- Grafana：`http://127.0.0.1:3000`", "    - 默认密码：`admin`")], ["http://127.0.0.1:3000", "admin"]),
    ("zh", "exact", "lookup", "日志备份的 RPO 能做到多少？",
     [("br/backup-and-restore-overview.md", "并保证 Recovery Point Objective (RPO) 低至 5 分钟"),
      (BR_FAQ, "但 PITR 是制定数据库灾难恢复策略时必须考虑的数据安全基础")], ["5 分钟"]),
    ("zh", "exact", "lookup", "v5.4.0 以后 backup.num-threads 的默认值是多少？",
     [(BR_FAQ, "另外，自动调节功能减少了进行备份任务时默认使用的工作线程数量")], ["CPU * 0.5"]),
    ("zh", "exact", "lookup", "tiup cluster check 的内存检查要求多大内存才算通过？",
     [(CLUSTER, "- 内存：物理内存总大小大于等于 32 GB 为通过检查")], ["32 GB"]),
    ("zh", "exact", "lookup", "每个 TiDB 默认最多允许多少个连接？",
     [(MANAGE_FAQ, "默认情况下，每个 TiDB 服务器的最大连接数没有限制")], ["没有限制"]),
    # ---------------- 解释 ----------------
    ("zh", "conceptual", "explain", "恢复到一半中断了，要先删掉已经恢复的数据再重来吗？",
     [(BR_FAQ, "不需要。从 v7.1.0 起，BR 支持从断点恢复。")], ["不需要"]),
    ("zh", "conceptual", "explain", "用 BR 恢复完数据还需要手动 ANALYZE 吗？",
     [(BR_FAQ, "BR 不会备份统计信息（v4.0.9 除外）。")], ["ANALYZE TABLE"]),
    ("zh", "conceptual", "explain", "tiup cluster upgrade 能把集群降级吗？",
     [("tiup/tiup-component-cluster-upgrade.md", "即不允许降级"), ("tiup/tiup-component-dm-upgrade.md", "即不允许降级")], ["不允许降级"]),
    ("zh", "conceptual", "explain", "为什么测磁盘的 dd 命令要加 oflag=direct？",
     [(DEPLOY_FAQ, "Direct 模式就是把写入请求直接封装成 I/O 指令发到磁盘")], ["绕开文件系统的缓存"]),
    ("zh", "conceptual", "explain", "能不能同时跑好几个恢复任务往同一个集群里恢复？",
     [(BR_FAQ, "**强烈不建议**在单个集群中同时启动多个恢复任务进行数据恢复")], ["强烈不建议"]),
    # ---------------- 比较（gold[i] 对应第 i 方） ----------------
    ("zh", "conceptual", "comparison", "PITR 和 flashback 集群有什么区别，该选哪个？",
     [(BR_FAQ, "从使用场景角度来看，PITR 通常用于"), (BR_FAQ, "在大多数情况下，因为 flashback 具有更短的 RPO")],
     ["通过一个新的集群来完成数据恢复", "更短的 RPO"]),
    ("zh", "conceptual", "comparison", "leader-schedule-limit 和 region-schedule-limit 有什么区别？",
     [(MANAGE_FAQ, "- leader-schedule-limit 调度是用来均衡不同 TiKV 的 leader 数"),
      (MANAGE_FAQ, "- region-schedule-limit 调度是均衡不同 TiKV 的副本数")],
     ["均衡不同 TiKV 的 leader 数", "均衡不同 TiKV 的副本数"]),
    ("zh", "conceptual", "comparison", "监控里的 QPS 和 Statement OPS 有啥不一样？",
     [(MONITOR_FAQ, "QPS 会统计执行的所有 SQL 命令"), (MONITOR_FAQ, "Statement OPS 只统计 select、update、insert 等业务相关的")],
     ["QPS 会统计执行的所有 SQL 命令", "Statement OPS 只统计"]),
    ("zh", "conceptual", "comparison", "tiup br log pause 和 tiup br log stop 有什么不同？",
     [(PITR_M, "> - 暂停日志备份任务后，备份程序为了防止生成变更日志的 MVCC 数据被删除"),
      (PITR_M, "执行 `tiup br log stop` 命令，可以停止日志备份任务，该命令会清理备份集群中的任务元信息。")],
     ["24 小时", "清理备份集群中的任务元信息"]),
    # ---------------- 哪些页面提到 / 哪个页面讲 ----------------
    ("zh", "file_discovery", "mention", "哪些文档提到了 --ddl-batch-size？",
     [("br/br-batch-create-table.md", "--ddl-batch-size"), (BR_FAQ, "--ddl-batch-size")],
     ["br/br-batch-create-table.md", BR_FAQ]),
    ("zh", "file_discovery", "mention", "哪些页面提到 TIUP_NATIVE_SSH？",
     [(CLUSTER, "TIUP_NATIVE_SSH")], [CLUSTER]),
    ("zh", "file_discovery", "mention", "哪些文档讲到了 tikv-ctl？",
     [(CLUSTER, "tikv-ctl"), (BR_FAQ, "tikv-ctl"), ("br/br-auto-tune.md", "tikv-ctl"), ("br/br-compact-log-backup.md", "tikv-ctl")],
     [CLUSTER, BR_FAQ, "br/br-auto-tune.md", "br/br-compact-log-backup.md"]),
    ("zh", "file_discovery", "file", "断点恢复的说明在哪个文件？",
     [("br/br-checkpoint-restore.md", "# 断点恢复")], ["br/br-checkpoint-restore.md"]),
    ("zh", "file_discovery", "file", "tiup mirror clone 的用法在哪一页？",
     [("tiup/tiup-command-mirror-clone.md", "# tiup mirror clone"), ("tiup/tiup-mirror.md", "# 搭建私有镜像")],
     [["tiup/tiup-command-mirror-clone.md", "tiup/tiup-mirror.md"]]),
    ("zh", "file_discovery", "file", "备份恢复的监控告警规则在哪个文档？",
     [("br/br-monitoring-and-alert.md", "# 备份恢复监控告警")], ["br/br-monitoring-and-alert.md"]),
    # ---------------- 无答案（语料里没有；grep -ril 已核对） ----------------
    ("zh", "conceptual", "unanswerable", "BR 怎么把数据备份到阿里云 OSS？", [], []),
    ("zh", "conceptual", "unanswerable", "Dumpling 怎么把表导出成 CSV 文件？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么创建资源组并设置 RU_PER_SEC？", [], []),
    ("zh", "conceptual", "unanswerable", "如何开启 TiFlash 的 MPP 模式？", [], []),
    ("zh", "conceptual", "unanswerable", "TiDB 的慢查询日志怎么接入 ELK？", [], []),
    ("zh", "exact", "unanswerable", "tidb_mem_quota_query 默认是多少？", [], []),
    ("zh", "conceptual", "unanswerable", "TiDB 怎么配置 LDAP 认证？", [], []),
    ("zh", "exact", "unanswerable", "max_allowed_packet 默认多大？", [], []),
    ("zh", "conceptual", "unanswerable", "怎么用 TiCDC 创建一个同步到 Kafka 的 changefeed？", [], []),
    ("zh", "conceptual", "unanswerable", "DM 任务的 binlog 过滤规则怎么写？", [], []),
    ("zh", "conceptual", "unanswerable", "TiUP 下载组件时怎么走 HTTP 代理？", [], []),
    # ================= English questions over the Chinese pages =================
    ("en", "conceptual", "howto", "How do I restore only one table from a BR snapshot backup?",
     [(SNAP_G, "要将备份数据中的某张数据表恢复到集群中", "--table \"usertable\""),
      (SNAP_M, "### 恢复单张表的数据", "--log-file restore_table.log")], ["tiup br restore table"]),
    ("en", "conceptual", "howto", "how to back up just one database with br",
     [(SNAP_M, "### 备份单个数据库的数据", "--log-file backuptable.log")], ["tiup br backup db"]),
    ("en", "conceptual", "howto", "How do I update TiUP itself?",
     [("tiup/tiup-component-management.md", "tiup update --self"), ("tiup/tiup-overview.md", "$ tiup update --self")], ["tiup update --self"]),
    ("en", "exact", "lookup", "What is BR's default --ddl-batch-size?",
     [("br/br-batch-create-table.md", "默认设置了 `--ddl-batch-size=128`")], ["128"]),
    ("en", "conceptual", "comparison", "Snapshot backup vs log backup in TiDB: what does each one capture?",
     [("br/backup-and-restore-overview.md", "- 快照数据备份：TiDB 集群快照数据包含某个物理时间点上"),
      ("br/backup-and-restore-overview.md", "- 开启[日志备份](/br/br-pitr-guide.md#开启日志备份)任务后")],
     ["某个物理时间点", "以小批量的形式定期将 TiDB 变更数据备份"]),
    ("en", "file_discovery", "mention", "Which pages mention sshpass?", [(CLUSTER, "sshpass")], [CLUSTER]),
    ("en", "file_discovery", "file", "Which page documents the DM cluster topology file?",
     [("tiup/tiup-dm-topology-reference.md", "# 通过 TiUP 部署 DM 集群的拓扑文件配置")], ["tiup/tiup-dm-topology-reference.md"]),
    ("en", "conceptual", "unanswerable", "How do I back up a TiDB cluster to HDFS with br?", [], []),
    ("en", "conceptual", "unanswerable", "How do I deploy TiDB Binlog's Pump and Drainer with TiUP?", [], []),
]


def main() -> int:
    return cli(__doc__, DEFAULT_CORPUS, "zd", Q, HERE / "zhdocs.jsonl")


if __name__ == "__main__":
    raise SystemExit(main())
